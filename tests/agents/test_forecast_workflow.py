"""The forecast workflow end to end on a generated world, through the CLI a user runs.

A package is frozen from a KB that ends at the cutoff ("today"), every method answers it (trend,
persistence and the five LLM methods through the scripted OpenAI server), resolution is refused until a
newer KB covers the window, then resolves; ``eval`` scores CRPS and Brier for every method into
``summary.json`` and ``report`` shows them. A malformed package is refused with one line, no traceback.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.cli import run_cli
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from tests.agents.responders import offered_tools, schema_name, searching_turn
from tests.support.openai_server import ScriptedOpenAIServer

# forecast calls per question: research_agent drafts and reviews; react searches (one turn with tool
# calls, one with its findings), then forecasts
FORECAST_CALLS = {"native": 1, "hybrid_rag": 1, "coi": 1, "research_agent": 2, "aris": 1, "react": 3}
LLM_METHODS = tuple(FORECAST_CALLS)
PAPER_ID = re.compile(r"\[(\d{4}\.\d{5})\]")
REFERENCE_COUNT = re.compile(r"Reference period before the cutoff: \S+ to \S+, (\d+) matching papers")


def forecasting_responder(request: dict[str, Any]) -> Any:
    """A model that forecasts: quantiles around the reference count it is shown, a probability of 0.7."""
    if "search_papers" in offered_tools(request):
        return searching_turn(request)
    shown = "\n".join(str(message.get("content", "")) for message in request["messages"])
    name = schema_name(request)
    if name == "NumericForecast":
        found = REFERENCE_COUNT.search(shown)
        median = float(found.group(1)) if found else 10.0
        # out of order on purpose: the reader sorts them and notes the repair
        return {"p10": median * 1.8, "p50": median, "p90": median * 0.5, "rationale": "steady volume"}
    if name == "BinaryForecast":
        return {"probability": 0.7, "rationale": "the share has been rising"}
    raise AssertionError(f"unexpected schema {name!r}")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A generated world, a KB of what was announced up to its cutoff ("today") and a KB a window later."""
    from foresci.kb.build import build_kb
    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth

    root = tmp_path_factory.mktemp("forecast-world")
    config = WorldConfig(seed=3, n_domains=1, directions_per_domain=4, months=12, papers_per_month=30.0)
    generated = generate_world(config, root / "world")
    truth = load_ground_truth(generated.root)
    domains = [domain.slug for domain in truth.domains]
    settings = Settings(cache_dir=root / "cache", kb={"domains": domains, "embed_field": "title"})
    now = root / "corpus-now"
    now.mkdir()
    for file in sorted(Path(generated.corpus).glob("*.jsonl")):
        if date.fromisoformat(file.stem) <= truth.cutoff:
            shutil.copy(file, now / file.name)
    build_kb([now], root / "kb-now", settings, domains_dirs=[generated.domains])
    build_kb([generated.corpus], root / "kb-later", settings, domains_dirs=[generated.domains])
    return {"root": root, "cutoff": truth.cutoff, "cache": root / "cache"}


def _cli(args: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with monkeypatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        capsys.readouterr()
        code = run_cli(args)
        captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_package_answered_by_every_method_resolved_and_scored(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root: Path = world["root"]
    cutoff: date = world["cutoff"]
    env = {"FORESCI_CACHE_DIR": str(world["cache"]), "FORESCI_KB__EMBED_FIELD": "title"}
    package, run = root / "pkg", root / "run"
    code, _, err = _cli(["forecast", "package", "--kb", str(root / "kb-now"), "--cutoff", cutoff.isoformat(),
                         "--window", "3m", "--out", str(package), "-n", "8"], env, monkeypatch, capsys)
    assert code == 0, err
    questions = list(iter_jsonl(package / "forecast.jsonl"))
    assert {row["kind"] for row in questions} == {"numeric", "binary"} and len(questions) >= 4

    with ScriptedOpenAIServer() as server:
        server.responder = forecasting_responder
        llm_env = {**env, "FORESCI_LLM__BASE_URL": server.base_url, "FORESCI_LLM__MODEL": "scripted-model",
                   "FORESCI_LLM__API_KEY": "sk-test-secret"}
        code, _, err = _cli(["run", str(package), "--kb", str(root / "kb-now"), "--methods", "all",
                             "--out", str(run), "--no-progress"], llm_env, monkeypatch, capsys)
        requests = list(server.requests)
    assert code == 0, err
    rows = list(iter_jsonl(run / "forecasts.jsonl"))
    methods = {*LLM_METHODS, "trend", "persistence"}
    assert {row["method"] for row in rows} == methods
    assert len(rows) == len(questions) * len(methods)
    assert all(row["status"] == "ok" for row in rows), [row["error"] for row in rows if row["error"]]
    for row in rows:
        if row["method"] in LLM_METHODS:
            calls = FORECAST_CALLS[row["method"]]
            assert row["model"] == "scripted-model" and row["llm_calls"] == calls and not row["cache_hits"]
    numeric_llm = [row for row in rows if row["method"] in LLM_METHODS and row["p50"] is not None]
    assert numeric_llm and all(row["p10"] <= row["p50"] <= row["p90"] for row in numeric_llm)
    assert all(any("sorted" in note for note in row["notes"]) for row in numeric_llm)
    assert len(requests) == len(questions) * sum(FORECAST_CALLS.values())
    react = [row for row in rows if row["method"] == "react"]
    assert all("react: the model stopped searching after 2 turn(s)" in row["notes"] for row in react)

    # native reads nothing; the KB methods see papers of the KB, none announced after the cutoff
    kb_rows = [row for row in rows if row["method"] in LLM_METHODS and row["method"] != "native"]
    assert all(row["evidence_ids"] for row in kb_rows)
    assert not any(row["evidence_ids"] for row in rows if row["method"] == "native")
    shown_ids = {paper_id for request in requests for message in request["messages"]
                 if message["role"] == "user"
                 for paper_id in PAPER_ID.findall(str(message.get("content", "")))}
    assert shown_ids
    from foresci.kb.store import KnowledgeBase

    later = KnowledgeBase.open(root / "kb-later", Settings(cache_dir=world["cache"]))
    for paper_id in shown_ids:
        row = later.row_of(paper_id)
        assert row is not None and later.announced_at(row) <= cutoff, paper_id

    code, _, err = _cli(["eval", str(run), "--release", str(package)], env, monkeypatch, capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1 and "forecast resolve" in err
    code, _, err = _cli(["forecast", "resolve", str(package), "--kb", str(root / "kb-now")], env, monkeypatch,
                        capsys)
    assert code != 0 and "window ends on" in err
    code, _, err = _cli(["forecast", "resolve", str(package), "--kb", str(root / "kb-later")], env,
                        monkeypatch, capsys)
    assert code == 0, err

    code, _, err = _cli(["eval", str(run), "--release", str(package)], env, monkeypatch, capsys)
    assert code == 0, err
    summary = json.loads((run / "summary.json").read_text())
    entries = {entry["method"]: entry for entry in summary["forecast"]}
    assert set(entries) == methods
    numeric = sum(row["kind"] == "numeric" for row in questions)
    for entry in entries.values():
        assert entry["n_numeric"] == numeric and entry["n_binary"] == len(questions) - numeric
        assert entry["metrics"]["crps"]["mean"] >= 0 and 0 <= entry["metrics"]["brier"]["mean"] <= 1
        assert entry["skill_vs_reference"]["reference"] == "persistence"
    assert entries["persistence"]["skill_vs_reference"]["crps"] == 0.0
    for name in ("crps", "brier"):  # every method answered every question: skill = 1 - mean / reference mean
        reference = entries["persistence"]["metrics"][name]["mean"]
        assert entries["trend"]["skill_vs_reference"][name] == pytest.approx(
            1 - entries["trend"]["metrics"][name]["mean"] / reference)
    outcomes = {row["question_id"]: row["outcome"] for row in iter_jsonl(package / "resolutions.jsonl")}
    binary_ids = {row["question_id"] for row in questions if row["kind"] == "binary"}
    expected_brier = sum((0.7 - outcomes[qid]) ** 2 for qid in binary_ids) / len(binary_ids)
    assert entries["native"]["metrics"]["brier"]["mean"] == pytest.approx(expected_brier)

    code, _, err = _cli(["report", str(run), "--out", str(root / "report")], env, monkeypatch, capsys)
    assert code == 0, err
    html = (root / "report" / "index.html").read_text()
    table = html[html.index('id="forecast-table"'):]
    table = table[: table.index("</table>")]
    for method in methods:
        assert f">{method}" in table
    assert f"{entries['native']['metrics']['brier']['mean']:.3f}" in table


def test_malformed_packages_fail_with_one_line(
    world: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str]
) -> None:
    root: Path = world["root"]
    env = {"FORESCI_CACHE_DIR": str(world["cache"]), "FORESCI_KB__EMBED_FIELD": "title"}
    good = {"question_id": "fq-1", "kind": "numeric", "domain": "x", "cutoff": "2024-06-30",
            "window_start": "2024-07-01", "window_end": "2024-09-30", "text": "How many?",
            "resolution_rule": "count"}
    cases = {
        "bad-kind": ([good, {**good, "question_id": "fq-2", "kind": "ternary"}], ":2", "kind"),
        "bad-window": ([{**good, "window_start": "2024-06-01"}], ":1", "window_start"),
        "duplicate": ([good, good], ":2", "question_id"),
    }
    for name, (lines, where, field) in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "forecast.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        code, _, err = _cli(["run", str(folder), "--method", "trend", "--kb", str(root / "kb-now"),
                             "--out", str(tmp_path / f"run-{name}")], env, monkeypatch, capsys)
        assert code != 0 and len(err.strip().splitlines()) == 1, (name, err)
        assert "Traceback" not in err and f"forecast.jsonl{where}" in err and field in err, (name, err)

    frozen = tmp_path / "tampered"
    code, _, err = _cli(["forecast", "package", "--kb", str(root / "kb-now"), "--cutoff",
                         world["cutoff"].isoformat(), "--out", str(frozen), "-n", "4"], env, monkeypatch,
                        capsys)
    assert code == 0, err
    text = (frozen / "forecast.jsonl").read_text()
    (frozen / "forecast.jsonl").write_text(text.replace("papers", "paper", 1))
    code, _, err = _cli(["run", str(frozen), "--method", "trend", "--kb", str(root / "kb-now"),
                         "--out", str(tmp_path / "run-tampered")], env, monkeypatch, capsys)
    assert code != 0 and len(err.strip().splitlines()) == 1 and "hash mismatch" in err, err
    assert str(frozen / "forecast.jsonl") in err


def test_release_built_with_forecast_questions_is_answered_and_scored(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root: Path = world["root"]
    env = {"FORESCI_CACHE_DIR": str(world["cache"]), "FORESCI_KB__EMBED_FIELD": "title",
           "FORESCI_TASKS__ENFORCE_GATES": "false"}
    release, run = root / "release", root / "release-run"
    code, out, err = _cli(["tasks", "build", str(root / "kb-later"), "--cutoff", world["cutoff"].isoformat(),
                           "--out", str(release), "--window", "3m", "--per-family", "1", "--forecast", "6"],
                          env, monkeypatch, capsys)
    assert code == 0, err
    written = [json.loads(line) for line in (release / "forecast.jsonl").read_text().splitlines()]
    emergence = sum(question["params"]["family"] == "concept_emergence" for question in written)
    assert len(written) - emergence == 6  # the asked 6, then concept_emergence's binary questions
    assert f"{len(written)} forecast questions" in out
    assert (release / "forecast.jsonl").is_file() and (release / "forecast_hidden.jsonl").is_file()
    code, out, err = _cli(["tasks", "validate", str(release)], env, monkeypatch, capsys)
    assert code == 0 and "valid" in out, out + err
    code, _, err = _cli(["run", str(release), "--kb", str(root / "kb-later"), "-m", "trend", "-m",
                         "persistence", "--out", str(run), "--no-progress"], env, monkeypatch, capsys)
    assert code == 0, err
    code, _, err = _cli(["eval", str(run), "--offline"], env, monkeypatch, capsys)
    assert code == 0, err
    summary = json.loads((run / "summary.json").read_text())
    assert {entry["method"] for entry in summary["forecast"]} == {"trend", "persistence"}
    assert all(entry["n_numeric"] + entry["n_binary"] == len(written) for entry in summary["forecast"])
    assert summary["leaderboard"], "the release's tasks are scored beside its forecasts"
