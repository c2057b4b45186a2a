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
from judgekit.ingest.transcripts.model import Role, Transcript
from judgekit.ingest.transcripts.source import Source

_STARTED = re.compile(r"^# aider chat started at (\S+ \S+)", re.M)
_LLM_HEAD = re.compile(r"^(TO LLM|LLM RESPONSE) (\d{4}-\d\d-\d\dT[\d:]+)\s*$", re.M)
_TOKENS = re.compile(r"Tokens: ([\d.]+)(k?) sent(?:, ([\d.]+)(k?) cache (?:write|hit)[^,]*)*"
                     r"(?:, ([\d.]+)(k?) cache hit)?, ([\d.]+)(k?) received\."
                     r"(?: Cost: \$([\d.]+) message, \$([\d.]+) session\.)?")
_EDIT = re.compile(r"^Applied edit to (.+?)\s*$")
_RUN = re.compile(r"^Running (.+?)\s*$")
_ROLES: dict[str, Role] = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant"}


def _number(value: str | None, k: str | None) -> int:
    return 0 if not value else round(float(value) * (1000 if k else 1))


class AiderReader:
    name = "aider"

    def detect(self, source: Source) -> bool:
        head = source.text[:2000]
        return bool(_STARTED.search(head) or _LLM_HEAD.match(head.lstrip()))

    def read(self, source: Source) -> Transcript:
        if _LLM_HEAD.match(source.text.lstrip()):
            return self._llm_history(source)
        return self._chat_history(source)

    def _chat_history(self, source: Source) -> Transcript:
        b = Builder(self.name)
        tokens_in = tokens_out = 0
        seen_tokens = False
        cost = None
        reply: list[str] = []
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
                continue
            if line.startswith("#### "):
                flush()
                b.say("user", line[5:])
                continue
            if line.startswith(">"):
                flush()
                note = line[1:].strip()
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
                    tokens_in += _number(tokens.group(1), tokens.group(2))
                    tokens_out += _number(tokens.group(7), tokens.group(8))
                    if tokens.group(10):
                        cost = float(tokens.group(10))
                elif last_shell is not None and note:
                    call = b.calls[last_shell]
                    b.calls[last_shell] = call.model_copy(
                        update={"output": ((call.output or "") + note + "\n")})
                continue
            reply.append(line)
        flush()
        if not b.turns and not starts:
            raise source.fail(None, "an aider chat history with no session in it")
        return b.finish(tokens_in=tokens_in if seen_tokens else None,
                        tokens_out=tokens_out if seen_tokens else None, cost_usd=cost,
                        exit_status="completed" if b.turns else None)

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


