"""Open a rounds site's front page in headless Chromium, screenshot it and check its numbers.

Checks (exit 1 on any miss): no console error; the board rows (method, score) equal ``data/summary.json``'s
boards; the rounds table lists every round of the summary. Prints what the page shows (title, headings,
each board's rows, the rounds table) so the screenshot can be described without opening it.

    python benchmarks/rounds_site_shot.py /tmp/replay/site --out /tmp/replay/front.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.site_board import expected_rows, shown_dots, shown_rows  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main(argv: list[str] | None = None) -> int:
    """Screenshot the front page; the exit status says whether its numbers match the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="folder written by `foresci rounds site`")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write (full page)")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args(argv)
    from playwright import sync_api

    summary = json.loads((args.site / "data" / "summary.json").read_text(encoding="utf-8"))
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": args.width, "height": 900})
            def console(message: Any) -> None:
                if message.type == "error":
                    problems.append(f"console: {message.text}")

            page.on("console", console)
            page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
            page.goto((args.site / "index.html").resolve().as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(args.out), full_page=True)
            print(f"title: {page.title()}")
            size = page.evaluate("[document.body.scrollWidth, document.body.scrollHeight]")
            print(f"page size: {size[0]} x {size[1]} px; screenshot {args.out}")
            for heading in page.query_selector_all("h1, h2, h3"):
                print(f"{heading.evaluate('node => node.tagName')}: {heading.inner_text().strip()}")
            print(f"svg charts: {len(page.query_selector_all('svg'))}")
            boards = {**summary["boards"], **summary["family_boards"]}
            for metric, board in boards.items():
                print(f"board {metric} ({board['items']} items, reference {board['reference']}):")
                for row in page.query_selector_all(f"#board-{metric} tr[data-method]"):
                    print("  " + " | ".join(text.strip() for text in row.inner_text().split("\t")))
                if shown_rows(page, metric) != expected_rows(board):
                    problems.append(f"board {metric}: the page's rows differ from summary.json")
                dots = shown_dots(page, metric)
                if dots != {entry["method"]: entry["score"] for entry in board["methods"]}:
                    problems.append(f"chart {metric}: its dots differ from summary.json")
            print(
                f"chance line: {page.query_selector('line.chance-line') is not None}; "
                f"naive line: {page.query_selector('line.naive-line') is not None}"
            )
            rounds = [
                row.get_attribute("data-round") for row in page.query_selector_all("#rounds tr[data-round]")
            ]
            print(f"rounds table: {len(rounds)} rounds: {', '.join(r or '' for r in rounds)}")
            if rounds != [entry["round_id"] for entry in summary["rounds"]]:
                problems.append("the rounds table differs from summary.json")
        finally:
            browser.close()
    for problem in problems:
        print(f"PROBLEM: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
