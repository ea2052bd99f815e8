"""Settings of a round's question supply (the ``rounds`` section): how many resolvable items each window of
a round freezes and the caps that keep them from being near-copies
(:func:`foresci.tasks.forecast.supply_questions`, a family's ``round_items``). A ledger's own
``questions`` / ``emergence_questions`` (``ledger.json``) override the two sizes."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

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


EMERGENCE_STRATA = (1, 2, 4, 4)
"""Default weights of the ``ceq-`` strata (the concept-pair family's ``stratum_cycle``, in its round-items
module), highest stratum first: 1 of every 11 questions from the top 0.1 % of candidate pairs, 2 from 0.1-1
%, 4 each from 1-10 % and the rest. Chosen outcome-blind in design, on the s9 real replay's ledger (10
monthly rounds, 2025-06-30..2026-03-31) as development data: the top stratum's paired Brier differences had
the largest intra-round correlation (design effect 6.9 at 36 questions a round, against 3.3, 3.3 and 1.9
for the others; its pairs' yes-rate ran 0.11-0.44 from round to round): within a round its questions are
closer to one event than the lower strata's. Re-weighting 160 questions (1, 2, 4, 4) instead of 120 equal
ones gave a modelled pooled Brier MDD with round clustering of 0.0177 against the ledger's 0.0216 (0.0207
for 160 equal ones); a new real replay over the same cutoffs read 0.0210 (the ceq- items' intra-round
correlation rose from 0.106 to 0.115), so the gain in power was not confirmed; the weights are kept for the
items they add (docs/tutorials/living-benchmark.md)."""


class RoundSettings(SettingsSection):
    """The question supply of a round's windows (defaults aim at >= 300 resolved items per monthly round
    of the real arXiv corpus; a generated world of two domains runs out of nodes sooner)."""

    questions: int = Field(default=320, ge=1,
                           description="node and venue questions per window (binary: node growth against its "
                                       "previous window, share growth and share decline against its domain "
                                       "share, venue lead; numeric: "
                                       "node, venue and limitation-mention counts); stratified over domains "
                                       "and nodes, at most `node_cap` per node")
    emergence_questions: int = Field(default=160, ge=0,
                                     description="concept-pair emergence (ceq-) binary questions per window, "
                                                 "cycled over domains and pre-cutoff strata, at most "
                                                 "`concept_cap` per concept")
    emergence_strata: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=lambda: list(EMERGENCE_STRATA), min_length=4, max_length=4,
        description="ceq- questions per cycle from each pre-cutoff stratum of candidate pairs (top 0.1 %, "
                    "0.1-1 %, 1-10 %, the rest); the top stratum's outcomes move together most "
                    "from round to round, so it gets the fewest")
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

    @field_validator("emergence_strata")
    @classmethod
    def _some_stratum(cls, weights: list[int]) -> list[int]:
        if sum(weights) <= 0:
            raise ValueError("rounds.emergence_strata: at least one stratum needs a weight above 0")
        return weights
