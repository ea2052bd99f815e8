"""A small ResearchForesight-format release written by hand from their documented schema.

One row per family and subtype (direction chain/quarter forecasts, bottleneck, agenda and comparative
planning, venue-aware direction forecast and venue-targeted planning), plus an agenda task without records,
two bottleneck tasks that ask the identical question with different answers, and a row of a family the
importer does not know. Two cutoffs (2025-08-31 and 2025-11-30) are mixed on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EARLY, LATE = "2025-08-31", "2025-11-30"
SPEC = {"format": "free_form_research_analysis", "requirements": ["State a concrete conclusion."]}


def _public(
    task_id: str,
    family: str,
    subtype: str,
    title: str,
    question: str,
    cutoff: str = EARLY,
    horizon: str = "half_year",
    domain: str = "LLM agents",
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "family": family,
        "subtype": subtype,
        "domain": domain,
        "horizon": horizon,
        "title": title,
        "question": question,
        "time_cutoff": cutoff,
        "deliverable_spec": SPEC,
    }


def _hidden(
    task_id: str,
    family: str,
    truth: dict[str, Any],
    gold: str = "A gold answer of enough length.",
    domain: str = "llm_agent",
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "internal_task_id": f"internal::{task_id}",
        "family": family,
        "domain": domain,
        "title": task_id,
        "gold_answer": gold,
        "expected_answer_points": ["Names one concrete direction."],
        "evaluation_rubric": None,
        "judge": {"decision": "accept", "overall_score": 0.8},
        "ground_truth": truth,
        "public_metadata": {"topic": "tool use"},
    }


def _node(name: str, created: str, future: int, parent: str = "tasks/agents/tool_use") -> dict[str, Any]:
    return {
        "node_id": f"{parent}/{name}",
        "display_name": name,
        "created_time_slice": created,
        "future_paper_count": future,
    }


TRAJECTORY = {
    "trajectory_label": "fragmenting",
    "future_to_history_ratio": 0.5,
    "split_pressure": 12.0,
    "confidence": 0.9,
}
HISTORY_STATS = {"paper_count": 120, "top_venue_buckets": {"other": 90, "CVPR": 6, "ICCV": 2, "AAAI": 3}}


def rows() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(public rows, hidden rows) of the fixture release."""
    public: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []

    def add(pub: dict[str, Any], hid: dict[str, Any]) -> None:
        public.append(pub)
        hidden.append(hid)

    add(
        _public(
            "RF-DF-1",
            "direction_forecasting",
            "chain_terminal_forecast",
            "Next step in tool-use agents",
            "Which next-step direction of tool-use agents emerges, and is the area accelerating?",
        ),
        _hidden(
            "RF-DF-1",
            "direction_forecasting",
            {
                "future_terminal": _node("tool_use_verification", "2025Q4", 30),
                "emergent_descendants": [
                    _node("tool_use_verification", "2025Q4", 30),
                    _node("api_call_planning", "2025Q3", 12),
                ],
                "future_chain": [_node("tool_use", "2025Q1", 0, "tasks/agents")],
                "trajectory": TRAJECTORY,
                "historical_stats": HISTORY_STATS,
            },
        ),
    )
    add(
        _public(
            "RF-DF-2",
            "direction_forecasting",
            "q1_terminal_forecast",
            "Next step in agent memory",
            "Which next-step direction of agent memory emerges in the quarter?",
            cutoff=LATE,
            horizon="quarter",
        ),
        _hidden(
            "RF-DF-2",
            "direction_forecasting",
            {
                "future_terminal": _node("episodic_memory_compression", "2026Q1", 8),
                "emergent_descendants": [_node("episodic_memory_compression", "2026Q1", 8)],
                "trajectory": {**TRAJECTORY, "trajectory_label": "steady"},
            },
        ),
    )
    add(
        _public(
            "RF-BO-1",
            "bottleneck_opportunity_discovery",
            "pageindex_grounded_bottleneck",
            "Bottleneck in agent evaluation",
            "Identify one bottleneck of agent evaluation.",
        ),
        _hidden(
            "RF-BO-1",
            "bottleneck_opportunity_discovery",
            {
                "historical_limitation_cluster": [
                    {
                        "name": "Static benchmarks saturate",
                        "description": "Benchmarks saturate within months.",
                        "paper_id": "2401.00001",
                        "count": 3,
                    },
                    {
                        "name": "Costly human grading",
                        "description": "Human grading does not scale.",
                        "count": 1,
                    },
                ],
                "historical_limitation_signals": [{"name": "Static benchmarks saturate", "count": 3}],
                "realized_opportunity_directions": [_node("live_agent_benchmarks", "2025Q4", 40)],
                "reference_papers": {
                    "history": [{"paper_id": "2401.00001"}],
                    "future_q4": [{"paper_id": "2510.00002"}],
                },
            },
        ),
    )
    for index, cluster in ((2, "Sparse tool feedback"), (3, "Unstable tool schemas")):
        add(
            _public(
                f"RF-BO-{index}",
                "bottleneck_opportunity_discovery",
                "pageindex_grounded_bottleneck",
                "Bottleneck in tool learning",
                "Identify one bottleneck of tool learning for agents.",
            ),
            _hidden(
                f"RF-BO-{index}",
                "bottleneck_opportunity_discovery",
                {
                    "historical_limitation_cluster": [{"name": cluster, "description": "", "count": 2}],
                    "future_descendants": [],
                },
            ),
        )
    add(
        _public(
            "RF-SP-1",
            "strategic_research_planning",
            "agenda_priority_selection",
            "Agenda for tool use",
            "Rank the directions of tool use to prioritise.",
        ),
        _hidden(
            "RF-SP-1",
            "strategic_research_planning",
            {
                "candidate_directions": ["tool retrieval", "tool creation", "tool safety"],
                "direction_records": [
                    _node("tool_creation", "2025Q3", 4),
                    _node("tool_retrieval", "2025Q4", 25),
                    _node("tool_safety", "2025Q2", 9),
                ],
                "planning_priority_score": 2.5,
            },
        ),
    )
    add(
        _public(
            "RF-SP-2",
            "strategic_research_planning",
            "q1_agenda_priority_selection",
            "Agenda for memory",
            "Rank the directions of agent memory to prioritise.",
            cutoff=LATE,
            horizon="quarter",
        ),
        _hidden(
            "RF-SP-2", "strategic_research_planning", {"candidate_directions": [], "direction_records": []}
        ),
    )
    add(
        _public(
            "RF-SP-3",
            "strategic_research_planning",
            "comparative_opportunity_prioritization",
            "Comparative Prioritization: Tool use vs. Tool use verification",
            "Which should be prioritised: tool use verification or tool use?",
        ),
        _hidden(
            "RF-SP-3",
            "strategic_research_planning",
            {
                "direction_records": [
                    {
                        "display_name": "Tool use",
                        "future_paper_count": 40,
                        "comparative_role": "winner",
                        "source_node_id": "tasks/agents/tool_use",
                    },
                    {
                        "display_name": "Tool use verification",
                        "future_paper_count": 6,
                        "comparative_role": "loser",
                        "source_node_id": "tasks/agents/tool_use/tool_use_verification",
                    },
                ],
                "winner_node_id": "tasks/agents/tool_use",
                "winner_display_name": "Tool use",
                "loser_node_id": "tasks/agents/tool_use/tool_use_verification",
                "loser_display_name": "Tool use verification",
                "winner_stats": {"historical_paper_count": 140, "future_paper_count": 40},
                "loser_stats": {"historical_paper_count": 12, "future_paper_count": 6},
                "winner_score": 5.1,
                "loser_score": 2.0,
            },
        ),
    )
    add(
        _public(
            "RF-SP-4",
            "strategic_research_planning",
            "comparative_opportunity_prioritization",
            "Comparative Prioritization: Web agents vs. GUI agents",
            "Which should be prioritised: GUI agents or web agents?",
        ),
        _hidden(
            "RF-SP-4",
            "strategic_research_planning",
            {
                "direction_records": [
                    {"display_name": "Web agents", "comparative_role": "winner"},
                    {"display_name": "GUI agents", "comparative_role": "loser"},
                ],
                "winner_node_id": "tasks/agents/web_agents",
                "winner_display_name": "Web agents",
                "loser_node_id": "tasks/agents/gui_agents",
                "loser_display_name": "GUI agents",
                "winner_stats": {"historical_paper_count": 20},
                "loser_stats": {"historical_paper_count": 55},
            },
        ),
    )
    add(
        _public(
            "RF-VP-1",
            "venue_aware_research_positioning",
            "venue_aware_direction_forecast",
            "Forecasting top-venue traction in video generation",
            "Which next direction in video generation gains traction, and in which venue bucket?",
            domain="Visual generative modeling and diffusion",
        ),
        _hidden(
            "RF-VP-1",
            "venue_aware_research_positioning",
            {
                "future_terminal": _node("camera_controlled_video", "2025Q4", 50),
                "trajectory": TRAJECTORY,
                "historical_stats": HISTORY_STATS,
                "direction_records": [
                    {"display_name": "Camera controlled video", "future_paper_count": 50},
                    {"display_name": "Long video generation", "future_paper_count": 70},
                ],
                "venue_forecast": {
                    "likely_bucket": "CVPR",
                    "likely_venue": "CVPR",
                    "top_venue_buckets": {"CVPR": 3, "ICCV": 1, "NeurIPS": 2},
                },
                "future_half_stats": {"paper_count": 80},
            },
            domain="visual_generative_modeling_and_diffusion",
        ),
    )
    add(
        _public(
            "RF-VP-2",
            "venue_aware_research_positioning",
            "venue_targeted_planning",
            "Venue-targeted prioritization in retrieval-augmented generation",
            "A team wants to maximise its relevance for EMNLP-like venues. Which directions first?",
            domain="RAG and retrieval structuring",
        ),
        _hidden(
            "RF-VP-2",
            "venue_aware_research_positioning",
            {
                "direction_records": [{"display_name": "Graph RAG", "future_paper_count": 9}],
                "target_venue_bucket": "EMNLP",
                "target_venue_name": "EMNLP",
                "venue_forecast": {
                    "likely_bucket": "EMNLP",
                    "top_venue_buckets": {"EMNLP": 2, "ICLR": 2, "ACL": 0},
                },
                "target_window_stats": {"paper_count": 30},
            },
            domain="rag_and_retrieval_structuring",
        ),
    )
    add(
        _public("RF-XX-1", "a_family_from_the_future", "new_subtype", "Something new", "A question."),
        _hidden("RF-XX-1", "a_family_from_the_future", {}),
    )
    return public, hidden


def write_release(folder: Path, with_hidden: bool = True) -> Path:
    """Write the fixture release (``tasks.jsonl`` and, unless told not to, ``tasks_hidden_eval.jsonl``)."""
    folder.mkdir(parents=True, exist_ok=True)
    public, hidden = rows()
    (folder / "tasks.jsonl").write_text("".join(json.dumps(row) + "\n" for row in public), encoding="utf-8")
    if with_hidden:
        (folder / "tasks_hidden_eval.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in hidden), encoding="utf-8"
        )
    return folder
