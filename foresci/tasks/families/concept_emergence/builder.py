"""Concept-emergence tasks from a domain's window evidence.

The domain's papers up to the cutoff fix the concept vocabulary and the co-occurrence network
(:mod:`foresci.emergence`); each task shows one candidate pair per outcome bucket (:data:`FLOORS`: 3 or
more window papers using both concepts, exactly 1, none; :func:`foresci.emergence.questions.option_sets`)
with a one-line pre-cutoff context, and hides their order by window papers.

The draw refuses (#44, :mod:`foresci.tasks.release_checks`): pairs two of whose concepts some pre-cutoff
title or abstract already uses together (the question's premise would be false), fragment concept keys,
two names of one concept, and pairs whose window count would put the top within ``min_count_z`` Poisson
standard errors of the runner-up (:func:`top_floor`: 3 against 1 at the default 1.0; pairs with 2 window
papers are never drawn).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence

from foresci.emergence.build import EmergenceSet, emergence_set
from foresci.emergence.concepts import ConceptPaper, concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.questions import OptionSet, PairOption, option_sets
from foresci.tasks.builders.common import Built, task_id
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.base import get_family
from foresci.tasks.families.concept_emergence.family import NAME, emergence_question
from foresci.tasks.families.concept_emergence.target import EmergenceTarget
from foresci.tasks.hidden import Slot
from foresci.tasks.models import Candidate, Task
from foresci.tasks.release_checks import count_z, domain_index, pair_filter, record_refusals
from foresci.tasks.windows import Window

_SETS: dict[int, tuple[DomainEvidence, EmergenceSet]] = {}
_KEPT_SETS = 16


def window_target(domain: DomainEvidence) -> EmergenceSet:
    """The emergence set of one domain's window evidence: the snapshot at the cutoff from the domain's
    papers up to it, and the window's counts (kept for the evidence object, so the tasks, the forecast
    questions and the bulk set of a release share one computation)."""
    stored = _SETS.get(id(domain))
    if stored is not None and stored[0] is domain:
        return stored[1]
    window = domain.window
    emergence = load_emergence_settings()
    papers = sorted((paper for paper in domain.papers.values() if paper.announced <= window.end),
                    key=lambda paper: (paper.announced, paper.paper_id))
    target = emergence_set(concept_papers(papers, emergence.vocabulary), domain.cutoff, window.end, emergence,
                           limit=emergence.targets.question_candidates)
    if len(_SETS) >= _KEPT_SETS:
        _SETS.pop(next(iter(_SETS)))
    _SETS[id(domain)] = (domain, target)
    return target


def training_papers(domain: DomainEvidence) -> list[ConceptPaper]:
    """The domain's concept papers up to the cutoff (what an earlier cutoff's training set reads)."""
    emergence = load_emergence_settings()
    papers = sorted((paper for paper in domain.papers.values() if paper.announced <= domain.cutoff),
                    key=lambda paper: (paper.announced, paper.paper_id))
    return concept_papers(papers, emergence.vocabulary)


def build_emergence_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                          wanted: int) -> list[Built]:
    """Up to ``wanted`` concept-emergence tasks of one domain and window."""
    window = domain.window
    target = window_target(domain)
    seed = zlib.crc32(f"{settings.seed}:{NAME}:{domain.domain}:{window.horizon}".encode())
    refused: list[str] = []
    checked = pair_filter(target.snapshot.vocabulary.names, target.snapshot.candidates.pairs,
                          domain_index(domain), refused)
    floor = top_floor(settings)
    counts = target.counts

    def allowed(row: int) -> bool:
        count = int(counts[row])
        if FLOORS[1] < count < floor:  # too few for the top, too many for the runner-up's exact FLOORS[1]
            refused.append(f"check:thin_target: {domain.domain} {window.horizon}: a pair with {count} "
                           f"window papers (a top pair needs {floor}, the runner-up holds {FLOORS[1]})")
            return False
        return bool(checked(row))

    built: list[Built] = []
    for option_set in option_sets(target, wanted, seed, allowed=allowed, floors=(floor, *FLOORS[1:])):
        top, second = sorted(option_set.window_papers, reverse=True)[:2]
        if top < settings.min_window_papers or count_z(top, second) < settings.min_count_z:
            refused.append(f"check:thin_target: {domain.domain} {window.horizon}: top pair {top} window "
                           f"papers vs {second} ({count_z(top, second):.2f} standard errors)")
            continue
        built.append(_built(domain, option_set, domain_name))
    record_refusals(domain.domain, window.horizon, refused)
    return built


FLOORS: tuple[int, ...] = (3, 1, 0)
"""Window papers of the three options' buckets, best first: 3 or more (at least :func:`top_floor`), exactly
1, none. The questions' four buckets (3+, 2, 1, 0) put a 2-paper runner-up within one paper of the top."""


def top_floor(settings: TaskSettings) -> int:
    """Window papers a task's top pair needs: at least ``min_window_papers`` and a lead over the runner-up
    bucket (exactly ``FLOORS[1]`` papers) of ``min_count_z`` Poisson standard errors (3 at the defaults)."""
    floor = max(settings.min_window_papers, FLOORS[0])
    while count_z(floor, FLOORS[1]) < settings.min_count_z:
        floor += 1
    return floor


def option_ids(count: int) -> list[str]:
    """The option ids of a task with ``count`` pairs: A, B, C, ..."""
    return [chr(ord("A") + position) for position in range(count)]


_USAGE = re.compile(r" in \d+ papers \(\d+ recent; (latest: “)")
_SHARED = re.compile(r", \d+ concepts? used with both$")


def public_context(context: str) -> str:
    """An option's one-line context as a task states it: each concept's latest pre-cutoff paper and that
    no paper used both, not the network's measures (how many papers use each concept, how many recently,
    how many concepts both are used with). Issue 43: a link measure the task stated (``pair_signals``,
    these counts) was all trend read, so the rule reading it tied trend; a method reads the network from
    the KB (:mod:`foresci.agents.baselines.pair_network`)."""
    return _SHARED.sub("", _USAGE.sub(r" (\1", context))


def emergence_task(domain: str, window: Window, options: Sequence[PairOption], domain_name: str,
                   identifier: str) -> Task:
    """The public task showing ``options`` in this order (names and :func:`public_context`: pre-cutoff facts,
    no network measure); a release and a round's prospective freeze write the same task for the same
    options."""
    ids = option_ids(len(options))
    candidates = [Candidate(option_id=option_id, name=option.label,
                            description=public_context(option.context))
                  for option_id, option in zip(ids, options, strict=True)]
    title, question = emergence_question(domain_name, window.cutoff, window.start, window.end)
    return Task(task_id=identifier, family=NAME, domain=domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question, candidates=candidates,
                context={"domain_name": domain_name,
                         "pair_papers": {option_id: list(option.paper_ids)
                                         for option_id, option in zip(ids, options, strict=True)}},
                deliverable=list(get_family(NAME).deliverables))


def _built(domain: DomainEvidence, option_set: OptionSet, domain_name: str) -> Built:
    window = domain.window
    cutoff_iso = domain.cutoff.isoformat()
    ids = option_ids(len(option_set.options))
    decision = tuple(sorted(option.label for option in option_set.options))
    identifier = task_id(NAME, domain.domain, window.horizon, decision, cutoff_iso)
    task = emergence_task(domain.domain, window, option_set.options, domain_name, identifier)
    counts = dict(zip(ids, option_set.window_papers, strict=True))
    pre_counts = {option_id: int(option.signals["papers_first"] + option.signals["papers_second"])
                  for option_id, option in zip(ids, option_set.options, strict=True)}
    ranking = [ids[position] for position in option_set.hidden_order()]
    top_label = option_set.options[option_set.hidden_order()[0]].label
    hidden = EmergenceTarget(task_id=identifier, ranking=ranking, window_papers=counts,
                             slots=[Slot(name="top_pair", variants=[top_label, f"option {ranking[0]}"])],
                             stats={"persistence_match": option_set.persistence_match,
                                    "option_pre_counts": pre_counts})
    return Built(task=task, hidden=hidden, decision_key=decision,
                 persistence_match=option_set.persistence_match)
