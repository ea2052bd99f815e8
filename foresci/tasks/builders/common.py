"""What every family builder shares: the built pair, task ids, candidate eligibility (ForeSci B.3), option
naming and the rebalancing selection that keeps labels and persistence from dominating a family."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from foresci.core.artifacts import sha256_json
from foresci.tasks.audit_rates import domain_constant_outcomes, extreme_wins, recency_wins
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.lookup import find_family
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Candidate, Task
from foresci.tasks.option_similarity import cosine, names_near_duplicate
from foresci.tasks.task_winner import winner_node
from foresci.tasks.text import content_tokens
from foresci.taxonomy.models import Node
from foresci.taxonomy.naming import display_name as node_name

OPTION_IDS = "ABCDEFGHIJ"


@dataclass
class Built:
    """One task and its hidden target, plus what the selection needs to know about it."""

    task: Task
    hidden: HiddenTarget
    decision_key: tuple[str, ...]
    label: str | None = None
    persistence_match: bool | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def task_id(family: str, domain: str, horizon: str, decision_key: Sequence[str], cutoff_iso: str) -> str:
    """A stable task id: family abbreviation, cutoff, horizon and a hash of the decision."""
    digest = sha256_json({"family": family, "domain": domain, "horizon": horizon,
                          "decision": list(decision_key),
                          "cutoff": cutoff_iso})[:10]
    return f"{find_family(family).abbreviation}-{cutoff_iso.replace('-', '')}-{horizon}-{digest}"


def display_name(node: Node) -> str:
    """Human-readable name of a node: its noun-phrase name (foresci.taxonomy.naming), else its label."""
    return node_name(node)


def node_description(node: Node) -> str:
    """Pre-cutoff description of a node: its description or, failing that, its key terms."""
    if node.description:
        return node.description
    return "Key terms: " + ", ".join(node.key_terms[:8]) if node.key_terms else ""


def is_eligible(evidence: NodeEvidence, domain: DomainEvidence, settings: TaskSettings) -> bool:
    """ForeSci B.3: enough pre-cutoff support, specific (not the domain itself), separable from the future.

    Separable: the node exists in T(t) (first seen on or before the cutoff) and every content word of its
    name already occurs in pre-cutoff text, so naming it cannot leak a post-cutoff term.
    """
    node = evidence.node
    domain_pre = sum(item.pre_total for item in domain.nodes.values() if item.node.parent_id is None)
    if evidence.pre_total < settings.min_support or evidence.baseline < settings.min_baseline:
        return False
    if domain_pre and evidence.pre_total > settings.max_breadth * domain_pre:
        return False
    if node.first_seen is not None and node.first_seen > domain.cutoff:
        return False
    words = content_tokens(display_name(node))
    return bool(words) and all(word in domain.pre_vocabulary for word in words)


def eligible_nodes(domain: DomainEvidence, settings: TaskSettings) -> list[NodeEvidence]:
    """Eligible nodes, near-duplicate names removed (the better supported one kept), in a stable order."""
    return eligible_nodes_and_drops(domain, settings)[0]


def eligible_nodes_and_drops(domain: DomainEvidence,
                             settings: TaskSettings) -> tuple[list[NodeEvidence], list[tuple[str, str]]]:
    """:func:`eligible_nodes` and the (dropped, kept) name pairs of the eligible nodes it left out as
    near-duplicates of a better supported one: name words mostly shared (Jaccard >= 0.8), the same
    direction once acronyms are expanded (:func:`names_near_duplicate`), or centroids closer than
    ``max_option_cosine``."""
    kept: list[NodeEvidence] = []
    dropped: list[tuple[str, str]] = []
    for evidence in sorted(domain.nodes.values(), key=lambda item: (-item.pre_total, item.node_id)):
        if not is_eligible(evidence, domain, settings):
            continue
        twin = next((other for other in kept if _near_duplicate(evidence, other, settings)), None)
        if twin is not None:
            dropped.append((display_name(evidence.node), display_name(twin.node)))
            continue
        kept.append(evidence)
    return sorted(kept, key=lambda item: item.node_id), dropped


def record_dropped_twins(built: Sequence[Built], domain: DomainEvidence, settings: TaskSettings) -> None:
    """Record on every built target how many eligible nodes of its domain were left out of the option pool
    as near-duplicates (``stats.near_duplicate_options_dropped``; the audit sums it per domain)."""
    dropped = len(eligible_nodes_and_drops(domain, settings)[1])
    for item in built:
        item.hidden.stats["near_duplicate_options_dropped"] = dropped


def _near_duplicate(left: NodeEvidence, right: NodeEvidence, settings: TaskSettings) -> bool:
    left_name, right_name = display_name(left.node), display_name(right.node)
    if _jaccard(set(content_tokens(left_name)), set(content_tokens(right_name))) >= 0.8:
        return True
    if names_near_duplicate(left_name, right_name):
        return True
    if related(left, right):  # a node and its own subtree are told apart by `related`, not merged here
        return False
    similarity = _centroid_cosine(left.node.centroid, right.node.centroid)
    return similarity is not None and similarity >= settings.max_option_cosine


_COSINES: dict[tuple[int, int], tuple[object, object, float | None]] = {}
_KEPT_COSINES = 1 << 16


def _centroid_cosine(left: Sequence[float] | None, right: Sequence[float] | None) -> float | None:
    """:func:`cosine` of two node centroids, remembered for the two centroid objects (the builders of a
    domain's families and windows compare the same eligible nodes again; the same arithmetic, so the same
    value)."""
    remembered = (id(left), id(right))
    found = _COSINES.get(remembered)
    if found is not None and found[0] is left and found[1] is right:
        return found[2]
    value = cosine(left, right)
    if len(_COSINES) >= _KEPT_COSINES:
        _COSINES.clear()
    _COSINES[remembered] = (left, right, value)
    return value


def history_share(evidence: NodeEvidence, domain: DomainEvidence) -> float:
    """Share of the pre-cutoff history (first slice start .. cutoff) the node has existed in T(t).

    A node exists from the start of the slice that created it (its papers of that slice were routed to
    it); nodes without a lineage count as existing throughout.
    """
    bounds = domain.snapshot.slice_bounds
    lineage = evidence.node.lineage
    if not bounds or lineage is None or lineage.created_slice >= len(bounds):
        return 1.0
    start = bounds[0][0]
    span = (domain.cutoff - start).days
    if span <= 0:
        return 1.0
    return max(0.0, min(1.0, (domain.cutoff - bounds[lineage.created_slice][0]).days / span))


def phrase_share(evidence: NodeEvidence) -> float:
    """Largest share of the node's papers that state one recurring limitation or future-work phrase."""
    node = evidence.node
    if not node.paper_ids or not node.signals:
        return 0.0
    members = set(node.paper_ids)
    return max(len(members & set(signal.paper_ids)) for signal in node.signals) / len(members)


def is_direction(evidence: NodeEvidence, domain: DomainEvidence, settings: TaskSettings) -> bool:
    """A real research direction: in T(t) for ``min_history_share`` of the history and not dominated by
    one limitation/chain phrase (such nodes stay bottleneck/opportunity subjects)."""
    return (history_share(evidence, domain) >= settings.min_history_share
            and phrase_share(evidence) < settings.max_phrase_share)


def direction_candidates(domain: DomainEvidence, settings: TaskSettings) -> list[NodeEvidence]:
    """Eligible nodes that are real directions: the pool of direction and planning options."""
    return [item for item in eligible_nodes(domain, settings) if is_direction(item, domain, settings)]


def _jaccard(left: set[str], right: set[str]) -> float:
    return len(left & right) / len(left | right) if left | right else 1.0


def related(left: NodeEvidence, right: NodeEvidence) -> bool:
    """True when one node lies in the other's subtree (they cannot be separate options)."""
    return left.node_id in right.subtree or right.node_id in left.subtree


def sample_option_sets(pool: Sequence[NodeEvidence], size: int, attempts: int,
                       rng: random.Random,
                       apart: Callable[[NodeEvidence, NodeEvidence], bool] | None = None
                       ) -> list[list[NodeEvidence]]:
    """Distinct random sets of ``size`` mutually unrelated nodes, each sorted by node id; ``apart``: a test
    every two nodes of a set must also pass (the release checks: not two names of one concept)."""
    seen: set[tuple[str, ...]] = set()
    sets: list[list[NodeEvidence]] = []
    if len(pool) < size:
        return sets
    for _ in range(attempts):
        chosen: list[NodeEvidence] = []
        for candidate in rng.sample(list(pool), len(pool)):
            if all(not related(candidate, other) and (apart is None or apart(candidate, other))
                   for other in chosen):
                chosen.append(candidate)
            if len(chosen) == size:
                break
        if len(chosen) < size:
            continue
        key = tuple(sorted(item.node_id for item in chosen))
        if key in seen:
            continue
        seen.add(key)
        sets.append(sorted(chosen, key=lambda item: item.node_id))
    return sets


def candidates_from(options: Sequence[NodeEvidence], rng: random.Random) -> list[tuple[Candidate,
                                                                                       NodeEvidence]]:
    """Shuffle options (so the id order carries no signal) and name them A, B, C..."""
    shuffled = list(options)
    rng.shuffle(shuffled)
    return [(Candidate(option_id=OPTION_IDS[index], name=display_name(item.node),
                       description=node_description(item.node), node_id=item.node_id), item)
            for index, item in enumerate(shuffled)]


def pre_cutoff_context(item: NodeEvidence) -> dict[str, Any]:
    """What a public task says about a node: its size (pre-cutoff papers) and key terms. Not its recent
    papers: with them a rule reading only the task (highest recent / pre-cutoff ratio) was within noise
    of trend (issue 43); an agent retrieves recent counts with its KB tools."""
    return {"pre_cutoff_papers": item.pre_total, "key_terms": list(item.node.key_terms[:8])}


def is_duplicate(key: tuple[str, ...], kept: Sequence[tuple[str, ...]], overlap: float = 0.75) -> bool:
    """Duplicate decision: same first element (the answer) and most of the remaining elements shared."""
    for other in kept:
        if key == other:
            return True
        if key[0] != other[0]:
            continue
        left, right = set(key[1:]), set(other[1:])
        if not left and not right:
            return True
        if left and right and len(left & right) / max(len(left), len(right)) >= overlap:
            return True
    return False


def select_balanced(items: Sequence[Built], wanted: int, settings: TaskSettings,
                    group_of: Callable[[Built], str] | None = None) -> list[Built]:
    """Pick up to ``wanted`` non-duplicate tasks keeping labels and persistence matches under their caps, and
    no node the keyed winner of more than ``max_node_wins`` of them.

    Labels are interleaved (so rarer labels get picked first) and, within a label, ``group_of`` groups
    (domains, horizons) are interleaved. Greedy in that order with caps computed on ``wanted``; then trims
    the dominant label or persistence-matching tasks until the shares hold on the final count.

    With ``max_label_share`` at 1 or more labels are not interleaved (one stream): with every cap at 1
    (``foresci.app.signal.OUTCOME_BLIND``) nothing in the selection reads who wins a task.
    """
    label_cap = max(1, int(settings.max_label_share * wanted))
    persistence_cap = max(1, int(settings.max_persistence_share * wanted))
    by_label: dict[str, list[Built]] = {}
    for item in items:
        by_label.setdefault((item.label or "") if settings.max_label_share < 1 else "", []).append(item)
    streams = [_round_robin(group, group_of) if group_of else list(group) for _,
               group in sorted(by_label.items())]
    ordered = _interleave(streams)
    chosen: list[Built] = []
    keys: list[tuple[str, ...]] = []
    labels: Counter[str] = Counter()
    wins: Counter[tuple[str, str]] = Counter()
    matches = 0
    for item in ordered:
        if len(chosen) >= wanted:
            break
        if is_duplicate(item.decision_key, keys):
            continue
        winner = _winner(item)
        if winner is not None and wins[winner] >= settings.max_node_wins:
            continue
        if item.label is not None and labels[item.label] >= label_cap:
            continue
        if item.persistence_match and matches >= persistence_cap:
            continue
        chosen.append(item)
        keys.append(item.decision_key)
        if winner is not None:
            wins[winner] += 1
        if item.label is not None:
            labels[item.label] += 1
        matches += bool(item.persistence_match)
    result = _trim(chosen, settings)
    for _ in range(len(result) + 1):  # trimming a label can push a blind rule back over its gate: repeat
        settled = _trim(_cap_blind_rules(result, ordered, settings), settings)
        if settled == result:
            break
        result = settled
    return result


def _winner(item: Built) -> tuple[str, str] | None:
    """(domain, node) of a task's keyed winner, for the cap ``max_node_wins``; None where no node wins."""
    node = winner_node(item.task, item.hidden)
    return None if node is None else (item.task.domain, node)


def _domain_constant_hits(chosen: Sequence[Built]) -> list[bool | None]:
    """Per chosen task, whether "the most common hidden answer of the other tasks of its domain" is right
    (the audit's leave-one-out fixed rule; None where it does not apply)."""
    return domain_constant_outcomes([item.task for item in chosen],
                                    {item.hidden.task_id: item.hidden for item in chosen})


BlindRule = Callable[[Sequence[Built]], list[bool | None]]
BLIND_RULES: tuple[BlindRule, ...] = (
    _domain_constant_hits,
    lambda chosen: [extreme_wins(item.task, item.hidden, largest=True) for item in chosen],
    lambda chosen: [extreme_wins(item.task, item.hidden, largest=False) for item in chosen],
    lambda chosen: [recency_wins(item.task, item.hidden) for item in chosen],
)


def _over_gate(hits: Sequence[bool | None], settings: TaskSettings) -> bool:
    known = [hit for hit in hits if hit is not None]
    return len(known) >= settings.min_gate_tasks and sum(known) > settings.max_baseline_share * len(known)


def _cap_blind_rules(chosen: list[Built], ordered: Sequence[Built], settings: TaskSettings) -> list[Built]:
    """Swap tasks that a blind rule of the audit solves (the domain's most common answer, the largest or
    the smallest option) for spare tasks of the same domain it does not, until every such rule is at or
    under ``max_baseline_share`` (the audit's gate). When no spare helps, a task the rule solves is dropped
    (the same answer asked once more adds no information), but never below ``min_gate_tasks`` tasks the
    rule can be judged on: there the selection stays as it is and the audit rejects the family, since a
    smaller release would only hide the rule under the gate's minimum.

    The analogue of the label cap for the rules the audit gates: without it, "always the ACL family for
    LLM fine-tuning" or "the venue family with most pre-cutoff papers" would solve the venue family.
    """
    result = list(chosen)
    spare = [item for item in ordered if item not in result]
    while True:
        failing = next((rule for rule in BLIND_RULES if _over_gate(rule(result), settings)), None)
        if failing is None:
            return result
        hits = failing(result)
        solved_at = [index for index, hit in enumerate(hits) if hit]
        # persistence-matching tasks first: swapping out the others tends to raise persistence
        solved_at.sort(key=lambda index: (not result[index].persistence_match, -index))
        swapped = next((trial for position in solved_at
                        if (trial := _swap(result, position, spare, failing, settings)) is not None), None)
        if swapped is None:
            swapped = _drop_solved(result, hits, solved_at, failing, settings)
        if swapped is None:  # nothing left to swap or drop: the audit rejects the family
            return result
        result = swapped


def _drop_solved(result: list[Built], hits: Sequence[bool | None], solved_at: Sequence[int], rule: BlindRule,
                 settings: TaskSettings) -> list[Built] | None:
    """``result`` without one task that ``rule`` solves (``hits``: the rule on ``result``; the first in
    ``solved_at`` order that lowers the rule's rate), or None when dropping would leave fewer than
    ``min_gate_tasks`` judged tasks."""
    known = sum(hit is not None for hit in hits)
    if known - 1 < settings.min_gate_tasks:
        return None
    before = sum(bool(hit) for hit in hits) / known
    for position in solved_at:
        trial = result[:position] + result[position + 1:]
        hits = rule(trial)
        judged = [hit for hit in hits if hit is not None]
        if len(judged) >= settings.min_gate_tasks and sum(judged) / len(judged) < before:
            return trial
    return None


def _swap(result: list[Built], position: int, spare: list[Built],
          rule: Callable[[Sequence[Built]], list[bool | None]], settings: TaskSettings) -> list[Built] | None:
    """``result`` with the task at ``position`` replaced by the first spare task of its domain that the
    rule does not solve and that keeps the persistence and label caps (taken out of ``spare``); None if
    no spare qualifies."""
    dropped = result[position]
    rest = result[:position] + result[position + 1:]
    solved = sum(bool(hit) for hit in rule(rest))
    keys = [item.decision_key for item in rest]
    labels = Counter(item.label for item in rest if item.label is not None)
    matches = sum(bool(item.persistence_match) for item in rest)
    wins = Counter(winner for item in rest if (winner := _winner(item)) is not None)
    for candidate in spare:
        if candidate.task.domain != dropped.task.domain or is_duplicate(candidate.decision_key, keys):
            continue
        if (winner := _winner(candidate)) is not None and wins[winner] >= settings.max_node_wins:
            continue
        if (candidate.persistence_match and matches + 1 > settings.max_persistence_share * len(result)) or (
                candidate.label is not None
                and labels[candidate.label] + 1 > settings.max_label_share * len(result)):
            continue
        trial = [*rest[:position], candidate, *rest[position:]]
        if sum(bool(hit) for hit in rule(trial)) <= solved:
            spare.remove(candidate)
            return trial
    return None


def _round_robin(items: Sequence[Built], group_of: Callable[[Built], str]) -> list[Built]:
    groups: dict[str, list[Built]] = {}
    for item in items:
        groups.setdefault(group_of(item), []).append(item)
    return _interleave([groups[name] for name in sorted(groups)])


def _interleave(streams: Sequence[Sequence[Built]]) -> list[Built]:
    """One from each stream in turn until all are empty."""
    queues = [list(stream) for stream in streams]
    ordered: list[Built] = []
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.pop(0))
    return ordered


def _trim(chosen: list[Built], settings: TaskSettings) -> list[Built]:
    result = list(chosen)
    while result:
        labels = Counter(item.label for item in result if item.label is not None)
        top_label, top_count = labels.most_common(1)[0] if labels else (None, 0)
        if top_label is not None and top_count > settings.max_label_share * len(result) and len(labels) > 1:
            result.remove(next(item for item in reversed(result) if item.label == top_label))
            continue
        matches = sum(bool(item.persistence_match) for item in result)
        non_matches = len(result) - matches
        # a direction family (labelled tasks) the biggest option wins throughout only tests persistence:
        # trimmed even when no non-match is left (in one-domain worlds it made persistence's top-1 jump
        # to 1, #29); venue and planning keep such tasks (a venue mix persisting is the common case)
        strict = bool(labels)
        if matches > settings.max_persistence_share * len(result) and (non_matches > 0 or strict):
            result.remove(next(item for item in reversed(result) if item.persistence_match))
            continue
        break
    return result
