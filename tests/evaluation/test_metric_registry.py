"""The metric registry: every metric list derives from it, a metric's direction is read, the scoring
revision follows the metric definitions, and bad definitions are one-line errors."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from foresci.evaluation import metrics as registry
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.metrics import (
    Metric,
    MetricError,
    ScoringContext,
    all_metrics,
    get_metric,
    register_metric,
    unregister_metric,
)
from foresci.evaluation.metrics.revision import definitions_digest, scoring_revision
from foresci.evaluation.models import MetricResult, Score


@pytest.fixture
def toy_metrics() -> Iterator[list[str]]:
    """Names registered by a test, unregistered after it."""
    names: list[str] = []
    yield names
    for name in names:
        unregister_metric(name)


def _row(method: str, task_id: str, values: dict[str, float], family: str = "strategic_planning") -> Score:
    return Score(
        task_id=task_id, family=family, domain="d", method=method,
        metrics={name: MetricResult(name=name, value=value) for name, value in values.items()},
    )


def test_shipped_lists_derive_from_the_registry() -> None:
    names = [metric.name for metric in all_metrics()]
    assert names[:9] == ["fact", "fta", "trace", "pers", "fact_offline", "fta_offline_claims",
                         "trace_offline", "top_choice", "plan_outcome"]
    assert registry.task_metric_names() == tuple(names[:9])
    assert registry.headline_metric_names() == ("fact", "fta", "trace", "pers")
    assert registry.offline_stand_ins() == {"fact": "fact_offline", "fta": "fta_offline_claims",
                                            "trace": "trace_offline"}
    assert registry.forecast_metric_names() == ("crps", "brier")
    assert registry.judge_metric_names() == ("fact", "trace", "pers")
    assert "cover_1" not in registry.metric_info() and "crps_skill" in registry.metric_info()
    assert get_metric("fta_offline_claims").applies_to("bottleneck_opportunity")
    assert not get_metric("fta_offline_claims").applies_to("venue_positioning")
    assert not get_metric("fact").applies_to("forecast") and get_metric("brier").applies_to("forecast")


def test_a_registered_metric_reaches_every_list_and_its_direction_is_read(
    toy_metrics: list[str],
) -> None:
    from foresci.evaluation.diagnostics import low_score_rates
    from foresci.evaluation.plots import heatmap_columns
    from foresci.evaluation.report import backbone_pivot, drilldown_metric_names
    from foresci.evaluation.summary import build_summary

    @register_metric
    class Cost(Metric):
        name, label, description = "toy_cost", "Cost", "a lower-is-better toy"
        higher_is_better, headline = False, True

        def compute(self, context: ScoringContext) -> MetricResult:
            return MetricResult(name=self.name, value=0.0)

    toy_metrics.append("toy_cost")
    rows = [
        _row(method, f"t{index}", {"fta": 0.5, "toy_cost": cost})
        for method, costs in (("cheap", [0.1, 0.2, 0.1]), ("dear", [0.9, 0.8, 0.95]))
        for index, cost in enumerate(costs)
    ]
    summary = build_summary(rows, EvaluationSettings(bootstrap_samples=50), {})
    overall = {entry["method"]: entry for entry in summary["leaderboard"] if entry["family"] == "all"}
    assert overall["cheap"]["metrics"]["toy_cost"]["leader"] is True  # the lowest mean leads
    assert overall["dear"]["metrics"]["toy_cost"]["leader"] is False
    assert summary["metric_info"]["toy_cost"]["higher_is_better"] is False
    assert summary["metric_labels"]["toy_cost"] == "Cost"
    rates = low_score_rates(rows, 0.5)["by_method"]
    assert rates["dear"]["toy_cost"] == 1.0 and rates["cheap"]["toy_cost"] == 0.0  # high cost = low score
    assert "toy_cost" in heatmap_columns(rates)
    assert "toy_cost" in backbone_pivot([{**entry, "model": None} for entry in overall.values()])["metrics"]
    assert drilldown_metric_names()[-1] == "toy_cost"


def test_custom_aggregate_builds_the_leaderboard_cell(toy_metrics: list[str]) -> None:
    from foresci.evaluation.summary import leaderboard

    @register_metric
    class Best(Metric):
        name, label, description, aggregate = "toy_best", "Best", "the best row", "custom"

        def compute(self, context: ScoringContext) -> MetricResult:
            return MetricResult(name=self.name, value=0.0)

        def reduce(self, values, settings):  # type: ignore[no-untyped-def]
            return {"mean": max(values), "n": len(values)}

    toy_metrics.append("toy_best")
    rows = [_row("m", f"t{index}", {"toy_best": value}) for index, value in enumerate([0.2, 0.7, 0.4])]
    cell = leaderboard(rows, EvaluationSettings(bootstrap_samples=50))[0]["metrics"]["toy_best"]
    assert cell == {"mean": 0.7, "n": 3}


def test_bad_definitions_and_names_are_one_line_errors(toy_metrics: list[str]) -> None:
    class Nameless(Metric):
        label, description = "X", "no name"

    with pytest.raises(MetricError, match="Nameless needs a non-empty string 'name'"):
        register_metric(Nameless)

    class Taken(Metric):
        name, label, description = "fact", "Fact", "clashes with the shipped fact"

    with pytest.raises(MetricError, match="metric name 'fact' of .*Taken is taken by .*metrics.fact.Fact"):
        register_metric(Taken)
    with pytest.raises(MetricError, match="unknown metric 'nope'; registered: fact, fta"):
        get_metric("nope")
    with pytest.raises(NotImplementedError, match="'toy_bare'"):
        @register_metric
        class Bare(Metric):
            name, label, description = "toy_bare", "Bare", "no compute"

        toy_metrics.append("toy_bare")
        get_metric("toy_bare").compute(None)  # type: ignore[arg-type]


def test_revision_follows_metric_definitions(tmp_path: Path, toy_metrics: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a metric, or changing its code (not its comments or docstrings), changes the revision."""
    base = definitions_digest()
    assert scoring_revision() == registry.revision.REVISION_ALIASES.get(base, base)

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.syspath_prepend(str(tmp_path))

    def load(body: str) -> None:
        name = "toy_revision_metric"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(f'''
            """A toy metric module."""
            from foresci.evaluation.metrics import Metric, register_metric
            from foresci.evaluation.models import MetricResult

            @register_metric
            class Toy(Metric):
                name, label, description = "toy_rev", "Toy", "a toy"

                def compute(self, context):
                    {body}
            '''), encoding="utf-8")
        sys.modules.pop(name, None)
        unregister_metric("toy_rev")
        __import__(name)
        toy_metrics.append("toy_rev")

    load("return MetricResult(name=self.name, value=1.0)")
    with_toy = definitions_digest()
    assert with_toy != base
    load("return MetricResult(name=self.name, value=1.0)  # a comment changes nothing")
    assert definitions_digest() == with_toy
    load("return MetricResult(name=self.name, value=0.5)")
    assert definitions_digest() not in (with_toy, base)
    unregister_metric("toy_rev")
    assert definitions_digest() == base


def test_judge_phase_metric_is_judged_and_offline_stands_in(tmp_path: Path, toy_metrics: list[str]) -> None:
    """A judge-phase metric is computed with the judge client (concurrently, in run_judges), carried to
    the score row, and replaced by its offline() result in an offline evaluation."""
    from foresci.core.io import iter_jsonl
    from foresci.evaluation.runner import evaluate_run
    from tests.evaluation.conftest import WordEncoder
    from tests.evaluation.fixtures import write_release, write_run
    from tests.evaluation.test_judges import judge_reply, judged_settings
    from tests.support.openai_server import ScriptedOpenAIServer

    @register_metric
    class Verdict(Metric):
        name, label, description, phase = "toy_verdict", "Verdict", "judged toy", "judge"

        def compute(self, context: ScoringContext) -> MetricResult:
            assert context.judge is not None and context.encoder is None  # judge phase: no embedder
            claims, _, _ = context.claim_extraction  # the claims the shipped judge metrics share
            return MetricResult(name=self.name, value=float(len(claims or [])))

        def offline(self, context: ScoringContext) -> MetricResult:
            return MetricResult(name=self.name, value=None, available=False, reason="needs a judge")

    toy_metrics.append("toy_verdict")
    release = write_release(tmp_path / "release")
    judged_run = write_run(tmp_path / "judged", release)
    offline_run = write_run(tmp_path / "offline", release)
    with ScriptedOpenAIServer(responder=judge_reply) as server:
        settings = judged_settings(tmp_path, server)
        evaluate_run(judged_run, None, settings, offline=False, encoder=WordEncoder())
    evaluate_run(offline_run, None, settings, offline=True, encoder=WordEncoder())
    judged = [row for row in iter_jsonl(judged_run / "scores.jsonl") if row["family"] != "forecast"]
    offline = [row for row in iter_jsonl(offline_run / "scores.jsonl") if row["family"] != "forecast"]
    ok = [row for row in judged if row["status"] == "ok"]
    assert ok and all(row["metrics"]["toy_verdict"]["value"] == 2.0 for row in ok)  # two scripted claims
    assert all(row["metrics"]["toy_verdict"]["reason"] == "needs a judge"
               for row in offline if row["status"] == "ok")
