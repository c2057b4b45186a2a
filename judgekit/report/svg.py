"""Small inline SVG plots for the HTML report, written by hand (no plotting library).

Each function returns one ``<svg>`` element as a string, sized by its ``viewBox`` so it
scales to the page. Colours come from CSS classes (``series0``…``series7``, ``win-a``,
``draw``, ``win-b``), so the report's stylesheet (and its print rules) decide them.

Example:
    >>> svg = interval_plot([("a", 0.5, 0.3, 0.7)], title="pass rate")
    >>> svg.startswith("<svg") and "<title>pass rate</title>" in svg
    True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 640
LEFT = 130
PLOT_RIGHT = 455
ROW = 32
TOP = 12
AXIS = 30
CHAR_W = 9.0  # average width of one label character at the plots' font size


@dataclass(frozen=True)
class Geom:
    """Horizontal layout of one plot: labels left of ``left``, values right of ``right``."""

    left: float = LEFT
    right: float = PLOT_RIGHT
    width: float = WIDTH

    @classmethod
    def for_labels(cls, labels: Sequence[str], value_room: float = WIDTH - PLOT_RIGHT,
                   plot: float = PLOT_RIGHT - LEFT) -> Geom:
        longest = max((len(str(x)) for x in labels), default=0)
        left = min(max(longest * CHAR_W + 20, 80.0), 320.0)
        return cls(left, left + plot, left + plot + value_room)


def _e(text: object) -> str:
    return escape(str(text), quote=True).replace("://", ":&#47;/")


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of already sorted values."""
    if not sorted_values:
        raise ValueError("no values")
    pos = (len(sorted_values) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _short(label: str, limit: int = 36) -> str:
    return label if len(label) <= limit else label[:limit - 1] + "…"


class _Plot:
    """An SVG being drawn: rows from the top, a value axis at the bottom."""

    def __init__(self, labels: Sequence[str], title: str, value_room: float = WIDTH - PLOT_RIGHT,
                 plot: float = PLOT_RIGHT - LEFT):
        self.labels = [_short(str(x)) for x in labels]
        self.g = Geom.for_labels(self.labels, value_room, plot)
        self.title = title
        self.parts: list[str] = []

    def x(self, v: float, lo: float, hi: float) -> float:
        span = (hi - lo) or 1.0
        return self.g.left + (min(max(v, lo), hi) - lo) / span * (self.g.right - self.g.left)

    def row(self, i: int) -> float:
        """Draw row ``i``'s label; return the row's centre line."""
        y = TOP + i * ROW + ROW / 2
        self.parts.append(f'<text class="label" x="{self.g.left - 10:.1f}" y="{y + 4:.1f}" '
                          f'text-anchor="end">{_e(self.labels[i])}</text>')
        return y

    def value(self, y: float, text: str) -> None:
        self.parts.append(f'<text class="value" x="{self.g.right + 12:.1f}" y="{y + 4:.1f}">'
                          f"{_e(text)}</text>")

    def axis(self, lo: float, hi: float, fmt: Callable[[float], str], ticks: int = 5) -> None:
        y0, y1 = TOP, TOP + len(self.labels) * ROW
        for i in range(ticks + 1):
            v = lo + (hi - lo) * i / ticks
            x = self.x(v, lo, hi)
            self.parts.append(f'<line class="grid" x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" '
                              f'y2="{y1}"/><text class="tick" x="{x:.1f}" y="{y1 + 16}" '
                              f'text-anchor="middle">{_e(fmt(v))}</text>')

    def add(self, markup: str) -> None:
        self.parts.append(markup)

    def svg(self, axis: bool = True) -> str:
        w = self.g.width
        h = TOP + len(self.labels) * ROW + (AXIS if axis else 6)
        return (f'<svg class="plot" width="{w:.0f}" height="{h}" viewBox="0 0 {w:.0f} {h}" '
                f'role="img" aria-label="{_e(self.title)}"><title>{_e(self.title)}</title>'
                + "".join(self.parts) + "</svg>")


def interval_plot(rows: Sequence[tuple[str, float | None, float | None, float | None]], *,
                  title: str, lo: float = 0.0, hi: float = 1.0,
                  fmt: Callable[[float], str] = _pct,
                  marks: Sequence[tuple[float, str]] = (), ticks: int = 5) -> str:
    """One dot (the estimate) and one line (its interval) per row: ``(label, v, lo, hi)``.

    ``marks`` draws a dashed reference line at each value (a threshold, a fair point), with
    its name in the line's tooltip.
    """
    p = _Plot([r[0] for r in rows], title)
    p.axis(lo, hi, fmt, ticks)
    y0, y1 = TOP, TOP + len(rows) * ROW
    for value, name in marks:
        x = p.x(value, lo, hi)
        p.add(f'<line class="mark" x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" '
              f'stroke-dasharray="4 3"><title>{_e(name)}</title></line>')
    for i, (_, v, ci_lo, ci_hi) in enumerate(rows):
        y, cls = p.row(i), f"series{i % 8}"
        if v is None:
            p.value(y, "no data")
            continue
        text = fmt(v)
        if ci_lo is not None and ci_hi is not None:
            xa, xb = p.x(ci_lo, lo, hi), p.x(ci_hi, lo, hi)
            p.add(f'<line class="ci {cls}" x1="{xa:.1f}" y1="{y:.1f}" x2="{xb:.1f}" y2="{y:.1f}"/>'
                  + "".join(f'<line class="ci {cls}" x1="{x:.1f}" y1="{y - 6:.1f}" x2="{x:.1f}" '
                            f'y2="{y + 6:.1f}"/>' for x in (xa, xb)))
            text = f"{fmt(v)} [{fmt(ci_lo)}, {fmt(ci_hi)}]"
        p.add(f'<circle class="dot {cls}" cx="{p.x(v, lo, hi):.1f}" cy="{y:.1f}" r="6"/>')
        p.value(y, text)
    return p.svg()


MAX_DOTS = 1000
"""Dots a row of :func:`box_strip_plot` draws at most; past it, values evenly spaced by rank
stand for the rest (the box and whiskers are every value's)."""


def box_strip_plot(rows: Sequence[tuple[str, Sequence[float]]], *, title: str,
                   lo: float = 0.0, hi: float = 1.0,
                   fmt: Callable[[float], str] = lambda v: f"{v:.2f}") -> str:
    """A box (quartiles, median, range) over the individual points of each row."""
    p = _Plot([r[0] for r in rows], title)
    p.axis(lo, hi, fmt)
    for i, (_, vals) in enumerate(rows):
        y, cls = p.row(i), f"series{i % 8}"
        if not vals:
            p.value(y, "no data")
            continue
        s = sorted(vals)
        q1, med, q3 = (quantile(s, q) for q in (0.25, 0.5, 0.75))
        x = [p.x(v, lo, hi) for v in (s[0], q1, med, q3, s[-1])]
        p.add(f'<line class="whisker" x1="{x[0]:.1f}" y1="{y:.1f}" x2="{x[4]:.1f}" '
              f'y2="{y:.1f}"/><rect class="box {cls}" x="{x[1]:.1f}" y="{y - 10:.1f}" '
              f'width="{max(x[3] - x[1], 1):.1f}" height="20"/><line class="median" '
              f'x1="{x[2]:.1f}" y1="{y - 10:.1f}" x2="{x[2]:.1f}" y2="{y + 10:.1f}"/>')
        dots = vals if len(vals) <= MAX_DOTS else [
            s[i * len(s) // MAX_DOTS] for i in range(MAX_DOTS)]
        for j, v in enumerate(dots):
            jitter = ((j * 7) % 11 - 5) * 1.4
            p.add(f'<circle class="point {cls}" cx="{p.x(v, lo, hi):.1f}" cy="{y + jitter:.1f}" '
                  f'r="3"><title>{_e(fmt(v))}</title></circle>')
        shown = "" if dots is vals else f" ({MAX_DOTS} dots, evenly spaced by rank)"
        p.value(y, f"median {fmt(med)} · n={len(vals)}{shown}")
    return p.svg()


def stacked_bars(rows: Sequence[tuple[str, Sequence[tuple[float, str, str]]]], *,
                 title: str, side: Sequence[str] | None = None) -> str:
    """Horizontal 100% bars; each row is ``(label, [(count, css_class, tooltip), ...])``.

    ``side`` holds one short text per row drawn right of the bar (for example the judge's
    position-consistency).
    """
    room = max((len(t) for t in side or ()), default=8) * CHAR_W + 24
    p = _Plot([r[0] for r in rows], title, value_room=room, plot=440)
    for i, (_, segments) in enumerate(rows):
        y = p.row(i)
        total = sum(c for c, _, _ in segments)
        x = p.g.left
        if not total:
            p.value(y, "no verdicts")
            continue
        for count, cls, tip in segments:
            w = count / total * (p.g.right - p.g.left)
            if w <= 0:
                continue
            p.add(f'<rect class="seg {cls}" x="{x:.1f}" y="{y - 11:.1f}" width="{w:.1f}" '
                  f'height="22"><title>{_e(tip)}</title></rect>')
            if w >= 18:
                p.add(f'<text class="seg-label {cls}" x="{x + w / 2:.1f}" y="{y + 4:.1f}" '
                      f'text-anchor="middle">{count:g}</text>')
            x += w
        if side:
            p.value(y, side[i])
    return p.svg(axis=False)


def _nice_top(v: float, integers: bool) -> tuple[float, int]:
    if integers and v <= 6:
        return max(float(v), 1.0), max(int(v), 1)
    step = 10 ** math.floor(math.log10(v / 4)) if v > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if v <= 4 * step * m:
            return 4 * step * m, 4
    return v, 4


def bar_chart(rows: Sequence[tuple[str, float | None]], *, title: str,
              fmt: Callable[[float], str] = lambda v: f"{v:g}") -> str:
    """Horizontal bars from zero, one per row; ``None`` is drawn as "no data"."""
    known = [v for _, v in rows if v is not None]
    integers = all(float(v).is_integer() for v in known)
    hi, ticks = _nice_top(max(known) if known and max(known) > 0 else 1.0, integers)
    p = _Plot([r[0] for r in rows], title)
    p.axis(0.0, hi, fmt, ticks=ticks)
    for i, (_, v) in enumerate(rows):
        y = p.row(i)
        if v is None:
            p.value(y, "no data")
            continue
        p.add(f'<rect class="bar series{i % 8}" x="{p.g.left:.1f}" y="{y - 9:.1f}" '
              f'width="{max(p.x(v, 0.0, hi) - p.g.left, 1):.1f}" height="18"/>')
        p.value(y, fmt(v))
    return p.svg()
