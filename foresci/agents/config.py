"""Settings of answering methods (the ``agents`` section)."""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection


class AgentSettings(SettingsSection):
    """Knobs of the LangGraph methods, the non-LLM forecasters and the run loop."""

    papers_per_query: int = Field(default=8, description="papers retrieved per search call")
    tool_budget: int = Field(default=12, description="maximum tool calls per task")
    iterations: int = Field(default=2, description="refinement rounds (research_agent)")
    reviewers: int = Field(default=2, description="reviewer agents per round (research_agent)")
    max_evidence_papers: int = Field(default=16, description="papers shown to the model at most")
    coi_chains: int = Field(default=4, description="idea chains (anchors) per task (coi)")
    coi_chain_length: int = Field(default=4, description="follow-up papers per chain (coi)")
    aris_max_queries: int = Field(default=4, description="planned search queries at most (aris)")
    react_max_steps: int = Field(
        default=6, ge=1, description="model turns of the react loop at most (tool calls: tool_budget)"
    )
    concurrency: int = Field(default=4, description="tasks answered concurrently by `foresci run`")
    trend_months: int = Field(default=12, description="months before the cutoff the forecasters read")
    planning_entry_months: int = Field(
        default=3,
        ge=1,
        description="months before the cutoff in which trend reads each planning option's newcomer entry "
        "rate (its papers by authors new to it; foresci.agents.baselines.entry)",
    )
    trend_min_monthly_papers: float = Field(
        default=2.0,
        ge=0.0,
        description="volume floor of the trend forecaster, in papers per month read (2.0: 24 papers over "
        "12 months): options under it are ranked after the others (their slope is noise); when none "
        "reaches it, slopes are shrunk by volume / (volume + floor)",
    )
    trend_min_similarity: float = Field(
        default=0.3, description="cosine similarity for a paper to count toward a candidate"
    )
    reference_categories: list[str] = Field(
        default_factory=lambda: ["cs.CV", "cs.CL"],
        description="arXiv categories covered throughout the corpus; trend shares are normalised by their "
        "monthly volume when they cover every month read, else by the domain's volume",
    )
    accelerating_slope: float = Field(
        default=0.04, description="monthly log-share slope from which a direction is called accelerating"
    )
    cooling_slope: float = Field(
        default=-0.04, description="monthly log-share slope below which a direction is called cooling"
    )
    fragmenting_drop: float = Field(
        default=0.03, description="drop in cohesion (mean cosine to centroid) called fragmenting"
    )
