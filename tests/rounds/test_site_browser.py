"""The rounds site in headless Chromium: no console errors; the board's numbers equal summary.json's."""

from __future__ import annotations

import json
from pathlib import Path

from foresci.rounds.site import build_site
from foresci.rounds.submit import round_questions, round_tasks, submit
from tests.evaluation.test_report_browser import CHROMIUM, LAUNCH_ARGS, _browser_or_skip
from tests.rounds.helpers import answers_file, make_ledger, task_answers_file, toy_tick
from tests.support.site_board import expected_rows, shown_dots, shown_rows
from tests.tasks.toy import CUTOFF, ToyKB


def _ledger(tmp_path: Path) -> Path:
    from foresci.rounds.ledger import load_round, round_dir

    ledger = make_ledger(tmp_path, min_items=3)
    toy_tick(ledger, CUTOFF)
    round_id = f"r-{CUTOFF.isoformat()}"
    questions = round_questions(round_dir(ledger, round_id), load_round(ledger, round_id))
    submit(
        ledger,
        round_id,
        ToyKB(until=CUTOFF),
        answers=answers_file(tmp_path / "a.jsonl", questions, 0.35, 1.5, "outside-team"),
        task_answers=task_answers_file(
            tmp_path / "t.jsonl", round_tasks(round_dir(ledger, round_id)), "outside-team"
        ),
    )
    direction_only = [task for task in round_tasks(round_dir(ledger, round_id))
                      if task.family == "direction_forecasting"]
    submit(ledger, round_id, ToyKB(until=CUTOFF),
           task_answers=task_answers_file(tmp_path / "d.jsonl", direction_only, "direction-only"))
    toy_tick(ledger, None)
    return ledger


def test_site_files_match_the_summary(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    index = build_site(ledger, tmp_path / "site")
    summary = json.loads((tmp_path / "site" / "data" / "summary.json").read_text())
    assert summary["boards"] == json.loads((ledger / "board.json").read_text())["boards"]
    board_csv = (tmp_path / "site" / "data" / "board.csv").read_text().splitlines()
    boards = {**summary["boards"], **summary["family_boards"]}
    assert len(board_csv) == 1 + sum(len(board["methods"]) for board in boards.values())
    # the jump to the toy world's end also opened (and resolved) the rounds it missed: the board counts
    # the first round's resolved tasks and theirs
    assert summary["family_boards"]["top1"]["items"] >= summary["rounds"][0]["tasks"]["resolved"] > 0
    assert len(summary["rounds"]) > 1
    assert (tmp_path / "site" / "rounds" / f"r-{CUTOFF.isoformat()}.html").is_file()
    assert (tmp_path / "site" / "methods" / "outside-team.html").is_file()
    assert "<svg" in index.read_text()


def test_site_in_headless_chromium(tmp_path: Path) -> None:
    sync_api = _browser_or_skip()
    ledger = _ledger(tmp_path)
    index = build_site(ledger, tmp_path / "site")
    summary = json.loads((tmp_path / "site" / "data" / "summary.json").read_text())
    problems: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on(
                "console", lambda message: problems.append(message.text) if message.type == "error" else None
            )
            page.on("pageerror", lambda error: problems.append(str(error)))
            page.goto(index.as_uri(), wait_until="load")
            boards = {**summary["boards"], **summary["family_boards"]}
            assert set(boards) == {"brier", "crps", "top1", "fta_ranking", "fta_slot", "mbrier"}
            for metric, board in boards.items():
                shown = shown_rows(page, metric)
                assert shown == expected_rows(board)
                assert "outside-team" in shown or (metric == "fta_slot" and not board["methods"])
                reference = page.inner_text(f"#reference-{metric} .board-items")
                assert reference == str(board["items"])
                dots = {entry["method"]: entry["score"] for entry in board["methods"]}
                assert shown_dots(page, metric) == dots
            top1 = shown_rows(page, "top1")  # a team answering 1 of the families: unranked, its coverage
            assert top1["direction-only"]["rank"] == "unranked"
            assert float(top1["direction-only"]["coverage"][:-2]) < 95
            assert page.inner_text("#board-brier th:nth-child(11)") == "P(order holds)"
            assert page.query_selector("line.chance-line") is not None
            assert page.query_selector("line.naive-line") is not None
            rounds = [
                row.get_attribute("data-round") for row in page.query_selector_all("#rounds tr[data-round]")
            ]
            assert rounds == [entry["round_id"] for entry in summary["rounds"]]
            voids = [cell.inner_text() for cell in page.query_selector_all("#rounds td.tasks-void")]
            assert voids == [str(entry["tasks"]["void"]) for entry in summary["rounds"]]
            page.screenshot(path=str(tmp_path / "front.png"), full_page=True)
            page.click(f"a[href='rounds/r-{CUTOFF.isoformat()}.html']")
            page.wait_for_load_state("load")
            outcomes = page.query_selector_all("#questions td.outcome")
            assert outcomes and all(cell.inner_text() != "pending" for cell in outcomes)
            task_cells = [cell.inner_text() for cell in page.query_selector_all("#tasks td.task-outcome")]
            assert len(task_cells) == summary["rounds"][0]["tasks"]["frozen"]
            voided = sum(cell.startswith("void: ") for cell in task_cells)
            assert voided == summary["rounds"][0]["tasks"]["void"]
        finally:
            browser.close()
    assert problems == []
    assert (tmp_path / "front.png").stat().st_size > 5000
