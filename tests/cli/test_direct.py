"""The direct path of ``foresci kb search`` (no typer) reads what typer reads and prints what it prints."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from foresci.app.direct import parse_kb_search
from foresci.cli import run_cli
from foresci.core.io import write_jsonl
from foresci.core.settings import Settings
from foresci.kb.build import build_kb

LINES = [
    ["kb", "search", "kbdir", "graph agents", "--cutoff", "2025-04-30"],
    ["kb", "search", "kbdir", "graph agents", "--cutoff=2025-04-30", "-k", "3", "--domain", "llm_agent"],
    ["kb", "search", "--cutoff", "2025-04-30", "kbdir", "-k", "07", "q"],
    ["kb", "search", "kbdir", "q", "--domain", "", "--cutoff", "2025-04-30"],
    ["kb", "search", "kbdir", "a=b", "--domain=x=y", "--cutoff", "2025-04-30"],
    # typer's to run (help, an error, or a form the direct path leaves to it)
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "-k5"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-13-01"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "-k", "0"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "-k", "-5"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "-k", "x"],
    ["kb", "search", "kbdir", "q"],
    ["kb", "search", "kbdir", "q", "extra", "--cutoff", "2025-04-30"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "--cutoff", "2025-05-01"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "--nope"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "--help"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "--debug"],
    ["kb", "search", "kbdir", "-", "--cutoff", "2025-04-30"],
    ["kb", "search", "kbdir", "q", "--cutoff", "2025-04-30", "--", "x"],
    ["kb", "search", "kbdir", "q", "--cutoff"],
    ["--config", "x.yaml", "kb", "search", "kbdir", "q", "--cutoff", "2025-04-30"],
    ["kb", "stats", "kbdir"],
]


def _typer_values(args: list[str]) -> dict[str, object] | None:
    """What typer's ``kb search`` command parses from ``args`` (None when it refuses them)."""
    import typer.main
    from typer.exceptions import TyperException

    from foresci.app.root_app import build_app

    if args[:2] != ["kb", "search"]:
        return None
    root = typer.main.get_command(build_app("kb"))
    search = root.commands["kb"].commands["search"]  # type: ignore[attr-defined]
    try:
        context = search.make_context("search", list(args[2:]))
    except (TyperException, typer.Exit):
        return None
    return dict(context.params)


@pytest.mark.parametrize("args", LINES, ids=[" ".join(line) for line in LINES])
def test_the_direct_path_reads_what_typer_parses_or_leaves_the_line_to_typer(args: list[str]) -> None:
    direct = parse_kb_search(args)
    parsed = _typer_values(args)
    if direct is not None:
        assert parsed == asdict(direct)
    assert (direct is None) == (LINES.index(args) >= 5)


@pytest.fixture(scope="module")
def tiny_kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("direct")
    rows = [{"id": f"2504.{number:05d}", "title": f"Retrieval agents paper {number}",
             "summary": "Agents retrieve documents and plan tool calls.", "authors": ["Ada"],
             "categories": ["cs.CL"]} for number in range(1, 7)]
    write_jsonl(root / "corpus" / "2025-04-02.jsonl", rows)
    cache = root / "cache"
    build_kb([root / "corpus"], root / "kb", Settings(cache_dir=cache))
    return root / "kb", cache


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    status = run_cli(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("case", ["hits", "unknown domain", "warned variable", "missing kb"])
def test_both_paths_print_the_same(case: str, tiny_kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    kb, cache = tiny_kb
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(cache))
    monkeypatch.setenv("COLUMNS", "120")
    line = ["kb", "search", str(kb), "retrieval agents", "--cutoff", "2025-04-30"]
    if case == "unknown domain":
        line += ["--domain", "nope"]
    if case == "warned variable":
        monkeypatch.setenv("FORESCI_CACHE_DIRR", "x")
    if case == "missing kb":
        line[2] = str(kb.parent / "missing")
    direct = _run([*line, "-k", "3"], capsys)
    through_typer = _run([*line, "-k3"], capsys)  # a form only typer reads: the same search through typer
    assert parse_kb_search([*line, "-k", "3"]) is not None and parse_kb_search([*line, "-k3"]) is None
    assert direct == through_typer
    status, out, err = direct
    if case in ("hits", "warned variable"):
        assert status == 0 and "2504.0000" in out and out.count("│ 2504.") == 3
        assert ("FORESCI_CACHE_DIRR" in err) == (case == "warned variable")
    else:
        assert status == 1 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
        assert ("nope" if case == "unknown domain" else "missing") in err


def test_a_bad_settings_variable_fails_before_the_search_on_both_paths(
    tiny_kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb, cache = tiny_kb
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(cache))
    monkeypatch.setenv("FORESCI_KB__RRF_K", json.dumps("many"))
    line = ["kb", "search", str(kb), "retrieval agents", "--cutoff", "2025-04-30"]
    direct = _run([*line, "-k", "2"], capsys)
    assert direct == _run([*line, "-k2"], capsys)
    assert direct[0] == 1 and "FORESCI_KB__RRF_K" in direct[2] and direct[1] == ""
