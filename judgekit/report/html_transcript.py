"""A result's transcript in the HTML report: folded, each step in order, tool calls marked
(name, command, exit code, output), the audit's verified quotes in ``<mark>``.

Everything from the session is escaped; a mark is placed around escaped text only.

Example:
    >>> from judgekit.report.transcript_view import Piece
    >>> marked(Piece("a <b> c", marks=[(2, 5)]))
    'a <mark>&lt;b&gt;</mark> c'
"""

from __future__ import annotations

from judgekit.report.markup import Raw, e
from judgekit.report.transcript_view import (CallView, Piece, StepView, TranscriptView,
                                             marked_text)


def marked(piece: Piece) -> str:
    """The piece's text, escaped, its marks in ``<mark>``."""
    return marked_text(piece, e)


def _call(c: CallView) -> str:
    code = (f' <span class="badge b-{"failed" if c.failed else "passed"}">exit '
            f"{e(c.exit_code)}</span>" if c.exit_code is not None
            else ' <span class="badge b-failed">error</span>' if c.failed else "")
    command = (f'<pre class="command">{marked(c.command)}</pre>'
               if c.command.text else "")
    output = (f'<pre class="output">{marked(c.output)}</pre>' if c.output is not None
              else '<p class="muted">No output recorded.</p>')
    return (f'<div class="tool-call{" failed" if c.failed else ""}">'
            f'<p class="tool-head">▶ tool call {c.number}: <code>{e(c.name)}</code>{code}</p>'
            f"{command}{output}</div>")


def _step(s: StepView) -> str:
    text = f'<div class="reasoning">{marked(s.text)}</div>' if s.text is not None else ""
    return (f'<li class="step role-{e(s.role)}"><span class="role">{e(s.role)}</span>'
            f'{text}{"".join(map(_call, s.calls))}</li>')


def transcript_details(view: TranscriptView) -> Raw:
    """The transcript, folded under a line saying how the session went."""
    marked_note = (f" · {view.n_marked} audit quote{'s' if view.n_marked != 1 else ''} "
                   "marked" if view.n_marked else "")
    notes = "".join(f'<p class="muted">{e(n)}</p>' for n in view.notes())
    steps = "".join(map(_step, view.steps))
    return Raw(f'<h5>Transcript</h5><details class="inner transcript"><summary>'
               f"{e(view.headline())}{e(marked_note)}</summary>{notes}"
               f'<ol class="transcript">{steps}</ol></details>')


__all__ = ["marked", "transcript_details"]
