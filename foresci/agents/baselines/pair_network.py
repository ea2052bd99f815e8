"""A concept-emergence task's pairs measured in the co-occurrence network the KB shows at the cutoff.

Concept-emergence tasks state the pairs and what each concept means, not the network's measures (issue
43: a link measure the task stated was all trend read, so trend tied the rule reading it). The forecasters
and the link-prediction methods read them here, from the task's KB view: the domain's core papers up to
the cutoff (what the family's builder reads), the concept vocabulary mined from them, the network
(:mod:`foresci.emergence.network`) and the pair measures (:func:`foresci.emergence.features.pair_features`:
degrees, common neighbours, Adamic–Adar, resource allocation and each concept's papers in the last three
months). A task of an older release that states ``pair_signals`` is read as stated.

The network is computed once per (KB, domain, cutoff, horizon) in the process, by
:func:`foresci.emergence.domain_network.domain_network`: the computation the learned link predictor
(:mod:`foresci.emergence.pair_model`) reads too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from foresci.tasks.models import Task

SIGNALS = ("degree_first", "degree_second", "papers_first", "papers_second", "recent_first", "recent_second",
           "common_neighbours", "adamic_adar", "resource_allocation", "growth_first", "growth_second")
"""Per pair: what the older releases stated (the first nine) and each concept's papers in the last
three calendar months (``growth_*``)."""


def _network(view: Any, task: Task) -> tuple[dict[str, int], Any]:
    """(concept name -> column, the network) of the task's domain at its cutoff, from ``view``: the one
    cached computation the learned link predictor reads too
    (:func:`foresci.emergence.domain_network.domain_network`), its recent span the task's horizon."""
    from foresci.emergence.domain_network import domain_network
    from foresci.tasks.windows import HORIZON_MONTHS

    found = domain_network(view, task.domain, task.cutoff, HORIZON_MONTHS.get(task.horizon, 3))
    return found.columns, found.network


def pair_signals(view: Any, task: Task) -> dict[str, dict[str, float]]:
    """Option id -> the pair's measures (:data:`SIGNALS`) in the network ``view`` shows at the task's
    cutoff; the task's own ``pair_signals`` when it states them (older releases). A pair one of whose
    concepts the KB's vocabulary lacks reads zeros (nothing known about it)."""
    stated = task.context.get("pair_signals")
    if isinstance(stated, dict) and stated:
        return {str(option): {name: float(value) for name, value in dict(values).items()}
                for option, values in stated.items()}
    from foresci.emergence.features import pair_features
    from foresci.emergence.network import GROWTH_MONTHS

    columns, network = _network(view, task)
    rows: list[tuple[str, int, int]] = []
    found: dict[str, dict[str, float]] = {}
    for candidate in task.candidates:
        first, _, second = candidate.name.partition(" + ")
        if first in columns and second in columns:
            rows.append((candidate.option_id, columns[first], columns[second]))
        else:
            found[candidate.option_id] = dict.fromkeys(SIGNALS, 0.0)
    if rows:
        pairs = np.asarray([(left, right) for _, left, right in rows], dtype=np.int64)
        features = pair_features(network, pairs)
        monthly = network.monthly
        growth = (monthly[:, :GROWTH_MONTHS].sum(axis=1) if monthly is not None
                  else np.zeros(len(network.frequency)))
        for index, (option, left, right) in enumerate(rows):
            found[option] = {
                "degree_first": float(features.degree_left[index]),
                "degree_second": float(features.degree_right[index]),
                "papers_first": float(network.frequency[left]),
                "papers_second": float(network.frequency[right]),
                "recent_first": float(network.recent_frequency[left]),
                "recent_second": float(network.recent_frequency[right]),
                "common_neighbours": float(features.common[index]),
                "adamic_adar": float(features.adamic_adar[index]),
                "resource_allocation": float(features.resource_allocation[index]),
                "growth_first": float(growth[left]), "growth_second": float(growth[right]),
            }
    return found


def network_score(signals: dict[str, float], score: str) -> float:
    """A link measure of one pair from its :func:`pair_signals`: preferential attachment (degree product),
    Jaccard (shared over all neighbours), ``growing_links`` (trend: Adamic–Adar times the geometric mean of
    the two concepts' papers in the last three months, one added to each: shared neighbours between
    concepts in use now) or a signal as is (common neighbours, Adamic–Adar, resource allocation)."""
    from foresci.emergence.network import link_measure

    if score == "growing_links":
        return signals.get("adamic_adar", 0.0) * activity(signals)
    return link_measure(signals, score)


def activity(signals: dict[str, float]) -> float:
    """Geometric mean of the two concepts' papers in the last three months, one added to each."""
    first, second = signals.get("growth_first", 0.0), signals.get("growth_second", 0.0)
    return float(np.sqrt((first + 1.0) * (second + 1.0)))
