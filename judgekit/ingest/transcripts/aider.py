"""aider: the chat history (``.aider.chat.history.md``) and the ``--llm-history-file`` log.

The chat history is Markdown: ``# aider chat started at ...`` opens a session, ``#### ``
lines are the user's input, ``> `` lines aider's own notes (``Applied edit to FILE``,
``Running CMD``, ``Tokens: 2.1k sent, 120 received. Cost: $0.01 message, $0.03 session.``),
everything else the model's replies, but for aider's own report of edits that failed to
match (``# N SEARCH/REPLACE block failed to match!`` and the text it sends the model back,
to its closing ``The SEARCH section must exactly match ...``). Edits and commands become
tool calls (``edit`` with ``arguments.path`` and, where the reply before it holds them, the
``edits``' search and replace texts; ``shell`` with ``arguments.command``); an edit that
failed to match is an ``edit`` call with aider's report as its output, flagged ``error``.
``patch_files`` are the files aider says it applied edits to (the history holds no diff).
``Model X has hit a token limit!`` ends a session ``limits_exceeded`` (``tokens``) when no
reply follows it.

The LLM history log holds each request (``TO LLM``: every message sent, ``-------`` between
them, one ``ROLE`` prefix a line) and each reply (``LLM RESPONSE``). A request repeats
aider's prompt (system prompt, worked examples, repository map, file contents, the chat so
far, a closing reminder, as a message of its own or appended to the last user message);
its new input is its last ``USER`` message, less that reminder. The transcript is the
first system message, each request's new input and each reply; a reply's search/replace
blocks are ``edit`` calls (the log does not say whether they applied, so no
``patch_files``), and it records no tokens or cost.
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
_MODEL = re.compile(r"^(?:Main model|Models?): (\S+)")
_FAILED = re.compile(r"^# \d+ SEARCH/REPLACE blocks? failed to match!")
_NO_MATCH = re.compile(r"^## SearchReplace\w*: This SEARCH block failed to exactly match "
                       r"lines in (.+?)\s*$", re.M)
_FAILED_END = "The SEARCH section must exactly match"
#: lines aider may add after that closing one (when other blocks of the reply applied)
_FAILED_TAIL = ("# The other ", "Don't re-send them", "Just reply with fixed versions")
_TOKEN_LIMIT = re.compile(r"^Model \S+ has hit a token limit!")
_ROLES: dict[str, Role] = {"SYSTEM": "system", "USER": "user", "ASSISTANT": "assistant"}
_SEPARATOR = "-------"
_SEARCH, _DIVIDER, _REPLACE = (re.compile(r"^<{5,9} SEARCH\b"), re.compile(r"^={5,9}\s*$"),
                               re.compile(r"^>{5,9} REPLACE\b"))


def _edit_blocks(text: str) -> list[tuple[str, str, str]]:
    """The search/replace blocks of a reply: (path, search, replace) each; the path is the
    line before the block's opening fence (or before the block where it has none)."""
    lines = text.splitlines()
    blocks: list[tuple[str, str, str]] = []
    path = ""
    i = 0
    while i < len(lines):
        if not _SEARCH.match(lines[i]):
            i += 1
            continue
        j = i - 1
        while j >= 0 and (not lines[j].strip() or lines[j].lstrip().startswith("```")):
            j -= 1
        if j >= 0:
            path = lines[j].strip().strip("*`").strip() or path
        search: list[str] = []
        replace: list[str] = []
        part = search
        i += 1
        while i < len(lines) and not _REPLACE.match(lines[i]):
            if part is search and _DIVIDER.match(lines[i]):
                part = replace
            else:
                part.append(lines[i])
            i += 1
        if path:
            blocks.append((path, "".join(x + "\n" for x in search),
                           "".join(x + "\n" for x in replace)))
        i += 1
    return blocks


def _edit_arguments(path: str, blocks: list[tuple[str, str, str]]) -> dict[str, object]:
    edits = [{"search": s, "replace": r} for p, s, r in blocks if p == path]
    return {"path": path, **({"edits": edits} if edits else {})}


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
        blocks: list[tuple[str, str, str]] = []  # of the last reply
        edited: list[str] = []
        model: str | None = None
        user_open = False
        last_shell: int | None = None
        starts = _STARTED.findall(source.text)
        failing: list[str] | None = None  # aider's report of edits that failed to match
        closing = False  # that report's closing line was read
        token_limit = False

        def flush() -> None:
            nonlocal token_limit, interrupted
            text = "\n".join(reply).strip()
            if text:
                b.say("assistant", text)
                blocks[:] = _edit_blocks(text)
                token_limit = interrupted = False
            reply.clear()

        def failed_edits() -> None:
            nonlocal failing, closing
            if failing is None:
                return
            report = "\n".join(x.rstrip() for x in failing).strip()
            failing, closing = None, False
            named = _edit_blocks(_NO_MATCH.sub(lambda m: m.group(1), report))
            paths = list(dict.fromkeys(_NO_MATCH.findall(report))) or list(
                dict.fromkeys(p for p, _, _ in blocks)) or [""]
            for path in paths:
                b.attach_to_last_turn(b.call("edit", _edit_arguments(path, named or blocks),
                                             output=report, error=True))
            b.say("tool", report)

        for line in source.text.splitlines():
            if failing is not None and not (line.startswith(">")
                                             and not _REPLACE.match(line)):
                stripped = line.strip()
                if closing and stripped and not stripped.startswith(_FAILED_TAIL):
                    failed_edits()  # the model's next reply
                else:
                    failing.append(line)
                    closing = closing or stripped.startswith(_FAILED_END)
                    continue
            if line.startswith(">") and not _REPLACE.match(line):
                failed_edits()
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
            if line.startswith(">") and not _REPLACE.match(line):
                flush()
                note = line[1:].strip()
                if note:
                    interrupted = note.startswith("^C KeyboardInterrupt")
                edit, run, model_note = _EDIT.match(note), _RUN.match(note), _MODEL.match(note)
                tokens = _TOKENS.search(note)
                if _FAILED.match(note):
                    failing = [note]
                    last_shell = None
                elif _TOKEN_LIMIT.match(note):
                    token_limit = True
                elif edit:
                    path = edit.group(1)
                    b.attach_to_last_turn(b.call("edit", _edit_arguments(path, blocks)))
                    if path not in edited:
                        edited.append(path)
                    last_shell = None
                elif run:
                    last_shell = b.call("shell", {"command": run.group(1)}, output="")
                    b.attach_to_last_turn(last_shell)
                elif model_note:
                    model = model_note.group(1).rstrip(",")
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
        failed_edits()
        flush()
        if session_cost is not None:
            cost = (cost or 0.0) + session_cost
        if not b.turns and not starts:
            raise source.fail(None, "an aider chat history with no session in it")
        status: ExitStatus | None = "interrupted" if interrupted else (
            "limits_exceeded" if token_limit else "completed" if b.turns else None)
        return b.finish(limit="tokens" if status == "limits_exceeded" else None,
                        tokens_in=tokens_in if seen_tokens else None,
                        tokens_out=tokens_out if seen_tokens else None,
                        cache_read_tokens=cache_hit if seen_tokens and cache_hit else None,
                        cost_usd=cost, exit_status=status, patch_files=edited, model=model)

    def _llm_history(self, source: Source) -> Transcript:
        b = Builder(self.name)
        heads = list(_LLM_HEAD.finditer(source.text))
        for n, head in enumerate(heads):
            end = heads[n + 1].start() if n + 1 < len(heads) else len(source.text)
            messages = _messages(source.text[head.end():end])
            if head.group(1) == "TO LLM":
                if n == 0 and messages and messages[0][0] == "system":
                    b.say("system", messages[0][1])
                users = [text for role, text in messages if role == "user"]
                if users:  # the new input; the rest was sent before
                    b.say("user", _without_reminder(
                        users[-1], [text for role, text in messages if role == "system"]))
            else:
                for role, text in messages:
                    calls = [b.call("edit", {"path": path, "edits": [
                        {"search": search, "replace": replace}]})
                        for path, search, replace in _edit_blocks(text)
                    ] if role == "assistant" else []
                    b.say(role, text, calls)
        stamps = [h.group(2) for h in heads]
        answered = bool(heads) and heads[-1].group(1) == "LLM RESPONSE"
        return b.finish(exit_status="completed" if answered else None,
                        wall_time_s=seconds_between(stamps[0], stamps[-1]) if stamps else None)


def _without_reminder(text: str, system: list[str]) -> str:
    """``text`` less the reminder aider appends to the last user message for some models
    (a closing part, after a blank line, that the system prompt also holds)."""
    start = text.find("\n\n")
    while start != -1:
        tail = text[start + 2:].strip()
        if len(tail) >= 40 and any(tail in s for s in system):
            return text[:start].rstrip()
        start = text.find("\n\n", start + 2)
    return text


def _messages(block: str) -> list[tuple[Role, str]]:
    """``ROLE text`` lines grouped into messages: a new message at each ``-------`` line and
    where the role changes."""
    out: list[tuple[Role, list[str]]] = []
    split = True
    for line in block.splitlines():
        if line.rstrip() == _SEPARATOR:
            split = True
            continue
        word, _, rest = line.partition(" ")
        role = _ROLES.get(word)
        if role is None:
            if out:
                out[-1][1].append(line)
            continue
        if split or out[-1][0] != role:
            out.append((role, []))
        split = False
        out[-1][1].append(rest)
    return [(role, "\n".join(lines).strip()) for role, lines in out]


__all__ = ["AiderReader"]


