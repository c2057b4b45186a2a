"""Rubric audits of failed results: was the failure the benchmark item's fault (an
intrinsic formation error) or the agent's?

Every result whose test status is not ``passed`` is shown to a judge model with a rubric;
the verdict is checked for logic and for evidence quoted verbatim from the materials, then
aggregated per task to list suspected defective tasks.

Example:
    >>> from judgekit.audit import load_rubric, list_rubrics
    >>> [r.id for r in list_rubrics()]
    ['commit-revert', 'scienceagentbench', 'swe-bench']
    >>> load_rubric("scienceagentbench").category_name("task instruction ambiguity")
    'Task Instruction Ambiguity'
"""

from judgekit.audit.aggregate import aggregate_tasks, majority_score
from judgekit.audit.calibrate import (
    Calibration,
    LabelSet,
    calibrate,
    load_labels,
    load_verdicts,
    read_labels,
)
from judgekit.audit.checks import evidence_problems, extract_quotes, logical_problems
from judgekit.audit.condense import Condensed, condense
from judgekit.audit.materials import Materials, gather_materials
from judgekit.audit.models import AuditStepSummary, AuditStats, TaskAudit
from judgekit.audit.options import AuditOptions
from judgekit.audit.records import AuditRecord
from judgekit.audit.rubric import Category, Rubric, list_rubrics, load_rubric, parse_rubric
from judgekit.audit.step import AuditResult, run_audit, system_prompt
from judgekit.audit.verdict import VERDICT_FIELDS, Verdict, verdict_schema

__all__ = [
    "VERDICT_FIELDS", "AuditOptions", "AuditRecord", "AuditResult", "AuditStepSummary",
    "AuditStats", "Calibration", "Category",
    "LabelSet", "read_labels",
    "Condensed", "Materials", "Rubric", "TaskAudit", "Verdict",
    "aggregate_tasks", "calibrate", "condense", "evidence_problems",
    "extract_quotes", "gather_materials", "list_rubrics", "load_labels", "load_rubric",
    "load_verdicts", "logical_problems", "majority_score", "parse_rubric", "run_audit",
    "system_prompt", "verdict_schema",
]
