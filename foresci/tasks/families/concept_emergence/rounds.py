"""concept_emergence in rounds (its round items, ``ConceptEmergence.round_items``: :func:`open_items` at a
round's open, :func:`resolve_items` at its tick): ``ce-`` ranking tasks and ``ceq-`` binary questions frozen
prospectively, resolved by the family's own target code once their window has closed in the KB.

**What is read at open.** Each domain's candidate papers up to the cutoff, through the round's
:class:`~foresci.rounds.frozen.PreCutoffReader` (a later paper is an error), give the snapshot a
release computes for the same domain and window (:func:`foresci.emergence.build.snapshot_at`: vocabulary,
co-occurrence network, candidate pairs unconnected at the cutoff, their network features; the window's
length sets the "recent" span, the release's ``question_candidates`` caps the candidates). Nothing of the
window is read, so the round cannot balance options on the outcome the way a release does (one pair per
outcome bucket, :func:`foresci.emergence.questions.option_sets`).

**Stratified rule (pairs).** A domain's candidates are ranked by a pre-cutoff score, the mean of their
rank shares under preferential attachment (the product of the two concepts' degrees: popularity) and
resource allocation (shared neighbours, rarer ones weighing more) at the cutoff (ties in candidate
order), and cut by rank into the strata of :data:`STRATA` (top 0.1 %, 0.1–1 %, 1–10 %, the rest; each
stratum at least :data:`MIN_STRATUM` pairs while they last, so a small domain's top stratum is not one
pair). Uniform candidates would almost all resolve 0 (on the real corpus about 0.5 % of the candidates are
used together within 3 months), so every task would tie and every question would be "no"; the strata
spread the items over pairs from very to hardly likely without looking at the window.

- A ``ce-`` task shows :data:`TASK_PAIRS` pairs all drawn from one stratum (the i-th task of a domain and
  window from stratum ``i mod TASK_STRATA``: the top two alternate; uniform within the stratum, seeded by
  the round seed, domain and window), in a seeded order (#43: one pair from each stratum made the top
  stratum's, most popular, pair the winner by default: on the real KB at 2025-09-30 and 2025-12-31, 3
  months, the most popular pair was the top of 0.547 of the tasks where a pair reached k (ties split,
  chance 0.25) and 52 % of the tasks had none; drawn from one stratum, 0.309 and 34 %,
  ``/tmp/s8em/rounds_rate.py`` of the s8 report), with no concept twice in the task, no pair of two forms
  of one phrase (:func:`~foresci.emergence.questions.variant_pair`) and no pair twice in the round. Its public
  text, context and signals are the release's (:func:`~foresci.tasks.families.concept_emergence.builder.
  emergence_task`); its id hashes ``("round", the option labels)``. Tasks that the leakage lint flags are
  dropped.
- ``ceq-`` questions cycle the domains and strata (the i-th question of a window reads domain ``i mod D``
  and the stratum at place ``(i div D + i mod D) mod L`` of the stratum cycle, :func:`stratum_cycle` of
  the weights ``rounds.emergence_strata``, L slots long: every run of D questions spans the cycle,
  shifted by one each run, so a few questions do not all come from the top strata; equal weights give
  0, 1, 2, 3), one uniform pair each, with the
  release's question text plus the concept keys in ``params``. Their naive probability (``baseline``) is
  the positive share of the same stratum one window earlier: the snapshot at ``t - window`` ranked the
  same way, its pairs counted in ``(t - window, t]`` (pre-cutoff papers only; smoothed
  ``(hits + 0.5) / (n + 1)``); at most ``concept_cap`` questions name one concept of a domain
  (``rounds.concept_cap``), so the supply holds no run of near-copies around one popular concept.

**Stratified rule (families, domains, windows).** Per window of the ledger: ``family_tasks`` ``ce-`` tasks
taken round-robin over the domains (sorted), as for the other families
(:mod:`foresci.rounds.family_tasks`), and ``emergence_questions`` ``ceq-`` questions as above; a domain
or stratum that runs out is skipped.

**Resolution** (``rounds tick``, the window closed in the KB): the window papers of the domain using both
concepts of each pair are counted by :func:`foresci.emergence.resolve.pair_window_counts` (the release's
incidence and co-occurrence code; equal to its counts for the same pairs). A question resolves 1 when its
pair reaches ``min_papers`` (k, the release's ``forecast_min_papers``). Every task has a last option,
"none of these": the outcome where no pair reached k window papers ("nothing emerged"); where the most-used
pairs tie the outcome is split among them (:func:`emergence_resolution`; neither is decisive). Otherwise
the task is decisive: its hidden target is the family's :class:`EmergenceTarget`, options by window papers,
most first, "none of these" last; pairs tied below the top are put in an order drawn from the task id (a
fixed option order earns nothing from ties). ``void`` only when no paper of the domain arrived in the
window.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from foresci.emergence.build import EmergenceSet, Snapshot, emergence_set, shift_months, snapshot_at
from foresci.emergence.concepts import ConceptPaper, concept_papers
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.questions import pair_option, variant_pair
from foresci.emergence.resolve import domain_window_papers, pair_window_counts
from foresci.tasks.builders.common import task_id
from foresci.tasks.domain_inputs import domain_name
from foresci.tasks.families.concept_emergence.builder import emergence_task, option_ids
from foresci.tasks.families.concept_emergence.family import NAME
from foresci.tasks.families.concept_emergence.forecasts import (
    KEYS_PARAM,
    WORDS_PARAM,
    binary_question,
    vocabulary_settings,
)
from foresci.tasks.families.concept_emergence.target import EmergenceTarget
from foresci.tasks.families.round_outcome import (
    DATA_NEVER_ARRIVED,
    Frozen,
    Resolved,
    resolution_row,
    split_outcome,
    with_none_option,
)
from foresci.tasks.lint import lint_task
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.text import content_tokens, vocabulary
from foresci.tasks.windows import Window, make_window

STRATA: tuple[float, ...] = (0.001, 0.01, 0.1, 1.0)
"""Upper rank share of each stratum (:func:`stratum_score`, highest first)."""
MIN_STRATUM = 20
"""Fewest candidates of a stratum (while candidates last): a small domain's top 0.1 % is a pair or two."""
TASK_STRATA = 2
"""``ce-`` tasks draw all their pairs from one stratum, cycling over the first ``TASK_STRATA`` (highest)."""
TASK_PAIRS = len(STRATA)
"""Pairs a ``ce-`` task shows (before its "none of these" option)."""
SCORES = ("preferential_attachment", "resource_allocation")
"""The pre-cutoff network measures whose rank shares, averaged, order the candidates into strata."""


def stratum_cycle(weights: Sequence[int]) -> list[int]:
    """One cycle of stratum indices (highest stratum 0) holding ``weights[s]`` slots of stratum ``s``,
    interleaved by smooth weighted round robin (each slot goes to the stratum furthest behind its share;
    ties to the higher stratum): (1, 1, 1, 1) gives 0, 1, 2, 3; (1, 2, 4, 4) gives 11 slots, one of them
    the top stratum's."""
    if len(weights) != len(STRATA) or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"stratum weights {list(weights)}: need {len(STRATA)} counts >= 0, not all 0")
    credit = [0] * len(weights)
    cycle: list[int] = []
    for _ in range(sum(weights)):
        credit = [have + weight for have, weight in zip(credit, weights, strict=True)]
        pick = max(range(len(credit)), key=lambda index: (credit[index], -index))
        credit[pick] -= sum(weights)
        cycle.append(pick)
    return cycle


def _months(window: Window) -> int:
    return max(1, (window.end.year - window.cutoff.year) * 12 + window.end.month - window.cutoff.month)


def stratum_score(snapshot: Snapshot) -> np.ndarray:
    """(n,) the stratification score of each candidate: the mean of its rank shares (0..1, ties averaged)
    under preferential attachment and resource allocation at the cutoff (popularity and shared
    neighbours; pre-cutoff facts only)."""
    from scipy.stats import rankdata

    total = max(len(snapshot.candidates.pairs), 1)
    shares = [rankdata(np.asarray(snapshot.features.baseline(name), dtype=np.float64)) / total
              for name in SCORES]
    return np.mean(shares, axis=0) if len(snapshot.candidates.pairs) else np.zeros(0)


def strata_of(snapshot: Snapshot) -> list[np.ndarray]:
    """Candidate rows of each stratum of :data:`STRATA`, highest :func:`stratum_score` first (ties in
    candidate order)."""
    order = np.argsort(-stratum_score(snapshot), kind="stable")
    total = len(order)
    bounds: list[int] = []
    for share in STRATA:
        bound = min(total, max(int(np.ceil(share * total)), (bounds[-1] if bounds else 0) + MIN_STRATUM))
        bounds.append(bound)
    starts = [0, *bounds[:-1]]
    return [order[start:stop] for start, stop in zip(starts, bounds, strict=True)]


@dataclass
class DomainFreeze:
    """One domain's pre-cutoff concept papers and the snapshots of its windows (computed once)."""

    domain: str
    papers: list[ConceptPaper]
    pre_vocabulary: frozenset[str]
    snapshots: dict[str, Snapshot] = field(default_factory=dict)


class EmergenceFreeze:
    """What a round's freeze knows of concept emergence at its cutoff (papers through ``reader`` only: the
    round's :class:`~foresci.rounds.frozen.PreCutoffReader`)."""

    def __init__(self, reader: Any, domains: Sequence[str], seed: str,
                 settings: EmergenceSettings | None = None) -> None:
        self.reader, self.seed = reader, seed
        self.cutoff: date = reader.cutoff
        self.settings = settings or load_emergence_settings()
        self.domains = sorted(domains)
        self._domains: dict[str, DomainFreeze] = {}
        self.used: set[tuple[str, str, str, str]] = set()  # (domain, horizon, key, key) taken by a task

    def domain(self, name: str) -> DomainFreeze:
        """The domain's concept papers up to the cutoff (read once)."""
        if name not in self._domains:
            papers = sorted(self.reader.papers(name), key=lambda paper: (paper.announced, paper.paper_id))
            self._domains[name] = DomainFreeze(
                name, concept_papers(papers, self.settings.vocabulary),
                frozenset(vocabulary([paper.text for paper in papers])))
        return self._domains[name]

    def snapshot(self, name: str, horizon: str) -> Snapshot:
        """The snapshot at the cutoff a release computes for this domain and window."""
        found = self.domain(name)
        if horizon not in found.snapshots:
            months = _months(make_window(self.cutoff, horizon))
            found.snapshots[horizon] = snapshot_at(found.papers, self.cutoff, months, self.settings,
                                                   limit=self.settings.targets.question_candidates)
        return found.snapshots[horizon]

    def _rng(self, kind: str, name: str, horizon: str) -> random.Random:
        return random.Random(f"{self.seed}:{NAME}:{kind}:{name}:{horizon}")

    # ---- ce- tasks -------------------------------------------------------------------------------------
    def domain_tasks(self, name: str, horizon: str, wanted: int) -> list[Frozen]:
        """Up to ``wanted`` tasks of one domain and window, each of :data:`TASK_PAIRS` pairs from one stratum
        (the i-th from stratum ``i mod TASK_STRATA``; module docstring)."""
        snapshot = self.snapshot(name, horizon)
        pairs, keys = snapshot.candidates.pairs, snapshot.vocabulary.keys
        rng = self._rng("tasks", name, horizon)
        pools = [[int(row) for row in stratum] for stratum in strata_of(snapshot)]
        for pool in pools:
            rng.shuffle(pool)
        window = make_window(self.cutoff, horizon)
        readable = domain_name(name)
        words = [self.settings.vocabulary.min_words, self.settings.vocabulary.max_words]
        k = self.settings.release.forecast_min_papers
        made: list[Frozen] = []
        allowed = frozenset(content_tokens(readable))
        drawn = 0
        while len(made) < wanted and any(pools[:TASK_STRATA]):
            pool = pools[drawn % TASK_STRATA]
            drawn += 1
            taken: set[int] = set()
            rows: list[int] = []
            for _ in range(TASK_PAIRS):
                row = next((row for row in pool if int(pairs[row, 0]) not in taken
                            and int(pairs[row, 1]) not in taken
                            and not variant_pair(keys[int(pairs[row, 0])], keys[int(pairs[row, 1])])), None)
                if row is None:
                    break
                pool.remove(row)
                rows.append(row)
                taken.update((int(pairs[row, 0]), int(pairs[row, 1])))
            if len(rows) < TASK_PAIRS:
                pool.clear()  # this stratum cannot fill another task
                continue
            rng.shuffle(rows)
            options = [pair_option(snapshot, row) for row in rows]
            decision = ("round", *sorted(option.label for option in options))
            identifier = task_id(NAME, name, horizon, decision, self.cutoff.isoformat())
            task = emergence_task(name, window, options, readable, identifier)
            if lint_task(task, None, self.domain(name).pre_vocabulary, None, allowed):
                continue
            ids = option_ids(len(options))
            concept_pairs = {option_id: [keys[int(pairs[row, 0])], keys[int(pairs[row, 1])]]
                             for option_id, row in zip(ids, rows, strict=True)}
            for first, second in concept_pairs.values():
                self.used.add((name, horizon, first, second))
            task, none = with_none_option(task, f"no listed pair is used together in {k} or more window "
                                                "papers")
            made.append(Frozen(task, {"pairs": concept_pairs, "min_papers": k, WORDS_PARAM: words,
                                      "none_option": none}))
        return made

    def tasks(self, windows: Sequence[str], per_window: int) -> list[Frozen]:
        """``per_window`` tasks per window, round-robin over the domains (sorted)."""
        frozen: list[Frozen] = []
        for horizon in windows:
            queues = [self.domain_tasks(name, horizon, per_window) for name in self.domains]
            taken = 0
            while taken < per_window and any(queues):
                for queue in queues:
                    if queue and taken < per_window:
                        item = queue.pop(0)
                        item.record = {"task_id": item.task.task_id, "family": NAME,
                                       "domain": item.task.domain, "horizon": horizon, **item.record}
                        frozen.append(item)
                        taken += 1
        return frozen

    def round_tasks(self, windows: Sequence[str], per_window: int) -> list[Frozen]:
        """A round's ``ce-`` tasks: ``per_window`` per window of the ledger's ``windows`` the family asks
        about (:func:`emergence_windows`)."""
        return self.tasks(emergence_windows(windows), per_window)

    def round_questions(self, window: str, wanted: int, supply: Any) -> list[ForecastQuestion]:
        """A round's ``ceq-`` questions of one window (none outside the family's horizons); ``supply``: the
        rounds settings (``concept_cap``, ``emergence_strata``)."""
        return emergence_questions(self, window, wanted, supply.concept_cap, supply.emergence_strata)

    # ---- ceq- questions --------------------------------------------------------------------------------
    def stratum_base_rates(self, name: str, horizon: str) -> list[float]:
        """Positive share of each stratum one window earlier (snapshot at ``t - window``, its pairs counted
        in ``(t - window, t]``; pre-cutoff papers only), smoothed."""
        months = _months(make_window(self.cutoff, horizon))
        earlier = shift_months(self.cutoff, -months)
        k = self.settings.release.forecast_min_papers
        target: EmergenceSet = emergence_set(self.domain(name).papers, earlier, self.cutoff, self.settings,
                                             self.settings.learned.max_training_pairs)
        labels = target.labels(k)
        rates = []
        for rows in strata_of(target.snapshot):
            hits = int(labels[rows].sum()) if len(rows) else 0
            rates.append(round((hits + 0.5) / (len(rows) + 1), 6))
        return rates

    def questions(self, horizon: str, wanted: int, concept_cap: int | None = None,
                  strata_weights: Sequence[int] | None = None) -> list[ForecastQuestion]:
        """``wanted`` binary questions about the window, cycling domains and the strata of
        :func:`stratum_cycle` (``strata_weights``; None: equal), at most ``concept_cap`` naming one concept
        in a domain (module docstring; None: no cap)."""
        if wanted <= 0 or not self.domains:
            return []
        cycle = stratum_cycle([1] * len(STRATA) if strata_weights is None else strata_weights)
        window = make_window(self.cutoff, horizon)
        k = self.settings.release.forecast_min_papers
        words = [self.settings.vocabulary.min_words, self.settings.vocabulary.max_words]
        state: dict[str, tuple[Snapshot, list[list[int]], list[float], Any]] = {}
        made: list[ForecastQuestion] = []
        seen: set[str] = set()
        named: Counter[tuple[str, str]] = Counter()  # (domain, concept key) -> questions naming it
        position, misses = 0, 0
        slots = len(self.domains) * len(cycle)
        while len(made) < wanted and misses < slots:
            name = self.domains[position % len(self.domains)]
            stratum = cycle[(position // len(self.domains) + position % len(self.domains)) % len(cycle)]
            position += 1
            if name not in state:
                snapshot = self.snapshot(name, horizon)
                rng = self._rng("questions", name, horizon)
                pools = [[int(row) for row in rows] for rows in strata_of(snapshot)]
                for pool in pools:
                    rng.shuffle(pool)
                rates = self.stratum_base_rates(name, horizon) if len(snapshot.candidates.pairs) else []
                state[name] = (snapshot, pools, rates, snapshot.paper_concepts.tocsc())
            snapshot, pools, rates, columns = state[name]
            pool = pools[stratum] if pools else []
            keys = snapshot.vocabulary.keys
            pairs = snapshot.candidates.pairs
            row = None
            while pool:
                candidate = pool.pop(0)
                first, second = keys[int(pairs[candidate, 0])], keys[int(pairs[candidate, 1])]
                capped = (concept_cap is not None
                          and max(named[(name, first)], named[(name, second)]) >= concept_cap)
                if (not capped and not variant_pair(first, second)
                        and (name, horizon, first, second) not in self.used):
                    row = candidate
                    break
            if row is None:
                misses += 1
                continue
            misses = 0
            extra = {KEYS_PARAM: [keys[int(pairs[row, 0])], keys[int(pairs[row, 1])]], WORDS_PARAM: words}
            question = binary_question(snapshot, row, name, horizon, k, window.end, rates[stratum], columns,
                                       extra)
            if question.question_id in seen:
                continue
            seen.add(question.question_id)
            named.update([(name, keys[int(pairs[row, 0])]), (name, keys[int(pairs[row, 1])])])
            made.append(question)
        return made


# ---- resolution --------------------------------------------------------------------------------------
def resolve_emergence_tasks(frozen: Sequence[Frozen], window: Window, kb: Any) -> list[dict[str, Any]]:
    """Resolution rows of the frozen ``ce-`` tasks of one window (closed in ``kb``; the caller checks)."""
    rows: list[dict[str, Any]] = []
    for name in sorted({item.task.domain for item in frozen}):
        papers = domain_window_papers(kb, name, window.cutoff, window.end)
        for item in (item for item in frozen if item.task.domain == name):
            record = item.record
            pairs = [tuple(record["pairs"][option]) for option in sorted(record["pairs"])]
            counts = dict(zip(sorted(record["pairs"]), pair_window_counts(
                papers, pairs, vocabulary_settings(record[WORDS_PARAM])), strict=True))  # type: ignore[arg-type]
            resolved = emergence_resolution(item.task.task_id, counts, int(record["min_papers"]),
                                            record.get("none_option"))
            if not papers:
                resolved = Resolved.voided(DATA_NEVER_ARRIVED)
            rows.append(resolution_row(item, NAME, window.horizon, resolved))
    return rows


def emergence_resolution(identifier: str, counts: Mapping[str, int], min_papers: int,
                         none: str | None) -> Resolved:
    """The resolution of a task whose pair options had ``counts`` window papers: the most-used pair
    (decisive, the family's target), the pairs tied at the top (split), or "none of these" where no pair
    reached ``min_papers`` (a task frozen without that option: void, as :func:`emergence_outcome`)."""
    reason, hidden = emergence_outcome(identifier, counts, min_papers)
    if hidden is not None:  # "none of these" did not happen: it ranks below every pair
        ranking = [*hidden.ranking, *([none] if none is not None else [])]
        return Resolved(None, {hidden.ranking[0]: 1.0}, hidden.model_copy(update={"ranking": ranking}))
    top = max(counts.values(), default=0)
    if top < min_papers:
        return Resolved(reason, {}) if none is None else Resolved(None, {none: 1.0}, note=reason)
    return Resolved(None, split_outcome({option: float(count) for option, count in counts.items()}),
                    note=reason)


def emergence_outcome(identifier: str, counts: Mapping[str, int], min_papers: int
                      ) -> tuple[str | None, EmergenceTarget | None]:
    """(void reason, None) or (None, the hidden target) of a task whose options had ``counts`` window
    papers."""
    top = max(counts.values(), default=0)
    if top < min_papers:
        return f"nothing emerged: no pair in {min_papers} window paper(s) or more", None
    leaders = sorted(option for option, count in counts.items() if count == top)
    if len(leaders) > 1:
        return f"tie at the top: {', '.join(leaders)} each in {top} window papers", None
    ranking: list[str] = []
    for count in sorted(set(counts.values()), reverse=True):
        tied = sorted(option for option, value in counts.items() if value == count)
        random.Random(f"{identifier}:{count}").shuffle(tied)
        ranking.extend(tied)
    return None, EmergenceTarget(task_id=identifier, ranking=ranking,
                                 window_papers=dict(sorted(counts.items())),
                                 stats={"min_papers": min_papers,
                                        "ties_below_top": len(ranking) - len(set(counts.values()))})



def open_items(reader: Any, domains: Sequence[str], seed: str, config: Any) -> EmergenceFreeze | None:
    """The family's round items at a round's open (``TaskFamily.round_items``): the freeze over the domains
    the round froze snapshots of, reading through ``reader`` (the round's pre-cutoff reader); None when the
    ledger ``config`` asks neither tasks (``family_tasks``) nor questions (``emergence_questions``) of it."""
    if not (config.family_tasks or config.emergence_questions != 0):
        return None
    return EmergenceFreeze(reader, sorted(domains), seed)


def resolve_items(frozen: Sequence[Frozen], window: Window, kb: Any) -> list[dict[str, Any]]:
    """Resolution rows of the family's frozen round tasks of one window (``TaskFamily.round_items``)."""
    return resolve_emergence_tasks(frozen, window, kb)


def emergence_windows(windows: Sequence[str]) -> list[str]:
    """The ledger's windows concept_emergence asks about (its family's horizons)."""
    from foresci.tasks.families import get_family

    horizons = get_family(NAME).horizons
    return [window for window in windows if window in horizons]


def emergence_questions(freeze: EmergenceFreeze | None, window: str, wanted: int,
                        concept_cap: int | None = None,
                        strata_weights: Sequence[int] | None = None) -> list[ForecastQuestion]:
    """The ``ceq-`` questions of one window of the round (none without a freeze or outside the family's
    horizons), at most ``concept_cap`` naming one concept of a domain, the strata weighted by
    ``strata_weights`` (:func:`stratum_cycle`; None: equal)."""
    if freeze is None or window not in emergence_windows([window]):
        return []
    return freeze.questions(window, wanted, concept_cap, strata_weights)
