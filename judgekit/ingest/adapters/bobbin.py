"""The bobbin evaluation harness: ``<task>_<approach>_<attempt>.json`` plus ``manifest.json``.

Beside each result file bobbin may write two side files: ``<task>_<approach>_<attempt>
.stream.jsonl``, the agent's own event stream (Claude Code's ``stream-json`` output: system,
assistant, user and result events), which becomes the result's readable ``transcript``; and
``<task>_<approach>_<attempt>_metrics.jsonl``, bobbin's raw hook events, which the result file
already summarises (``bobbin_metrics``) and which are not read again.

Bobbin's test counts are not evidence: its pytest pattern is tried first on every output and
matches cargo's ``finished in 0.00s``, so it records 0 tests for every cargo run. judgekit
keeps the counts in ``metadata`` only and decides the status from the test output when bobbin
kept it, else from the exit code: a pass without output is ``unknown``. Results bobbin marked
as failed runs (``workspace_error``, ``bobbin_setup_error``, ...) are kept with status
``error``. Every field read is type-checked; a wrong one is an InputError naming it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from judgekit.errors import InputError
from judgekit.io import read_regular
from judgekit.ingest.models import RunResult, Task, TestResult, Usage
from judgekit.ingest.transcripts.model import Transcript
from judgekit.ingest.transcripts.registry import parse_text
from judgekit.secretscan import SecretScrubber
from judgekit.ingest.validation import parse_json

_RESULT_NAME = re.compile(r"^(?P<stem>.+_.+_\d+)\.json$")
_SIDE_NAME = re.compile(r"^(?P<stem>.+_.+_\d+)(?:\.stream|_metrics)\.jsonl$")
MAX_TRANSCRIPT_CHARS = 2_000_000
_TOOL_RESULT_CHARS = 2_000
_TOOL_INPUT_CHARS = 1_000
_INT_MAX = 2**63


def is_bobbin_result_name(name: str) -> bool:
    """True for ``<task>_<approach>_<attempt>.json``."""
    return _RESULT_NAME.match(name) is not None


def is_bobbin_side_file(name: str) -> str | None:
    """The result file name a bobbin side file belongs to, or ``None`` when it is not one."""
    m = _SIDE_NAME.match(name)
    return f"{m.group('stem')}.json" if m else None


_MANIFESTS: dict[tuple[Path, int, int], dict[str, Any]] = {}


def _manifest(directory: Path) -> dict[str, Any]:
    """The run's ``manifest.json`` (an empty dict when there is none); checked like any input.

    Parsed once per directory and version of the file (its size and modification time).
    """
    path = directory / "manifest.json"
    try:
        st = path.stat()
    except FileNotFoundError:
        if not path.is_symlink():
            return {}
        st = None
    except OSError:
        st = None
    key = (directory, st.st_mtime_ns if st else -1, st.st_size if st else -1)
    if key in _MANIFESTS:
        return _MANIFESTS[key]
    raw = read_regular(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not valid UTF-8 (byte {exc.start})") from None
    loaded = parse_json(text, path)
    if not isinstance(loaded, dict):
        raise InputError(path, None, f"expected a JSON object, got {_type_name(loaded)}")
    for key_name in ("run_id", "model"):
        _get(loaded, key_name, str, path)
    _get(loaded, "agent_config", dict, path)
    if len(_MANIFESTS) > 4096:
        _MANIFESTS.clear()
    _MANIFESTS[key] = loaded
    return loaded


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _get(doc: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path,
         where: str = "", *, minimum: float | None = None, nonempty: bool = False) -> Any:
    """``doc[key]`` when it is of ``kind`` (or absent/null); else an InputError naming it."""
    value = doc.get(key)
    if value is None:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise InputError(path, where + key, f"expected {_names(kinds)}, got bool")
    if float in kinds and isinstance(value, int):
        value = float(value)
    if not isinstance(value, kinds):
        raise InputError(path, where + key, f"expected {_names(kinds)}, got {_type_name(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(path, where + key, "not a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT_MAX <= value < _INT_MAX:
        raise InputError(path, where + key, "integer out of range")
    if minimum is not None and isinstance(value, (int, float)) and value < minimum:
        raise InputError(path, where + key, f"must be at least {minimum:g}, got {value}")
    if nonempty and isinstance(value, str) and not value.strip():
        raise InputError(path, where + key, "must not be empty")
    return value


def _names(kinds: tuple[type, ...]) -> str:
    return " or ".join({"str": "string", "int": "integer", "float": "number", "dict": "object",
                        "list": "array", "bool": "boolean"}.get(k.__name__, k.__name__)
                       for k in kinds)


def _str_list(doc: dict[str, Any], key: str, path: Path, where: str = "") -> list[str] | None:
    value = _get(doc, key, list, path, where)
    if value is None:
        return None
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise InputError(path, f"{where}{key}[{i}]",
                             f"expected string, got {_type_name(item)}")
    return list(value)


def _test_result(doc: dict[str, Any], path: Path) -> tuple[TestResult | None, dict[str, Any]]:
    """The test run, decided from output and exit code; bobbin's own counts go to metadata."""
    tr = _get(doc, "test_result", dict, path)
    if tr is None:
        return None, {}
    w = "test_result."
    passed_flag = _get(tr, "passed", bool, path, w)
    if passed_flag is None:
        raise InputError(path, "test_result.passed", "required field is missing")
    total = _get(tr, "total", int, path, w, minimum=0)
    failures = _get(tr, "failures", int, path, w, minimum=-1)
    parsed = _get(tr, "parsed", dict, path, w) or {}
    for key in ("passed", "failed", "skipped", "total"):
        _get(parsed, key, int, path, w + "parsed.", minimum=0)
    _get(parsed, "framework", str, path, w + "parsed.")
    exit_code = _get(tr, "exit_code", int, path, w)
    if exit_code is None:
        exit_code = 0 if passed_flag else 1
    elif (exit_code == 0) != passed_flag:
        raise InputError(path, "test_result.exit_code",
                         f"exit code {exit_code} contradicts passed={str(passed_flag).lower()}")
    output = _get(tr, "output", str, path, w)
    timed_out = bool(_get(tr, "timed_out", bool, path, w))
    counts = {"total": total, "failures": failures,
              **{k: parsed.get(k) for k in ("framework", "passed", "failed", "skipped")}}
    return TestResult(exit_code=exit_code, output=output or None, timed_out=timed_out), counts


def _task(doc: dict[str, Any], path: Path) -> Task:
    task_doc = _get(doc, "task", dict, path) or {}
    fields = {key: _get(task_doc, key, str, path, "task.")
              for key in ("repo", "commit", "description", "test_command", "language",
                          "difficulty")}
    tags = _str_list(task_doc, "tags", path, "task.") or []
    return Task(id=doc["task_id"], tags=tags, **fields)


def _model(doc: dict[str, Any], config: dict[str, Any], manifest: dict[str, Any],
           path: Path) -> tuple[str | None, str]:
    """The serving model (newer bobbin records it), else the requested one."""
    serving = _get(doc, "serving_model", str, path)
    if serving:
        return serving, "serving"
    requested = _get(config, "model", str, path, "agent_config.") or \
        (manifest.get("agent_config") or {}).get("model") or manifest.get("model")
    return (requested if isinstance(requested, str) else None), "requested"


def _usage(agent: dict[str, Any], path: Path) -> Usage | None:
    w = "agent_result."
    cost = _get(agent, "cost_usd", float, path, w, minimum=0)
    if cost is None:
        cost = _get(agent, "total_cost_usd", float, path, w, minimum=0)
    tokens_in = _get(agent, "input_tokens", int, path, w, minimum=0)
    tokens_out = _get(agent, "output_tokens", int, path, w, minimum=0)
    if cost is None and tokens_in is None and tokens_out is None:
        return None
    return Usage(cost_usd=cost, input_tokens=tokens_in, output_tokens=tokens_out)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _clip(text: str, limit: int) -> str:
    text = _ANSI.sub("", text).strip()
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more chars]"


def _block_text(block: Any) -> str | None:
    if not isinstance(block, dict):
        return str(block) if isinstance(block, str) else None
    kind = block.get("type")
    text = block.get("text")
    if kind == "text" and isinstance(text, str):
        return text.strip()
    if kind == "tool_use":
        args = json.dumps(block.get("input"), ensure_ascii=False, sort_keys=True, default=str)
        return f"[tool call {block.get('name', '?')}] {_clip(args, _TOOL_INPUT_CHARS)}"
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            content = "\n".join(t for t in (_block_text(c) for c in content) if t)
        text = content if isinstance(content, str) else json.dumps(content, default=str)
        label = "tool error" if block.get("is_error") else "tool result"
        return f"[{label}] {_clip(text, _TOOL_RESULT_CHARS)}"
    return None


def render_stream(lines: list[str]) -> str:
    """A readable transcript of a Claude Code ``stream-json`` event stream.

    Assistant text and tool calls, tool results (clipped), and the final result; hook and
    rate-limit events are left out. Unreadable lines (a stream cut off mid-line) are counted.
    """
    out: list[str] = []
    skipped = 0
    for raw in lines:
        if not raw.strip():
            continue
        try:
            event = json.loads(raw)
        except (ValueError, RecursionError):
            skipped += 1
            continue
        if not isinstance(event, dict):
            skipped += 1
            continue
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            out.append(f"[session start] model {event.get('model', '?')}, "
                       f"{len(event.get('tools') or [])} tools")
        elif kind in ("assistant", "user"):
            message = event.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            for block in content if isinstance(content, list) else []:
                text = _block_text(block)
                if text:
                    out.append(f"{kind}: {text}" if not text.startswith("[") else text)
        elif kind == "result":
            cost = event.get("total_cost_usd")
            cost_text = f", ${cost:.2f}" if isinstance(cost, (int, float)) and math.isfinite(
                cost) else ""
            out.append(f"[result {event.get('subtype', '?')}] {event.get('num_turns', '?')} "
                       f"turns{cost_text}")
            if isinstance(event.get("result"), str):
                out.append(event["result"].strip())
    if skipped:
        out.append(f"[{skipped} unreadable event line{'s' if skipped != 1 else ''} skipped]")
    text = "\n\n".join(out)
    if len(text) > MAX_TRANSCRIPT_CHARS:
        text = text[:MAX_TRANSCRIPT_CHARS] + "\n[transcript cut]"
    return text


def _transcript(path: Path) -> tuple[str | None, Transcript | None]:
    """The readable transcript of the result's ``.stream.jsonl`` side file, when there is one,
    and the Claude Code session it holds (``None`` where it cannot be read as one)."""
    stream = path.with_name(path.name[: -len(".json")] + ".stream.jsonl")
    if not stream.exists() and not stream.is_symlink():
        return None, None
    text = read_regular(stream).decode("utf-8", errors="replace")
    try:
        found = parse_text(stream.name, text)
    except InputError:
        return SecretScrubber().text(render_stream(text.splitlines())) or None, None
    session = None if found.unrecognised else found.transcripts[0]
    return found.scrub(render_stream(text.splitlines())) or None, session


def _attempt(doc: dict[str, Any], path: Path) -> int:
    """The attempt number; bobbin writes it as a string (``"0"``) in its setup-error records."""
    value = doc.get("attempt")
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        return int(value)
    return int(_get(doc, "attempt", int, path, minimum=0))


class BobbinAdapter:
    """Reads bobbin result files; the run's model comes from the file or its manifest."""

    name = "bobbin"

    def detect(self, path: Path | None, document: Any) -> bool:
        return isinstance(document, dict) and (
            "task_id" in document or "approach" in document
            or self.is_auxiliary(path, document))

    def is_auxiliary(self, path: Path | None, document: Any) -> bool:
        return (isinstance(document, dict) and "approaches" in document
                and "run_id" in document and "tasks" in document)

    def load(self, path: Path, document: Any) -> list[RunResult]:
        if self.is_auxiliary(path, document):
            return []
        doc: dict[str, Any] = document
        for key in ("task_id", "approach", "attempt"):
            if doc.get(key) is None:
                raise InputError(path, key, "required field is missing")
        _get(doc, "task_id", str, path, nonempty=True)
        _get(doc, "approach", str, path, nonempty=True)
        attempt = _attempt(doc, path)
        agent = _get(doc, "agent_result", dict, path) or {}
        config = _get(doc, "agent_config", dict, path) or {}
        manifest = _manifest(path.parent)
        model, model_source = _model(doc, config, manifest, path)
        diff_result = _get(doc, "diff_result", dict, path) or {}
        agent_files = _str_list(diff_result, "files_touched", path, "diff_result.")
        truth_files = _str_list(diff_result, "ground_truth_files", path, "diff_result.")
        agent_diff = _get(doc, "agent_diff", str, path)
        truth_diff = _get(doc, "ground_truth_diff", str, path)
        metrics = _get(doc, "bobbin_metrics", dict, path) or {}
        injected = _str_list(metrics, "injected_files", path, "bobbin_metrics.")
        status = _get(doc, "status", str, path, nonempty=True) or "completed"
        duration = _get(agent, "duration_seconds", float, path, "agent_result.", minimum=0)
        agent_exit = _get(agent, "exit_code", int, path, "agent_result.")
        agent_timed_out = _get(agent, "timed_out", bool, path, "agent_result.")
        test, bobbin_counts = _test_result(doc, path)
        run_id = _get(doc, "run_id", str, path) or manifest.get("run_id") or path.parent.name
        transcript, session = _transcript(path)
        return [RunResult(
            run_id=run_id,
            task=_task(doc, path),
            arm=doc["approach"],
            attempt=attempt,
            agent_diff=agent_diff,
            ground_truth_diff=truth_diff,
            agent_files=None if agent_diff is not None else agent_files,
            ground_truth_files=None if truth_diff is not None else truth_files,
            test=test,
            duration_s=duration,
            usage=_usage(agent, path),
            model=model,
            transcript=transcript,
            session=session,
            harness_status=status,
            harness_error=_get(doc, "error", str, path),
            injected_files=injected,
            timestamp=_get(doc, "timestamp", str, path),
            metadata={"source_format": "bobbin",
                      "model_source": model_source,
                      "agent_exit_code": agent_exit,
                      "agent_timed_out": agent_timed_out,
                      "bobbin_test_counts": bobbin_counts or None},
        )]
