"""Native LLM: the backbone answers from the brief alone (also every method's name-only mode).

The graph (:func:`foresci.methods.shipped.base.native_graph`) is compiled once; the task arrives in the
``RunnableConfig``. Forecasts: the question and its public facts, no literature (one call).
"""

from __future__ import annotations

from foresci.agents.config import AgentSettings
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult, method
from foresci.methods.shipped.base import native_graph, run_llm_method
from foresci.methods.shipped.forecasting import NO_LITERATURE, answer_reply, ask, forecast_hook
from foresci.tasks.models import ForecastQuestion


@method("native", needs_kb=False, uses_llm=True,
        prompts={"answer": {"brief", "contract"}})
def native(inputs: MethodInput) -> MethodResult:
    """The native graph on one task."""
    return run_llm_method(native_graph, inputs)


def native_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                    settings: AgentSettings) -> ForecastAnswer:
    """The backbone alone: the question and its public facts, no literature."""
    return answer_reply(question, ask(question, llm, NO_LITERATURE), None)


native.forecaster(forecast_hook("native", native_forecast))
