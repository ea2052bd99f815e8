"""Settings of task building (the ``tasks`` section)."""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection


class TaskSettings(SettingsSection):
    """How foresight tasks and releases are built."""

    seed: int = Field(default=7, description="random seed for candidate sampling")
    candidates_per_task: int = Field(default=4, description="options per direction/planning task")
    min_support: int = Field(default=8, description="pre-cutoff papers a candidate node needs (ForeSci B.3)")
    min_baseline: int = Field(default=2, description="papers a candidate node needs in the baseline period")
    max_breadth: float = Field(default=0.5, description="a node holding more than this share of the domain's "
                                                      "pre-cutoff papers is too broad to be a candidate")
    min_history_share: float = Field(default=0.5, ge=0.0, le=1.0,
                                     description="a direction candidate's node must have existed in the "
                                                 "taxonomy for this share of the pre-cutoff history (late "
                                                 "small nodes are events, not directions)")
    max_phrase_share: float = Field(default=0.5, gt=0.0, le=1.0,
                                    description="a node whose pre-cutoff papers repeat one limitation / "
                                                "chain phrase at this share or more is a bottleneck subject, "
                                                "not a direction candidate")
    min_margin: float = Field(default=0.1,
                              description="log-share-growth lead the winner needs over the runner-up")
    min_lead_z: float = Field(default=0.5, ge=0.0,
                              description="the winner's log-growth lead over the runner-up must also reach "
                                          "this many standard errors of Poisson noise (sqrt of 1/(n+1) "
                                          "over both nodes' window and baseline counts): a small node's "
                                          "lucky window is not a direction gaining momentum")
    neighbour_tolerance: float = Field(default=0.25, description="candidates within this log-growth of the "
                                       "winner "
                                                               "are acceptable neighbours")
    min_window_papers: int = Field(default=3, description="window papers the winning/target node needs")
    min_addressing_papers: int = Field(default=2, description="window papers that must address a bottleneck")
    min_count_z: float = Field(default=1.0, ge=0.0,
                               description="a concept-pair or venue target's winner must lead the "
                                           "runner-up by this many Poisson standard errors ((a - b) / "
                                           "sqrt(a + b) of the two window counts); below it the ranking "
                                           "turns on one paper")
    max_node_wins: int = Field(default=3, ge=1,
                               description="a taxonomy node may be the keyed winner of at most this many "
                                           "tasks of one family in a release")
    min_venue_papers: int = Field(default=3, description="venue-tagged window papers a venue task needs")
    max_label_share: float = Field(default=0.5,
                                   description="gate: no trajectory label above this share of a family")
    max_persistence_share: float = Field(default=0.6, description="rebalancing target for the persistence "
                                         "match "
                                                                 "rate of a family")
    max_baseline_share: float = Field(default=0.6, description="gate: persistence, smallest/largest option "
                                      "wins and every fixed-rule baseline must stay at or under this share")
    max_option_cosine: float = Field(default=0.95, description="two eligible nodes whose centroids are at "
                                     "least this close are one direction: the better supported one is kept "
                                     "as an option")
    min_gate_tasks: int = Field(default=5, description="a rate is gated once this many tasks are evaluable")
    enforce_gates: bool = Field(default=True, description="drop families that fail a gate from the release")
    forecast_questions: int = Field(default=0, ge=0,
                                    description="resolvable numeric/binary forecast questions a release "
                                                "carries (forecast.jsonl; 0: none); "
                                                "`tasks build --forecast N`")
    attempts_per_task: int = Field(default=40, description="candidate sets sampled per wanted task")
