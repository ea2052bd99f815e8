"""The family's round hooks (:attr:`TaskFamily.round_tasks`): tasks frozen prospectively, the node's own
pre-cutoff bottlenecks as options.

A release task asks for a sub-direction's root bottleneck (the limitation whose addressing share rises most
in the window, with a one-sided two-proportion test) and the opportunity it opens (the phrase that the
window papers addressing it take up). The release's builder mines both from the window. A round cannot,
so it splits the family's question in two halves:

- **The bottleneck half is prospective.** Every candidate the builder could make the target is a fact of
  the cutoff: the node's limitation signals, mined from its own pre-cutoff papers by the same miner and
  normalisation (:func:`~foresci.tasks.families.bottleneck_opportunity.builder.pre_cutoff_bottlenecks`:
  limitation phrase, the node's own marker words, pre-cutoff mentions), which belong to the node (same-node
  check with the KB's embedder, where there is one) and are not a problem of every method; two phrasings
  of one limitation ("overhead of X models", "X model overhead") are one option (:func:`option_bottlenecks`;
  where a release's target is the dropped phrasing, the round's may differ from it). At open, an
  eligible node with at least ``MIN_OPTIONS`` such candidates becomes a task whose options are those
  candidates (at most ``candidates_per_task``, drawn with the round's seed, shuffled so the letters carry
  no signal). The public task is the release's own (title, question, context: built by the builder's
  :func:`bottleneck_public_task`) plus the options; only the id differs (it hashes the option set).
- **The opportunity half is not prospective.** Its phrases are, by the family's definition, terms the
  window papers take up (``post_cutoff_terms``); no pre-cutoff option set can hold them without leaking or
  guessing. It is therefore an open answer, resolved at tick by the builder's own code
  (:func:`window_opportunities`, then the same-node check) and scored only through FTA's opportunity slot.

Every task has a last option, "none of these" (added after the leakage lint, :func:`add_none_option`).
Resolution at tick runs the family's target code on the window's evidence, restricted to the frozen
options (:func:`resolve_bottleneck`): window mentions and growth (:func:`window_pool`), then the
builder's gates. Where the builder would drop the node (fewer than ``min_window_papers`` window papers, no
option addressed by ``min_addressing_papers`` window papers, no option whose addressing share rises,
:func:`rising_bottlenecks`) the outcome is "none of these"; a frozen option the miner no longer finds
(the pre-cutoff papers changed: outcome-blind) voids the task. Otherwise the
target is the fastest-rising option (the builder's order, ties by text) with the opportunity where the
window shows one; where it shows none (or none passes the same-node check), the target holds the
bottleneck half only and says why (``stats.opportunity_void``) -- a release would have dropped such a
node, a round still scores which bottleneck rose.

Top-1 (:func:`bottleneck_top_choice`): the option an answer's ``bottleneck`` names (its letter, its
phrase, or most of the phrase's content words, :func:`chosen_option`) against the winner; FTA is the
deterministic slot FTA of :mod:`foresci.rounds.slot_fta`.

The hooks: ``freeze`` (:func:`bottleneck_tasks`), ``finish`` (:func:`add_none_option`), ``resolve``
(:func:`resolve_bottleneck`) and ``top_choice`` (:func:`bottleneck_top_choice`).
"""

from __future__ import annotations

import random
from typing import Any

from foresci.tasks.builders.common import OPTION_IDS, display_name, eligible_nodes
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.base import TopChoice
from foresci.tasks.families.bottleneck_opportunity.builder import (
    Candidate,
    Scored,
    _belonging,
    _coherent_opportunity,
    any_methods_problem,
    bottleneck_public_task,
    bottleneck_target,
    pre_cutoff_bottlenecks,
    rising_bottlenecks,
    window_opportunities,
    window_pool,
)
from foresci.tasks.families.bottleneck_opportunity.choice import chosen_option
from foresci.tasks.families.round_outcome import Resolved, with_none_option
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Candidate as Option
from foresci.tasks.models import Task
from foresci.taxonomy.phrases import CLOSED, phrase_key

NONE_DESCRIPTION = ("no listed limitation: none is addressed by enough window papers with a rising share "
                    "(or the sub-direction has too few window papers)")
MIN_OPTIONS = 2


def _words(phrase: str) -> frozenset[str]:
    """Content words of a phrase's key (singular forms, no "of"/"for"...)."""
    return frozenset(word for word in phrase_key(phrase).split() if word not in CLOSED)


def option_bottlenecks(domain: DomainEvidence, evidence: NodeEvidence) -> list[Candidate]:
    """The node's candidates that the builder could make the target: its pre-cutoff bottlenecks that
    belong to it (same-node check; all when no embedder) and are not a problem of every method. Two
    phrasings of one limitation ("overhead of X models" and "X model overhead": one's content words
    within the other's) are one option, the one with more pre-cutoff mentions kept (then the shorter
    phrase): as two options they would split one answer between two letters."""
    candidates = pre_cutoff_bottlenecks(domain, evidence)
    entries: list[Scored] = [(0.0, signal, before, [], phrase) for signal, phrase, _, before in candidates]
    belonging = {entry[4] for entry in _belonging(domain, evidence, entries)}
    eligible = [item for item in candidates if item[1] in belonging and not any_methods_problem(item[1])]
    ranked = sorted(eligible, key=lambda item: (-len(item[3]), len(item[1]), item[1]))
    kept: list[Candidate] = []
    for item in ranked:
        words = _words(item[1])
        if not any(words <= _words(other[1]) or _words(other[1]) <= words for other in kept):
            kept.append(item)
    return sorted(kept, key=lambda item: item[1])


def bottleneck_tasks(evidence: DomainEvidence, settings: TaskSettings, wanted: int, rng: random.Random,
                     identify: Any) -> list[tuple[Task, dict[str, Any]]]:
    """Up to ``wanted`` frozen tasks of one domain and window: (public task, record). ``identify(decision)``
    makes the round's task id from the option set."""
    from foresci.tasks.domain_inputs import domain_name

    nodes = list(eligible_nodes(evidence, settings))
    rng.shuffle(nodes)
    made: list[tuple[Task, dict[str, Any]]] = []
    for node in nodes:
        if len(made) >= wanted:
            break
        found = option_bottlenecks(evidence, node)
        if len(found) < MIN_OPTIONS:
            continue
        chosen = rng.sample(found, min(settings.candidates_per_task, len(found)))
        identifier = identify([node.node_id, *sorted(phrase for _, phrase, _, _ in chosen)])
        task = bottleneck_public_task(evidence, node, domain_name(evidence.domain), identifier)
        options = [Option(option_id=OPTION_IDS[index], name=phrase, node_id=node.node_id)
                   for index, (_, phrase, _, _) in enumerate(chosen)]
        task = task.model_copy(update={"candidates": options})
        made.append((task, {"node_id": node.node_id,
                            "options": {option.option_id: option.name for option in options}}))
    return made


def add_none_option(task: Task, record: dict[str, Any]) -> Task:
    """The frozen task with its "none of these" option (added after the leakage lint, which reads the
    options' words against the pre-cutoff vocabulary; the option's words are the round's, not the
    literature's); the record keeps its id."""
    task, record["none_option"] = with_none_option(task, NONE_DESCRIPTION)
    return task


def resolve_bottleneck(task: Task, record: dict[str, Any], evidence: DomainEvidence,
                       settings: TaskSettings) -> Resolved:
    """The resolution of one frozen task on the window's evidence (module docstring): the rising option,
    or "none of these" where no option rose (a task frozen without that option: void)."""
    node = evidence.nodes[record["node_id"]]
    none = record.get("none_option")

    def nothing_rose(gate: str) -> Resolved:
        return Resolved.voided(gate) if none is None else Resolved(None, {none: 1.0}, note=gate)

    by_phrase = {item[1]: item for item in pre_cutoff_bottlenecks(evidence, node)}
    options: dict[str, str] = dict(record["options"])
    missing = [phrase for phrase in options.values() if phrase not in by_phrase]
    if missing:  # outcome-blind: the pre-cutoff papers the option was mined from are not the same
        return Resolved.voided(f"option '{missing[0]}' is no longer mined from the pre-cutoff papers (the "
                               "KB's pre-cutoff papers changed since the freeze)")
    if node.window < settings.min_window_papers:
        return nothing_rose(f"the sub-direction has {node.window} window papers (fewer than "
                            f"{settings.min_window_papers})")
    pool = window_pool(evidence, node, [by_phrase[phrase] for phrase in options.values()])
    if not any(len(entry[3]) >= settings.min_addressing_papers for entry in pool):
        return nothing_rose(f"no option is addressed by {settings.min_addressing_papers} or more window "
                            "papers")
    scored = rising_bottlenecks(node, pool, settings)
    if not scored:
        return nothing_rose("no option's addressing share rises (one-sided two-proportion test)")
    found = window_opportunities(evidence, node, settings, scored, task)
    opportunity: list[str] = []
    coherence: dict[str, Any] = {}
    why: str | None = "the window papers addressing it take up no opportunity phrase"
    if found:
        ordered, coherence = _coherent_opportunity(evidence, node, display_name(node.node), scored[0][4],
                                                   [text for text, _ in found])
        if coherence.get("passed") is False:
            why = "no opportunity passes the same-node check"
        else:
            opportunity, why = ordered, None
    hidden = bottleneck_target(evidence, node, task.task_id, pool, scored, found, opportunity, coherence)
    winner = next(option for option, phrase in options.items() if phrase == scored[0][4])
    growth = {option: next(entry[0] for entry in pool if entry[4] == phrase)
              for option, phrase in options.items()}
    hidden.stats.update({"option_id": winner, "opportunity_void": why,
                         "option_order": sorted(options, key=lambda option: (-growth[option], option))})
    return Resolved(None, {winner: 1.0}, hidden)


def bottleneck_top_choice(answer: Any, task: Task, hidden: HiddenTarget) -> TopChoice:
    """1 when the answer's bottleneck names the option that rose most, else 0."""
    stated = str((answer.payload or {}).get("bottleneck", ""))
    chosen = chosen_option(task, stated)
    gold = hidden.stats.get("option_id")
    return TopChoice(value=1.0 if chosen is not None and chosen == gold else 0.0,
                     details={"chosen": chosen, "gold": gold, "stated": stated[:200]})


freeze = bottleneck_tasks
finish = add_none_option
resolve = resolve_bottleneck
top_choice = bottleneck_top_choice
