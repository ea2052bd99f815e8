"""trend and persistence on the toy world: A grows, B is biggest and steady, C cools."""

from __future__ import annotations

from typing import Any

import pytest

from foresci.agents.baselines.forecasters import Forecaster
from foresci.agents.baselines.measure import months_before
from foresci.agents.config import AgentSettings
from foresci.agents.render import render_text
from tests.agents.conftest import ToyWorld
from tests.agents.toy import CUTOFF, toy_tasks

TASKS = {task.family: task for task in toy_tasks()}


@pytest.fixture(scope="module")
def forecasters(toy_world: ToyWorld) -> dict[str, Forecaster]:
    view: Any = toy_world.view()
    return {kind: Forecaster(kind, view, AgentSettings()) for kind in ("trend", "persistence")}  # type: ignore[misc]


def test_months_before() -> None:
    assert months_before(CUTOFF, 3) == ["2025-04", "2025-05", "2025-06"]
    assert months_before(CUTOFF.replace(month=2, day=1), 3) == ["2024-12", "2025-01", "2025-02"]


def test_direction(forecasters: dict[str, Forecaster]) -> None:
    trend, trend_support = forecasters["trend"].direction(TASKS["direction_forecasting"])
    assert trend.direction == "A" and trend.trajectory == "accelerating"
    persistence, _ = forecasters["persistence"].direction(TASKS["direction_forecasting"])
    assert persistence.direction == "B" and persistence.trajectory == "steady"
    assert any("normalised by" in note for note in trend_support.notes)
    assert trend_support.evidence and all(item.announced <= CUTOFF for item in trend_support.retrieved)


def test_trend_labels_cooling_and_steady(forecasters: dict[str, Forecaster]) -> None:
    series = forecasters["trend"].series(TASKS["direction_forecasting"])
    assert forecasters["trend"].trajectory(series["C"]) == "cooling"
    assert forecasters["trend"].trajectory(series["B"]) == "steady"
    assert series["A"].acceleration() > 0 > series["C"].slope()


def test_planning(forecasters: dict[str, Forecaster]) -> None:
    trend, _ = forecasters["trend"].planning(TASKS["strategic_planning"])
    persistence, _ = forecasters["persistence"].planning(TASKS["strategic_planning"])
    assert [item.option_id for item in persistence.ranking] == ["B", "C", "A"]
    assert trend.ranking[0].option_id == "A"


def test_venue_and_bottleneck(forecasters: dict[str, Forecaster]) -> None:
    for kind in ("trend", "persistence"):
        venue, support = forecasters[kind].venue(TASKS["venue_positioning"])
        assert venue.ranking[0].option_id == "V2", kind  # graph-memory papers go to ACL
        assert {item.option_id for item in venue.ranking} == {"V1", "V2", "V3"}
        bottleneck, support = forecasters[kind].bottleneck(TASKS["bottleneck_opportunity"])
        assert "context window" in bottleneck.bottleneck, bottleneck
        assert support.evidence[-1].paper_ids
        assert render_text(TASKS["bottleneck_opportunity"], bottleneck).startswith("Root bottleneck:")
