"""Inspect AI eval logs (``.eval`` and ``.json``), read through inspect_ai's own log API.

Needs the ``inspect`` extra (``pip install 'judgekit[inspect]'``); inspect_ai is imported
only when a log is actually read. Each sample (and epoch) becomes one result: its task id is
the eval's task name and the sample id (``swe_bench/django__django-11099``), the eval's
model serves it, its scores give ``success`` (see :func:`success_of`), its message history
the transcript, and its target, scorer explanations and error the materials.

The agent's patch and the fix are looked up where Inspect coding evals keep them (see
:mod:`judgekit.ingest.adapters.inspect_patches`): a sample scored by judgekit's own scorer is
the run result that scorer kept, taken as it is. The arm comes from what tells the evals
apart (see :mod:`judgekit.ingest.adapters.inspect_arms`); the loader hands every result of
every log to :meth:`InspectAdapter.settle` once all are read, which keeps the latest log's
samples of a retried eval, names the arms left open and says how many samples held no patch
or no fix.

An ``.eval`` archive is checked before inspect_ai opens it: each member is decompressed as a
stream and counted, never held, and nothing of the archive is read whole before that. A
sample's member (``samples/ID_epoch_N.json``) that decompresses to more than
:data:`MAX_MEMBER_BYTES` is left unread, as a run file's result too long to read whole is
read cut: the other samples are read from a copy of the archive without it, and the sample
becomes a result from its summary (its id, epoch, scores, error and metadata, which the
archive keeps apart), marked in ``truncated["sample"]`` (``kept`` 0) and counted in a load
warning. Any other member over that cap, or an archive whose members (an unread one counted
up to the cap) decompress to more than :data:`MAX_ARCHIVE_BYTES`, refuses the file in one
line: a small archive never fills memory however much it claims to hold.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Collection
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.adapters import inspect_patches as patches
from judgekit.ingest.adapters.inspect_arms import PENDING, EvalFacts, features_of, settle_arms
from judgekit.ingest.adapters.inspect_options import InspectOptions, show
from judgekit.ingest.adapters.inspect_retries import latest_of_retries
from judgekit.ingest.adapters.inspect_samples import (
    materials_of,
    sample_success,
    success_of,
    text_of,
    usage_of,
)
from judgekit.ingest.models import Cut, RunResult, Task

SUFFIXES = (".eval", ".json")
SAMPLES_PREFIX = "samples/"
"""Where an ``.eval`` archive keeps its samples, one member each: ``ID_epoch_N.json``."""
UNREAD_KEY = "sample"
"""The key of ``truncated`` that marks a sample too large to read."""
_HEADER_KEYS = {"version", "status", "eval"}
ARM_KEY = "arm"
MAX_MEMBER_BYTES = 256 * 1024 * 1024
"""Most bytes one member of an ``.eval`` archive may decompress to."""
MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024
"""Most bytes all the members of an ``.eval`` archive may decompress to together."""
_CHUNK = 1 << 20


_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
               OSError, RuntimeError, ValueError)


def _is_sample(name: str) -> bool:
    return name.startswith(SAMPLES_PREFIX) and name.endswith(".json") and "/" not in \
        name[len(SAMPLES_PREFIX):]


def check_archive(path: Path) -> dict[str, int]:
    """Check an ``.eval`` archive within the caps (each member counted as it is
    decompressed, whatever the archive's directory claims): the sample members too large to
    read, by name, with the bytes counted of each (just over the cap), to be left unread.
    Refuses the file when another member is over :data:`MAX_MEMBER_BYTES` or all of them
    over :data:`MAX_ARCHIVE_BYTES`; a file that is not a readable zip is left to
    inspect_ai's reader (an empty answer)."""
    total = 0
    oversized: dict[str, int] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                size = 0
                oversized.pop(info.filename, None)  # the last member of a name is read
                with archive.open(info) as member:
                    while chunk := member.read(_CHUNK):
                        size += len(chunk)
                        total += len(chunk)
                        if total > MAX_ARCHIVE_BYTES:
                            raise InputError(path, info.filename, "the archive decompresses "
                                             f"to more than {MAX_ARCHIVE_BYTES} bytes: "
                                             "refused")
                        if size > MAX_MEMBER_BYTES:
                            if not _is_sample(info.filename):
                                raise InputError(path, info.filename, "decompresses to more "
                                                 f"than {MAX_MEMBER_BYTES} bytes: refused")
                            oversized[info.filename] = size
                            break
    except _ZIP_ERRORS:
        return {}
    return oversized


def _without(path: Path, left_out: Collection[str], into: Path) -> Path:
    """A copy of the archive ``path`` without the members ``left_out`` (each other name's
    last member, copied as a stream)."""
    copy = into / path.name
    with zipfile.ZipFile(path) as src, \
            zipfile.ZipFile(copy, "w", compression=zipfile.ZIP_DEFLATED,
                            compresslevel=1) as dst:
        for name in dict.fromkeys(i.filename for i in src.infolist() if not i.is_dir()):
            if name in left_out:
                continue
            with src.open(name) as member, dst.open(name, "w", force_zip64=True) as out:
                shutil.copyfileobj(member, out, _CHUNK)
    return copy


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise InputError(path, None, "an Inspect AI log; reading it needs the inspect "
                                     "extra: pip install 'judgekit[inspect]'") from None
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # inspect_ai raises several kinds for a broken log
        reason = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        raise InputError(path, None, f"not a readable Inspect AI log: {reason[:200]}") from None


def _summaries(path: Path, copy: Path) -> list[Any]:
    """The samples' summaries the archive keeps apart from the samples (none if unreadable)."""
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        return list(read_eval_log_sample_summaries(str(copy)))
    except Exception:  # an archive without summaries: the samples are known by name only
        return []


def _read(path: Path) -> tuple[Any, dict[str, tuple[int, Any]]]:
    """The log, and each unread sample's member name with its bytes counted and summary."""
    # a bomb is refused whether or not the extra is installed
    oversized = check_archive(path) if path.suffix == ".eval" else {}
    if not oversized:
        return _read_log(path), {}
    with tempfile.TemporaryDirectory(prefix="judgekit-eval-") as tmp:
        try:
            copy = _without(path, oversized, Path(tmp))
        except _ZIP_ERRORS as exc:
            raise InputError(path, None, f"not a readable Inspect AI log: {exc}") from None
        log = _read_log(copy)
        summaries = {f"{SAMPLES_PREFIX}{s.id}_epoch_{s.epoch}.json": s
                     for s in _summaries(path, copy)}
    return log, {name: (size, summaries.get(name)) for name, size in oversized.items()}


def _value(meta: Any, key: str) -> str | None:
    value = meta.get(key) if isinstance(meta, dict) else None
    if value is None or value == "" or isinstance(value, (dict, list)):
        return None
    return value if isinstance(value, str) else show(value)


def _duration(sample: Any) -> float | None:
    total = sample.total_time
    return total if total is not None and total >= 0 else None


def _transcript(sample: Any) -> str | None:
    return text_of(sample.messages) if sample.messages else None


def _from_scorer(spec: Any, sample: Any, scorer: str, run: RunResult,
                 meta: dict[str, Any]) -> RunResult:
    """The run result judgekit's scorer kept, as it is; the log fills what it left empty,
    and a sample that errored is a harness error."""
    meta.update(agent_patch_from="judgekit_run", fix_from="judgekit_run",
                judgekit_scorer=scorer)
    error = getattr(sample, "error", None)
    failed = error is not None and not run.harness_failed
    return run.model_copy(update={
        "run_id": run.run_id or spec.run_id, "model": run.model or spec.model,
        "transcript": run.transcript or _transcript(sample),
        "duration_s": run.duration_s if run.duration_s is not None else _duration(sample),
        "usage": run.usage or usage_of(sample), "timestamp": run.timestamp or spec.created,
        "materials": {**materials_of(sample), **run.materials},
        "harness_status": "error" if failed else run.harness_status,
        "harness_error": error.message if failed and error is not None else run.harness_error,
        "metadata": {**run.metadata, **meta}})


class InspectAdapter:
    """Reads Inspect AI logs; ``.eval`` archives arrive with ``document`` ``None``."""

    name = "inspect"

    def __init__(self, options: InspectOptions | None = None) -> None:
        self.options = options or InspectOptions()
        self._evals: dict[str, EvalFacts] = {}
        self._unread: list[str] = []

    def detect(self, path: Path | None, document: Any) -> bool:
        if document is None and path is not None:
            return path.suffix == ".eval"
        return (isinstance(document, dict) and _HEADER_KEYS <= set(document)
                and isinstance(document.get("eval"), dict)
                and "task" in document["eval"] and "model" in document["eval"])

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return False

    def load(self, path: Path, document: Any) -> list[RunResult]:
        log, unread = _read(path)
        spec = log.eval
        self._evals[spec.eval_id] = EvalFacts(spec.eval_id, spec.task, spec.model,
                                              str(spec.created), features_of(spec, log.plan),
                                              task_id=spec.task_id or "")
        results = [self._result(path, log, sample) for sample in log.samples or []]
        results += [self._unread_result(path, log, name, size, summary)
                    for name, (size, summary) in sorted(unread.items())]
        if unread:
            n = len(unread)
            self._unread.append(
                f"{n} Inspect AI sample{'s' if n != 1 else ''} of {path} decompress"
                f"{'' if n != 1 else 'es'} to more than {MAX_MEMBER_BYTES} bytes: not read "
                f"({', '.join(sorted(unread))}); scored from the scores of "
                f"{'their' if n != 1 else 'its'} summary, marked in truncated "
                f"('{UNREAD_KEY}'); the other {len(results) - n} scored as read")
        return results

    def _unread_result(self, path: Path, log: Any, name: str, size: int,
                       summary: Any) -> RunResult:
        """A sample too large to read, from its summary (or its member's name alone)."""
        spec = log.eval
        if summary is None:
            sample_id, _, epoch = name[len(SAMPLES_PREFIX):-len(".json")].rpartition("_epoch_")
            summary = SimpleNamespace(id=sample_id, epoch=int(epoch) if epoch.isdigit() else 1,
                                      scores=None, metadata=None, error=None, total_time=None,
                                      model_usage=None)
        error = summary.error
        message = getattr(error, "message", error)
        meta: dict[str, Any] = {"source_format": "inspect", "log_status": log.status,
                                "sample_id": summary.id, "epoch": summary.epoch,
                                "eval_id": spec.eval_id, "inspect_task": spec.task,
                                "unread_member": name}
        result = RunResult(
            run_id=spec.run_id, task=Task(id=f"{spec.task}/{summary.id}", tags=[spec.task]),
            arm=spec.model, attempt=max(0, (summary.epoch or 1) - 1), model=spec.model,
            success=sample_success(summary.scores), duration_s=_duration(summary),
            usage=usage_of(summary), harness_status="error" if error else "completed",
            harness_error=str(message) if error else None, timestamp=spec.created,
            metadata=meta, truncated={UNREAD_KEY: Cut(bytes=size, kept=0)})
        self._arm(result, path, spec, summary, scorer_arm=None)
        return result

    def settle(self, results: list[RunResult]) -> tuple[list[RunResult], list[str]]:
        """Leave out samples a retried eval's later log holds again, name the arms left
        open, and count the samples without a patch or a fix. Returns the results and the
        warnings."""
        ids = {r.metadata.get("eval_id") for r in results}
        evals = {k: self._evals.pop(k) for k in list(self._evals) if k in ids}
        results, warnings = latest_of_retries(results, evals)
        warnings.extend(settle_arms(results, evals))
        warnings.extend(self._missing(results))
        warnings.extend(self._unread)
        self._unread.clear()
        return results, warnings

    def _missing(self, results: list[RunResult]) -> list[str]:
        no_patch = [r for r in results if "agent_patch_from" not in r.metadata]
        no_fix = [r for r in results if "fix_from" not in r.metadata]
        patch_where, fix_where = patches.where_looked(self.options.patch_keys,
                                                      self.options.fix_keys)
        total = f"of {len(results)} Inspect AI sample{'s' if len(results) != 1 else ''}"
        out = []
        for missing, what, where in ((no_patch, "agent patch", patch_where),
                                     (no_fix, "fix", fix_where)):
            if not missing:
                continue
            errored = sum(1 for r in missing if r.harness_failed)
            note = f", {errored} of them errored" if errored else ""
            out.append(f"{len(missing)} {total} hold no {what} ({where}{note}): their file "
                       "scores (F1) are left empty")
        return out

    def _result(self, path: Path, log: Any, sample: Any) -> RunResult:
        spec = log.eval
        meta: dict[str, Any] = {"source_format": "inspect", "log_status": log.status,
                                "sample_id": sample.id, "epoch": sample.epoch,
                                "eval_id": spec.eval_id, "inspect_task": spec.task}
        embedded = patches.embedded_run(sample, path)
        if embedded is not None:
            result = _from_scorer(spec, sample, *embedded, meta)
        else:
            result = self._from_sample(path, spec, sample, meta)
        self._arm(result, path, spec, sample,
                  scorer_arm=embedded[1].arm if embedded is not None else None)
        return result

    def _from_sample(self, path: Path, spec: Any, sample: Any,
                     meta: dict[str, Any]) -> RunResult:
        """A sample's result, its patch and fix looked up where coding evals keep them."""
        fix = (patches.named(sample, self.options.fix_keys, path, empty_ok=False)
               or patches.metadata_fix(sample))
        patch = (patches.named(sample, self.options.patch_keys, path, empty_ok=True)
                 or patches.score_patch(sample) or patches.store_patch(sample))
        swe = patches.swebench_facts(sample)
        meta.update(swe.facts)
        if patch is not None:
            meta["agent_patch_from"] = patch.where
        if fix is not None:
            meta["fix_from"] = fix.where
        error = getattr(sample, "error", None)
        return RunResult(
            run_id=spec.run_id,
            task=Task(id=f"{spec.task}/{sample.id}", description=text_of(sample.input),
                      repo=swe.repo, tags=[spec.task]),
            arm=spec.model, attempt=max(0, (sample.epoch or 1) - 1), model=spec.model,
            agent_diff=patch.text if patch is not None else None,
            ground_truth_diff=fix.text if fix is not None else None,
            success=sample_success(sample.scores), transcript=_transcript(sample),
            materials={**materials_of(sample), **swe.materials}, duration_s=_duration(sample),
            usage=usage_of(sample),
            harness_status="error" if error is not None else "completed",
            harness_error=error.message if error is not None else None,
            timestamp=spec.created, metadata=meta)

    def _arm(self, result: RunResult, path: Path, spec: Any, sample: Any, *,
             scorer_arm: str | None) -> None:
        """The arm known from this eval alone, or :data:`PENDING` until every eval is read."""
        rule = self.options.arm_from
        sample_meta = getattr(sample, "metadata", None)
        arm: str | None
        if rule is not None and rule.kind == "model":
            arm, source = spec.model, "model"
        elif rule is not None and rule.kind == "metadata":
            key = str(rule.name)
            arm, source = _value(spec.metadata, key) or _value(sample_meta, key), f"metadata {key}"
            if arm is None:
                raise InputError(path, f"eval.metadata.{key}", "the key that names the arm is "
                                 f"in neither the eval's (or its task's) metadata nor the "
                                 f"metadata of sample {sample.id}")
        elif rule is not None:
            arm, source = rule.label(spec.task_args or {}), f"task argument {rule.name}"
            if arm is None:
                raise InputError(path, f"eval.task_args.{rule.name}", "the task argument "
                                 "that names the arm is not among this eval's task arguments")
        elif scorer_arm is not None:
            arm, source = scorer_arm, "judgekit scorer"
        elif (arm := _value(spec.metadata, ARM_KEY)) is not None:
            source = "eval metadata arm"
        elif (arm := _value(sample_meta, ARM_KEY)) is not None:
            source = "sample metadata arm"
        else:
            arm, source = result.arm, PENDING
        result.arm = arm
        result.metadata["arm_from"] = source


__all__ = ["InspectAdapter", "SUFFIXES", "success_of"]
