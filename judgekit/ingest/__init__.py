"""Run results: the format, the adapters and the loader."""

from judgekit.ingest.load import LoadReport, iter_results, load_file, load_runs, load_runs_report, write_jsonl
from judgekit.ingest.models import (
    TEST_STATUSES,
    RunFile,
    RunResult,
    Task,
    TestCounts,
    TestResult,
    TestStatus,
    Usage,
)

__all__ = ["TEST_STATUSES", "LoadReport", "RunFile", "RunResult", "Task", "TestCounts",
           "TestResult", "TestStatus", "Usage", "iter_results", "load_file", "load_runs",
           "load_runs_report", "write_jsonl"]
