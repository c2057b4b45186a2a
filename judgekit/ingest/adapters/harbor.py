"""Harbor jobs: a job folder of trials, or one trial folder, read from the files Harbor
writes (detected by content; Harbor itself is not needed).

A trial's ``result.json`` (its ``task_name``, ``trial_name``, ``agent_info`` and ``config``)
is one result: the arm is the agent's name and model from the trial's config
(``claude-code:anthropic/claude-sonnet-4-5``), the task its ``task_name``, the attempt its
place among the trials of the same arm and task in the same job, in the order they started.
The verifier's rewards are the outcome: the ``reward`` reward (or the only one) of 1 or more
is a pass, anything lower a fail; every reward is kept as a number in
``metadata.harbor_rewards``, and a partial one (between 0 and 1) is counted and said when
the job is loaded. A trial that recorded an exception and no reward (it failed before its
verifier ran) is a harness failure labelled with the exception's type. Tokens and cost are
the trial's ``agent_result`` (Harbor's input tokens include cache reads; judgekit keeps them
apart), the duration the agent's execution time, and the trial's ATIF trajectory
(``agent/trajectory.json``) is read as the result's transcript. Harbor keeps no diff of the
agent's change unless the task saves one: a ``*.diff`` or ``*.patch`` file under the trial's
``artifacts/`` or ``agent/`` folder is the patch; trials without one are counted and said.
The job's own ``result.json``, ``config.json`` and ``lock.json``, each trial's
``config.json`` and ``lock.json`` and the agent's logs are side files and hold no results.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.ingest.models import RunResult, Task, Usage
from judgekit.ingest.transcripts.link import link_named
from judgekit.jsonread import loads

#: the largest patch file read from a trial (bytes)
MAX_PATCH_BYTES = 8 * 1024 * 1024
#: the largest verifier output kept as a material (characters)
MAX_OUTPUT_CHARS = 64 * 1024
_TRIAL_KEYS = ("task_name", "trial_name", "agent_info", "config")
_JOB_KEYS = ("n_total_trials", "stats")


def is_trial_result(document: Any) -> bool:
    return isinstance(document, dict) and all(k in document for k in _TRIAL_KEYS)


def is_job_result(document: Any) -> bool:
    return isinstance(document, dict) and all(k in document for k in _JOB_KEYS) \
        and "trial_name" not in document


@lru_cache(maxsize=256)
def _harbor_dir(directory: Path) -> bool:
    """True when ``directory`` holds a Harbor trial's or job's ``result.json``."""
    result = directory / "result.json"
    try:
        if result.is_symlink() or not result.is_file() or \
                result.stat().st_size > MAX_PATCH_BYTES:
            return False
        doc = loads(result.read_text(encoding="utf-8", errors="replace"), result)
    except (OSError, InputError):
        return False
    return is_trial_result(doc) or is_job_result(doc)


def _side_file(path: Path) -> bool:
    """A file of a Harbor trial or job folder that is not a trial's result."""
    parents = [path.parent, *list(path.parents)[1:4]]
    return any(_harbor_dir(p) for p in parents)


class HarborAdapter:
    name = "harbor"

    def detect(self, path: Path, document: Any) -> bool:
        if is_trial_result(document) or is_job_result(document):
            return True
        return document is not None and path.suffix == ".json" and _side_file(path)

    def is_auxiliary(self, path: Path, document: Any) -> bool:
        return not is_trial_result(document)

    def load(self, path: Path, document: Any) -> list[RunResult]:
        return [_result(path, document)]

    def settle(self, results: list[RunResult]) -> tuple[list[RunResult], list[str]]:
        """Number the attempts of each arm on each task in the order the trials started, and
        say how rewards were mapped and which trials record no patch."""
        groups: dict[tuple[str | None, str, str], list[RunResult]] = defaultdict(list)
        for r in results:
            groups[(r.run_id, r.arm, r.task_id)].append(r)
        for group in groups.values():
            group.sort(key=lambda r: (str(r.metadata.get("harbor_started_at") or ""),
                                      str(r.metadata.get("harbor_trial"))))
            for n, r in enumerate(group):
                r.attempt = n
        warnings = []
        partial = [r for r in results if r.metadata.get("harbor_partial_reward")]
        if partial:
            names = ", ".join(str(r.metadata["harbor_trial"]) for r in partial[:5])
            more = f" and {len(partial) - 5} more" if len(partial) > 5 else ""
            warnings.append(f"{len(partial)} Harbor trial{'s' * (len(partial) != 1)} with a "
                            f"partial reward (between 0 and 1) counted as failed, the reward "
                            f"kept in metadata.harbor_rewards: {names}{more}")
        no_patch = [r for r in results if r.agent_diff is None]
        if no_patch:
            warnings.append(f"{len(no_patch)} of {len(results)} Harbor trials record no patch "
                            "(no .diff or .patch file under the trial's artifacts/ or agent/): "
                            "loaded without the agent's change")
        return results, warnings


def _get(doc: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise InputError(path, key, f"expected {kind.__name__}, got {type(value).__name__}")
    return value


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _seconds(timing: Any) -> float | None:
    if not isinstance(timing, dict):
        return None
    start, end = _when(timing.get("started_at")), _when(timing.get("finished_at"))
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def _usage(agent_result: Any) -> Usage | None:
    if not isinstance(agent_result, dict):
        return None
    total, cache = _count(agent_result.get("n_input_tokens")), \
        _count(agent_result.get("n_cache_tokens"))
    cost = agent_result.get("cost_usd")
    usage = Usage(input_tokens=None if total is None else max(total - (cache or 0), 0),
                  output_tokens=_count(agent_result.get("n_output_tokens")),
                  cache_read_tokens=cache,
                  cost_usd=float(cost) if isinstance(cost, (int, float))
                  and not isinstance(cost, bool) and cost >= 0 else None)
    return None if usage == Usage() else usage


def _rewards(doc: dict[str, Any], path: Path) -> dict[str, float] | None:
    verifier = doc.get("verifier_result")
    if verifier is None:
        return None
    if not isinstance(verifier, dict):
        raise InputError(path, "verifier_result", "expected an object")
    rewards = verifier.get("rewards")
    if rewards is None:
        return None
    if not isinstance(rewards, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in rewards.values()):
        raise InputError(path, "verifier_result.rewards", "expected an object of numbers")
    return {str(k): float(v) for k, v in rewards.items()}


def _main_reward(rewards: dict[str, float]) -> float | None:
    if "reward" in rewards:
        return rewards["reward"]
    return next(iter(rewards.values())) if len(rewards) == 1 else None


def _patch(trial: Path) -> str | None:
    for folder in ("artifacts", "agent"):
        base = trial / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for found in sorted(base.rglob("*")):
            if found.suffix not in (".diff", ".patch") or found.is_symlink() \
                    or not found.is_file() or found.stat().st_size > MAX_PATCH_BYTES:
                continue
            return found.read_text(encoding="utf-8", errors="replace")
    return None


def _verifier_output(trial: Path) -> str | None:
    out = trial / "verifier" / "test-stdout.txt"
    if out.is_symlink() or not out.is_file():
        return None
    with out.open(encoding="utf-8", errors="replace") as f:
        return f.read(MAX_OUTPUT_CHARS) or None


def _result(path: Path, doc: dict[str, Any]) -> RunResult:
    trial = path.parent
    task = _get(doc, "task_name", str, path)
    name = _get(doc, "trial_name", str, path)
    config = _get(doc, "config", dict, path)
    agent_cfg = config.get("agent") if isinstance(config.get("agent"), dict) else {}
    info = _get(doc, "agent_info", dict, path)
    agent = agent_cfg.get("name") or info.get("name")
    if not isinstance(agent, str) or not agent:
        raise InputError(path, "config.agent.name", "a Harbor trial names its agent")
    model = agent_cfg.get("model_name")
    if not isinstance(model, str):
        model_info = info.get("model_info") if isinstance(info.get("model_info"), dict) else {}
        model = "/".join(str(model_info[k]) for k in ("provider", "name") if model_info.get(k))
    rewards = _rewards(doc, path)
    exception = doc.get("exception_info") if isinstance(doc.get("exception_info"), dict) \
        else None
    meta: dict[str, Any] = {"harbor_trial": name, "harbor_started_at": doc.get("started_at"),
                            "harbor_agent_version": info.get("version")}
    success: bool | None = None
    status, error = "completed", None
    if rewards:
        meta["harbor_rewards"] = rewards
        main = _main_reward(rewards)
        if main is None:
            raise InputError(path, "verifier_result.rewards",
                             "several rewards and none named 'reward': which decides is unknown")
        success = main >= 1
        meta["harbor_partial_reward"] = 0 < main < 1
    elif exception is not None:
        status = str(exception.get("exception_type") or "exception")
        error = str(exception.get("exception_message") or status)
    if exception is not None:
        meta["harbor_exception"] = exception.get("exception_type")
    materials = {}
    output = _verifier_output(trial)
    if output:
        materials["verifier output"] = output
    if (trial / "agent" / "trajectory.json").is_file():
        meta["transcript_file"] = "agent/trajectory.json"
    job = trial.parent.name if _harbor_dir(trial.parent) else None
    result = RunResult(
        run_id=job, task=Task(id=task), arm=f"{agent}:{model}" if model else agent,
        attempt=0, agent_diff=_patch(trial), duration_s=_seconds(doc.get("agent_execution"))
        or _seconds(doc), usage=_usage(doc.get("agent_result")), model=model or None,
        harness_status=status, harness_error=error, success=success, materials=materials,
        timestamp=doc.get("started_at") if isinstance(doc.get("started_at"), str) else None,
        metadata=meta)
    return link_named(path, result)


__all__ = ["HarborAdapter", "is_job_result", "is_trial_result"]
