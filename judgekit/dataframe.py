"""Hand results to pandas: one row per scored result, with the audit verdict when present.

pandas is an optional dependency (``pip install 'judgekit[dataframe]'``); it is imported
only when a frame is asked for.

Example:
    >>> import judgekit                                      # doctest: +SKIP
    >>> df = judgekit.to_dataframe(judgekit.evaluate(["examples/bobbin"]))  # doctest: +SKIP
    >>> df.groupby("arm")["f1"].mean()                       # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from judgekit.audit.records import AuditRecord
from judgekit.audit.kind import AUDIT
from judgekit.errors import ConfigError
from judgekit.report.judged import verdict_of
from judgekit.report.load import ReportInputs, load_report_dir
from judgekit.ingest.models import ResultKey
from judgekit.pairwise.kind import PAIRWISE

if TYPE_CHECKING:
    import pandas

    from judgekit.evaluate import EvalResult

#: Columns of the ``results`` table, in order (audit columns follow when an audit ran).
RESULT_COLUMNS: tuple[str, ...] = (
    "run_id", "task_id", "arm", "attempt", "model", "test_status", "test_reason", "tests_run",
    "framework", "precision", "recall", "f1", "precision_source", "recall_source", "f1_source",
    "n_files_touched", "n_ground_truth_files",
    "duration_s", "cost_usd", "harness_status", "diff_similarity",
)
AUDIT_COLUMNS: tuple[str, ...] = (
    "audit_state", "audit_score", "audit_deficiency_exists", "audit_deficiency_caused_failure",
    "audit_deficiency_type", "audit_evidence_verified", "audit_tries",
)
PAIRWISE_COLUMNS: tuple[str, ...] = (
    "task_id", "arm_a", "arm_b", "dimension", "winner", "order1", "order2", "position_bias",
    "state",
)

Table = Literal["results", "pairwise", "audit"]


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ConfigError("to_dataframe needs pandas: pip install 'judgekit[dataframe]'") from None
    return pandas


def _audit_cols(rec: AuditRecord | None) -> dict[str, Any]:
    if rec is None:
        return dict.fromkeys(AUDIT_COLUMNS)
    v = verdict_of(rec)
    return {"audit_state": rec.state, "audit_score": v.score,
            "audit_deficiency_exists": v.deficiency_exists,
            "audit_deficiency_caused_failure": v.deficiency_caused_failure,
            "audit_deficiency_type": v.deficiency_type,
            "audit_evidence_verified": rec.evidence_verified,
            "audit_tries": rec.tries}


def result_rows(inputs: ReportInputs) -> list[dict[str, Any]]:
    """The rows of the ``results`` table as plain dictionaries (no pandas needed)."""
    audit: dict[ResultKey, AuditRecord] = {}
    for rec in inputs.audit:
        key = ResultKey.of(rec)
        audit[key] = rec
        audit.setdefault(key._replace(run_id=None), rec)
    rows = []
    for r in inputs.summary.results:
        data = r.model_dump()
        row = {c: data.get(c) for c in RESULT_COLUMNS}
        row["n_files_touched"] = len(r.files_touched)
        row["n_ground_truth_files"] = len(r.ground_truth_files)
        if inputs.audit:
            key = ResultKey.of(r)
            row.update(_audit_cols(audit.get(key) or audit.get(key._replace(run_id=None))))
        rows.append(row)
    return rows


def pairwise_rows(inputs: ReportInputs) -> list[dict[str, Any]]:
    """One row per compared pair and dimension, from the pairwise records."""
    return [{"task_id": rec.task_id, "arm_a": rec.arm_a, "arm_b": rec.arm_b, "dimension": dim,
             "winner": d.winner, "order1": d.order1, "order2": d.order2,
             "position_bias": d.position_bias, "state": d.state}
            for rec in inputs.pairwise for dim, d in rec.dimensions.items()]


def to_dataframe(result: EvalResult | ReportInputs | str | Path,
                 table: Table = "results") -> pandas.DataFrame:
    """A pandas ``DataFrame`` of an evaluation, of an output directory, or of its inputs.

    ``table="results"`` (default): one row per scored result, columns
    :data:`RESULT_COLUMNS` plus :data:`AUDIT_COLUMNS` when an audit ran.
    ``table="pairwise"``: one row per compared pair and dimension (:data:`PAIRWISE_COLUMNS`).
    ``table="audit"``: the audit records, one row each, verdict fields flattened.
    """
    pd = _pandas()
    if isinstance(result, (str, Path)):
        inputs = load_report_dir(result)
    elif isinstance(result, ReportInputs):
        inputs = result
    else:
        inputs = ReportInputs.from_result(result)
    if table == "results":
        cols = list(RESULT_COLUMNS) + (list(AUDIT_COLUMNS) if inputs.audit else [])
        return pd.DataFrame(result_rows(inputs), columns=cols)
    if table == PAIRWISE.name:
        return pd.DataFrame(pairwise_rows(inputs), columns=list(PAIRWISE_COLUMNS))
    if table == AUDIT.name:
        rows = [{"task_id": r.task_id, "arm": r.arm, "attempt": r.attempt, **_audit_cols(r)}
                for r in inputs.audit]
        return pd.DataFrame(rows, columns=["task_id", "arm", "attempt", *AUDIT_COLUMNS])
    raise ConfigError(f"unknown table {table!r}: use results, pairwise or audit")
