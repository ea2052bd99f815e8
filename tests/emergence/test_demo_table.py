"""The demo's terminal table of the bulk set: one line per method, its mean AUC and precision@100 over the
domain/window sets at the smallest k (what the run summary's ``emergence`` rows say)."""

from __future__ import annotations

from rich.console import Console

from foresci.app.demo_emergence import bulk_table


def _row(method: str, domain: str, k: int, auc: float, precision: float | None) -> dict[str, object]:
    return {"method": method, "domain": domain, "horizon": "3m", "min_papers": k,
            "auc": {"value": auc, "low": None, "high": None},
            "precision@100": {"value": precision, "low": None, "high": None}}


def test_bulk_table_averages_each_method_over_its_sets_at_the_smallest_k() -> None:
    rows = [_row("adamic_adar", "a", 1, 0.8, 0.2), _row("adamic_adar", "b", 1, 0.6, 0.4),
            _row("adamic_adar", "a", 3, 0.99, 0.01), _row("learned_links", "a", 1, 0.9, None),
            _row("learned_links", "b", 1, 0.7, 0.5)]
    table = bulk_table({"emergence": {"rows": rows}})
    assert table is not None
    console = Console(width=120, record=True)
    console.print(table)
    text = console.export_text()
    assert ">= 1 window paper(s); mean over 2 domain/window set(s)" in str(table.title)
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in text.splitlines() if "│" in line]
    lines = {row[0]: row[1:] for row in cells if row and "_" in row[0]}
    assert lines["adamic_adar"] == ["0.700", "0.300"]  # k = 3 left out
    assert lines["learned_links"] == ["0.800", "0.500"]  # a missing precision is not a zero
    assert bulk_table({"emergence": {"rows": []}}) is None and bulk_table({}) is None
