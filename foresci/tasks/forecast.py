"""Prospective forecast packages: resolvable questions frozen at a cutoff, resolved once the window closes.

A package is built from literature up to the cutoff only (a KB truncated there is enough). The questions are
the families' own (:attr:`~foresci.tasks.families.TaskFamily.forecast_rules`, written by
:meth:`~foresci.tasks.families.TaskFamily.forecast_question` and resolved by
:meth:`~foresci.tasks.families.TaskFamily.resolve_forecast`); this module chooses the nodes, finishes,
freezes and resolves them. A release cycles over the families with a ``forecast_kind`` (registry order),
each asking its first rule, so numeric and binary kinds alternate.

A round's package uses the **question supply** instead (:func:`supply_questions`, sizes and caps in the
``rounds`` settings, :class:`foresci.rounds.config.RoundSettings`): every rule of those families
(:func:`supply_rules`, in :data:`SUPPLY_ORDER`, then the other rules in registry order).

Stratified rule: each domain's supply nodes (:func:`supply_nodes`) shuffled with the round's seed and
interleaved across the domains; layer by layer, every node takes its next rule that yields a question (the
rule order rotated by the node's position), at most ``node_cap`` layers, until ``n`` questions; at most
``venue_cap`` questions of a domain name one venue family (the conference calendar moves all of one
family's venue-lead outcomes together, so a round's venue items are spread over the families). A round adds
the questions families write elsewhere after these (``extra_questions``: the binary ``ceq-`` pair questions,
a family's round items, ``TaskFamily.round_items``).

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
from foresci.kb.store import last_announcement
from foresci.tasks.builders.common import eligible_nodes
from foresci.tasks.domain_inputs import domain_name, domains_with_papers, evidence_for_windows
from foresci.tasks.evidence import DomainEvidence, NodeEvidence, collect_evidence
from foresci.tasks.families import all_families, get_family
from foresci.tasks.families.questions import (
    COUNT_GROWTH_RATE,
    SHARE_DECLINE_RATE,
    SHARE_GROWTH_RATE,
    QuestionAsk,
    share_fell,
    share_grew,
)
from foresci.tasks.hidden import Resolution
from foresci.tasks.models import ForecastQuestion, QuestionKind
from foresci.tasks.parallel_taxonomies import snapshots_for
from foresci.tasks.release import FORECAST_FILE, check_frozen_files
from foresci.tasks.windows import Window, make_window
from foresci.taxonomy.models import Snapshot

RESOLUTIONS_FILE = "resolutions.jsonl"
SNAPSHOT_DIR = "snapshots"


SUPPLY_ORDER = ("share_growth", "share_decline", "node_count", "count_growth", "venue_count", "venue_lead",
                "bottleneck_mentions")
"""The order of the shipped families' rules in a round's supply (the rotation :func:`_rotated` starts
from); rules of other families follow in registry order."""


def supply_rules() -> dict[str, tuple[str, QuestionKind]]:
    """Supply rule -> (family, question kind): every rule of every family with a ``forecast_kind``, in
    :data:`SUPPLY_ORDER`, then the others in registry order. A question without ``params.rule`` follows its
    family's first rule."""
    found = {rule: (family.name, kind) for family in all_families() if family.forecast_kind
             for rule, kind in family.forecast_rules}
    first = [rule for rule in SUPPLY_ORDER if rule in found]
    return {rule: found[rule] for rule in [*first, *(rule for rule in found if rule not in first)]}


def __getattr__(name: str) -> Any:
    if name == "RULES":  # the supply rules of the families registered now
        return supply_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class WindowNotClosedError(UserError):
    """The KB given for resolution does not yet cover the package's window."""


def _forecast_families() -> list[tuple[str, str]]:
    """(family, question kind) of every registered family that contributes forecast questions."""
    return [(family.name, family.forecast_kind) for family in all_families() if family.forecast_kind]


def _kinds() -> Iterator[tuple[str, str]]:
    cycle = _forecast_families()
    while True:
        yield from cycle


def _growth_base_rate(pool: Sequence[NodeEvidence], previous: DomainEvidence, fell: bool = False) -> float:
    """Share of the pool whose domain share grew >= 10 % (``fell``: fell to 1/1.10 or below) in the last
    pre-cutoff period (a naive prior)."""
    grown = [previous.nodes[item.node_id].baseline_growth for item in pool if item.node_id in previous.nodes]
    if not grown:
        return 0.5
    hits = sum(1 for value in grown if (share_fell(value) if fell else share_grew(value)))
    return round((hits + 0.5) / (len(grown) + 1), 4)


def _question(family: str, kind: str, rule: str, ask: QuestionAsk,
              in_params: bool) -> ForecastQuestion | None:
    """The question ``rule`` of ``family`` writes about ``ask``'s node (None: none), finished with the
    common parameters (``in_params``: the rule is named in them, as a round's supply does for a rule that is
    not its family's first)."""
    item, evidence = ask.item, ask.evidence
    window = evidence.window
    params: dict[str, Any] = {"family": family, **({"rule": rule} if in_params else {}),
                              "node_id": item.node_id, "domain": evidence.domain,
                              "baseline_start": window.baseline_start.isoformat(),
                              "baseline_end": window.baseline_end.isoformat(),
                              "baseline_count": item.baseline,
                              "baseline_share": round(item.baseline_share, 6)}
    draft = get_family(family).forecast_question(rule, ask)
    if draft is None:
        return None
    params.update(draft.params)
    return _finish(draft.text, draft.rule, params, kind, item, evidence, draft.baseline)


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
    """One question of a supply rule (:func:`supply_rules`) about ``item``, its naive answer (``baseline``)
    from pre-cutoff facts only (``earlier``: the node one window before)."""
    rules = supply_rules()
    if rule not in rules:
        raise UserError(f"unknown supply rule {rule!r}", field="params.rule")
    family, kind = rules[rule]
    first = get_family(family).forecast_rules[0][0]
    return _question(family, kind, rule, QuestionAsk(item, evidence, domain_name, rates, rng, earlier),
                     in_params=rule != first)


def question_rule(question: ForecastQuestion) -> str:
    """The rule a question follows (its ``params.rule``, else its family's first rule; the family's name
    for a family no longer registered or without rules)."""
    family = str(question.params.get("family"))
    if question.params.get("rule"):
        return str(question.params["rule"])
    try:
        rules = get_family(family).forecast_rules
    except UserError:
        return family
    return rules[0][0] if rules else family


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
                     rules: Sequence[str] | None = None,
                     venue_cap: int | None = None) -> list[ForecastQuestion]:
    """Up to ``wanted`` questions of one window under the supply's stratified rule (module docstring):
    layer by layer, each layer giving every node (domains interleaved, nodes in a seeded order) its next
    rule that yields a question, at most ``node_cap`` layers; ``rules``: the rules in rotation (default: all
    of :data:`RULES`); ``venue_cap``: at most that many questions naming one venue family
    (``params.venue_family``) per domain, a node past it taking its next rule (None: no cap). Reads the
    evidence's pre-cutoff facts only."""
    rng = random.Random(f"{seed}:supply")
    pools = {domain: supply_nodes(evidence, settings, min_papers) for domain, evidence in evidences.items()}
    for domain in sorted(pools):
        rng.shuffle(pools[domain])
    rates = {domain: {SHARE_GROWTH_RATE: _growth_base_rate(pools[domain], previous[domain]),
                      SHARE_DECLINE_RATE: _growth_base_rate(pools[domain], previous[domain], fell=True),
                      COUNT_GROWTH_RATE: _count_growth_rate(pools[domain], previous[domain])}
             for domain in evidences}
    venues: Counter[tuple[str, str]] = Counter()
    order: list[tuple[str, NodeEvidence, int]] = []
    for index in range(max((len(pool) for pool in pools.values()), default=0)):
        for domain in sorted(pools):
            if index < len(pools[domain]):
                order.append((domain, pools[domain][index], index))
    names = [rule for rule in supply_rules() if rules is None or rule in rules]
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
                venue = made.params.get("venue_family") if made is not None else None
                if venue is not None and venue_cap is not None:
                    if venues[(domain, str(venue))] >= venue_cap:
                        continue
                    venues[(domain, str(venue))] += 1
                if made is not None:
                    questions.append(made)
                    break
    return questions


def chosen_rules(supply: Any) -> list[str]:
    """The supply rules a round's settings (``rounds``) ask, in supply order: ``rules`` when given, else every
    registered family's rules but ``skip_rules``. A UserError names an unknown rule and the known ones."""
    known = list(supply_rules())
    asked = list(getattr(supply, "rules", None) or [])
    unknown = [rule for rule in asked if rule not in known]
    if unknown:
        raise UserError(f"unknown supply rule(s) {', '.join(unknown)}; the registered families' rules are "
                        f"{', '.join(known)}", field="rounds.rules")
    skipped = set(getattr(supply, "skip_rules", None) or ())
    return [rule for rule in known if rule in asked] if asked else [
        rule for rule in known if rule not in skipped]


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
                ask = QuestionAsk(item, evidences[domain], domain_names[domain],
                                  {SHARE_GROWTH_RATE: base_rates[domain]}, rng)
                made = _question(family, kind, get_family(family).forecast_rules[0][0], ask, in_params=False)
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
                                     supply.min_node_papers, names, seed, chosen_rules(supply),
                                     getattr(supply, "venue_cap", None))
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
    a family's ``round_items``) follow the ``n`` questions. ``supply`` and ``seed``: as for
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
    routed = {family.name: family.routed_questions for family in all_families()}
    unrouted = [question for question in questions
                if not routed.get(str(question.params.get("family")), True)]
    apart = {id(question) for question in unrouted}
    questions = [question for question in questions if id(question) not in apart]
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
    for name in dict.fromkeys(str(question.params["family"]) for question in unrouted):  # in registry order
        resolutions += get_family(name).resolve_unrouted(
            [question for question in unrouted if question.params["family"] == name], kb,
            str(getattr(kb, "fingerprint", "")))
    return resolutions


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
    family = get_family(str(question.params["family"]))
    details: dict[str, Any] = {"window_papers": item.window,
                               "domain_window_papers": evidence.reference_window}
    rule = question_rule(question)
    if rule not in {name for name, _ in family.forecast_rules}:
        raise UserError(f"no resolution rule {rule!r} for family {family.name!r}", field="params.rule")
    outcome, more = family.resolve_forecast(rule, question, item, evidence)
    details.update(more)
    return Resolution(question_id=question.question_id, outcome=outcome, resolved_with=fingerprint or "kb",
                      details=details)
