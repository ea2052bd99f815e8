"""Prospective forecast packages: resolvable questions frozen at a cutoff, resolved once the window closes.

A package is built from literature up to the cutoff only (a KB truncated there is enough). Questions cycle
over the four families, alternating numeric and binary kinds:

- direction_forecasting  -> binary: will the node's share of the domain grow >= 10 % (window vs baseline)?
- strategic_planning     -> numeric: papers routed to the node during the window (p10/p50/p90)
- bottleneck_opportunity -> numeric: window papers of the node that mention one of its bottleneck signals
- venue_positioning      -> binary: will a venue family lead the node's venue-tagged window papers?

A round's package uses the **question supply** instead (:func:`supply_questions`, sizes and caps in the
``rounds`` settings, :class:`foresci.rounds.config.RoundSettings`): the rules of :data:`RULES`, the four above
(``share_growth``, ``node_count``, ``bottleneck_mentions``, ``venue_lead``) and two more:

- ``count_growth`` -> binary: will the node have more window papers than in the same-length period before
  the cutoff? (naive answer: the share of the domain's supply nodes that grew one window earlier)
- ``venue_count`` -> numeric: the node's window papers whose arXiv comment names an accepted venue (naive
  answer: its count in the period before the cutoff)

Stratified rule: each domain's supply nodes (:func:`supply_nodes`) shuffled with the round's seed and
interleaved across the domains; layer by layer, every node takes its next rule that yields a question (the
rule order rotated by the node's position), at most ``node_cap`` layers, until ``n`` questions. A round adds
concept_emergence's binary ``ceq-`` questions after these (``extra_questions``), frozen and resolved by
:mod:`foresci.rounds.emergence_items` (will two concepts be used together in >= k window papers?).

The taxonomy snapshots are frozen in the package (``snapshots/<domain>.json``) so resolution routes new
papers with the same centroids. Each question carries a naive persistence baseline.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from foresci.core.artifacts import read_manifest, sha256_file, sha256_json, write_manifest
from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl, write_json, write_jsonl
from foresci.kb.models import Paper
from foresci.kb.store import last_announcement
from foresci.tasks.builders.common import display_name, eligible_nodes
from foresci.tasks.domain_inputs import domain_name, domains_with_papers, evidence_for_windows
from foresci.tasks.evidence import DomainEvidence, NodeEvidence, collect_evidence
from foresci.tasks.families import all_families
from foresci.tasks.hidden import Resolution
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.parallel_taxonomies import snapshots_for
from foresci.tasks.release import FORECAST_FILE, check_frozen_files
from foresci.tasks.text import content_tokens, core_phrase
from foresci.tasks.windows import Window, make_window
from foresci.taxonomy.models import Snapshot

RESOLUTIONS_FILE = "resolutions.jsonl"
SNAPSHOT_DIR = "snapshots"
GROWTH_THRESHOLD = 1.10
MENTION_SHARE = 0.6


SHARE_GROWTH, COUNT_GROWTH, NODE_COUNT = "share_growth", "count_growth", "node_count"
VENUE_COUNT, MENTIONS, VENUE_LEAD = "venue_count", "bottleneck_mentions", "venue_lead"
RULES: dict[str, tuple[str, str]] = {
    SHARE_GROWTH: ("direction_forecasting", "binary"),
    NODE_COUNT: ("strategic_planning", "numeric"),
    COUNT_GROWTH: ("direction_forecasting", "binary"),
    VENUE_COUNT: ("venue_positioning", "numeric"),
    VENUE_LEAD: ("venue_positioning", "binary"),
    MENTIONS: ("bottleneck_opportunity", "numeric"),
}
"""Supply rule -> (family, question kind); a question without ``params.rule`` follows its family's
legacy rule (:data:`LEGACY_RULES`)."""
LEGACY_RULES = {"direction_forecasting": SHARE_GROWTH, "strategic_planning": NODE_COUNT,
                "bottleneck_opportunity": MENTIONS, "venue_positioning": VENUE_LEAD}


class WindowNotClosedError(UserError):
    """The KB given for resolution does not yet cover the package's window."""


def _forecast_families() -> list[tuple[str, str]]:
    """(family, question kind) of every registered family that contributes forecast questions."""
    return [(family.name, family.forecast_kind) for family in all_families() if family.forecast_kind]


def _kinds() -> Iterator[tuple[str, str]]:
    cycle = _forecast_families()
    while True:
        yield from cycle


def _mentions(words: set[str], paper: Paper) -> bool:
    return bool(words) and len(words & set(content_tokens(paper.text))) >= MENTION_SHARE * len(words)


def _growth_base_rate(pool: Sequence[NodeEvidence], previous: DomainEvidence) -> float:
    """Share of the pool whose domain share grew >= 10 % in the last pre-cutoff period (a naive prior)."""
    grown = [previous.nodes[item.node_id].baseline_growth for item in pool if item.node_id in previous.nodes]
    if not grown:
        return 0.5
    import math

    hits = sum(1 for value in grown if value >= math.log(GROWTH_THRESHOLD))
    return round((hits + 0.5) / (len(grown) + 1), 4)


def _question(family: str, kind: str, item: NodeEvidence, evidence: DomainEvidence, base_rate: float,
              domain_name: str, rng: random.Random) -> ForecastQuestion | None:
    window = evidence.window
    name = display_name(item.node)
    span = f"between {window.start.isoformat()} and {window.end.isoformat()}"
    params: dict[str, Any] = {"family": family, "node_id": item.node_id, "domain": evidence.domain,
                              "baseline_start": window.baseline_start.isoformat(),
                              "baseline_end": window.baseline_end.isoformat(),
                              "baseline_count": item.baseline,
                              "baseline_share": round(item.baseline_share, 6)}
    if family == "direction_forecasting":
        text = (f"Will the share of new {domain_name} papers in '{name}' announced {span} be at least 10 % "
                f"higher "
                f"than its share in the same-length period before the cutoff ({item.baseline_share:.2%})?")
        rule = ("1 if (window papers routed to the node / window papers of the domain) >= 1.10 x baseline "
                "share, "
                "else 0; papers routed with the frozen snapshot")
        params["threshold"] = GROWTH_THRESHOLD
        baseline = base_rate
    elif family == "strategic_planning":
        text = f"How many {domain_name} papers on '{name}' will be announced {span}? Give p10, p50 and p90."
        rule = "number of domain papers announced in the window and routed to the node's subtree"
        baseline = float(item.baseline)
    elif family == "bottleneck_opportunity":
        signals = [signal for signal in item.node.signals if signal.kind == "bottleneck"
                   and (signal.first_seen is None or signal.first_seen <= evidence.cutoff)]
        if not signals:
            return None
        recent = [evidence.papers[paper_id] for paper_id in item.pre_ids
                  if window.in_baseline(evidence.papers[paper_id].announced)]
        counted = [(sum(1 for paper in recent if _mentions(set(content_tokens(core_phrase(signal.text))),
                                                           paper)),
                    signal.count, core_phrase(signal.text)) for signal in signals]
        mentions, _, phrase = max(counted)
        if mentions == 0:
            return None
        text = (f"How many {domain_name} papers on '{name}' announced {span} will address the limitation "
                f"'{phrase}'? Give p10, p50 and p90.")
        rule = (f"number of window papers routed to the node whose title+abstract hold >= "
                f"{MENTION_SHARE:.0%} of "
                "the limitation's content words")
        params["phrase"] = phrase
        params["baseline_count"] = mentions
        baseline = float(mentions)
    elif family == "venue_positioning":
        if not item.pre_venues:
            return None
        venue = max(sorted(item.pre_venues), key=lambda family_name: item.pre_venues[family_name])
        if rng.random() < 0.5 and len(item.pre_venues) > 1:
            venue = sorted(item.pre_venues, key=lambda family_name: -item.pre_venues[family_name])[1]
        share = item.pre_venues[venue] / sum(item.pre_venues.values())
        text = (f"Among {domain_name} papers on '{name}' announced {span} whose arXiv comment names a venue, "
                f"will {venue} be the most frequent venue family?")
        rule = ("1 if the venue family has the strictly largest count among the node's venue-tagged window "
                "papers")
        params["venue_family"] = venue
        baseline = round(share, 4)
    else:
        raise UserError(f"family {family!r} has forecast kind {kind!r} but foresci writes forecast questions "
                        "only for the shipped families", field="forecast_kind")
    return _finish(text, rule, params, kind, item, evidence, baseline)


def _finish(text: str, rule: str, params: dict[str, Any], kind: str, item: NodeEvidence,
            evidence: DomainEvidence, baseline: float) -> ForecastQuestion:
    window = evidence.window
    identifier = "fq-" + sha256_json({"text": text, "params": params})[:10]
    return ForecastQuestion(question_id=identifier, kind="binary" if kind == "binary" else "numeric",
                            domain=evidence.domain, cutoff=evidence.cutoff, window_start=window.start,
                            window_end=window.end, text=text, resolution_rule=rule,
                            node_id=item.node_id, params=params, baseline=baseline)


def _rule_question(rule: str, item: NodeEvidence, evidence: DomainEvidence, rates: Mapping[str, float],
                   domain_name: str, rng: random.Random,
                   earlier: NodeEvidence | None) -> ForecastQuestion | None:
    """One question of a supply rule (:data:`RULES`) about ``item``, its naive answer (``baseline``) from
    pre-cutoff facts only (``earlier``: the node one window before, for the venue count's naive answer)."""
    family, kind = RULES[rule]
    if rule in LEGACY_RULES.values():
        return _question(family, kind, item, evidence, rates[SHARE_GROWTH], domain_name, rng)
    window = evidence.window
    name = display_name(item.node)
    span = f"between {window.start.isoformat()} and {window.end.isoformat()}"
    params: dict[str, Any] = {"family": family, "rule": rule, "node_id": item.node_id,
                              "domain": evidence.domain,
                              "baseline_start": window.baseline_start.isoformat(),
                              "baseline_end": window.baseline_end.isoformat(),
                              "baseline_count": item.baseline,
                              "baseline_share": round(item.baseline_share, 6)}
    if rule == COUNT_GROWTH:
        text = (f"Will more new {domain_name} papers on '{name}' be announced {span} than in the same-length "
                f"period before the cutoff ({item.baseline})?")
        rule_text = ("1 if the window papers routed to the node's subtree outnumber its baseline count, "
                     "else 0; papers routed with the frozen snapshot")
        params["threshold"] = 1.0  # what the share-reading baselines compare their projection with
        baseline = rates[COUNT_GROWTH]
    elif rule == VENUE_COUNT:
        earlier_count = sum(earlier.window_venues.values()) if earlier is not None else 0
        if not item.pre_venues:
            return None
        params["baseline_count"] = earlier_count
        text = (f"How many {domain_name} papers on '{name}' announced {span} will name an accepted venue in "
                "their arXiv comment? Give p10, p50 and p90.")
        rule_text = ("number of window papers routed to the node's subtree whose arXiv comment names an "
                     "accepted venue (any of the five venue families)")
        baseline = float(earlier_count)
    else:
        raise UserError(f"unknown supply rule {rule!r}", field="params.rule")
    return _finish(text, rule_text, params, kind, item, evidence, baseline)


def question_rule(question: ForecastQuestion) -> str:
    """The supply rule a question follows (its ``params.rule``, else its family's legacy rule; a ``ceq-``
    question: ``pair_emergence``)."""
    family = str(question.params.get("family"))
    return str(question.params.get("rule") or LEGACY_RULES.get(family) or
               ("pair_emergence" if family == "concept_emergence" else family))


def _count_growth_rate(pool: Sequence[NodeEvidence], previous: DomainEvidence) -> float:
    """Share of the pool whose paper count grew in the last pre-cutoff period (window one earlier against
    its own baseline), smoothed: the naive answer of every count-growth question of the domain."""
    earlier = [previous.nodes[item.node_id] for item in pool if item.node_id in previous.nodes]
    hits = sum(1 for item in earlier if item.window > item.baseline)
    return round((hits + 0.5) / (len(earlier) + 1), 4)


def supply_nodes(evidence: DomainEvidence, settings: Any, min_papers: int) -> list[NodeEvidence]:
    """The nodes a round's supply may ask about: the task candidates' eligibility (named from pre-cutoff
    words, not broader than ``max_breadth``, near-duplicate names merged) with ``min_papers`` pre-cutoff
    papers and one baseline paper instead of the candidates' support."""
    relaxed = settings.model_copy(update={"min_support": min_papers, "min_baseline": 1})
    return eligible_nodes(evidence, relaxed)


def supply_questions(evidences: Mapping[str, DomainEvidence], previous: Mapping[str, DomainEvidence],
                     settings: Any, wanted: int, node_cap: int, min_papers: int,
                     domain_names: Mapping[str, str], seed: str,
                     rules: Sequence[str] | None = None) -> list[ForecastQuestion]:
    """Up to ``wanted`` questions of one window under the supply's stratified rule (module docstring):
    layer by layer, each layer giving every node (domains interleaved, nodes in a seeded order) its next
    rule that yields a question, at most ``node_cap`` layers; ``rules``: the rules in rotation (default: all
    of :data:`RULES`). Reads the evidence's pre-cutoff facts only."""
    rng = random.Random(f"{seed}:supply")
    pools = {domain: supply_nodes(evidence, settings, min_papers) for domain, evidence in evidences.items()}
    for domain in sorted(pools):
        rng.shuffle(pools[domain])
    rates = {domain: {SHARE_GROWTH: _growth_base_rate(pools[domain], previous[domain]),
                      COUNT_GROWTH: _count_growth_rate(pools[domain], previous[domain])}
             for domain in evidences}
    order: list[tuple[str, NodeEvidence, int]] = []
    for index in range(max((len(pool) for pool in pools.values()), default=0)):
        for domain in sorted(pools):
            if index < len(pools[domain]):
                order.append((domain, pools[domain][index], index))
    names = [rule for rule in RULES if rules is None or rule in rules]
    remaining = {(domain, item.node_id): _rotated(index, names) for domain, item, index in order}
    questions: list[ForecastQuestion] = []
    for _ in range(node_cap):
        for domain, item, _index in order:
            if len(questions) >= wanted:
                return questions
            rules = remaining[(domain, item.node_id)]
            while rules:
                made = _rule_question(rules.pop(0), item, evidences[domain], rates[domain],
                                      domain_names[domain], rng, previous[domain].nodes.get(item.node_id))
                if made is not None:
                    questions.append(made)
                    break
    return questions


def _rotated(index: int, names: Sequence[str]) -> list[str]:
    """The rules in the order the ``index``-th node of a domain takes them (rotated by the index, so a cap
    below the number of rules does not always leave out the same rules)."""
    start = index % len(names)
    return [*names[start:], *names[:start]]


def make_questions(evidences: Mapping[str, DomainEvidence], previous: Mapping[str, DomainEvidence],
                   settings: Any, n: int, domain_names: Mapping[str, str]) -> list[ForecastQuestion]:
    """N questions balanced over families (and so over numeric/binary), spread round-robin over domains."""
    rng = random.Random(f"{settings.seed}:package")
    pools = {domain: eligible_nodes(evidence, settings) for domain, evidence in evidences.items()}
    for pool in pools.values():
        rng.shuffle(pool)
    base_rates = {domain: _growth_base_rate(pools[domain], previous[domain]) for domain in evidences}
    used: set[tuple[str, str]] = set()
    questions: list[ForecastQuestion] = []
    domains = sorted(evidences)
    exhausted: set[str] = set()
    kinds = _kinds()
    cycle = len(_forecast_families())
    while domains and cycle and len(questions) < n and len(exhausted) < cycle:
        family, kind = next(kinds)
        if family in exhausted:
            continue
        made = None
        position = len(questions) + len(questions) // cycle
        for offset in range(len(domains)):
            domain = domains[(position + offset) % len(domains)]
            for item in pools[domain]:
                if (family, item.node_id) in used:
                    continue
                used.add((family, item.node_id))
                made = _question(family, kind, item, evidences[domain], base_rates[domain],
                                 domain_names[domain],
                                 rng)
                if made is not None:
                    break
            if made is not None:
                break
        if made is None:
            exhausted.add(family)
        else:
            questions.append(made)
    return questions


def freeze_questions(kb: Any, cutoff: date, window: str, n: int, settings: Any,
                     snapshots: Mapping[str, Snapshot] | None = None, domains: Sequence[str] | None = None,
                     taxonomy_dir: Path | None = None, supply: Any = None,
                     seed: str = "") -> tuple[list[ForecastQuestion], dict[str, Snapshot], dict[str, str]]:
    """``n`` questions about the ``window`` after ``cutoff``, made from papers on or before the cutoff only
    (``supply``: a round's :class:`~foresci.rounds.config.RoundSettings`, whose stratified rule
    :func:`supply_questions` then chooses them with ``seed``; without it, a release's family cycle).

    Returns the questions, the snapshot T(d, t) each domain's questions were routed with, and the domains
    skipped (no paper at the cutoff) with the reason.
    """
    frame = make_window(cutoff, window)
    earlier = make_window(_shift_back(frame), window)
    evidences: dict[str, DomainEvidence] = {}
    previous: dict[str, DomainEvidence] = {}
    used: dict[str, Snapshot] = {}
    kept, skipped = domains_with_papers(kb, list(domains or kb.domains), cutoff,
                                        settings.taxonomy.member_statuses)
    found_snapshots = snapshots_for(kb, kept, cutoff, settings, taxonomy_dir, snapshots)
    for domain in kept:
        snapshot = found_snapshots[domain]
        papers = kb.papers(until=cutoff, domain=domain)
        embeddings = kb.embeddings([paper.paper_id for paper in papers])
        found = evidence_for_windows(snapshot, papers, embeddings, [frame, earlier], trajectories=False)
        if not found:
            skipped[domain] = "no taxonomy nodes at the cutoff"
            continue
        evidences[domain], previous[domain] = found
        used[domain] = snapshot
    names = {name: domain_name(name) for name in evidences}
    if supply is not None:
        questions = supply_questions(evidences, previous, settings.tasks, n, supply.node_cap,
                                     supply.min_node_papers, names, seed, getattr(supply, "rules", None))
    else:
        questions = make_questions(evidences, previous, settings.tasks, n, names)
    return questions, used, skipped


def make_package(kb: Any, out: Path | str, cutoff: date, window: str = "3m", n: int = 12,
                 settings: Any = None, snapshots: Mapping[str, Snapshot] | None = None,
                 domains: Sequence[str] | None = None, taxonomy_dir: Path | None = None,
                 extra_questions: Sequence[ForecastQuestion] = (), supply: Any = None,
                 seed: str = "") -> Path:
    """Freeze ``n`` forecast questions about the window after ``cutoff`` into a package folder.

    Reads only papers announced on or before the cutoff. The manifest records the content hash of the
    questions and snapshots and the creation time (the only wall-clock value of the package).
    ``extra_questions`` (frozen elsewhere from the same pre-cutoff papers: a round's ``ceq-`` questions,
    :mod:`foresci.rounds.emergence_items`) follow the ``n`` questions. ``supply`` and ``seed``: as for
    :func:`freeze_questions` (a round's stratified supply).
    """
    from foresci.core.settings import Settings

    settings = settings or Settings()
    out = Path(out)
    frame = make_window(cutoff, window)
    questions, used, skipped = freeze_questions(kb, cutoff, window, n, settings, snapshots, domains,
                                                taxonomy_dir, supply, seed)
    questions = [*questions, *extra_questions]
    snapshot_files: list[str] = []
    for domain, snapshot in used.items():
        relative = f"{SNAPSHOT_DIR}/{domain}.json"
        write_json(out / relative, snapshot)
        snapshot_files.append(relative)
    write_jsonl(out / FORECAST_FILE, questions)
    content_hash = sha256_json({"questions": sha256_file(out / FORECAST_FILE),
                                "snapshots": {name: sha256_file(out / name) for name in snapshot_files}})
    write_manifest(out, "package", inputs={"kb": str(getattr(kb, "path", "")), "cutoff": cutoff.isoformat(),
                                           "window": window, "n": n},
                   config=settings.tasks.model_dump(mode="json"), files=[FORECAST_FILE, *snapshot_files],
                   counts={"questions": len(questions), "content_hash": content_hash,
                           "created_at": datetime.now(UTC).isoformat(),
                           **question_counts(questions),
                           "window_start": frame.start.isoformat(), "window_end": frame.end.isoformat(),
                           "skipped_domains": skipped})
    return out


def question_counts(questions: Sequence[ForecastQuestion]) -> dict[str, dict[str, int]]:
    """Questions by kind, family and domain (for manifests)."""
    return {"by_kind": dict(Counter(question.kind for question in questions)),
            "by_family": dict(Counter(question.params["family"] for question in questions)),
            "by_domain": dict(Counter(question.domain for question in questions))}


def release_forecasts(kb: Any, cutoff: date, windows: Sequence[str], n: int, settings: Any,
                      snapshots: Mapping[str, Snapshot], domains: Sequence[str]
                      ) -> tuple[list[ForecastQuestion], list[Resolution]]:
    """Forecast questions for a release, spread over ``windows``, resolved at once against ``kb``.

    Each window's questions are frozen exactly as a package would be (papers <= cutoff only), then
    resolved with the same snapshots (the release's windows have closed in the KB).
    """
    questions: list[ForecastQuestion] = []
    used: dict[str, Snapshot] = {}
    for index, window in enumerate(windows):
        wanted = n // len(windows) + (1 if index < n % len(windows) else 0)
        if wanted:
            made, snapshots_used, _ = freeze_questions(kb, cutoff, window, wanted, settings, snapshots,
                                                       domains)
            questions.extend(made)
            used.update(snapshots_used)
    return questions, resolve_questions(questions, used, kb)


def _shift_back(frame: Window) -> date:
    """The cutoff one window earlier (the day before the baseline starts)."""
    from datetime import timedelta

    return frame.baseline_start - timedelta(days=1)


def load_package(path: Path | str) -> tuple[list[ForecastQuestion], dict[str, Snapshot]]:
    """Load a package's questions and frozen snapshots, checking the files against the manifest hashes."""
    folder = Path(path)
    manifest = read_manifest(folder)
    if manifest.kind != "package":
        raise UserError(f"manifest kind is {manifest.kind!r}, not a forecast package",
                        path=folder / "manifest.json", field="kind")
    check_frozen_files(folder, manifest.model_dump(mode="json"))
    questions = [ForecastQuestion.model_validate(row) for row in iter_jsonl(folder / FORECAST_FILE)]
    snapshots = {file.stem: Snapshot.model_validate_json(file.read_text(encoding="utf-8"))
                 for file in sorted((folder / SNAPSHOT_DIR).glob("*.json"))}
    return questions, snapshots


def resolve_package(path: Path | str, kb: Any) -> Path:
    """Compute every question's outcome from ``kb`` and write ``resolutions.jsonl`` beside the questions.

    Raises WindowNotClosedError when the KB ends before the window does.
    """
    folder = Path(path)
    questions, snapshots = load_package(folder)
    if not questions:
        raise UserError("package holds no questions", path=folder / FORECAST_FILE)
    write_jsonl(folder / RESOLUTIONS_FILE, resolve_questions(questions, snapshots, kb))
    return folder / RESOLUTIONS_FILE


def resolve_questions(questions: Sequence[ForecastQuestion], snapshots: Mapping[str, Snapshot],
                      kb: Any) -> list[Resolution]:
    """The outcome of each question, routing the KB's papers with the frozen snapshot of its domain.

    Raises WindowNotClosedError when the KB ends before the last window does.
    """
    from foresci.taxonomy.assign import assign_papers

    if not questions:
        return []
    window_end = max(question.window_end for question in questions)
    if (latest := last_announcement(kb)) < window_end:
        raise WindowNotClosedError(f"the KB ends on {latest} but the package window ends on "
                                   f"{window_end}; "
                                   "resolve once newer literature covers the whole window")
    from foresci.tasks.families.concept_emergence.forecasts import (
        is_emergence_question,
        resolve_emergence_questions,
    )

    emergence = [question for question in questions if is_emergence_question(question)]
    questions = [question for question in questions if not is_emergence_question(question)]
    resolutions: list[Resolution] = []
    for domain in sorted({question.domain for question in questions}):
        if domain not in snapshots:
            raise UserError(f"no frozen snapshot for domain {domain!r}", field="domain")
        snapshot = snapshots[domain]
        first = min(date.fromisoformat(question.params["baseline_start"]) for question in questions
                    if question.domain == domain)
        papers = kb.papers(since=first, until=window_end, domain=domain)
        embeddings = kb.embeddings([paper.paper_id for paper in papers])
        assignment = assign_papers(snapshot, papers, embeddings)
        found: dict[tuple[date, str], DomainEvidence] = {}  # one evidence per window, not per question
        for question in (question for question in questions if question.domain == domain):
            key = (question.cutoff, _horizon(question))
            if key not in found:
                found[key] = collect_evidence(snapshot, papers, assignment, make_window(*key))
            resolutions.append(_resolve(question, found[key], str(getattr(kb, "fingerprint", ""))))
    # concept_emergence: its pair used together in >= k window papers (its forecasts module)
    return resolutions + resolve_emergence_questions(emergence, kb, str(getattr(kb, "fingerprint", "")))


def _horizon(question: ForecastQuestion) -> str:
    """The horizon whose window after the question's cutoff is the question's window (a mid-month cutoff,
    as in biweekly rounds, spans four calendar months in three months)."""
    from foresci.tasks.windows import HORIZON_MONTHS

    for horizon in HORIZON_MONTHS:
        frame = make_window(question.cutoff, horizon)
        if (frame.start, frame.end) == (question.window_start, question.window_end):
            return horizon
    raise UserError(f"question {question.question_id}: its window {question.window_start} to "
                    f"{question.window_end} is no horizon after its cutoff {question.cutoff}",
                    field="window_end")


def _resolve(question: ForecastQuestion, evidence: DomainEvidence, fingerprint: str) -> Resolution:
    item = evidence.nodes[str(question.node_id)]
    family = question.params["family"]
    details: dict[str, Any] = {"window_papers": item.window,
                               "domain_window_papers": evidence.reference_window}
    rule = question.params.get("rule")
    if rule == COUNT_GROWTH:
        outcome = float(item.window > int(question.params["baseline_count"]))
    elif rule == VENUE_COUNT:
        details["window_venues"] = dict(item.window_venues)
        outcome = float(sum(item.window_venues.values()))
    elif rule is not None and rule not in LEGACY_RULES.values():
        raise UserError(f"no resolution rule {rule!r}", field="params.rule")
    elif family == "direction_forecasting":
        baseline_share = float(question.params["baseline_share"])
        details["window_share"] = round(item.window_share, 6)
        outcome = float(item.window_share >= float(question.params["threshold"]) * baseline_share
                        and item.window > 0)
    elif family == "strategic_planning":
        outcome = float(item.window)
    elif family == "bottleneck_opportunity":
        words = set(content_tokens(str(question.params["phrase"])))
        outcome = float(sum(1 for paper_id in item.window_ids if _mentions(words, evidence.papers[paper_id])))
    elif family == "venue_positioning":
        counts = item.window_venues
        venue = str(question.params["venue_family"])
        details["window_venues"] = dict(counts)
        top = max(counts.values(), default=0)
        outcome = float(counts[venue] == top and top > 0 and list(counts.values()).count(top) == 1)
    else:
        raise UserError(f"no resolution rule for family {family!r}", field="params.family")
    return Resolution(question_id=question.question_id, outcome=outcome, resolved_with=fingerprint or "kb",
                      details=details)
