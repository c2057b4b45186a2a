"""A result's transcript as the reports show it: its steps in order, each text cut to a
bounded length, the whole held to :data:`TRANSCRIPT_CHARS`, and the quotes of its audit
verdicts that the audit verified marked where they stand.

What is cut is counted (texts cut, steps left out past the cap, characters shown of how
many), so a report can say it. Both the HTML and the Markdown report render this one view.

Example:
    >>> from judgekit.ingest.transcripts import ToolCall, Transcript, Turn
    >>> t = Transcript(format="demo", turns=[Turn(role="assistant", text="Run the tests.",
    ...     tool_calls=[0])], tool_calls=[ToolCall(name="bash",
    ...     arguments={"command": "pytest"}, output="E   ZeroDivisionError", exit_code=1)])
    >>> v = transcript_view(t, ["ZeroDivisionError"])
    >>> call = v.steps[0].calls[0]
    >>> call.command.text, call.failed, call.output.marks, v.n_marked
    ('pytest', True, [(4, 21)], 1)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from judgekit.audit import AuditRecord
from judgekit.audit.quote_spans import merged, spans_of, verified_quotes
from judgekit.ingest.transcripts import ToolCall, Transcript

#: Characters of one transcript shown in report.html, at most (texts, commands and outputs
#: together).
TRANSCRIPT_CHARS = 40_000
#: The same in report.md, which is read as one page (a compact account).
MARKDOWN_TRANSCRIPT_CHARS = 8_000
#: Characters of one message shown (its start).
TEXT_CHARS = 3_000
#: Characters of one tool call's command or arguments shown (its start).
COMMAND_CHARS = 1_000
#: Characters of one tool call's output shown: its start and its end, half each.
OUTPUT_CHARS = 2_000


@dataclass
class Piece:
    """A text as shown: cut where it was long (``cut`` characters left out, the place said
    in the text), with the spans of verified quotes to mark."""

    text: str
    cut: int = 0
    marks: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class CallView:
    number: int
    name: str
    command: Piece
    exit_code: int | None
    failed: bool
    output: Piece | None


@dataclass
class StepView:
    role: str
    text: Piece | None
    calls: list[CallView] = field(default_factory=list)


@dataclass
class TranscriptView:
    """One transcript as shown, and what showing it left out."""

    format: str
    exit_status: str | None
    limit: str | None
    n_turns: int
    n_calls: int
    n_failed: int
    #: the cap the transcript was held to (characters)
    cap: int = TRANSCRIPT_CHARS
    steps: list[StepView] = field(default_factory=list)
    #: characters of the transcript's texts, and how many of them are shown
    total_chars: int = 0
    shown_chars: int = 0
    #: texts cut to their length's limit
    n_cut: int = 0
    #: steps not shown once the transcript's cap was reached
    n_left_out: int = 0
    #: verified quotes of the result's audit verdicts, and how many are marked in what is
    #: shown (a quote can lie in a cut part)
    n_quotes: int = 0
    n_marked: int = 0

    def headline(self) -> str:
        """``swe-agent: 4 turns, 6 tool calls (1 failed), ended submitted``."""
        status = (self.exit_status or "unknown") + (f" ({self.limit} limit)"
                                                    if self.limit else "")
        return (f"{self.format}: {self.n_turns} turns, {self.n_calls} tool calls "
                f"({self.n_failed} failed), ended {status}")

    def notes(self) -> list[str]:
        """What was cut and marked, in words (empty when all is shown and nothing marked)."""
        out = []
        if self.n_cut or self.n_left_out:
            bits = [f"{self.n_cut} long text{'s' if self.n_cut != 1 else ''} cut"
                    ] if self.n_cut else []
            if self.n_left_out:
                bits.append(f"{self.n_left_out} later step"
                            f"{'s' if self.n_left_out != 1 else ''} left out past the cap "
                            f"of {self.cap:,} characters")
            out.append(f"Shown: {self.shown_chars:,} of {self.total_chars:,} characters "
                       f"({'; '.join(bits)}); the whole session is in runs.jsonl.")
        if self.n_quotes:
            out.append(f"Audit evidence: {self.n_marked} of {self.n_quotes} verified "
                       f"quote{'s' if self.n_quotes != 1 else ''} marked in the steps shown.")
        return out


def _cut_head(text: str, limit: int) -> tuple[str, int]:
    if len(text) <= limit:
        return text, 0
    left = len(text) - limit
    return f"{text[:limit]}\n[… {left:,} more characters cut]", left


def _cut_middle(text: str, limit: int) -> tuple[str, int]:
    if len(text) <= limit:
        return text, 0
    half = limit // 2
    if not half:
        return _cut_head(text, limit)
    left = len(text) - 2 * half
    return f"{text[:half]}\n[… {left:,} characters cut …]\n{text[-half:]}", left


def _command(call: ToolCall) -> str:
    command = call.arguments.get("command")
    if isinstance(command, str):
        return command
    if not call.arguments:
        return ""
    return json.dumps(call.arguments, ensure_ascii=False, sort_keys=True, default=str)


class _Builder:
    def __init__(self, quotes: Sequence[str], cap: int) -> None:
        self.quotes = list(quotes)
        self.found: set[int] = set()
        self.budget = cap
        self.shown = 0
        self.n_cut = 0

    def piece(self, text: str, limit: int, *, middle: bool = False) -> Piece:
        shown, cut = (_cut_middle if middle else _cut_head)(text, min(limit, self.budget))
        self.n_cut += cut > 0
        self.budget -= len(text) - cut
        self.shown += len(text) - cut
        marks: list[tuple[int, int]] = []
        if self.quotes:
            spans = spans_of(self.quotes, shown)
            self.found.update(i for i, s in enumerate(spans) if s is not None)
            marks = merged(spans)
        return Piece(shown, cut, marks)


def _steps(t: Transcript) -> list[tuple[str, str, list[int]]]:
    """(role, text, calls) of each step in order: tool messages are shown with their calls
    (unless the session records no calls), and calls no message made come last."""
    steps: list[tuple[str, str, list[int]]] = []
    attributed: set[int] = set()
    for turn in t.turns:
        calls = [i for i in turn.tool_calls if 0 <= i < len(t.tool_calls)]
        if turn.role == "tool" and t.tool_calls:
            continue
        attributed.update(calls)
        if turn.text.strip() or calls:
            steps.append((turn.role, turn.text, calls))
    rest = [i for i in range(len(t.tool_calls)) if i not in attributed]
    if rest:
        steps.append(("tool", "", rest))
    return steps


def _size(t: Transcript, calls: Sequence[int], text: str) -> int:
    return len(text) + sum(len(_command(t.tool_calls[i])) + len(t.tool_calls[i].output or "")
                           for i in calls)


def transcript_view(t: Transcript, quotes: Sequence[str] = (), *,
                    cap: int = TRANSCRIPT_CHARS) -> TranscriptView:
    """``t`` as the reports show it, held to ``cap`` characters, ``quotes`` (verified
    evidence) marked."""
    failed = set(t.failed_calls())
    view = TranscriptView(format=t.format, exit_status=t.exit_status, limit=t.limit,
                          n_turns=t.n_turns, n_calls=len(t.tool_calls), n_failed=len(failed),
                          n_quotes=len(quotes), cap=cap)
    build = _Builder(quotes, cap)
    steps = _steps(t)
    view.total_chars = sum(_size(t, calls, text) for _, text, calls in steps)
    for n, (role, text, calls) in enumerate(steps):
        if build.budget <= 0:
            view.n_left_out = len(steps) - n
            break
        step = StepView(role=role, text=build.piece(text, TEXT_CHARS) if text.strip() else None)
        for i in calls:
            call = t.tool_calls[i]
            command = build.piece(_command(call), COMMAND_CHARS)
            output = (build.piece(call.output, OUTPUT_CHARS, middle=True)
                      if call.output and call.output.strip() else None)
            step.calls.append(CallView(number=i + 1, name=call.name, command=command,
                                       exit_code=call.exit_code, failed=i in failed,
                                       output=output))
        view.steps.append(step)
    view.shown_chars, view.n_cut, view.n_marked = build.shown, build.n_cut, len(build.found)
    return view


def marked_text(piece: Piece, escape: Callable[[str], str]) -> str:
    """``piece``'s text with each part escaped by ``escape`` and each mark in ``<mark>``
    (placed around escaped text only)."""
    out, at = [], 0
    for start, end in piece.marks:
        out.append(escape(piece.text[at:start]))
        out.append(f"<mark>{escape(piece.text[start:end])}</mark>")
        at = end
    out.append(escape(piece.text[at:]))
    return "".join(out)


def evidence_quotes(verdicts: Sequence[AuditRecord]) -> list[str]:
    """The quotes of the valid verdicts' evidence that the audit verified, each once."""
    out: list[str] = []
    for v in verdicts:
        if v.state == "valid" and v.verdict:
            for q in verified_quotes(v.verdict.evidence, v.quotes_not_found):
                if q not in out:
                    out.append(q)
    return out


def shown_transcript(session: Transcript | None, verdicts: Sequence[AuditRecord] = (), *,
                     cap: int = TRANSCRIPT_CHARS) -> TranscriptView | None:
    """The view of a result's session (None without one, or for text of no known format),
    its verdicts' verified quotes marked."""
    if session is None or session.format == "raw":
        return None
    return transcript_view(session, evidence_quotes(verdicts), cap=cap)


__all__ = ["COMMAND_CHARS", "CallView", "MARKDOWN_TRANSCRIPT_CHARS", "OUTPUT_CHARS", "Piece",
           "StepView", "TEXT_CHARS", "TRANSCRIPT_CHARS", "TranscriptView", "evidence_quotes",
           "marked_text", "shown_transcript", "transcript_view"]
