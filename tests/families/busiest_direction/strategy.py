"""How the trend and persistence forecasters answer the toy family (agents side): their planning ranking
(by measured momentum, or by volume for persistence) is their guess at the busiest option."""

from __future__ import annotations

from busiest_direction import BusiestAnswer

from foresci.agents.baselines.strategies import Forecaster, register_strategy
from foresci.contracts import SupportArtifact
from foresci.tasks.models import Task


@register_strategy("busiest_by_momentum")
def busiest_by_momentum(forecaster: Forecaster, task: Task) -> tuple[BusiestAnswer, SupportArtifact]:
    """The options ranked as the forecaster ranks a planning task's."""
    plan, support = forecaster.planning(task)
    ranking = getattr(plan, "ranking", [])
    return BusiestAnswer(ranking=ranking, rationale=f"{forecaster.kind}: ranked by momentum"), support
