"""SWE-bench: a predictions file plus the harness's evaluation logs.

- **Predictions** (``.json`` list or ``.jsonl``, or a JSON object keyed by instance id):
  ``instance_id``, ``model_name_or_path``, ``model_patch``.
- **Evaluation logs**, written by ``swebench.harness.run_evaluation`` under
  ``logs/run_evaluation/<run_id>/<model>/<instance_id>/`` (``<model>`` is
  ``model_name_or_path`` with ``/`` replaced by ``__``): ``report.json``
  (``{instance_id: {"resolved": ..., "patch_successfully_applied": ...,
  "tests_status": {"FAIL_TO_PASS": {"success": [...], "failure": [...]},
  "PASS_TO_PASS": {...}}}}``), ``test_output.txt`` and ``run_instance.log`` beside it.
  Found in ``logs/run_evaluation`` beside the predictions file, or in the logs directory
  the adapter is given (``swebench_logs`` of :func:`~judgekit.ingest.adapters.make_adapters`).
- **The experiments layout** (a submission to the SWE-bench experiments repository):
  ``evaluation/<split>/<submission>/{all_preds.jsonl|preds.json, logs/<instance_id>/
  {report.json, test_output.txt, patch.diff}, trajs/, results/results.json}``. Each
  instance's ``logs/<instance_id>/report.json`` beside the predictions is the harness's
  report for it (no run id); ``results/results.json`` (``resolved``, ``no_generation``,
  ``applied``, ``no_apply``, ``install_fail``, ``reset_failed``) is its summary report.
- **Summary report** ``<model>.<run_id>.json`` beside the predictions (``resolved_ids``,
  ``unresolved_ids``, ``empty_patch_ids``, ``error_ids``, ``infra_failure_ids``): used for
  instances that have no ``report.json``. A report the harness flagged ``infra_failure``
  (no parseable test output, environment at fault) is a harness error, not a failed patch.
- **Trajectories**: ``trajs/<instance>.traj`` (or any session file named by the instance)
  beside the predictions, as SWE-bench submissions keep them, or ``<instance>/<instance>.traj.json``
  beside a mini-swe-agent batch's ``preds.json``: each result's ``session``
  (:mod:`judgekit.ingest.transcripts`).

``resolved`` is the pass; an instance whose fail-to-pass tests did not all pass (a test that
did not run counts as not passed) is failed, whatever else the report says. Task fields
(repository, problem statement, gold patch, FAIL_TO_PASS / PASS_TO_PASS) come from the
dataset given as a task source (see :mod:`judgekit.ingest.enrich`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.io import read_json
from judgekit.ingest.models import RunResult, Task, TestCounts, TestResult
from judgekit.ingest.transcripts.link import attach, beside
from judgekit.paths import contained

LOG_DIR = Path("logs") / "run_evaluation"
#: Per-instance files read beside ``report.json`` and kept as audit materials.
_SIDE_FILES = {"test_output.txt": "test output", "run_instance.log": "harness log"}
_SUMMARY_KEYS = {"resolved_ids", "submitted_ids"}
_RESULTS_KEYS = {"resolved", "generated", "no_generation"}
#: the experiments layout's logs: ``logs/<instance_id>/report.json`` beside the predictions
EXPERIMENT_LOGS = "logs"
_DATASET_KEYS = {"instance_id", "problem_statement"}
TEST_SETS = ("FAIL_TO_PASS", "PASS_TO_PASS")


def model_dir_name(model: str) -> str:
    """The directory the harness names after a model (``/`` replaced by ``__``)."""
    return model.replace("/", "__")


def _is_prediction(item: Any) -> bool:
    return isinstance(item, dict) and "instance_id" in item and "model_patch" in item


def _predictions(document: Any) -> list[Any] | None:
    if isinstance(document, list) and document and all(_is_prediction(x) for x in document[:5]):
        return document
    if isinstance(document, dict) and document:
        values = list(document.values())
        if all(_is_prediction(v) for v in values[:5]):
            return values
    return None


def is_dataset(document: Any) -> bool:
    """A SWE-bench dataset: instances with ``instance_id`` and ``problem_statement``."""
    return (isinstance(document, list) and bool(document)
            and all(isinstance(x, dict) and _DATASET_KEYS <= set(x) for x in document[:5]))


def _is_report(document: Any) -> bool:
    if not isinstance(document, dict) or len(document) != 1:
        return False
    value = next(iter(document.values()))
    return isinstance(value, dict) and "resolved" in value and (
        "tests_status" in value or "patch_successfully_applied" in value)


def _is_summary(document: Any) -> bool:
    return isinstance(document, dict) and _SUMMARY_KEYS <= set(document)


def _is_results(document: Any) -> bool:
    """The experiments layout's ``results/results.json``."""
    return (isinstance(document, dict) and isinstance(document.get("resolved"), list)
            and _RESULTS_KEYS <= set(document))


def _read_json(path: Path) -> Any:
    return read_json(path)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _str_list(value: Any, path: Path, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(path, field, "expected a list of test names")
    return value


class InstanceReport:
    """One ``report.json`` of the harness, checked."""

    def __init__(self, path: Path, instance_id: str) -> None:
        doc = _read_json(path)
        if not isinstance(doc, dict) or instance_id not in doc:
            raise InputError(path, instance_id, "no entry for this instance")
        entry = doc[instance_id]
        if not isinstance(entry, dict):
            raise InputError(path, instance_id, "expected an object")
        resolved = entry.get("resolved")
        if not isinstance(resolved, bool):
            raise InputError(path, f"{instance_id}.resolved",
                             "required field is missing" if resolved is None else "expected bool")
        status = entry.get("tests_status") or {}
        if not isinstance(status, dict):
            raise InputError(path, f"{instance_id}.tests_status", "expected an object")
        self.path = path
        self.resolved = resolved
        self.applied = entry.get("patch_successfully_applied")
        infra = entry.get("infra_failure")
        reason = entry.get("infra_failure_reason") or entry.get("error")
        #: The harness's word that the environment, not the patch, failed (newer reports).
        self.infra_failure: str | None = (
            str(reason or "the harness flagged an infrastructure failure")
            if infra is True else None)
        self.tests: dict[str, dict[str, list[str]]] = {}
        for name in TEST_SETS:
            part = status.get(name) or {}
            if not isinstance(part, dict):
                raise InputError(path, f"{instance_id}.tests_status.{name}", "expected an object")
            self.tests[name] = {
                k: _str_list(part.get(k), path, f"{instance_id}.tests_status.{name}.{k}")
                for k in ("success", "failure")}

    def test_result(self) -> TestResult:
        """Counts over fail-to-pass and pass-to-pass; exit 0 only when resolved and every
        fail-to-pass test passed."""
        passed = sum(len(t["success"]) for t in self.tests.values())
        failed = sum(len(t["failure"]) for t in self.tests.values())
        f2p_ok = not self.tests["FAIL_TO_PASS"]["failure"]
        if self.applied is False:
            return TestResult(exit_code=1, counts=None)
        return TestResult(exit_code=0 if self.resolved and f2p_ok else 1,
                          counts=TestCounts(passed=passed, failed=failed, total=passed + failed))


def _evaluated_in(inst: Path) -> bool:
    return (inst / "report.json").is_file() or (inst / "run_instance.log").is_file()


def _plain_name(name: str) -> bool:
    """A name that is one directory entry (no ``/``, not ``.`` or ``..``)."""
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


def _instance_dirs(root: Path, model: str, instance_id: str
                   ) -> list[tuple[str | None, Path]] | None:
    """``(run_id, directory)`` of every evaluation of ``instance_id`` for ``model``;
    ``None`` when the names lead outside ``root`` (``..``, a link pointing out).

    ``root`` is ``logs/run_evaluation`` (one folder per run id), or one run's folder
    (``logs/run_evaluation/<run_id>``), or that run's folder of one model, or the
    experiments layout's ``logs`` (one folder per instance, no run id)."""
    model_dir = model_dir_name(model)
    if not (_plain_name(model_dir) and _plain_name(instance_id)):
        return None
    escaped = False

    def inside(*parts: str) -> Path | None:
        nonlocal escaped
        found = contained(root, *parts)
        escaped = escaped or found is None
        return found

    if root.name == model_dir and (inst := inside(instance_id)) and _evaluated_in(inst):
        return [(root.parent.name, inst)]
    if (inst := inside(instance_id)) and _evaluated_in(inst):
        return [(None, inst)]  # the experiments layout
    if (inst := inside(model_dir, instance_id)) and _evaluated_in(inst):
        return [(root.name, inst)]
    out: list[tuple[str | None, Path]] = []
    for run_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        inst = inside(run_dir.name, model_dir, instance_id)
        if inst is not None and _evaluated_in(inst):
            out.append((run_dir.name, inst))
    return None if escaped and not out else out


def _summaries(directory: Path, model: str) -> dict[str, set[str]]:
    """Id sets of the summary reports beside the predictions (``<model>.<run_id>.json``)."""
    out: dict[str, set[str]] = {}
    prefix = model_dir_name(model) + "."
    for path in sorted(directory.glob("*.json")):
        if not path.name.startswith(prefix):
            continue
        try:
            doc = read_json(path)
        except InputError:
            continue
        if _is_summary(doc):
            for key in ("resolved_ids", "unresolved_ids", "empty_patch_ids", "error_ids",
                        "infra_failure_ids"):
                out.setdefault(key, set()).update(str(x) for x in doc.get(key) or [])
    results = directory / "results" / "results.json"
    doc = None
    if results.is_file():
        try:
            doc = read_json(results)
        except InputError:
            doc = None
    if _is_results(doc):
        def ids(*keys: str) -> set[str]:
            return {str(x) for key in keys for x in (doc.get(key) or [])
                    if isinstance(doc.get(key), list)}

        resolved = ids("resolved")
        errors = ids("install_fail", "reset_failed")
        for key, found in (("resolved_ids", resolved),
                           ("unresolved_ids", ids("no_apply", "applied") - resolved - errors),
                           ("empty_patch_ids", ids("no_generation")),
                           ("error_ids", errors)):
            out.setdefault(key, set()).update(found)
    return out


class SweBenchAdapter:
    """Reads SWE-bench predictions and the evaluation the harness wrote for them."""

    name = "swebench"

    def __init__(self, logs: Path | None = None) -> None:
        self.logs = logs

    def detect(self, path: Path | None, document: Any) -> bool:
        return _predictions(document) is not None or self._side_file(document)

    def _side_file(self, document: Any) -> bool:
        return (_is_summary(document) or _is_results(document) or _is_report(document)
                or is_dataset(document))

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return _predictions(document) is None and self._side_file(document)

    def _log_root(self, path: Path) -> Path | None:
        if self.logs is not None:
            for candidate in (self.logs / LOG_DIR, self.logs / "run_evaluation",
                              self.logs / EXPERIMENT_LOGS, self.logs):
                if candidate.is_dir():
                    return candidate
            raise InputError(self.logs, None, "SWE-bench log directory not found")
        for beside in (path.parent / LOG_DIR, path.parent / EXPERIMENT_LOGS):
            if beside.is_dir():
                return beside
        return None

    def load(self, path: Path, document: Any) -> list[RunResult]:
        predictions = _predictions(document)
        if predictions is None:
            return []
        root = self._log_root(path)
        out: list[RunResult] = []
        summaries: dict[str, dict[str, set[str]]] = {}
        for i, pred in enumerate(predictions):
            if not isinstance(pred, dict):
                raise InputError(path, f"[{i}]", "expected an object")
            for key in ("instance_id", "model_name_or_path"):
                if not isinstance(pred.get(key), str) or not pred[key]:
                    raise InputError(path, f"[{i}].{key}", "required field is missing"
                                     if pred.get(key) is None else "expected a non-empty string")
            patch = pred.get("model_patch")
            if patch is not None and not isinstance(patch, str):
                raise InputError(path, f"[{i}].model_patch", "expected a string or null")
            model = pred["model_name_or_path"]
            if model not in summaries:
                summaries[model] = _summaries(path.parent, model)
            runs = _instance_dirs(root, model, pred["instance_id"]) if root else []
            if runs is None:
                out.append(self._base(
                    pred, harness_status="not_evaluated",
                    metadata={"source_format": "swebench"},
                    harness_error="its instance_id or model_name_or_path leads outside the "
                                  f"log directory {root}: no evaluation read"))
                continue
            if not runs:
                out.append(self._unevaluated(pred, summaries[model], root))
            for attempt, (run_id, inst) in enumerate(runs):
                out.append(self._evaluated(pred, run_id, inst, attempt))
        trajectories = beside(path)
        if trajectories:  # a file that cannot be read is named in its result's metadata
            attach(out, trajectories)
        return out

    def _base(self, pred: dict[str, Any], **fields: Any) -> RunResult:
        model = pred["model_name_or_path"]
        return RunResult(task=Task(id=pred["instance_id"], tags=["swe-bench"]), arm=model,
                         model=model, agent_diff=pred.get("model_patch") or "", **fields)

    def _evaluated(self, pred: dict[str, Any], run_id: str | None, inst: Path,
                   attempt: int) -> RunResult:
        materials = {label: text for name, label in _SIDE_FILES.items()
                     if (text := _read_text(inst / name))}
        report_path = inst / "report.json"
        if not report_path.is_file():
            return self._base(pred, run_id=run_id, attempt=attempt, materials=materials,
                              harness_status="evaluation_error",
                              harness_error="the harness wrote no report.json for this "
                                            "instance (see run_instance.log)",
                              metadata={"source_format": "swebench"})
        report = InstanceReport(report_path, pred["instance_id"])
        if report.infra_failure is not None:
            return self._base(pred, run_id=run_id, attempt=attempt, materials=materials,
                              success=False, harness_status="infra_failure",
                              harness_error=report.infra_failure,
                              metadata={"source_format": "swebench", "resolved": False})
        return self._base(pred, run_id=run_id, attempt=attempt, materials=materials,
                          test=report.test_result(), success=report.resolved,
                          metadata={"source_format": "swebench", "resolved": report.resolved,
                                    "patch_applied": report.applied,
                                    "tests_status": report.tests})

    def _unevaluated(self, pred: dict[str, Any], ids: dict[str, set[str]],
                     root: Path | None) -> RunResult:
        iid = pred["instance_id"]
        meta: dict[str, Any] = {"source_format": "swebench"}
        if not (pred.get("model_patch") or "").strip() or iid in ids.get("empty_patch_ids", ()):
            return self._base(pred, success=False, metadata={**meta, "empty_patch": True})
        if iid in ids.get("error_ids", ()) or iid in ids.get("infra_failure_ids", ()):
            return self._base(pred, harness_status="evaluation_error", metadata=meta,
                              harness_error="the summary report lists this instance as an "
                                            "evaluation error")
        for key, verdict in (("resolved_ids", True), ("unresolved_ids", False)):
            if iid in ids.get(key, ()):
                return self._base(pred, success=verdict, metadata={**meta, "resolved": verdict})
        where = str(root) if root else "logs beside the predictions file"
        return self._base(pred, harness_status="not_evaluated", metadata=meta,
                          harness_error=f"no evaluation of this instance found in {where}")


__all__ = ["InstanceReport", "SweBenchAdapter", "is_dataset", "model_dir_name"]
