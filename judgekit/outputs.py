"""The names of the files of an evaluation's output directory that belong to no one step.

Each step's own records file is named by its descriptor
(:attr:`judgekit.steps.StepKind.records_file`); the files below are the evaluation's.

Example:
    >>> SUMMARY_FILE, RESULTS_FILE
    ('summary.json', 'results.jsonl')
"""

from __future__ import annotations

#: the typed summary (:class:`judgekit.summary.EvalSummary`).
SUMMARY_FILE = "summary.json"
#: one scored result a line (the scoring step's records).
RESULTS_FILE = "results.jsonl"
#: one loaded run result a line (diffs, test output): what the reports and re-judging read.
RUNS_FILE = "runs.jsonl"
#: the reports.
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
#: what ``judgekit calibrate`` found, kept beside the output it measured.
CALIBRATION_FILE = "calibration.json"
#: the folder where ``judgekit review`` keeps the labels given (one file per step,
#: named as the step's records file).
LABELS_DIR = "labels"

__all__ = ["CALIBRATION_FILE", "LABELS_DIR", "REPORT_HTML", "REPORT_MD", "RESULTS_FILE", "RUNS_FILE",
           "SUMMARY_FILE"]
