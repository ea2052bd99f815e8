"""Settings of a round's question supply (the ``rounds`` section): how many resolvable items each window of
a round freezes and the caps that keep them from being near-copies
(:func:`foresci.tasks.forecast.supply_questions`, a family's ``round_items``). A ledger's own
``questions`` / ``emergence_questions`` (``ledger.json``) override the two sizes."""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection

SUPPLY_OFF = ("count_growth",)
"""The supply rules a round leaves out by default (every other rule of the registered families is asked,
an extension family's included: :func:`foresci.tasks.forecast.chosen_rules`).

``count_growth`` (will a node have more window papers than before the cutoff?) is left out: its outcomes
move together with the whole corpus' volume (on the real replay its yes-rate ran 0.03 in one round and
0.98 in another), so its items within a round are near-copies of one domain-wide event. Its paired Brier
differences had an intra-round correlation of 0.47 (design effect 26.8, against 2.5 for ``share_growth``,
whose outcomes are shares of the domain and cancel domain-wide shocks); without it the replay's pooled
Brier MDD with round clustering reads 0.039 instead of 0.053 (``benchmarks/rounds_power.py --by-rule``)."""


class RoundSettings(SettingsSection):
    """The question supply of a round's windows (defaults aim at >= 300 resolved items per monthly round
    of the real arXiv corpus; a generated world of two domains runs out of nodes sooner)."""

    questions: int = Field(default=320, ge=1,
                           description="node and venue questions per window (binary: node growth against its "
                                       "previous window, share growth and share decline against its domain "
                                       "share, venue lead; numeric: "
                                       "node, venue and limitation-mention counts); stratified over domains "
                                       "and nodes, at most `node_cap` per node")
    emergence_questions: int = Field(default=120, ge=0,
                                     description="concept-pair emergence (ceq-) binary questions per window, "
                                                 "cycled over domains and pre-cutoff strata, at most "
                                                 "`concept_cap` per concept")
    node_cap: int = Field(default=4, ge=1, le=6,
                          description="most questions about one taxonomy node per window (one per rule)")
    concept_cap: int = Field(default=2, ge=1,
                             description="most ceq- questions naming one concept per domain and window")
    venue_cap: int = Field(default=4, ge=1,
                           description="most questions naming one venue family per domain and window (a "
                                       "family's venue-lead outcomes move together with the conference "
                                       "calendar)")
    rules: list[str] = Field(default_factory=list,
                             description="the supply rules a node's questions are drawn from, in rotation; "
                                         "empty (the default): every registered family's rules but "
                                         "skip_rules (foresci.tasks.forecast.supply_rules; an unknown name "
                                         "is refused when a round opens)")
    skip_rules: list[str] = Field(default_factory=lambda: list(SUPPLY_OFF),
                                  description="rules left out of the default rotation (count_growth: its "
                                              "outcomes move with the corpus' volume: a round's are one "
                                              "event)")
    min_node_papers: int = Field(default=4, ge=1,
                                 description="pre-cutoff papers a node needs to be asked about (the tasks' "
                                             "other eligibility rules apply: named from pre-cutoff words, "
                                             "not too broad, near-duplicate names merged)")
