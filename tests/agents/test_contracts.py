"""Prompt validation, the import wall, the common renderer and the KB tools' guards."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from foresci.agents.prompts import PromptError
from foresci.agents.render import check_contract, render_text
from foresci.agents.tools import KBTools, ToolBudgetExceeded
from foresci.contracts import (
    BottleneckAnswer,
    DirectionAnswer,
    PlanningAnswer,
    RankedOption,
)
from foresci.core.resources import declarative_dir
from foresci.kb.models import Paper, SearchHit
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.families import get_family
from tests.agents.toy import toy_tasks

FORESCI_SOURCE = Path(__file__).resolve().parents[2] / "foresci"
ANSWERING_SOURCES = (FORESCI_SOURCE / "agents", FORESCI_SOURCE / "methods")  # what answers tasks
FORBIDDEN = ("foresci.tasks.hidden", "foresci.tasks.hidden_io", "foresci.evaluation")


def _copy_prompts(tmp_path: Path) -> Path:
    folder = tmp_path / "agents"
    shutil.copytree(declarative_dir("agents"), folder)
    return folder


def test_shipped_prompts_load_and_render() -> None:
    book = prompt_book()
    text = book.render("hybrid_rag", "answer", brief="B", evidence="E", contract="C")
    assert "B" in text and "E" in text and "C" in text
    with pytest.raises(PromptError, match="missing"):
        book.render("hybrid_rag", "answer", brief="B", contract="C")


def test_unknown_template_variable_names_file_and_key(tmp_path: Path) -> None:
    folder = _copy_prompts(tmp_path)
    path = folder / "coi.yaml"
    path.write_text(
        path.read_text().replace("{chains}\n\n      For each", "{chains} {future}\n\n      For each")
    )
    with pytest.raises(PromptError, match=r"coi\.yaml: templates\.read_chains: text uses"):
        prompt_book(folder)


def test_missing_template_variable_is_an_error(tmp_path: Path) -> None:
    folder = _copy_prompts(tmp_path)
    path = folder / "native.yaml"
    path.write_text(path.read_text().replace("{contract}", "the contract"))
    with pytest.raises(PromptError, match=r"native\.yaml: templates\.answer"):
        prompt_book(folder)


def test_a_family_prompt_file_with_a_wrong_key_names_the_file_and_the_keys(tmp_path: Path) -> None:
    from foresci.agents.prompts import family_texts
    from foresci.tasks.families import get_family

    shipped = get_family("strategic_planning").prompts_path()
    broken = tmp_path / "prompts.yaml"
    broken.write_text(shipped.read_text().replace("rubric: |", "rubrik: |"), encoding="utf-8")

    class Misnamed(type(get_family("strategic_planning"))):  # type: ignore[misc]
        prompts = str(broken)  # an absolute path: not beside the module

    with pytest.raises(PromptError, match=rf"{broken}: keys \['contract', 'evidence_focus', 'rubrik'\]"):
        family_texts(Misnamed())


def test_agents_never_import_hidden_targets_or_evaluation() -> None:
    offenders = []
    for path in (path for folder in ANSWERING_SOURCES for path in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            offenders += [f"{path.name}: {name}" for name in names if name.startswith(FORBIDDEN)]
    assert not offenders
    # foresci.core.settings holds every component's settings section, so the evaluation *config* module (plain
    # pydantic fields) is loaded with it; no evaluation code may be.
    allowed = ("foresci.evaluation", "foresci.evaluation.config")
    code = (
        "import sys, foresci.methods.runner, foresci.agents.cli, foresci.llm\n"
        f"bad = [m for m in sys.modules if m.startswith({FORBIDDEN!r}) and m not in {allowed!r}]\n"
        "assert not bad, bad"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_contract_check_reads_labels_but_invents_nothing() -> None:
    planning = next(task for task in toy_tasks() if task.family == "strategic_planning")
    answer = PlanningAnswer(
        ranking=[
            RankedOption(option_id="tool routing"),
            RankedOption(option_id="Q"),
            RankedOption(option_id="B"),
        ]
    )
    check = check_contract(planning, answer)
    assert [item.option_id for item in check.answer.ranking] == ["B", "Q"]  # type: ignore[attr-defined]
    problems = " | ".join(check.problems)
    assert "unknown options ['Q']" in problems and "repeats options ['B']" in problems
    assert "leaves out options ['A', 'C']" in problems
    assert check.notes == ["read 'tool routing' as option B"]
    text = render_text(planning, check.answer)
    assert "1. B (tool routing)" in text and "2. Q (Q)" in text and "A (graph memory)" not in text
    empty = check_contract(planning, PlanningAnswer(ranking=[]))
    assert empty.answer.ranking == [] and empty.problems == ["the ranking is empty"]  # type: ignore[attr-defined]
    direction = next(task for task in toy_tasks() if task.family == "direction_forecasting")
    named = check_contract(
        direction, DirectionAnswer(direction="A: graph memory", trajectory="steady", rationale="")
    )
    assert named.answer.direction == "A" and not named.problems  # type: ignore[attr-defined]
    for invalid in ("2", "https://arxiv.org/abs/2506.00001", "A: tool routing"):
        said = DirectionAnswer(direction=invalid, trajectory="steady", rationale="")
        checked = check_contract(direction, said)
        assert checked.answer.direction == invalid and checked.problems  # type: ignore[attr-defined]
    bottleneck = next(task for task in toy_tasks() if task.family == "bottleneck_opportunity")
    blank = check_contract(bottleneck, BottleneckAnswer(bottleneck=" ", opportunity="o", mechanism=""))
    assert blank.problems == ["bottleneck is empty", "mechanism is empty"]


def test_answer_schema_holds_a_grammar_to_the_options_but_parses_leniently() -> None:
    schema = get_family("strategic_planning").constrained_schema(["A", "B", "C"])
    sent = schema.model_json_schema()
    assert sent["title"] == "PlanningAnswer"
    ranking = sent["properties"]["ranking"]
    assert ranking["minItems"] == 3 and ranking["maxItems"] == 3
    assert sent["$defs"]["RankedOption"]["properties"]["option_id"]["enum"] == ["A", "B", "C"]
    parsed = schema.model_validate({"ranking": [{"option_id": "A: graph memory"}]})
    assert isinstance(parsed, PlanningAnswer) and parsed.ranking[0].option_id == "A: graph memory"
    direction = get_family("direction_forecasting").constrained_schema(["A", "B"]).model_json_schema()
    assert direction["properties"]["direction"]["enum"] == ["A", "B"]
    assert get_family("bottleneck_opportunity").constrained_schema(["A"]) is BottleneckAnswer
    assert get_family("strategic_planning").constrained_schema([]) is PlanningAnswer


class _LeakyView:
    """A faulty view that ignores its cutoff (the tools must still hide the late paper)."""

    cutoff = date(2025, 6, 30)

    def __init__(self) -> None:
        self.early = Paper(paper_id="2501.00001", title="early", abstract="a", announced=date(2025, 1, 5))
        self.late = Paper(paper_id="2508.00001", title="late", abstract="a", announced=date(2025, 8, 5))

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[SearchHit]:
        return [SearchHit(paper=self.late, score=1.0, rank=1), SearchHit(paper=self.early, score=0.5, rank=2)]

    def get(self, paper_id: str) -> Paper | None:
        return {"2501.00001": self.early, "2508.00001": self.late}.get(paper_id)

    def papers(self, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        return [self.early, self.late]

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        return {"2025-01": 1, "2025-08": 1}

    def embeddings(self, paper_ids: object) -> object:
        raise AssertionError("not used")


def test_tools_guard_the_cutoff_and_the_budget() -> None:
    tools = KBTools(_LeakyView(), "d", budget=4)  # type: ignore[arg-type]
    assert [paper.paper_id for paper in tools.search("x")] == ["2501.00001"]
    assert tools.get_paper("2508.00001") is None
    assert tools.related_papers("2501.00001") == []
    timeline = tools.timeline("x")
    assert "2025-08" not in timeline["total"] and timeline["matched"] == {"2025-01": 1}
    assert "normalised_by" in timeline
    with pytest.raises(ToolBudgetExceeded):
        tools.search("y")
    logged = [call.tool for call in tools.artifact.tool_calls]
    assert logged == ["search_papers", "get_paper", "related_papers", "timeline"]
    assert all(item.paper_id != "2508.00001" for item in tools.artifact.retrieved)


def test_run_cli_rejects_bad_requests(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    runner = CliRunner()
    missing_kb = runner.invoke(
        app, ["run", str(tmp_path), "--method", "hybrid_rag", "--out", str(tmp_path / "r")]
    )
    assert missing_kb.exit_code != 0 and "--kb" in missing_kb.output
    unknown = runner.invoke(app, ["run", str(tmp_path), "--method", "oracle", "--out", str(tmp_path / "r")])
    assert unknown.exit_code != 0 and "oracle" in unknown.output
    no_endpoint = runner.invoke(
        app,
        ["run", str(tmp_path), "--method", "native", "--out", str(tmp_path / "r")],
        env={"FORESCI_LLM__BASE_URL": ""},
    )
    assert no_endpoint.exit_code != 0 and "FORESCI_LLM__BASE_URL" in no_endpoint.output
    nothing = runner.invoke(app, ["run", str(tmp_path), "--out", str(tmp_path / "r")])
    assert nothing.exit_code != 0
