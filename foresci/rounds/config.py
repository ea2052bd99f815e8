"""Settings of a round's question supply (the ``rounds`` section): how many resolvable items each window of
a round freezes and the caps that keep them from being near-copies
(:func:`foresci.tasks.forecast.supply_questions`, :mod:`foresci.rounds.emergence_items`). A ledger's own
``questions`` / ``emergence_questions`` (``ledger.json``) override the two sizes."""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection


class RoundSettings(SettingsSection):
    """The question supply of a round's windows (defaults aim at >= 300 resolved items per monthly round
    of the real arXiv corpus; a generated world of two domains runs out of nodes sooner)."""

    questions: int = Field(default=320, ge=1,
                           description="node and venue questions per window (binary: node growth against its "
                                       "previous window and against its domain share, venue lead; numeric: "
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
    min_node_papers: int = Field(default=4, ge=1,
                                 description="pre-cutoff papers a node needs to be asked about (the tasks' "
                                             "other eligibility rules apply: named from pre-cutoff words, "
                                             "not too broad, near-duplicate names merged)")
