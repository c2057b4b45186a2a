"""A result's transcript in the Markdown report: folded in ``<details>``, each step in
order, tool calls marked (name, exit code, command, output), the audit's verified quotes in
``<mark>``. Inside the block everything is HTML, escaped, so that it is inert whether a
renderer reads it as Markdown or passes it through as HTML.

Example:
    >>> from judgekit.ingest.transcripts import ToolCall, Transcript, Turn
    >>> from judgekit.report.transcript_view import transcript_view
    >>> t = Transcript(format="demo", turns=[Turn(role="assistant", text="<b>", tool_calls=[0])],
    ...                tool_calls=[ToolCall(name="bash", arguments={"command": "ls"})])
    >>> lines = transcript_lines("t / a / attempt 0", transcript_view(t))
    >>> lines[1], lines[6]
    ('<summary>Transcript of t / a / attempt 0: demo: 1 turns, 1 tool calls (0 failed), ended unknown</summary>', '&lt;b&gt;')
"""

from __future__ import annotations

from html import escape

from judgekit.report.transcript_view import CallView, Piece, TranscriptView, marked_text


def _esc(text: str) -> str:
    return escape(text, quote=False)


def _pre(piece: Piece) -> list[str]:
    return ["<pre>", marked_text(piece, _esc).rstrip("\n"), "</pre>", ""]


def _call(c: CallView) -> list[str]:
    code = (f" (exit {c.exit_code})" if c.exit_code is not None
            else " (error)" if c.failed else "")
    lines = [f"<p>▶ tool call {c.number}: <code>{_esc(c.name)}</code>{_esc(code)}"
             f"{' <strong>failed</strong>' if c.failed else ''}</p>", ""]
    if c.command.text:
        lines += _pre(c.command)
    if c.output is not None:
        lines += _pre(c.output)
    return lines


def transcript_lines(title: str, view: TranscriptView) -> list[str]:
    """The transcript of the result ``title`` names, folded."""
    marked_note = (f" · {view.n_marked} audit quote{'s' if view.n_marked != 1 else ''} "
                   "marked" if view.n_marked else "")
    lines = ["<details>",
             f"<summary>{_esc(f'Transcript of {title}: {view.headline()}{marked_note}')}"
             "</summary>", ""]
    for note in view.notes():
        lines += [f"<p>{_esc(note)}</p>", ""]
    for step in view.steps:
        lines += [f"<p><strong>{_esc(step.role)}</strong></p>", ""]
        if step.text is not None:
            lines += _pre(step.text)
        for c in step.calls:
            lines += _call(c)
    return lines + ["</details>", ""]


__all__ = ["transcript_lines"]
