"""HTML building blocks for the report. Every piece of text goes through :func:`e`.

Diffs, test output and judge reasoning are untrusted: they are escaped like everything
else, never inserted as markup.

Example:
    >>> e("<script>")
    '&lt;script&gt;'
    >>> table(["a"], [["<b>"]])[:59]
    '<div class="wrap"><table><thead><tr><th>a</th></tr></thead>'
    >>> table(["a"], [["<b>"]])[59:]
    '<tbody><tr><td>&lt;b&gt;</td></tr></tbody></table></div>'
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape


class Raw(str):
    """A string that is already safe HTML."""


def e(text: object) -> str:
    """Escape any value for HTML text or a quoted attribute.

    ``://`` is written as ``:&#47;/`` (same text on screen), so that no URL from untrusted
    content appears literally in the file.
    """
    if isinstance(text, Raw):
        return text
    return escape(str(text), quote=True).replace("://", ":&#47;/")


def raw(html: str) -> Raw:
    return Raw(html)


def table(header: Sequence[str], rows: Sequence[Sequence[object]], cls: str = "",
          numeric: Sequence[int] = ()) -> Raw:
    """A table; cells are escaped unless they are :class:`Raw`. It sits in a box that
    scrolls sideways when the table is wider than the page, so that the page never does."""
    c = f' class="{e(cls)}"' if cls else ""

    def cell(i: int, v: object, t: str) -> str:
        a = ' class="num"' if i in numeric else ""
        return f"<{t}{a}>{e(v)}</{t}>"

    head = "".join(cell(i, h, "th") for i, h in enumerate(header))
    body = "".join("<tr>" + "".join(cell(i, v, "td") for i, v in enumerate(r)) + "</tr>"
                   for r in rows)
    return Raw(f'<div class="wrap"><table{c}><thead><tr>{head}</tr></thead><tbody>{body}'
               "</tbody></table></div>")


def badge(text: str, kind: str | None = None) -> Raw:
    """A small coloured label; ``kind`` picks the colour (defaults to the text)."""
    k = "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in (kind or text).lower())
    return Raw(f'<span class="badge b-{k}">{e(text)}</span>')


def pre(text: str, cls: str = "", limit: int = 60_000, diff: bool = False) -> Raw:
    """Preformatted text, cut to ``limit`` characters; diffs get per-line colours."""
    cut = len(text) > limit
    body = text[:limit]
    inner = e(body)
    if diff:  # escaping changes no line's first characters, so lines are classed after it
        inner = "\n".join(map(_diff_line, inner.split("\n")))
    note = (f'<p class="muted">Cut to the first {limit:,} of {len(text):,} characters; the '
            f"full text is in runs.jsonl.</p>" if cut else "")
    c = f' class="{e(cls)}"' if cls else ""
    return Raw(f"<pre{c}>{inner}</pre>{note}")


def _diff_line(line: str) -> str:
    """One escaped diff line, in a span coloured by its kind (escaping keeps its start)."""
    c = line[:1]
    if c == "+":
        kind = "meta" if line.startswith("+++") else "add"
    elif c == "-":
        kind = "meta" if line.startswith("---") else "del"
    elif c == "@":
        kind = "hunk" if line.startswith("@@") else ""
    elif c in ("d", "i"):
        kind = "meta" if line.startswith(("diff ", "index ")) else ""
    else:
        return line
    return f'<span class="{kind}">{line}</span>' if kind else line


def section(anchor: str, title: str, body: str) -> Raw:
    opening, closing = section_ends(anchor, title)
    return Raw(f"{opening}{body}{closing}")


def section_ends(anchor: str, title: str) -> tuple[Raw, Raw]:
    """A section's opening (with its heading) and closing, for a body written in pieces."""
    return Raw(f'<section id="{e(anchor)}"><h2>{e(title)}</h2>'), Raw("</section>")


def not_run(text: str) -> Raw:
    return Raw(f'<p class="not-run">{e(text)}</p>')
