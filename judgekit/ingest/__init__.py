"""Run results: the format, the adapters and the loader."""

from judgekit.ingest.load import LoadResult, iter_results, load_file, load_runs, load_runs_result, write_jsonl
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

__all__ = ["TEST_STATUSES", "LoadResult", "RunFile", "RunResult", "Task", "TestCounts",
           "TestResult", "TestStatus", "Usage", "iter_results", "load_file", "load_runs",
           "load_runs_result", "write_jsonl"]
