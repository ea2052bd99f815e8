"""Bottleneck-opportunity discovery: the root bottleneck of a sub-direction and the opportunity it unlocks.

The hidden bottleneck is the pre-cutoff bottleneck signal of the node whose mentions grow most in the
window (the limitation the field turns to); the opportunity is the most distinctive phrase of the window
papers that address it, compared with the node's pre-cutoff papers. Persistence would name the bottleneck
mentioned most often before the cutoff.
"""

from __future__ import annotations

import math
import random

from foresci.tasks.builders.common import Built, display_name, eligible_nodes, node_description, task_id
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.hidden import Claim, HiddenTarget, Slot
from foresci.tasks.models import Task
from foresci.tasks.templates import DELIVERABLES, bottleneck_question
from foresci.tasks.text import content_tokens, core_phrase, distinctive_gram_sets
from foresci.taxonomy.models import Signal

FAMILY = "bottleneck_opportunity"
MATCH_THRESHOLD = 0.6


_GENERIC_TEXT = (
    "significant limitation limitations limited challenge challenges face faces facing issue issues "
    "problem problems existing approaches approach key obstacle obstacles main major critical fundamental "
    "remain remains still often lack lacks lacking suffer suffers struggle struggles poor due reliance "
    "rely relies hinder hinders hindered difficult difficulty "
)
GENERIC = frozenset(_GENERIC_TEXT.split())


def marker_words(text: str, domain: DomainEvidence) -> frozenset[str]:
    """Words that mark a limitation: content words that are neither generic nor common in the domain."""
    return frozenset(word for word in content_tokens(text)
                     if word not in GENERIC and word not in domain.common_tokens)


def mentions(signal: Signal, domain: DomainEvidence, paper_ids: list[str]) -> list[str]:
    """Ids of the papers holding most marker words of the signal's limitation phrase (or of a variant)."""
    phrasings = [marker_words(core_phrase(text), domain) for text in (signal.text, *signal.variants)]
    phrasings = [words for words in phrasings if len(words) >= 2]
    return [paper_id for paper_id in paper_ids
            if any(len(words & domain.token_set(paper_id)) >= MATCH_THRESHOLD * len(words)
                   for words in phrasings)]


def build_bottleneck_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                           wanted: int) -> list[Built]:
    """Candidate bottleneck-opportunity tasks for one domain and window, one per eligible node at most."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    built: list[Built] = []
    for evidence in eligible_nodes(domain, settings):
        if not any(signal.kind == "bottleneck" for signal in evidence.node.signals):
            continue
        if evidence.window < settings.min_window_papers:
            continue
        item = _build_one(domain, evidence, settings, domain_name)
        if item is not None:
            built.append(item)
    rng.shuffle(built)
    return built


def _build_one(domain: DomainEvidence, evidence: NodeEvidence, settings: TaskSettings,
               domain_name: str) -> Built | None:
    scored: list[tuple[float, Signal, list[str], list[str]]] = []
    for signal in (signal for signal in evidence.node.signals if signal.kind == "bottleneck"):
        if signal.first_seen is not None and signal.first_seen > domain.cutoff:
            continue
        before, after = mentions(signal, domain, evidence.pre_ids), mentions(signal, domain,
                                                                             evidence.window_ids)
        if len(after) < settings.min_addressing_papers:
            continue
        growth = math.log(((len(after) + 1) / (evidence.window + 1))
                          / ((len(before) + 1) / (evidence.pre_total + 1)))
        scored.append((growth, signal, before, after))
    if not scored:
        return None
    scored.sort(key=lambda entry: (-entry[0], entry[1].text))
    growth, primary, before, addressing = scored[0]
    bottleneck_words = set(content_tokens(" ".join(signal.text for signal in evidence.node.signals)))
    ranked = distinctive_gram_sets([domain.gram_set(paper_id) for paper_id in addressing],
                                   [domain.gram_set(paper_id) for paper_id in evidence.pre_ids], top=8)
    grams = [(gram, score) for gram, score in ranked
             if len(set(content_tokens(gram)) - bottleneck_words) >= len(content_tokens(gram)) / 2
             and marker_words(gram, domain)][:4]
    if not grams:
        return None
    opportunity = [gram for gram, _ in grams]
    window = domain.window
    persistence = max((entry for entry in scored), key=lambda entry: (len(entry[2]), entry[1].count,
                                                                      entry[1].text))
    name = display_name(evidence.node)
    phrase = core_phrase(primary.text)
    bottleneck = list(dict.fromkeys([phrase, primary.text,
                                     *(core_phrase(text) for text in primary.variants)]))
    key = (f"{window.horizon}:{phrase.lower()}",)
    identifier = task_id(FAMILY, domain.domain, window.horizon, key, window.cutoff.isoformat())
    title, question = bottleneck_question(domain_name, name, window.cutoff, window.start, window.end)
    signals_public = [signal.text for signal in evidence.node.signals
                      if signal.first_seen is None or signal.first_seen <= domain.cutoff][:6]
    task = Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question,
                context={"domain_name": domain_name, "subdirection": name,
                         "description": node_description(evidence.node),
                         "pre_cutoff_papers": evidence.pre_total,
                         "key_terms": list(evidence.node.key_terms[:8]),
                         "recurring_limitations_before_cutoff": signals_public},
                deliverable=list(DELIVERABLES[FAMILY]))
    mechanism = (f"Papers in {name} that reduce '{phrase}' during the window go on to pursue "
                 f"'{opportunity[0]}'; {len(addressing)} of the {evidence.window} window papers of the "
                 f"sub-direction address the bottleneck, against {len(before)} of {evidence.pre_total} "
                 f"before.")
    hidden = HiddenTarget(
        task_id=identifier, family=FAMILY, bottleneck=bottleneck,
        opportunity=opportunity, mechanism=mechanism,
        slots=[Slot(name="bottleneck", variants=bottleneck),
               Slot(name="opportunity", variants=opportunity),
               Slot(name="mechanism", variants=[mechanism, f"reducing {phrase} enables "
                                                f"{opportunity[0]}"])],
        claims=[Claim(claim_id="c1", text=f"The root bottleneck of {name} is {phrase}.",
                      variants=bottleneck[1:]),
                Claim(claim_id="c2", text=f"Reducing {phrase} opens {opportunity[0]}.",
                      variants=[f"Reducing the bottleneck opens {gram}." for gram in opportunity[1:]]),
                Claim(claim_id="c3", text=(f"Work addressing {phrase} grows in {name} after the cutoff "
                                           f"({len(addressing)} window papers)."))],
        evidence_ids=addressing[:20],
        stats={"node_id": evidence.node_id, "bottleneck_growth": round(growth, 4),
               "addressing_papers": len(addressing), "pre_mentions": len(before),
               "signals": {entry[1].text: {"pre": len(entry[2]), "window": len(entry[3]),
                                           "log_growth": round(entry[0], 4)} for entry in scored},
               "persistence_answer": persistence[1].text, "persistence_match": persistence[1] is primary,
               "post_cutoff_terms": opportunity})
    return Built(task=task, hidden=hidden, decision_key=key, persistence_match=persistence[1] is primary)
