"""The family registry: every per-family list comes from it, an unknown family is one clear error
everywhere, and the shipped families' hidden rows keep the flat row's bytes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from foresci.agents.render import check_contract, render_text
from foresci.contracts import Answer, RankedOption
from foresci.core.io import JsonlError, dumps_line, iter_jsonl
from foresci.tasks.families import (
    FamilyDefinitionError,
    TaskFamily,
    UnknownFamilyError,
    all_families,
    family_names,
    get_family,
    register_family,
)
from foresci.tasks.families import base as registry
from foresci.tasks.families.strategic_planning.family import PlanningAnswer
from foresci.tasks.hidden import LEGACY_FIELDS, make_hidden_target, parse_hidden_target
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.models import Candidate, Task
from tests.evaluation.fixtures import answers, release_rows
from tests.support.families import registered_family

SHIPPED = ("direction_forecasting", "bottleneck_opportunity", "strategic_planning", "venue_positioning")
TASK = {"task_id": "t1", "domain": "toy", "cutoff": date(2025, 12, 31), "horizon": "3m",
        "window_start": date(2026, 1, 1), "window_end": date(2026, 3, 31), "title": "t", "question": "q"}


class _Bare(BaseModel):
    note: str = ""


class _NoBaseline(TaskFamily):
    name = "no_baseline_family"
    abbreviation = "nb"
    answer_schema = _Bare
    deliverables = ("Say something.",)
    metrics = ("trace_offline",)
    hidden_target = "foresci.tasks.hidden:HiddenTarget"


@pytest.fixture
def extra_family() -> Iterator[TaskFamily]:
    """A family registered for one test, then removed from the registry again."""
    with registered_family(_NoBaseline) as family:
        yield family


def test_the_shipped_families_come_first_in_their_order_with_distinct_abbreviations() -> None:
    assert family_names()[:4] == SHIPPED
    assert len({family.abbreviation for family in all_families()}) == len(all_families())
    venue_cycle = [family.name for family in all_families() if "venue_cycle" in family.horizons]
    assert venue_cycle == ["venue_positioning"]


def test_an_unknown_family_is_one_error_naming_the_known_ones_everywhere(tmp_path: Path) -> None:
    with pytest.raises(UnknownFamilyError, match="known families: direction_forecasting, bottleneck"):
        get_family("novelty_forecasting")
    with pytest.raises(ValidationError, match="unknown task family 'novelty_forecasting'"):
        Task(**TASK, family="novelty_forecasting")
    with pytest.raises(UnknownFamilyError):
        parse_hidden_target({"task_id": "t1", "family": "novelty_forecasting"})
    (tmp_path / "hidden.jsonl").write_text('{"task_id": "t1", "family": "novelty"}\n', encoding="utf-8")
    with pytest.raises(JsonlError) as caught:
        load_hidden(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'hidden.jsonl'}:1: family: unknown task family")


def test_a_family_without_a_baseline_answer_is_an_error_not_a_bottleneck_answer(
    extra_family: TaskFamily,
) -> None:
    from foresci.agents.baselines.forecasters import Forecaster
    from foresci.agents.config import AgentSettings
    from foresci.core.errors import UserError

    task = Task(**TASK, family=extra_family.name)
    with pytest.raises(UserError, match="no_baseline_family' names no baseline strategy"):
        Forecaster("trend", view=None, settings=AgentSettings()).answer(task)  # type: ignore[arg-type]
    assert extra_family.name in family_names()
    assert render_text(task, _Bare(note="plain")) == "Note: plain"  # the default renderer
    with pytest.raises(FamilyDefinitionError, match=r"must declare family: Literal\['no_baseline_family'\]"):
        extra_family.hidden_model()  # the bare base class carries no tag


def test_registering_refuses_a_taken_name_or_abbreviation_and_a_missing_attribute() -> None:
    class Clash(_NoBaseline):
        name = "strategic_planning"

    class SameAbbreviation(_NoBaseline):
        name = "another_family"
        abbreviation = "df"

    class Incomplete(TaskFamily):
        name = "incomplete"

    for family, message in ((Clash, "already registered"), (SameAbbreviation, "taken by"),
                            (Incomplete, "missing")):
        with pytest.raises(FamilyDefinitionError, match=message):
            register_family(family)
    assert "incomplete" not in family_names() and "another_family" not in family_names()


def test_the_shipped_targets_keep_the_flat_rows_bytes_and_refuse_a_foreign_field() -> None:
    _, targets, _, _ = release_rows()
    for target in targets:
        row = json.loads(dumps_line(target))
        assert set(LEGACY_FIELDS) <= set(row)  # every flat field, empty where the family has none
        assert dumps_line(parse_hidden_target(row)) == dumps_line(target)  # round trip, same bytes
    flat = json.loads(dumps_line(make_hidden_target(task_id="d", family="direction_forecasting")))
    with pytest.raises(ValidationError, match="bottleneck"):
        parse_hidden_target({**flat, "bottleneck": ["a bottleneck of another family"]})


def test_metrics_scored_offline_are_among_the_family_metrics() -> None:
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.metrics import ScoringContext
    from foresci.evaluation.scoring import score_task_answer
    from tests.evaluation.conftest import WordEncoder

    tasks, targets, _, _ = release_rows()
    by_id = {task.task_id: task for task in tasks}
    hidden = {target.task_id: target for target in targets}
    seen: set[str] = set()
    for answer in answers():
        if answer.task_id not in by_id:
            continue
        task = by_id[answer.task_id]
        target = hidden[task.task_id]
        context = ScoringContext(answer=answer, settings=EvaluationSettings(), encoder=WordEncoder(),
                                 task=task, hidden=target)
        score = score_task_answer(context)
        assert set(score.metrics) <= set(get_family(task.family).metrics), task.family
        seen.add(task.family)
    assert seen == set(SHIPPED)


def test_contract_check_and_top_choice_are_the_family_s() -> None:
    candidates = [Candidate(option_id=letter, name=f"option {letter}") for letter in "ABC"]
    task = Task(**TASK, family="strategic_planning", candidates=candidates)
    answer = PlanningAnswer(ranking=[RankedOption(option_id="option B"), RankedOption(option_id="A")])
    check = check_contract(task, answer)
    assert check.problems == ["the ranking leaves out options ['C']"]
    assert check.notes == ["read 'option B' as option B"]
    row = Answer(task_id="t1", family="strategic_planning", method="m",
                 payload=check.answer.model_dump(mode="json"))
    target = make_hidden_target(task_id="t1", family="strategic_planning", ranking=["B", "A", "C"])
    top = get_family("strategic_planning").top_choice(row, task, target)
    assert top is not None and (top.value, top.details["gold"]) == (1.0, "B")
    assert get_family("bottleneck_opportunity").top_choice(row, task, target) is None


def test_the_public_side_of_every_family_loads_no_hidden_code() -> None:
    """Agents use families (schemas, contract checks, prompts' texts); that must not import hidden targets."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from foresci.tasks.families import all_families\n"
            "from foresci.methods.shipped.prompts import prompt_book\n"
            "prompt_book()\n"
            "schemas = [family.constrained_schema(['A', 'B']) for family in all_families()]\n"
            "print(sorted(m for m in sys.modules if m.startswith('foresci.tasks.hidden')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_tasks_families_lists_the_registry() -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    result = CliRunner().invoke(app, ["tasks", "families"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    for family in all_families():
        assert family.name in result.output and family.answer_schema.__name__ in result.output


def test_the_reply_union_and_its_exported_schema_include_an_extension_family(
        extra_family: TaskFamily) -> None:
    from foresci.app.schemas import schema_files
    from foresci.contracts import agent_reply_model

    reply = agent_reply_model().model_validate({"answer": {"note": "from a third-party family"}})
    assert isinstance(reply.answer, _Bare)  # type: ignore[attr-defined]
    schema = json.dumps(schema_files()["reply.schema.json"])
    assert '"_Bare"' in schema and '"DirectionAnswer"' in schema


def test_a_run_of_non_llm_methods_needs_no_prompt_texts_for_a_family_without_them(
        extra_family: TaskFamily, tmp_path: Path) -> None:
    from foresci.agents.prompts import PromptError, _load_prompts_cached
    from foresci.core.settings import Settings
    from foresci.methods.runner import run_release
    from foresci.methods.shipped.prompts import prompt_book

    settings = Settings(cache_dir=tmp_path / "cache")
    _load_prompts_cached.cache_clear()
    try:
        run_release([], tmp_path / "baselines", settings, ["trend", "persistence"])
        run_release([], tmp_path / "llm", settings, ["native"])  # nor an LLM run that asks it nothing
        expected = Path(__file__).resolve().parent / "prompts.yaml"  # beside the module defining it
        line = (f"family 'no_baseline_family' has no prompt texts for the LLM methods: expected {expected} "
                "(keys contract, evidence_focus, rubric)")
        with pytest.raises(PromptError) as caught:
            prompt_book().family("no_baseline_family", "contract")
        assert str(caught.value) == line
        task = Task(**TASK, family=extra_family.name)
        asked = run_release([task], tmp_path / "asked", settings, ["native"])
        rows = list(iter_jsonl(tmp_path / "asked" / "answers.jsonl"))
        assert asked.errors == 1 and asked.usage[next(iter(asked.usage))]["calls"] == 0  # asked no model
        assert rows[0]["error"] == f"task t1: PromptError: {line}"  # the error row says it in one line
    finally:
        _load_prompts_cached.cache_clear()


def test_a_family_from_outside_foresci_ships_its_prompt_texts_beside_its_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An extension family's ``prompts.yaml`` in its own folder is what the LLM methods read for it."""
    import importlib

    from foresci.agents.prompts import _load_prompts_cached
    from foresci.methods.shipped.prompts import prompt_book

    folder = tmp_path / "outside_family"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "from tests.families.test_registry import _NoBaseline\n\n\n"
        "class Outside(_NoBaseline):\n    name = 'outside_family'\n    abbreviation = 'of'\n",
        encoding="utf-8")
    (folder / "prompts.yaml").write_text(
        "contract: |\n  Say which option.\nrubric: Is it grounded?\n"
        "evidence_focus: >\n  Counts\n  per month.\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    register_family(importlib.import_module("outside_family").Outside)
    _load_prompts_cached.cache_clear()
    try:
        book = prompt_book()
        assert [book.family("outside_family", key) for key in ("contract", "rubric", "evidence_focus")] == [
            "Say which option.", "Is it grounded?", "Counts per month."]
    finally:
        registry._REGISTRY.pop("outside_family", None)
        registry._family_tuple.cache_clear()
        _load_prompts_cached.cache_clear()


def test_a_family_ships_its_prompt_texts_in_its_own_folder() -> None:
    """Every shipped family's texts are the ``prompts.yaml`` beside its module (no shared file names them);
    the prompt book hands out exactly those texts."""
    import yaml

    from foresci.methods.shipped.prompts import prompt_book

    book = prompt_book()
    for family in all_families():
        path = family.prompts_path()
        assert path.parent.name == family.name and path.is_file(), path
        texts = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert {key: book.family(family.name, key) for key in texts} == {
            key: text.strip() for key, text in texts.items()}


def test_registration_checks_the_family_as_a_whole_and_names_every_problem() -> None:
    class HalfDone(_NoBaseline):
        name = "half_done"
        abbreviation = "hd"
        answer_schema = dict  # type: ignore[assignment]
        hidden_target = "half_done.target"  # no ':Class'
        contract = "Rank the options."  # rubric and evidence_focus missing

    with pytest.raises(FamilyDefinitionError) as caught:
        register_family(HalfDone)
    message = str(caught.value)
    assert message.startswith("family 'half_done' (")
    assert "answer_schema" in message and "hidden_target 'half_done.target'" in message
    assert "['rubric', 'evidence_focus'] missing" in message
    assert "half_done" not in family_names()


def test_a_strategy_returning_no_support_is_one_clear_error_not_an_attribute_error(
    extra_family: TaskFamily, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The forecasters' strategies live on the agents side and what they return is checked: (answer, None)
    is a StrategyError naming the family and the strategy (the runner's error row), never
    ``AttributeError: 'NoneType' object has no attribute 'notes'`` in the row's writer."""
    from foresci.agents.baselines import strategies
    from foresci.agents.baselines.forecasters import Forecaster
    from foresci.agents.config import AgentSettings

    monkeypatch.setattr(strategies, "_STRATEGIES", dict(strategies._STRATEGIES))
    strategies.register_strategy("answers_without_support")(lambda forecaster, task: (_Bare(note="x"), None))
    strategies.register_strategy("answers_another_schema")(
        lambda forecaster, task: (PlanningAnswer(ranking=[]), strategies.SupportArtifact()))
    monkeypatch.setattr(extra_family, "baseline_strategy", "answers_without_support")
    task = Task(**TASK, family=extra_family.name)
    forecaster = Forecaster("trend", view=None, settings=AgentSettings())  # type: ignore[arg-type]
    with pytest.raises(strategies.StrategyError, match="'answers_without_support' returned support None, "
                       "not a foresci.contracts.SupportArtifact"):
        forecaster.answer(task)
    monkeypatch.setattr(extra_family, "baseline_strategy", "answers_another_schema")
    with pytest.raises(strategies.StrategyError, match="of type PlanningAnswer, not the family's _Bare"):
        forecaster.answer(task)
    monkeypatch.setattr(extra_family, "baseline_strategy", "no_such_strategy")
    with pytest.raises(strategies.StrategyError, match="unknown baseline strategy 'no_such_strategy'; known: "
                       "momentum_choice"):
        forecaster.answer(task)


def test_registration_checks_the_hooks_with_the_definition() -> None:
    class AsksButWritesNothing(_NoBaseline):
        name = "asks_but_writes_nothing"
        abbreviation = "aw"
        forecast_kind = "binary"
        agent_signals = "tea_leaves"
        choice_key = "note"

    with pytest.raises(FamilyDefinitionError) as caught:
        register_family(AsksButWritesNothing)
    message = str(caught.value)
    assert "forecast_kind 'binary' needs forecast_rules" in message
    assert "agent_signals 'tea_leaves' is not among" in message
    assert "choice_key needs a read_choice" in message
    assert "asks_but_writes_nothing" not in family_names()
    from foresci.agents.signals import SIGNALS
    from foresci.tasks.families.base import SIGNAL_KINDS

    assert set(SIGNALS) == set(SIGNAL_KINDS)  # every signal block a family may name is measured


class _Placed(_NoBaseline):
    name = "placed_family"
    abbreviation = "pf"
    round_default = -1
    question_label = "what the placed family asks"


def test_a_new_ledgers_families_and_the_round_sites_labels_come_from_the_family_attributes() -> None:
    """``rounds init`` without ``--families`` freezes the families with a ``round_default`` place, by that
    place; the round site's question table says what each family's questions ask (``question_label``)."""
    from foresci.rounds.ledger import LedgerConfig
    from foresci.rounds.site import question_labels

    before = LedgerConfig().families
    assert set(before) == {family.name for family in all_families() if family.round_default is not None}
    register_family(_Placed)
    register_family(_NoBaseline)
    try:
        assert LedgerConfig().families == ["placed_family", *before]  # first by its place; unplaced: out
        labels = question_labels()
        assert labels["placed_family"] == "what the placed family asks"
        assert _NoBaseline.name not in labels  # the site shows an unlabelled family by its name
    finally:
        for name in (_Placed.name, _NoBaseline.name):
            registry._REGISTRY.pop(name, None)
        registry._family_tuple.cache_clear()

    class Misplaced(_NoBaseline):
        name = "misplaced_family"
        abbreviation = "mf"
        round_default = "first"  # type: ignore[assignment]

    with pytest.raises(FamilyDefinitionError, match="round_default 'first' is not None or an integer"):
        register_family(Misplaced)
