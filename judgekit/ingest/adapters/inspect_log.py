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
stream and counted, and a member that decompresses to more than :data:`MAX_MEMBER_BYTES` (or
an archive to more than :data:`MAX_ARCHIVE_BYTES`) refuses the file in one line, before
anything of it is held in memory: a small archive never fills memory however much it
claims to hold.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
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
from judgekit.ingest.models import RunResult, Task

SUFFIXES = (".eval", ".json")
_HEADER_KEYS = {"version", "status", "eval"}
ARM_KEY = "arm"
MAX_MEMBER_BYTES = 256 * 1024 * 1024
"""Most bytes one member of an ``.eval`` archive may decompress to."""
MAX_ARCHIVE_BYTES = 1024 * 1024 * 1024
"""Most bytes all the members of an ``.eval`` archive may decompress to together."""
_CHUNK = 1 << 20


def check_archive(path: Path) -> None:
    """Refuse an ``.eval`` archive whose members decompress to more than the caps (each
    counted as it is decompressed, whatever the archive's directory claims); a file that is
    not a readable zip is left to inspect_ai's reader."""
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                size = 0
                with archive.open(info) as member:
                    while chunk := member.read(_CHUNK):
                        size += len(chunk)
                        total += len(chunk)
                        if size > MAX_MEMBER_BYTES:
                            raise InputError(path, info.filename, "decompresses to more than "
                                             f"{MAX_MEMBER_BYTES} bytes: refused")
                        if total > MAX_ARCHIVE_BYTES:
                            raise InputError(path, info.filename, "the archive decompresses "
                                             f"to more than {MAX_ARCHIVE_BYTES} bytes: "
                                             "refused")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError,
            OSError, RuntimeError, ValueError):
        return


def _read(path: Path) -> Any:
    if path.suffix == ".eval":  # a bomb is refused whether or not the extra is installed
        check_archive(path)
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

    def detect(self, path: Path | None, document: Any) -> bool:
        if document is None and path is not None:
            return path.suffix == ".eval"
        return (isinstance(document, dict) and _HEADER_KEYS <= set(document)
                and isinstance(document.get("eval"), dict)
                and "task" in document["eval"] and "model" in document["eval"])

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return False

    def load(self, path: Path, document: Any) -> list[RunResult]:
        log = _read(path)
        spec = log.eval
        self._evals[spec.eval_id] = EvalFacts(spec.eval_id, spec.task, spec.model,
                                              str(spec.created), features_of(spec, log.plan),
                                              task_id=spec.task_id or "")
        return [self._result(path, log, sample) for sample in log.samples or []]

    def settle(self, results: list[RunResult]) -> tuple[list[RunResult], list[str]]:
        """Leave out samples a retried eval's later log holds again, name the arms left
        open, and count the samples without a patch or a fix. Returns the results and the
        warnings."""
        ids = {r.metadata.get("eval_id") for r in results}
        evals = {k: self._evals.pop(k) for k in list(self._evals) if k in ids}
        results, warnings = latest_of_retries(results, evals)
        warnings.extend(settle_arms(results, evals))
        warnings.extend(self._missing(results))
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
