"""``judgekit transcript FILE [--json]``: what judgekit reads from an agent's session file.

A short view (the agent, turns, tool calls with failed ones marked, tokens, cost, how it
ended, the final message), or with ``--json`` the typed transcript (``judgekit schema
transcript``). A file of no known format is shown as raw text, with a warning; a malformed
file of a known format is an input error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from judgekit.cli._common import print_json
from judgekit.ingest.transcripts import Transcript, read_transcripts

_CLIP = 160


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("transcript", help="show what judgekit reads from an agent's session "
                                          "file")
    p.add_argument("file", type=Path, help="a session file: mini-swe-agent, SWE-agent, "
                                           "Claude Code, Codex CLI, OpenHands or aider")
    p.add_argument("--json", action="store_true", help="print the typed transcript as JSON")
    p.set_defaults(func=run)


def _clip(text: str | None, n: int = _CLIP) -> str:
    one = " ".join((text or "").split())
    return one if len(one) <= n else one[: n - 1] + "…"


def _view(t: Transcript) -> str:
    lines = [f"{t.source}: {t.format}" + (f" ({t.task_id})" if t.task_id else "")
             + (f", model {t.model}" if t.model else "")]
    if t.format == "raw":
        lines.append(_clip(t.raw, 400))
        return "\n".join(lines)
    tokens = (f"{t.tokens_in if t.tokens_in is not None else '?'} in / "
              f"{t.tokens_out if t.tokens_out is not None else '?'} out")
    if t.cache_read_tokens:
        tokens += f" (+{t.cache_read_tokens} cache reads)"
    cost = f"${t.cost_usd:.4f}" if t.cost_usd is not None else "cost not recorded"
    status = (t.exit_status or "unknown") + (f" ({t.limit})" if t.limit else "")
    lines.append(f"{t.n_turns} turns, {len(t.tool_calls)} tool calls "
                 f"({len(t.failed_calls())} failed), {tokens}, {cost}, ended {status}")
    for i, call in enumerate(t.tool_calls):
        failed = i in t.failed_calls()
        code = f" exit {call.exit_code}" if call.exit_code is not None else ""
        what = call.arguments.get("command") or call.arguments.get("path") or call.arguments
        lines.append(f"  {'✗' if failed else '·'} {call.name}{code}: {_clip(str(what), 100)}")
    if t.patch_files:
        lines.append("patch: " + ", ".join(t.patch_files))
    if t.final_message:
        lines.append("final: " + _clip(t.final_message, 300))
    if t.redactions:
        lines.append(f"{t.redactions} secret-looking value(s) redacted")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    found = read_transcripts(args.file)
    for problem in found.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if (left_out := found.left_out()) is not None:
        print(f"warning: {left_out}", file=sys.stderr)
    if found.unrecognised:
        print(f"warning: 1 file of no known transcript format kept as raw text: {args.file}",
              file=sys.stderr)
    if args.json:
        from judgekit.integrity.inspect import inspect_transcript

        # beside the typed transcript: the integrity findings its tool calls and patch show
        data = [{**t.model_dump(mode="json"), "integrity": [
            f.model_dump(mode="json") for f in inspect_transcript(t)]}
            for t in found.transcripts]
        print_json(data[0] if len(data) == 1 else data)
        return 0
    print("\n\n".join(_view(t) for t in found.transcripts))
    return 0
