"""A rounds board chart keeps its line labels inside the chart: the chance line of a Brier board sits at
the right edge (always 0.5 reads 0.25, far above the forecasters), and its label went past the SVG."""

from __future__ import annotations

import re

from foresci.rounds.site import CHART_WIDTH, interval_chart


def test_a_line_at_the_right_edge_has_its_label_inside_the_chart() -> None:
    board = {"metric": "brier", "naive": 0.02, "chance": 0.25, "methods": [
        {"method": "trend", "low": 0.005, "high": 0.05, "score": 0.025, "ranked": True},
        {"method": "always-0.5", "low": 0.25, "high": 0.25, "score": 0.25, "ranked": True}]}
    svg = interval_chart(board)
    labels = {match.group(4): (float(match.group(1)), match.group(2))
              for match in re.finditer(r'<text x="([\d.]+)" y="[\d.]+" font-size="11" text-anchor="(\w+)" '
                                       r'fill="(#\w+)">(\w+) [\d.]+</text>', svg)}
    assert set(labels) == {"naive", "chance"}, svg
    x, anchor = labels["chance"]
    assert anchor == "end" and x <= CHART_WIDTH, labels  # drawn leftwards from the line
    x, anchor = labels["naive"]
    assert anchor == "start" and x + 90 <= CHART_WIDTH, labels
