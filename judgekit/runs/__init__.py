"""Run results: the format, the adapters and the loader."""

from judgekit.runs.load import load_file, load_runs, write_jsonl
from judgekit.runs.models import (
    TEST_STATUSES,
    RunFile,
    RunResult,
    Task,
    TestCounts,
    TestResult,
    TestStatus,
    Usage,
)

__all__ = ["TEST_STATUSES", "RunFile", "RunResult", "Task", "TestCounts", "TestResult",
           "TestStatus", "Usage", "load_file", "load_runs", "write_jsonl"]
