"""Claude Code: the session file (``~/.claude/projects/<slug>/<session>.jsonl``) and the
``-p --output-format stream-json`` event stream.

Both hold Messages API messages: ``tool_use`` blocks in the assistant's, ``tool_result``
blocks (``is_error`` set when a command failed, ``Exit code N`` in its text) in the user's.
A message streamed as several lines (one per content block) repeats its id and usage; usage
is counted once per id. The stream's ``result`` event gives the turns, cost, duration and
how it ended (``success``, ``error_max_turns``, ...) and ``modelUsage`` (tokens and cost
per model); a session file records its cost in a ``cost-state`` line written as each run
of the session ends (Claude Code 2.1.2xx and later: ``totalCostUSD`` and the same
``modelUsage``; the last holds the running totals), and says how it ended by an ``attachment`` (``max_turns_reached``), the user's
``[Request interrupted by user`` text, or an assistant's tool call nothing answered (the
process was killed while the tool ran): ``interrupted``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from judgekit.ingest.transcripts.build import (
    Builder, add, as_cost, as_count, obj, seconds_between, text_of)
from judgekit.ingest.transcripts.model import ExitStatus, ModelUsage, Transcript
from judgekit.ingest.transcripts.source import Source

_EXIT = re.compile(r"^(?:Error: )?Exit code (-?\d+)", re.M)
_INTERRUPTED = "[Request interrupted by user"
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens",
               "cache_creation_input_tokens")
_RESULT: dict[str, tuple[ExitStatus, str | None]] = {
    "success": ("completed", None),
    "error_max_turns": ("limits_exceeded", "turns"),
    "error_max_budget_usd": ("limits_exceeded", "cost"),
    "error_during_execution": ("error", None),
}


def _is_stream(events: Sequence[dict[str, Any]]) -> bool:
    return any(e.get("type") == "system" and e.get("subtype") == "init" and "session_id" in e
               for e in events[:5]) or any(e.get("type") == "result" and "session_id" in e
                                           and "num_turns" in e for e in events[-3:])


def _is_session(events: Sequence[dict[str, Any]]) -> bool:
    return any(e.get("type") in ("user", "assistant") and "sessionId" in e
               and isinstance(e.get("message"), dict) for e in events[:20])


class ClaudeCodeReader:
    name = "claude-code"

    def detect(self, source: Source) -> bool:
        return bool(source.events) and (_is_stream(source.events)
                                        or _is_session(source.events))

    def read(self, source: Source) -> Transcript:
        b = Builder(self.name)
        model = None
        #: each message's token counts (in, out, cache reads, cache writes), by its id: a
        #: message streamed as several lines is counted once; only the counts are kept
        usage_by_id: dict[str, tuple[int | None, ...]] = {}
        shared: dict[tuple[int | None, ...], tuple[int | None, ...]] = {}  # equal counts: one
        result: dict[str, Any] | None = None
        cost_state: dict[str, Any] | None = None
        stamps: list[Any] = []  # the first and the last
        interrupted = api_error = max_turns = False
        last_id: Any = None
        for i, event in enumerate(source.events):
            kind = event.get("type")
            if event.get("timestamp") is not None:
                stamps[1:] = [event["timestamp"]] if stamps else []
                if not stamps:
                    stamps.append(event["timestamp"])
            if kind == "system" and event.get("subtype") == "init":
                model = event.get("model") if isinstance(event.get("model"), str) else model
                continue
            if kind == "result":
                result = event
                continue
            if kind == "cost-state":  # written as each run of the session ends: the last
                cost_state = event    # holds the session's running totals
                continue
            attachment = event.get("attachment")
            if kind == "attachment" and isinstance(attachment, dict) \
                    and attachment.get("type") == "max_turns_reached":
                max_turns = True
                continue
            if kind not in ("user", "assistant") or event.get("isSidechain"):
                continue
            message = event.get("message")
            if not isinstance(message, dict):
                raise source.fail(f"line {i + 1}.message", "not a message object")
            content = message.get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (
                content if isinstance(content, list) else [])
            if kind == "assistant":
                interrupted = False  # the session went on after the interruption
                if isinstance(message.get("model"), str) and message["model"] != "<synthetic>":
                    model = message["model"]
                if event.get("isApiErrorMessage"):
                    api_error = True
                usage = message.get("usage")
                if isinstance(usage, dict):
                    counts = tuple(as_count(usage.get(k)) for k in _USAGE_KEYS)
                    usage_by_id[str(message.get("id") or f"line{i}")] = shared.setdefault(
                        counts, counts)
                message_id = message.get("id")
                texts, calls = [], []
                for block in blocks:
                    if not isinstance(block, dict):
                        continue
                    if block.get("type") == "text":
                        texts.append(str(block.get("text", "")))
                    elif block.get("type") == "tool_use":
                        calls.append(b.call(str(block.get("name")), block.get("input"),
                                            call_id=block.get("id")))
                text = "\n".join(t for t in texts if t)
                if message_id and message_id == last_id and b.turns and \
                        b.turns[-1].role == "assistant":  # one message streamed as lines
                    b.extend_last(text, calls)
                else:
                    b.say("assistant", text, calls)
                last_id = message_id
                continue
            texts = []
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_result":
                    out = text_of(block.get("content"))
                    code = _EXIT.search(out)
                    error = bool(block.get("is_error"))
                    exit_code = int(code.group(1)) if code else None
                    b.result(block.get("tool_use_id"), out, exit_code=exit_code, error=error)
                    b.say("tool", out)
                elif block.get("type") == "text":
                    text = str(block.get("text", ""))
                    interrupted = interrupted or text.startswith(_INTERRUPTED)
                    texts.append(text)
            if texts and not event.get("isMeta"):
                b.say("user", "\n".join(texts))
        tokens_in = tokens_out = cache_read = cache_write = None
        for n_in, n_out, n_read, n_write in usage_by_id.values():
            tokens_in = add(tokens_in, n_in)
            tokens_out = add(tokens_out, n_out)
            cache_read = add(cache_read, n_read)
            cache_write = add(cache_write, n_write)
        fields: dict[str, Any] = {
            "model": model, "tokens_in": tokens_in, "tokens_out": tokens_out,
            "cache_read_tokens": cache_read, "cache_write_tokens": cache_write,
            "wall_time_s": seconds_between(stamps[0], stamps[-1]) if stamps else None}
        status: ExitStatus | None = "completed" if b.turns else None
        limit = None
        if result is not None:
            status, limit = _RESULT.get(str(result.get("subtype")), ("error", None))
            if status == "completed" and result.get("is_error"):
                status = "error"
            fields["cost_usd"] = as_cost(result.get("total_cost_usd"))
            fields["model_usage"] = _model_usage(result.get("modelUsage"))
            duration = result.get("duration_ms")
            if isinstance(duration, (int, float)) and duration >= 0:
                fields["wall_time_s"] = round(duration / 1000, 3)
            usage = result.get("usage")
            if isinstance(usage, dict):  # the session's totals, when the stream gives them
                fields.update(tokens_in=as_count(usage.get("input_tokens")),
                              tokens_out=as_count(usage.get("output_tokens")),
                              cache_read_tokens=as_count(usage.get("cache_read_input_tokens")),
                              cache_write_tokens=as_count(
                                  usage.get("cache_creation_input_tokens")))
            if isinstance(result.get("result"), str) and result["result"].strip():
                fields["final_message"] = result["result"]
        if cost_state is not None:
            if fields.get("cost_usd") is None:
                fields["cost_usd"] = as_cost(cost_state.get("totalCostUSD"))
            if not fields.get("model_usage"):
                fields["model_usage"] = _model_usage(cost_state.get("modelUsage"))
        if interrupted or (result is None and _unanswered(b)):
            status, limit = "interrupted", None
        elif result is None and max_turns:
            status, limit = "limits_exceeded", "turns"
        elif result is None and api_error:
            status = "error"
        return b.finish(exit_status=status, limit=limit, **fields)


def _model_usage(value: Any) -> dict[str, ModelUsage]:
    """``modelUsage`` (model → ``inputTokens``, ``outputTokens``, ``cacheReadInputTokens``,
    ``cacheCreationInputTokens``, ``costUSD``) in the transcript's terms."""
    return {str(name): ModelUsage(
        tokens_in=as_count(u.get("inputTokens")), tokens_out=as_count(u.get("outputTokens")),
        cache_read_tokens=as_count(u.get("cacheReadInputTokens")),
        cache_write_tokens=as_count(u.get("cacheCreationInputTokens")),
        cost_usd=as_cost(u.get("costUSD")))
        for name, u in obj(value).items() if isinstance(u, dict)}


def _unanswered(b: Builder) -> bool:
    """The last assistant message made a tool call that no result answered."""
    for turn in reversed(b.turns):
        if turn.role == "assistant":
            return bool(turn.tool_calls) and b.calls[turn.tool_calls[-1]].output is None
        if turn.role == "tool":
            return False
    return False


__all__ = ["ClaudeCodeReader"]
