"""A tick after a gap opens the rounds the gap missed, each named after its schedule day; the CLI's
`rounds open` with nothing to open, `rounds inspect-task` and `rounds submit` say what they did."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.kb.retrieve import KBView
from foresci.rounds import cli as rounds_cli
from foresci.rounds.ledger import load_round, round_dir, round_ids
from foresci.rounds.submit import DeadlineError, round_questions, submit
from tests.rounds.helpers import answers_file, make_ledger, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB


def test_a_tick_after_a_gap_opens_the_missed_rounds(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    assert toy_tick(ledger, CUTOFF)[0] == f"opened r-{CUTOFF} (scheduled {CUTOFF})"
    actions = toy_tick(ledger, date(2026, 3, 5))  # no tick in January nor February
    opened = [action for action in actions if action.startswith("opened")]
    assert opened == [
        "opened r-2026-01-31 (scheduled 2026-01-31, missed: frozen at 2026-01-31, past its deadline: only "
        "the baselines answer it)",
        "opened r-2026-02-28 (scheduled 2026-02-28, frozen at the KB's last day 2026-03-05)",
    ]
    assert round_ids(ledger) == [f"r-{CUTOFF}", "r-2026-01-31", "r-2026-02-28"]
    missed, latest = load_round(ledger, "r-2026-01-31"), load_round(ledger, "r-2026-02-28")
    assert (missed.cutoff, missed.scheduled_for) == (date(2026, 1, 31), date(2026, 1, 31))
    assert (latest.cutoff, latest.scheduled_for) == (date(2026, 3, 5), date(2026, 2, 28))
    assert "closed r-2026-01-31 on 2026-03-05" in actions
    questions = round_questions(round_dir(ledger, "r-2026-01-31"), missed)
    with pytest.raises(DeadlineError):
        submit(ledger, "r-2026-01-31", ToyKB(until=date(2026, 3, 5)),
               answers=answers_file(tmp_path / "a.jsonl", questions, 0.3, 1.0, "mine"))
    assert toy_tick(ledger, date(2026, 3, 5)) == []


@pytest.fixture()
def toy_cli(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The rounds CLI reading the toy KB (truncated at ``state['until']``) instead of a KB folder."""
    state: dict[str, Any] = {"until": CUTOFF}

    def kb_and_view(_: Path) -> tuple[Any, Any]:
        kb = ToyKB(until=state["until"])
        return kb, lambda cutoff: KBView(kb, cutoff)

    monkeypatch.setattr(rounds_cli, "_kb_and_view", kb_and_view)
    return state


def test_open_with_nothing_to_open_and_inspect_task_say_so(tmp_path: Path, toy_cli: dict[str, Any]) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    runner = CliRunner()
    again = runner.invoke(app, ["rounds", "open", str(ledger), "--kb", "kb"])
    assert again.exit_code == 0, again.output
    assert f"nothing to open: round r-{CUTOFF} is already frozen" in again.output
    out = tmp_path / "round_task.py"
    written = runner.invoke(app, ["rounds", "inspect-task", str(ledger), f"r-{CUTOFF}", "--out", str(out)])
    assert written.exit_code == 0 and out.is_file(), written.output
    assert f"round r-{CUTOFF}'s" in written.output and "family tasks" in written.output
    assert "--inspect-log" in written.output


def test_submit_prints_its_error_count_and_names_a_url_agent(tmp_path: Path, toy_cli: dict[str, Any]) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    questions = round_questions(round_dir(ledger, f"r-{CUTOFF}"), load_round(ledger, f"r-{CUTOFF}"))
    made = answers_file(tmp_path / "mine.jsonl", questions, 0.3, 1.0, "mine")
    result = CliRunner().invoke(app, ["rounds", "submit", str(ledger), f"r-{CUTOFF}", "--kb", "kb",
                                      "--answers", str(made)])
    assert result.exit_code == 0, result.output
    assert f"as mine v1: {len(questions)} forecast rows, 0 task rows, 0 errors" in result.output
    assert rounds_cli.url_method_name("http://127.0.0.1:8765/") == "agent-127.0.0.1-8765"
    assert rounds_cli.url_method_name("https://example.org/agents/mine") == "agent-example.org-agents-mine"
    assert rounds_cli.url_method_name("trend") is None
