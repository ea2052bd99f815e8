"""What a rounds site's board shows, read from the page, and what it should show, read from summary.json:
the one check the browser test and ``benchmarks/rounds_site_shot.py`` both make."""

from __future__ import annotations

from typing import Any

CELLS = ("rank", "score", "low", "high", "raw", "items", "coverage", "pleader", "order")


def shown_rows(page: Any, metric: str) -> dict[str | None, dict[str, str]]:
    """Method -> the text of each numeric cell of board ``metric``'s rows on a Playwright page."""
    shown: dict[str | None, dict[str, str]] = {}
    for row in page.query_selector_all(f"#board-{metric} tr[data-method]"):
        cells = {}
        for name in CELLS:
            cell = row.query_selector(f"td.{name}")
            cells[name] = cell.inner_text().strip() if cell else ""
        shown[row.get_attribute("data-method")] = cells
    return shown


def expected_rows(board: dict[str, Any]) -> dict[str | None, dict[str, str]]:
    """Method -> the cells a board of summary.json should show (four decimals, the item count, the shared
    rank, coverage, p-value against the leader, probability that the order over the next row holds)."""
    return {
        entry["method"]: {
            "score": f"{entry['score']:.4f}",
            "low": f"{entry['low']:.4f}",
            "high": f"{entry['high']:.4f}",
            "raw": f"{entry['raw_mean']:.4f}",
            "items": str(entry["items"]),
            "rank": str(entry["rank"]) if entry["rank"] is not None else "unranked",
            "coverage": f"{100 * entry['coverage']:.1f} %",
            "pleader": f"{entry['p_vs_leader']:.3f}" if entry["p_vs_leader"] is not None else "",
            "order": f"{entry['order_prob']:.3f}" if entry["order_prob"] is not None else "",
        }
        for entry in board["methods"]
    }


def shown_dots(page: Any, metric: str) -> dict[str | None, float]:
    """Method -> the score of its dot on board ``metric``'s chart."""
    return {
        dot.get_attribute("data-method"): float(dot.get_attribute("data-score") or "nan")
        for dot in page.query_selector_all(f"svg[data-metric={metric}] circle")
    }
