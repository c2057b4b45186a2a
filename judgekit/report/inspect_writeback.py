"""Verdicts written back into Inspect logs: a copy of each ``.eval`` (or ``.json``) log whose
samples carry judgekit's results as Inspect scores, so ``inspect view`` and
``inspect_ai.log.read_eval_log`` show them beside the eval's own.

Each sample is matched to the result judgekit read from it (its eval, sample id and epoch);
its scores, each with an explanation:

* ``judgekit_tests``: the test status as judgekit read it (``passed``, ``failed``,
  ``unknown``, ...), the reason as explanation;
* ``judgekit_pairwise/DIMENSION/vs/ARM``: for each pair of ``pairwise.jsonl`` the sample is
  in, ``win``, ``loss`` or ``draw`` for this sample's arm against the other (``unscored``
  where the judge gave no valid verdict), the judge's reasoning as explanation;
* ``judgekit_audit``: the audit's score (0 or 1) from ``audit.jsonl``, its category as the
  answer, the reasoning as explanation;
* ``judgekit_integrity``: the number of findings on the sample in ``integrity.jsonl`` where
  the evaluation folder has one (its records read as the integrity step writes them), each
  finding a line of the explanation: ``KIND (SEVERITY): DETAIL [WHERE; CONFIRMATION]``.

The original log is never changed unless ``in_place`` is asked for; a copy is written under
the destination folder with the log's own name. Inspect (the ``inspect`` extra) is needed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit.errors import InputError
from judgekit.ingest.load import load_runs
from judgekit.ingest.models import RunResult
from judgekit.integrity.kind import INTEGRITY as INTEGRITY_STEP
from judgekit.integrity.models import Finding, IntegrityRecord
from judgekit.scoring.outcomes import classify_result

Key = tuple[str, str, int]
PAIRWISE = "pairwise.jsonl"
AUDIT = "audit.jsonl"


@dataclass
class WriteBack:
    """What was written: each copy, and counts of samples and scores."""

    written: list[Path] = field(default_factory=list)
    samples: int = 0
    samples_scored: int = 0
    scores: int = 0
    unmatched: int = 0
    by_kind: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            raise InputError(path, None, f"line {n} is not JSON") from None
        if not isinstance(value, dict):
            raise InputError(path, None, f"line {n} is not an object")
        out.append(value)
    return out


def _key(record: dict[str, Any], arm: str, attempt: str, path: Path) -> Key:
    try:
        return (str(record["task_id"]), str(record[arm]), int(record[attempt]))
    except (KeyError, TypeError, ValueError):
        raise InputError(path, arm, "a record without task_id, arm and attempt") from None


def _pairwise(out: Path) -> dict[Key, list[tuple[str, Any, str]]]:
    """Scores by result: (name, value, explanation)."""
    path = out / PAIRWISE
    found: dict[Key, list[tuple[str, Any, str]]] = defaultdict(list)
    for record in _jsonl(path):
        a = _key(record, "arm_a", "attempt_a", path)
        b = _key(record, "arm_b", "attempt_b", path)
        for dim, verdict in (record.get("dimensions") or {}).items():
            winner = verdict.get("winner")
            valid = verdict.get("state") == "valid"
            why = "; ".join(str(verdict[k]) for k in ("reasoning1", "reasoning2")
                            if verdict.get(k))
            if record.get("identical"):
                why = "the same change in both arms: a draw without a call"
            for me, other in ((a, b), (b, a)):
                value = ("unscored" if not valid else "draw" if winner == "draw"
                         else "win" if winner == me[1] else "loss")
                name = f"judgekit_pairwise/{dim}/vs/{other[1]}"
                found[me].append((name, value, f"{dim}: {value} against {other[1]} "
                                                f"(attempt {other[2]}). {why}".strip()))
    return found


def _audit(out: Path) -> dict[Key, list[tuple[str, Any, str, str | None]]]:
    path = out / AUDIT
    found: dict[Key, list[tuple[str, Any, str, str | None]]] = defaultdict(list)
    for record in _jsonl(path):
        key = _key(record, "arm", "attempt", path)
        verdict = record.get("verdict") or {}
        if record.get("state") != "valid" or not verdict:
            found[key].append(("judgekit_audit", "unscored",
                               str(record.get("reason") or record.get("state")), None))
            continue
        why = " ".join(str(verdict.get(k) or "") for k in ("existence_reasoning",
                                                           "causation_reasoning")).strip()
        found[key].append(("judgekit_audit", verdict.get("score"), why,
                           record.get("deficiency_type")))
    return found


def _finding_line(finding: Finding, record: IntegrityRecord) -> str:
    line = f"{finding.kind} ({finding.severity}): {finding.detail}"
    where = finding.evidence.where()
    return f"{line} [{where}; {record.confirmation}]" if where else \
        f"{line} [{record.confirmation}]"


def _integrity(out: Path) -> dict[Key, list[str]]:
    """Findings by result, one line each, read as the integrity step writes them."""
    path = out / (INTEGRITY_STEP.records_file or "integrity.jsonl")
    found: dict[Key, list[str]] = defaultdict(list)
    for n, value in enumerate(_jsonl(path), 1):
        try:
            record = INTEGRITY_STEP.read_record(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            raise InputError(path, field, f"record {n}: {err['msg']}") from None
        key = (record.task_id, record.arm, record.attempt)
        found[key].extend(_finding_line(f, record) for f in record.findings)
    return found


def _sample_key(result: RunResult) -> tuple[str, str, int] | None:
    meta = result.metadata
    if "eval_id" not in meta or "sample_id" not in meta:
        return None
    return (str(meta["eval_id"]), str(meta["sample_id"]), int(meta.get("epoch") or 1))


def write_back(out: Path, logs: Sequence[Path], dest: Path | None, *,
               in_place: bool = False) -> WriteBack:
    """Write each of ``logs`` again, with judgekit's results from the evaluation folder
    ``out`` as scores on its samples: to ``dest`` (a folder), or over the log itself when
    ``in_place``."""
    try:
        from inspect_ai.log import read_eval_log, write_eval_log
        from inspect_ai.scorer import Score
    except ImportError:
        raise InputError("(inspect)", None, "writing back into Inspect logs needs Inspect: "
                                            "pip install 'judgekit[inspect]'") from None
    if not out.is_dir():
        raise InputError(out, None, "not an evaluation folder (the output folder of judgekit judge, audit or score)")
    pairwise, audit, integrity = _pairwise(out), _audit(out), _integrity(out)
    results = load_runs(list(logs))
    by_sample: dict[tuple[str, str, int], RunResult] = {}
    for r in results:
        key = _sample_key(r)
        if key is not None:
            by_sample[key] = r
    report = WriteBack()
    for log_path in logs:
        try:
            log = read_eval_log(str(log_path))
        except Exception as exc:  # Inspect's own reader decides what is a log
            raise InputError(log_path, None, f"not an Inspect log Inspect can read: "
                                             f"{type(exc).__name__}: {exc}") from None
        for sample in log.samples or []:
            report.samples += 1
            result = by_sample.get((log.eval.eval_id, str(sample.id), int(sample.epoch or 1)))
            if result is None:
                report.unmatched += 1
                continue
            key = (result.task_id, result.arm, result.attempt)
            scores = dict(sample.scores or {})
            outcome = classify_result(result)
            scores["judgekit_tests"] = Score(value=outcome.status, explanation=outcome.reason)
            report.by_kind["tests"] += 1
            for name, value, why in pairwise.get(key, []):
                scores[name] = Score(value=value, explanation=why)
                report.by_kind["pairwise"] += 1
            for name, value, why, category in audit.get(key, []):
                scores[name] = Score(value=value, answer=category, explanation=why)
                report.by_kind["audit"] += 1
            findings = integrity.get(key)
            if findings is not None:
                scores["judgekit_integrity"] = Score(value=len(findings),
                                                     explanation="\n".join(findings))
                report.by_kind["integrity"] += 1
            report.scores += len(scores) - len(sample.scores or {})
            report.samples_scored += 1
            sample.scores = scores
        target = log_path if in_place else _copy_path(log_path, dest or out / "inspect-logs")
        write_eval_log(log, str(target))
        report.written.append(target)
    return report


def _copy_path(log: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / log.name
    if target.resolve() == log.resolve():
        raise InputError(target, None, "the copy would overwrite the original log: choose "
                                       "another folder, or ask for {option:in_place}")
    return target


__all__ = ["WriteBack", "write_back"]
