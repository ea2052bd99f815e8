"""``rounds site``: the ledger as a static site (jinja2 templates, SVG charts) plus its data as CSV/JSON.

Pages: ``index.html`` (integrity problems first when there are any; the Brier and CRPS boards with
interval charts, the naive and chance lines, shared ranks, coverage, p-values against the leader and the
probability that each row's order over the next holds; the family-task boards, top-1 and one FTA board per
kind, likewise; rounds with their frozen/resolved/void tasks; split-half reliability; settings changes),
``rounds/<id>.html`` (questions, outcomes, per-method scores, submissions),
``methods/<name>.html`` (versions, per-family means). Data: ``data/summary.json`` (the board summary the
pages are rendered from), ``data/board.csv``, ``data/scores.csv``.
"""

from __future__ import annotations

import csv
import html
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from foresci.core.io import write_json
from foresci.rounds.integrity import usable_rows
from foresci.rounds.ledger import SUBMISSIONS_DIR, load_round, round_dir, round_ids, slug
from foresci.rounds.scores import latest_rows, read_scores, resolved_outcomes
from foresci.rounds.submit import TRANSCRIPTS_FILE, round_questions, round_tasks
from foresci.rounds.task_scores import resolved_tasks
from foresci.rounds.tick import summary as make_summary

TEMPLATES = Path(__file__).with_name("templates")
CHART_WIDTH = 820
ROW_HEIGHT = 26
LABEL_ROOM = 90
"""Pixels a line's label ("chance 0.2500" in 11 px) needs right of its line; nearer the edge it goes left."""


def interval_chart(board: dict[str, Any]) -> str:
    """An SVG dot-and-interval chart of a board, with the naive (base-rate) and chance lines."""
    entries = board.get("methods", [])
    if not entries:
        return "<p>No resolved items yet.</p>"
    lines = {"naive": board.get("naive"), "chance": board.get("chance")}
    values = [value for entry in entries for value in (entry["low"], entry["high"], entry["score"])]
    values += [value for value in lines.values() if value is not None]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    left, right = 280, CHART_WIDTH - 20

    def x(value: float) -> float:
        return round(left + (value - low) / span * (right - left), 2)

    height = ROW_HEIGHT * len(entries) + 52
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{height}" '
        f'class="board-chart" data-metric="{html.escape(board["metric"])}">'
    ]
    for offset, (name, value) in enumerate(lines.items()):
        if value is not None:
            colour = "#c44" if name == "chance" else "#48a"
            # a line near the right edge has its label on its left, so the chart does not cut it
            near_edge = x(value) > CHART_WIDTH - LABEL_ROOM
            label_x, anchor = (x(value) - 3, "end") if near_edge else (x(value) + 3, "start")
            parts.append(
                f'<line class="{name}-line" x1="{x(value)}" x2="{x(value)}" y1="10" y2="{height - 30}" '
                f'stroke="{colour}" stroke-dasharray="4 3"/>'
                f'<text x="{label_x}" y="{height - 18 + 12 * offset}" font-size="11" text-anchor="{anchor}" '
                f'fill="{colour}">{name} {value:.4f}</text>'
            )
    for index, entry in enumerate(entries):
        y = 20 + index * ROW_HEIGHT
        name = html.escape(entry["method"])
        shown = html.escape(entry["method"] if len(entry["method"]) <= 42 else entry["method"][:41] + "…")
        parts.append(
            f'<text x="{left - 8}" y="{y + 4}" font-size="12" text-anchor="end">{shown}</text>'
            f'<line x1="{x(entry["low"])}" x2="{x(entry["high"])}" y1="{y}" y2="{y}" stroke="#333"/>'
            f'<circle cx="{x(entry["score"])}" cy="{y}" r="4" data-method="{name}" '
            f'data-score="{entry["score"]}" fill="{"#222" if entry["ranked"] else "#aaa"}"/>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _write_csv(path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def question_labels() -> dict[str, str]:
    """Per registered family, what its forecast questions ask (``TaskFamily.question_label``; a family
    without one is shown by its name)."""
    from foresci.tasks.families.lookup import registered

    return {family.name: family.question_label for family in registered() if family.question_label}


def _method_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in latest_rows(rows):
        grouped.setdefault(row["method"], []).append(row)
    result = []
    for method, members in sorted(grouped.items()):
        means = {}
        for metric in ("brier", "crps", "top1"):
            scores = [row["score"] for row in members if row["metric"] == metric]
            means[metric] = sum(scores) / len(scores) if scores else None
        result.append({"method": method, "version": members[0]["version"], "items": len(members), **means})
    return result


def build_site(ledger: Path | str, out: Path | str) -> Path:
    """Render the ledger's site into ``out``; returns the index page."""
    ledger, out = Path(ledger), Path(out)
    summary = make_summary(ledger)
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
    all_rows = usable_rows(read_scores(ledger, round_ids(ledger)), summary["integrity"])  # refused: out
    methods = sorted({record["method"] for entry in summary["rounds"] for record in entry["submissions"]})
    slugs = {method: slug(method) for method in methods}
    charts = {metric: interval_chart(board) for metric, board in summary["boards"].items()}
    family_charts = {metric: interval_chart(board) for metric, board in summary["family_boards"].items()}
    family_means: dict[tuple[str, str, str], list[float]] = {}
    for row in latest_rows(all_rows):
        family_means.setdefault((str(row["family"]), row["metric"], row["method"]), []).append(row["score"])
    family_view = [
        {
            "family": family,
            "metric": metric,
            "method": method,
            "mean": sum(values) / len(values),
            "items": len(values),
        }
        for (family, metric, method), values in sorted(family_means.items())
    ]
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(
        environment.get_template("index.html").render(
            title="foresci rounds leaderboard",
            root="",
            summary=summary,
            charts=charts,
            family_charts=family_charts,
            slugs=slugs,
            family_view=family_view,
        ),
        encoding="utf-8",
    )
    for entry in summary["rounds"]:
        round_id = entry["round_id"]
        folder = round_dir(ledger, round_id)
        manifest = load_round(ledger, round_id)
        outcomes = {
            question_id: value for question_id, (_, value) in resolved_outcomes(folder, manifest).items()
        }
        page = out / "rounds" / f"{round_id}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            environment.get_template("round.html").render(
                title=f"Round {round_id}",
                root="../",
                round=entry,
                questions=round_questions(folder, manifest),
                asks=question_labels(),
                outcomes=outcomes,
                tasks=round_tasks(folder),
                task_outcomes=resolved_tasks(folder, manifest),
                slugs=slugs,
                method_rows=_method_rows([row for row in all_rows if row["round_id"] == round_id]),
            ),
            encoding="utf-8",
        )
    for method in methods:
        versions = [
            (entry["round_id"], record)
            for entry in summary["rounds"]
            for record in entry["submissions"]
            if record["method"] == method
        ]
        transcripts = {}
        for round_id, record in versions:
            source = (
                round_dir(ledger, round_id) / SUBMISSIONS_DIR / slug(method) / f"v{record['version']:04d}"
            )
            if (source / TRANSCRIPTS_FILE).is_file():
                relative = f"data/transcripts/{round_id}/{slugs[method]}-v{record['version']:04d}.jsonl"
                (out / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source / TRANSCRIPTS_FILE, out / relative)
                transcripts[(round_id, record["version"])] = "../" + relative
        families: dict[tuple[str, str], list[float]] = {}
        for row in latest_rows([row for row in all_rows if row["method"] == method]):
            families.setdefault((str(row["family"]), row["metric"]), []).append(row["score"])
        page = out / "methods" / f"{slugs[method]}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            environment.get_template("method.html").render(
                title=f"Method {method}",
                root="../",
                versions=versions,
                transcripts=transcripts,
                families=[
                    {
                        "family": family,
                        "metric": metric,
                        "mean": sum(values) / len(values),
                        "items": len(values),
                    }
                    for (family, metric), values in sorted(families.items())
                ],
            ),
            encoding="utf-8",
        )
    write_json(out / "data" / "summary.json", summary)
    board_rows = [
        {"board": metric, **entry}
        for metric, board in (*summary["boards"].items(), *summary["family_boards"].items())
        for entry in board["methods"]
    ]
    _write_csv(
        out / "data" / "board.csv",
        board_rows,
        ["board", "rank", "method", "score", "low", "high", "raw_mean", "items", "answered_items",
         "items_since_entry", "coverage", "ranked", "p_vs_leader", "order_prob", "entered"],
    )
    _write_csv(
        out / "data" / "scores.csv",
        all_rows,
        [
            "round_id",
            "item",
            "question_id",
            "task_id",
            "window",
            "kind",
            "family",
            "domain",
            "method",
            "version",
            "metric",
            "score",
            "imputed",
            "outcome",
        ],
    )
    return index
