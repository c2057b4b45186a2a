"""``judgekit transcript FILE [--json]``: what judgekit reads from an agent's session file.

A short view (the agent, turns, tool calls with failed ones marked, tokens, cost, how it
ended, the final message), or with ``--json`` the typed transcript (``judgekit schema
transcript``). A file of no known format is shown as raw text, with a warning; a malformed
file of a known format is an input error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any, TextIO

from judgekit.ingest.transcripts import ToolCall, Transcript, Turn, read_transcripts

_CLIP = 160


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("transcript", help="show what judgekit reads from an agent's session "
                                          "file")
    p.add_argument("file", type=Path, help="a session file: mini-swe-agent, SWE-agent, "
                                           "Claude Code, Codex CLI, OpenHands or aider")
    p.add_argument("--json", action="store_true", help="print the typed transcript as JSON")
    p.set_defaults(func=run)


#: Control characters and terminal sequences' introducers (ESC, CSI, bidirectional marks):
#: shown escaped (``\x1b``), never sent to the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: Lines of a failed call's output shown under it (its last ones: where the error is).
_OUTPUT_LINES = 3


def _escaped(text: str) -> str:
    """``text`` with every control character shown as an escape (``\x1b``, ``\u202e``)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _clip(text: str | None, n: int = _CLIP) -> str:
    one = " ".join(_escaped(text or "").split())
    return one if len(one) <= n else one[: n - 1] + "…"


def _what(call: ToolCall) -> str:
    """What a call did: its command or path, else its arguments as JSON."""
    what = call.arguments.get("command") or call.arguments.get("path")
    if isinstance(what, str):
        return what
    return json.dumps(what if what is not None else call.arguments, ensure_ascii=False,
                      sort_keys=True, default=str)


def _tail(output: str | None) -> list[str]:
    """The last non-blank lines of a failed call's output, clipped and escaped."""
    lines: list[str] = []
    for line in reversed((output or "").splitlines()):
        if line.strip():
            lines.append("      " + _clip(line, 150))
            if len(lines) == _OUTPUT_LINES:
                break
    return lines[::-1]


def _view(t: Transcript) -> str:
    lines = [f"{_escaped(t.source or '')}: {_escaped(t.format)}"
             + (f" ({_clip(t.task_id)})" if t.task_id else "")
             + (f", model {_clip(t.model)}" if t.model else "")]
    if t.format == "raw":
        lines.append(_clip(t.raw, 400))
        return "\n".join(lines)
    tokens = (f"{t.tokens_in if t.tokens_in is not None else '?'} in / "
              f"{t.tokens_out if t.tokens_out is not None else '?'} out")
    if t.cache_read_tokens:
        tokens += f" (+{t.cache_read_tokens} cache reads)"
    cost = f"${t.cost_usd:.4f}" if t.cost_usd is not None else "cost not recorded"
    status = (t.exit_status or "unknown") + (f" ({_clip(t.limit)})" if t.limit else "")
    failed = set(t.failed_calls())  # once: each call below only looks itself up
    lines.append(f"{t.n_turns} turns, {len(t.tool_calls)} tool calls "
                 f"({len(failed)} failed), {tokens}, {cost}, ended {status}")
    for i, call in enumerate(t.tool_calls):
        code = f" exit {call.exit_code}" if call.exit_code is not None else ""
        lines.append(f"  {'✗' if i in failed else '·'} {_clip(call.name, 60)}{code}: "
                     f"{_clip(_what(call), 100)}")
        if i in failed:
            lines.extend(_tail(call.output))
    if t.patch_files:
        lines.append("patch: " + _clip(", ".join(t.patch_files), 400))
    if t.final_message:
        lines.append("final: " + _clip(t.final_message, 300))
    if t.redactions:
        lines.append(f"{t.redactions} secret-looking value(s) redacted")
    return "\n".join(lines)


def _write_json(t: Transcript, out: TextIO, pad: str = "",
                extra: dict[str, Any] | None = None) -> None:
    """``t`` as indented JSON, the text ``json.dumps(t.model_dump(mode="json"), indent=2)``
    gives, written a turn and a tool call at a time (never the whole text in memory), then
    the keys of ``extra``."""
    small = t.model_dump(mode="json", exclude={"turns", "tool_calls"})
    names = [*Transcript.model_fields, *Transcript.model_computed_fields]
    out.write("{")
    for k, name in enumerate(names):
        out.write(("," if k else "") + f"\n{pad}  {json.dumps(name)}: ")
        if name not in ("turns", "tool_calls"):
            out.write(json.dumps(small[name], indent=2, default=str)
                      .replace("\n", f"\n{pad}  "))
            continue
        items: list[Turn] | list[ToolCall] = getattr(t, name)
        if not items:
            out.write("[]")
            continue
        out.write("[")
        for i, item in enumerate(items):
            text = json.dumps(item.model_dump(mode="json"), indent=2, default=str)
            out.write(("," if i else "") + f"\n{pad}    " + text.replace("\n", f"\n{pad}    "))
        out.write(f"\n{pad}  ]")
    for name, value in (extra or {}).items():
        out.write(f",\n{pad}  {json.dumps(name)}: "
                  + json.dumps(value, indent=2, default=str).replace("\n", f"\n{pad}  "))
    out.write(f"\n{pad}}}")


def print_transcripts_json(
        found: list[Transcript], out: TextIO,
        extra: Callable[[Transcript], dict[str, Any]] | None = None) -> None:
    """One transcript as a JSON object, several as a list (an OpenHands output.jsonl); each
    with the keys ``extra`` gives it after its own."""
    if len(found) == 1:
        _write_json(found[0], out, extra=extra(found[0]) if extra else None)
    else:
        out.write("[")
        for i, t in enumerate(found):
            out.write(("," if i else "") + "\n  ")
            _write_json(t, out, "  ", extra=extra(t) if extra else None)
        out.write("\n]" if found else "]")
    out.write("\n")


def run(args: argparse.Namespace) -> int:
    found = read_transcripts(args.file, keep_text=False)
    for problem in found.problems:
        print(f"warning: {_escaped(problem)}", file=sys.stderr)
    if (left_out := found.left_out()) is not None:
        print(f"warning: {_escaped(left_out)}", file=sys.stderr)
    if found.unrecognised:
        print(f"warning: 1 file of no known transcript format kept as raw text: "
              f"{_escaped(str(args.file))}", file=sys.stderr)
    if args.json:
        from judgekit.step_registry import STEPS

        # beside the typed transcript: what each step finds in it (integrity: the findings
        # its tool calls and patch show)
        def extra(t: Transcript) -> dict[str, Any]:
            told = ((kind.name, kind.on_transcript(t)) for kind in STEPS)
            return {name: [x.model_dump(mode="json") for x in found]
                    for name, found in told if found is not None}

        print_transcripts_json(found.transcripts, sys.stdout, extra=extra)
        return 0
    for i, t in enumerate(found.transcripts):
        sys.stdout.write(("\n\n" if i else "") + _view(t))
    sys.stdout.write("\n")
    return 0
