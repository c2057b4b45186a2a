"""aider: the chat history (``.aider.chat.history.md``) and the ``--llm-history-file`` log.

The chat history is Markdown: ``# aider chat started at ...`` opens a session, ``#### ``
lines are the user's input, ``> `` lines aider's own notes (``Applied edit to FILE``,
``Running CMD``, ``Tokens: 2.1k sent, 120 received. Cost: $0.01 message, $0.03 session.``),
everything else the model's replies. Edits and commands become tool calls (``edit`` with
``arguments.path``, ``shell`` with ``arguments.command``). The LLM history log holds the
messages sent (``TO LLM``) and the replies (``LLM RESPONSE``), one ``ROLE`` prefix a line.
"""

from __future__ import annotations

import re

from judgekit.ingest.transcripts.build import Builder, seconds_between
from judgekit.ingest.transcripts.model import ExitStatus, Role, Transcript
from judgekit.ingest.transcripts.source import Source

_STARTED = re.compile(r"^# aider chat started at (\S+ \S+)", re.M)
_LLM_HEAD = re.compile(r"^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT[\d:]+)\s*$", re.M)
_TOKENS = re.compile(r"^Tokens: ([\d.,]+)(k?) sent\b")
_RECEIVED = re.compile(r"\b([\d.,]+)(k?) received\b")
_CACHE_HIT = re.compile(r"\b([\d.,]+)(k?) cache hit\b")
_SESSION_COST = re.compile(r"\$([\d.]+) session\b")
_EDIT = re.compile(r"^Applied edit to (.+?)\s*$")
_RUN = re.compile(r"^Running (.+?)\s*$")
_ROLES: dict[str, Role] = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant"}


def _number(match: re.Match[str] | None) -> int:
    """``5,244`` or ``2.3k`` as a count."""
    if match is None:
        return 0
    return round(float(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1))


class AiderReader:
    name = "aider"

    def detect(self, source: Source) -> bool:
        head = source.text[:65536]
        return bool(_STARTED.search(head) or _LLM_HEAD.match(head.lstrip()))

    def read(self, source: Source) -> Transcript:
        if _LLM_HEAD.match(source.text.lstrip()):
            return self._llm_history(source)
        return self._chat_history(source)

    def _chat_history(self, source: Source) -> Transcript:
        b = Builder(self.name)
        tokens_in = tokens_out = cache_hit = 0
        seen_tokens = interrupted = False
        cost = None  # the sum of each aider session's last "$X session"
        session_cost: float | None = None
        reply: list[str] = []
        user_open = False
        last_shell: int | None = None
        starts = _STARTED.findall(source.text)

        def flush() -> None:
            text = "\n".join(reply).strip()
            if text:
                b.say("assistant", text)
            reply.clear()

        for line in source.text.splitlines():
            if line.startswith("# aider chat started at"):
                flush()
                if session_cost is not None:
                    cost = (cost or 0.0) + session_cost
                session_cost = None
                continue
            if line.startswith("####"):
                flush()
                text = line[5:].rstrip()
                if user_open:  # one input of several lines
                    b.extend_last(text, [])
                else:
                    b.say("user", text or " ")
                user_open = True
                continue
            user_open = False
            if line.startswith(">"):
                flush()
                note = line[1:].strip()
                if note:
                    interrupted = note.startswith("^C KeyboardInterrupt")
                edit, run = _EDIT.match(note), _RUN.match(note)
                tokens = _TOKENS.search(note)
                if edit:
                    b.attach_to_last_turn(b.call("edit", {"path": edit.group(1)}))
                    last_shell = None
                elif run:
                    last_shell = b.call("shell", {"command": run.group(1)}, output="")
                    b.attach_to_last_turn(last_shell)
                elif tokens:
                    seen_tokens = True
                    tokens_in += _number(tokens)
                    tokens_out += _number(_RECEIVED.search(note))
                    cache_hit += _number(_CACHE_HIT.search(note))
                    spent = _SESSION_COST.search(note)
                    if spent:
                        session_cost = float(spent.group(1))
                elif last_shell is not None and note:
                    call = b.calls[last_shell]
                    b.calls[last_shell] = call.model_copy(
                        update={"output": ((call.output or "") + note + "\n")})
                continue
            reply.append(line)
        flush()
        if session_cost is not None:
            cost = (cost or 0.0) + session_cost
        if not b.turns and not starts:
            raise source.fail(None, "an aider chat history with no session in it")
        status: ExitStatus | None = "interrupted" if interrupted else (
            "completed" if b.turns else None)
        return b.finish(tokens_in=tokens_in if seen_tokens else None,
                        tokens_out=tokens_out if seen_tokens else None,
                        cache_read_tokens=cache_hit if seen_tokens and cache_hit else None,
                        cost_usd=cost, exit_status=status)

    def _llm_history(self, source: Source) -> Transcript:
        b = Builder(self.name)
        heads = list(_LLM_HEAD.finditer(source.text))
        for n, head in enumerate(heads):
            end = heads[n + 1].start() if n + 1 < len(heads) else len(source.text)
            messages = _messages(source.text[head.end():end])
            if head.group(1) == "TO LLM":
                if n == 0:
                    for role, text in messages:
                        b.say(role, text)
                elif messages and messages[-1][0] == "user":
                    b.say("user", messages[-1][1])  # the new input; the rest was sent before
            else:
                for role, text in messages:
                    b.say(role, text)
        stamps = [h.group(2) for h in heads]
        return b.finish(exit_status="completed" if heads else None,
                        wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None)


def _messages(block: str) -> list[tuple[Role, str]]:
    """``ROLE text`` lines grouped into messages (a new message where the role changes)."""
    out: list[tuple[Role, list[str]]] = []
    for line in block.splitlines():
        word, _, rest = line.partition(" ")
        role = _ROLES.get(word)
        if role is None:
            if out:
                out[-1][1].append(line)
            continue
        if not out or out[-1][0] != role:
            out.append((role, []))
        out[-1][1].append(rest)
    return [(role, "\n".join(lines).strip()) for role, lines in out]


__all__ = ["AiderReader"]


