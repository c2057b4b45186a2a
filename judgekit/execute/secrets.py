"""Secret values out of everything a run stores: results, kept logs and transcripts.

The values of the variables given to agents and tests whose names look secret (see
:func:`judgekit.engine.redact.looks_secret`), and of judgekit's own provider keys, are
replaced by ``[REDACTED:NAME]`` in every string of a result that a command produced (diff,
outputs, transcript, errors, metadata); the fields judgekit itself fills in (the task, arm,
attempt, run id, model, sandbox, status, the fix's diff) are left as they are. Each result
counts what was replaced in ``metadata["redactions"]`` (name: number of occurrences).

A value shorter than :data:`MIN_SECRET_CHARS` is not redacted (``EMPTY``, ``none`` or
``test``, as local model servers take, would be replaced in ordinary text and file paths,
corrupting the diff the result is scored on); :func:`too_short` names such variables so the
caller can say so.

Example:
    >>> from judgekit.ingest.models import RunResult, Task
    >>> r = RunResult(task=Task(id="t1"), arm="a", transcript="key is k-1234567")
    >>> out = redact_result(r, Redactor([("MY_TOKEN", "k-1234567")]))
    >>> out.transcript, out.metadata["redactions"]
    ('key is [REDACTED:MY_TOKEN]', {'MY_TOKEN': 1})
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from judgekit.engine.redact import Redactor, provider_keys
from judgekit.execute.environment import CommandEnv
from judgekit.ingest.models import RunResult

REDACTIONS_KEY = "redactions"
"""The key of a result's ``metadata`` that counts its redactions per variable name."""

MIN_SECRET_CHARS = 8
"""Values shorter than this are not redacted (see the module notes)."""

OWN_FIELDS = frozenset({"run_id", "task", "arm", "attempt", "ground_truth_diff",
                        "ground_truth_files", "model", "harness_status", "sandbox",
                        "timestamp", "success"})
"""Fields of a result that judgekit fills in itself, never redacted."""


def _pairs(env: CommandEnv) -> list[tuple[str, str]]:
    return [*env.secrets(), *provider_keys().items()]


def redactor_for(env: CommandEnv) -> Redactor:
    """A redactor of ``env``'s secret variables and of this process's provider keys."""
    return Redactor([(n, v) for n, v in _pairs(env) if len(v) >= MIN_SECRET_CHARS])


def too_short(env: CommandEnv) -> list[str]:
    """Names of secret variables whose values are too short to be redacted."""
    return sorted({n for n, v in _pairs(env) if 0 < len(v) < MIN_SECRET_CHARS})


def redact_result(result: RunResult, redactor: Redactor) -> RunResult:
    """``result`` with every secret value replaced; the counts added to its metadata."""
    if not redactor:
        return result
    before = dict(redactor.counts)
    data = result.model_dump(mode="json")
    data.update({k: redactor.data(v) for k, v in data.items() if k not in OWN_FIELDS})
    clean = RunResult.model_validate(data)
    found = {name: n - before.get(name, 0) for name, n in redactor.counts.items()
             if n - before.get(name, 0)}
    if found:
        counts = dict(clean.metadata.get(REDACTIONS_KEY) or {})
        for name, n in found.items():
            counts[name] = int(counts.get(name, 0)) + n
        clean.metadata[REDACTIONS_KEY] = counts
    return clean


def redact_files(paths: Iterable[Path], redactor: Redactor) -> None:
    """Rewrite each text file in ``paths`` with its secret values replaced."""
    if not redactor:
        return
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        clean = redactor.text(text)
        if clean != text:
            path.write_text(clean, encoding="utf-8")


def total_redactions(results: Iterable[RunResult]) -> dict[str, int]:
    """Redactions per variable name over ``results``."""
    total: dict[str, int] = {}
    for result in results:
        for name, n in (result.metadata.get(REDACTIONS_KEY) or {}).items():
            total[name] = total.get(name, 0) + int(n)
    return total
