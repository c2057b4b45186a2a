"""The hand-written SVG plots: geometry and escaping."""

from __future__ import annotations

import re

from judgekit.report import svg


def test_quantile_interpolates():
    assert svg.quantile([0.0, 1.0], 0.5) == 0.5
    assert svg.quantile([1.0, 2.0, 3.0, 4.0, 5.0], 0.25) == 2.0


def test_interval_plot_places_dot_and_interval_on_the_axis():
    out = svg.interval_plot([("a", 0.5, 0.25, 0.75)], title="t")
    left, right = svg.Geom.for_labels(["a"]).left, svg.Geom.for_labels(["a"]).right
    (cx,) = re.findall(r'<circle class="dot series0" cx="([\d.]+)"', out)
    assert abs(float(cx) - (left + right) / 2) < 0.1
    assert "50% [25%, 75%]" in out


def test_stacked_bars_widths_are_proportional():
    out = svg.stacked_bars([("dim", [(1, "win-a", "a"), (2, "draw", "d"), (1, "win-b", "b")])],
                           title="t", side=["consistent 50%"])
    widths = [float(w) for w in re.findall(r'<rect class="seg [^"]+" x="[\d.]+" y="[\d.]+" '
                                           r'width="([\d.]+)"', out)]
    assert len(widths) == 3 and abs(widths[1] - 2 * widths[0]) < 0.2
    assert "consistent 50%" in out


def test_labels_and_titles_are_escaped():
    out = svg.bar_chart([("<b>&", 2)], title="<x>")
    assert "<b>" not in out and "&lt;b&gt;&amp;" in out and "<title>&lt;x&gt;</title>" in out


def test_missing_values_say_no_data():
    assert "no data" in svg.box_strip_plot([("a", [])], title="t")
    assert "no data" in svg.interval_plot([("a", None, None, None)], title="t")
