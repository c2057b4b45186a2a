"""Secret values out of everything a run stores: results, kept logs and transcripts.

The values of the variables given to agents and tests whose names look secret (see
:func:`judgekit.engine.redact.looks_secret`), and of judgekit's own provider keys, are
replaced by ``[REDACTED:NAME]`` in every string of a result (diff, outputs, transcript,
errors, metadata). Each result counts what was replaced in ``metadata["redactions"]``
(name: number of occurrences).

Example:
    >>> from judgekit.runs.models import RunResult, Task
    >>> r = RunResult(task=Task(id="t1"), arm="a", transcript="key is k-123456")
    >>> out = redact_result(r, Redactor([("MY_TOKEN", "k-123456")]))
    >>> out.transcript, out.metadata["redactions"]
    ('key is [REDACTED:MY_TOKEN]', {'MY_TOKEN': 1})
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from judgekit.engine.redact import Redactor, provider_keys
from judgekit.runner.environment import CommandEnv
from judgekit.runs.models import RunResult

REDACTIONS_KEY = "redactions"
"""The key of a result's ``metadata`` that counts its redactions per variable name."""


def redactor_for(env: CommandEnv) -> Redactor:
    """A redactor of ``env``'s secret variables and of this process's provider keys."""
    return Redactor([*env.secrets(), *provider_keys().items()])


def redact_result(result: RunResult, redactor: Redactor) -> RunResult:
    """``result`` with every secret value replaced; the counts added to its metadata."""
    if not redactor:
        return result
    before = dict(redactor.counts)
    clean = RunResult.model_validate(redactor.data(result.model_dump(mode="json")))
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
