r"""Number formatting shared by the terminal, Markdown and HTML reports, and the one
sanitiser of text from data bound for a terminal (:func:`printable`).

Example:
    >>> printable("arm\x1b]0;title\x07 \x1b[2Jx\ty")
    'arm x\ty'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Terminal control sequences (CSI, OSC, DCS/SOS/PM/APC strings, other escapes, their C1
#: forms), every other C0/C1 control but newline and tab, and the bidirectional overrides
#: that reorder what a reader sees.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x9b[0-?]*[ -/]*[@-~]?"
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def printable(text: object) -> str:
    """``text`` with every terminal control sequence and control character removed (newline
    and tab kept): what any command prints of a value that came from data goes through it."""
    return _CONTROL.sub("", str(text))


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def num(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def interval(ci: Sequence[float] | None, as_pct: bool = False) -> str:
    if not ci:
        return "–"
    f = pct if as_pct else num
    return f"[{f(ci[0])}, {f(ci[1])}]"


def seconds(x: float | None) -> str:
    return "–" if x is None else f"{x:.0f}s"


def money(x: float | None) -> str:
    return "–" if x is None else f"${x:.2f}"


def spend(x: float) -> str:
    """Dollars spent: cents from a dollar up (and for nothing), else four decimals."""
    return f"${x:.2f}" if x == 0 or abs(x) >= 1 else f"${x:.4f}"
