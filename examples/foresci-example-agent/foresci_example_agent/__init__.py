"""momentum_vote: rank each task's candidates by how fast the KB's papers on them grew before the cutoff.

A plug-in answering method for foresci, found through the entry point group ``foresci.methods``. It sees
the public task and KB tools bound to the task cutoff, nothing else; the tools' log becomes the answer's
support artifact.
"""

from __future__ import annotations

from typing import Any

from foresci.methods import ForecastInput, MethodInput, method


def momentum(tools: Any, query: str) -> float:
    """Matching papers in the last three months read, over those in the three months before (+1 each)."""
    counts = tools.timeline(query, k=40)["matched"]
    months = sorted(counts)
    recent = sum(counts[month] for month in months[-3:])
    earlier = sum(counts[month] for month in months[-6:-3])
    return (recent + 1) / (earlier + 1)


@method("momentum_vote", needs_kb=True)
def momentum_vote(inputs: MethodInput) -> dict[str, Any]:
    """Answer one task: options ranked by momentum; a bottleneck read from the most recent paper."""
    task, tools = inputs.task, inputs.tools
    if task.family == "bottleneck_opportunity":
        papers = tools.search(f"{task.title} limitation bottleneck")
        papers.sort(key=lambda paper: paper.announced)
        latest = f"'{papers[-1].title}' [{papers[-1].paper_id}]" if papers else task.title
        return {"bottleneck": f"the limitation reported in {latest}.",
                "opportunity": f"methods that lift the limitation of {task.title}",
                "mechanism": "reducing the bottleneck makes the next step feasible"}
    scores = {option.option_id: momentum(tools, option.name) for option in task.candidates}
    ranked = sorted(scores, key=lambda option_id: -scores[option_id])
    names = {option.option_id: option.name for option in task.candidates}
    cited = ", ".join(f"[{paper.paper_id}]" for paper in tools.search(names[ranked[0]], k=3))
    if task.family == "direction_forecasting":
        best = scores[ranked[0]]
        trajectory = "accelerating" if best > 1.5 else "steady" if best > 0.8 else "cooling"
        return {"direction": ranked[0], "trajectory": trajectory,
                "rationale": f"{ranked[0]} grew by a factor {best:.2f} over the last three months {cited}."}
    return {"ranking": [{"option_id": option_id, "reason": f"momentum {scores[option_id]:.2f}"
                         + (f", e.g. {cited}" if option_id == ranked[0] else "")} for option_id in ranked]}


@momentum_vote.forecaster
def momentum_forecast(question: Any, inputs: ForecastInput) -> dict[str, Any]:
    """Numeric: the question's baseline scaled by momentum; binary: momentum above 1 means likely yes."""
    factor = momentum(inputs.tools, question.text)
    if question.kind == "numeric":
        median = (question.baseline or 0.0) * factor
        return {"p10": median / 2, "p50": median, "p90": median * 2, "notes": [f"momentum {factor:.2f}"]}
    return {"probability": min(0.9, max(0.1, factor / (1 + factor))), "notes": [f"momentum {factor:.2f}"]}
