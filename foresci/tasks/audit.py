"""Triviality audit of a release (SPEC §6), ours or imported: what blind rules would score on it.

Per family: the trajectory-label distribution over every task that carries a label; persistence,
smallest- and largest-option-wins rates and fixed-rule baselines (see ``foresci.tasks.audit_rates`` for
how each is computed); duplicate decisions; identical questions with different answers; targets created
after the cutoff; and, given two methods' answers, whether the family separates them.

Gates (``TaskSettings``): no label above ``max_label_share``; persistence, smallest/largest option wins
and every fixed rule (the naive recency rule included) at or under ``max_baseline_share`` (each gated
once ``min_gate_tasks`` tasks are evaluable); no task offering near-duplicate options; no duplicate
decisions. Our builders enforce them; for imported releases they are reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.tasks.audit_rates import (
    Rate,
    domain_constant_outcomes,
    extreme_wins,
    first_named_wins,
    first_option_wins,
    identical_question_pairs,
    make_rate,
    recency_wins,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.option_similarity import near_duplicate_pairs
from foresci.tasks.proxy_checks import ProxyCheck, render_checks
from foresci.tasks.release_checks import audit_checks
from foresci.tasks.release_checks import render_checks as render_release_checks
from foresci.tasks.text_index import TextIndex

HOW = {
    "labels": "trajectory label of every task whose hidden target carries one, any family",
    "persistence": "the option with most pre-cutoff papers (bottleneck: most frequent pre-cutoff limitation; "
    "venue: pre-cutoff venue mix) is the hidden top; from recorded counts, else KB counts "
    "at the task's own cutoff; ties not evaluable",
    "smallest_option_wins": "the hidden top is the unique option with the fewest pre-cutoff papers",
    "largest_option_wins": "the hidden top is the unique option with the most pre-cutoff papers",
    "first_option": "always answer the first option id",
    "first_named": "answer the option whose name occurs first in the title + question",
    "recency": "answer the option with the highest recent_papers / pre_cutoff_papers ratio stated in the "
    "public task (the naive recency forecaster; ties not evaluable)",
    "domain_constant": "answer the most common hidden answer of the other tasks of the same domain "
    "(leave-one-out; e.g. 'always the CVPR family for visual generation')",
    "near_duplicate_options": "tasks offering two options whose names are one direction (normalised words "
    "equal once plurals are folded and acronyms expanded, or one name adding a single word to the other); "
    "the builders' count of eligible nodes left out of option pools as near-duplicates is summed per domain",
    "method_agreement": "two methods (trend, persistence) give the same decision; more than half of the "
    "compared tasks: the family does not separate methods",
}
SEPARATION_SHARE = 0.5


class FamilyAudit(BaseModel):
    """Audit figures of one family."""

    model_config = ConfigDict(extra="forbid")

    family: str
    tasks: int
    by_domain: dict[str, int] = Field(default_factory=dict)
    by_horizon: dict[str, int] = Field(default_factory=dict)
    by_subtype: dict[str, int] = Field(default_factory=dict)
    labels: dict[str, int] = Field(default_factory=dict, description="trajectory label -> tasks")
    top_label_share: float | None = None
    persistence_evaluable: int = 0
    persistence_matches: int = 0
    persistence_rate: float | None = None
    smallest_option_wins: Rate | None = None
    largest_option_wins: Rate | None = None
    rule_baselines: list[Rate] = Field(default_factory=list)
    best_rule: Rate | None = None
    single_option_tasks: int = 0
    targets_created_after_cutoff: int = 0
    options_created_after_cutoff: int = Field(default=0, description="tasks offering an option created later")
    duplicates: list[list[str]] = Field(default_factory=list, description="groups of task ids, same decision")
    identical_question_pairs: list[list[str]] = Field(
        default_factory=list, description="same public text, different hidden answer"
    )
    near_duplicate_option_tasks: list[str] = Field(
        default_factory=list, description="tasks offering near-duplicate options (their ids)"
    )
    near_duplicate_options_dropped: int = Field(
        default=0, description="eligible nodes the builders left out of option pools as near-duplicates"
    )
    method_agreement: Rate | None = None
    separates_methods: bool | None = None
    findings: list[str] = Field(default_factory=list, description="other concentrations worth reporting")
    passed: bool = True
    reasons: list[str] = Field(default_factory=list)


class AuditReport(BaseModel):
    """Audit of a whole release."""

    model_config = ConfigDict(extra="forbid")

    tasks: int
    families: dict[str, FamilyAudit]
    passed: bool
    gates_enforced: bool = Field(default=True, description="False for imported releases: gates reported only")
    sources: dict[str, int] = Field(default_factory=dict)
    missing_hidden: list[str] = Field(default_factory=list)
    how: dict[str, str] = Field(default_factory=lambda: dict(HOW))
    proxy_checks: list[ProxyCheck] = Field(
        default_factory=list, description="offline proxies against a zero-evidence control"
    )
    release_checks: dict[str, Any] = Field(
        default_factory=dict, description="the researcher's checks (foresci.tasks.release_checks): per "
        "check, failing tasks and examples"
    )


def decision_signature(task: Task, hidden: HiddenTarget | None) -> tuple[object, ...]:
    """What makes two tasks the same decision: family, horizon, domain, options and the hidden answer."""
    options = tuple(sorted(candidate.name.lower() for candidate in task.candidates))
    answer: object = None
    if hidden is not None:
        primary: str | None = getattr(hidden, "primary_direction", None)
        bottleneck: list[str] = getattr(hidden, "bottleneck", [])
        ranking: list[str] = getattr(hidden, "ranking", [])
        answer = (
            primary
            or (bottleneck[0].lower() if bottleneck else None)
            or (tuple(ranking[:1]) if ranking else None)
        )
        if primary or ranking:
            names = {candidate.option_id: candidate.name.lower() for candidate in task.candidates}
            answer = names.get(str(primary or ranking[0]), answer)
    subject = str(task.context.get("subdirection") or task.context.get("contribution") or "").lower()
    if answer is None and not options:
        subject = subject or " ".join(task.title.lower().split())
    return task.family, task.horizon, task.domain, options, subject, answer


def audit_tasks(
    tasks: Sequence[Task],
    hidden: Mapping[str, HiddenTarget],
    settings: TaskSettings | None = None,
    decisions: Mapping[str, Mapping[str, str | None]] | None = None,
    indexes: Mapping[str, TextIndex] | None = None,
) -> AuditReport:
    """Audit public tasks with their hidden targets; gates use ``settings`` (defaults when None).

    ``decisions``: method -> task id -> decision of two methods (e.g. trend and persistence) whose
    agreement per family is reported. ``indexes``: domain -> its pre-cutoff text, for the release checks
    that read text (concept-pair premises); without them those are reported as not checked.
    """
    settings = settings or TaskSettings()
    grouped: dict[str, list[Task]] = {}
    for task in tasks:
        grouped.setdefault(task.family, []).append(task)
    families = {
        family: _audit_family(family, members, hidden, settings, decisions)
        for family, members in sorted(grouped.items())
    }
    missing = [task.task_id for task in tasks if task.task_id not in hidden]
    sources = dict(Counter(task.source for task in tasks))
    passed = all(audit.passed for audit in families.values()) and not missing
    return AuditReport(
        tasks=len(tasks),
        families=families,
        passed=passed,
        missing_hidden=missing,
        sources=sources,
        gates_enforced="researchforesight" not in sources,
        release_checks=audit_checks(tasks, hidden, settings, indexes),
    )


def _audit_family(
    family: str,
    members: list[Task],
    hidden: Mapping[str, HiddenTarget],
    settings: TaskSettings,
    decisions: Mapping[str, Mapping[str, str | None]] | None,
) -> FamilyAudit:
    pairs = [(task, hidden[task.task_id]) for task in members if task.task_id in hidden]
    audit = FamilyAudit(
        family=family,
        tasks=len(members),
        by_domain=dict(Counter(task.domain for task in members)),
        by_horizon=dict(Counter(task.horizon for task in members)),
        by_subtype=dict(Counter(str(task.subtype) for task in members if task.subtype)),
    )
    labels = Counter(label for _, target in pairs if (label := getattr(target, "trajectory", None)))
    audit.labels = {str(label): count for label, count in labels.most_common()}
    if labels:
        audit.top_label_share = round(labels.most_common(1)[0][1] / sum(labels.values()), 4)
    persistence = make_rate(
        "persistence", HOW["persistence"], [target.stats.get("persistence_match") for _, target in pairs]
    )
    audit.persistence_evaluable, audit.persistence_matches = persistence.evaluable, persistence.matches
    audit.persistence_rate = persistence.rate
    audit.smallest_option_wins = make_rate(
        "smallest_option_wins",
        HOW["smallest_option_wins"],
        [extreme_wins(task, target, largest=False) for task, target in pairs],
    )
    audit.largest_option_wins = make_rate(
        "largest_option_wins",
        HOW["largest_option_wins"],
        [extreme_wins(task, target, largest=True) for task, target in pairs],
    )
    audit.rule_baselines = [
        make_rate(
            "first_option", HOW["first_option"], [first_option_wins(task, target) for task, target in pairs]
        ),
        make_rate(
            "first_named", HOW["first_named"], [first_named_wins(task, target) for task, target in pairs]
        ),
        make_rate("domain_constant", HOW["domain_constant"], domain_constant_outcomes(members, hidden)),
    ]
    recency = make_rate("recency", HOW["recency"], [recency_wins(task, target) for task, target in pairs])
    if recency.evaluable:
        audit.rule_baselines.append(recency)
    rated = [rate for rate in audit.rule_baselines if rate.rate is not None]
    audit.best_rule = max(rated, key=lambda rate: (rate.rate or 0.0, rate.evaluable)) if rated else None
    audit.single_option_tasks = sum(len(task.candidates) == 1 for task in members)
    audit.targets_created_after_cutoff = sum(
        target.stats.get("target_created_after_cutoff") is True for _, target in pairs
    )
    audit.options_created_after_cutoff = sum(
        int(target.stats.get("options_created_after_cutoff") or 0) > 0 for _, target in pairs
    )
    signatures: dict[tuple[object, ...], list[str]] = {}
    for task in members:
        signatures.setdefault(decision_signature(task, hidden.get(task.task_id)), []).append(task.task_id)
    audit.duplicates = [ids for ids in signatures.values() if len(ids) > 1]
    audit.identical_question_pairs = identical_question_pairs(members, hidden)
    audit.near_duplicate_option_tasks = [
        task.task_id
        for task in members
        if near_duplicate_pairs([candidate.name for candidate in task.candidates])
    ]
    dropped: dict[tuple[str, str, str], int] = {}
    for task, target in pairs:
        if "near_duplicate_options_dropped" in target.stats:
            key = (task.domain, task.cutoff.isoformat(), task.horizon)
            dropped[key] = max(dropped.get(key, 0), int(target.stats["near_duplicate_options_dropped"]))
    audit.near_duplicate_options_dropped = sum(dropped.values())
    if decisions and len(decisions) >= 2:
        first, second = list(decisions)[:2]
        outcomes = [
            decisions[first].get(task.task_id) == decisions[second].get(task.task_id)
            if decisions[first].get(task.task_id) and decisions[second].get(task.task_id)
            else None
            for task in members
        ]
        audit.method_agreement = make_rate(f"{first} = {second}", HOW["method_agreement"], outcomes)
        if audit.method_agreement.rate is not None:
            audit.separates_methods = audit.method_agreement.rate <= SEPARATION_SHARE
    audit.findings = stat_findings([target for _, target in pairs]) + _family_findings(audit)
    _gate(audit, settings)
    return audit


def _family_findings(audit: FamilyAudit) -> list[str]:
    findings: list[str] = []
    if audit.single_option_tasks:
        findings.append(
            f"{audit.single_option_tasks} of {audit.tasks} tasks offer a single option (no decision)"
        )
    if audit.identical_question_pairs:
        findings.append(
            f"{len(audit.identical_question_pairs)} pairs of tasks ask the identical question "
            "with different hidden answers"
        )
    if audit.separates_methods is False and audit.method_agreement is not None:
        agreement = audit.method_agreement
        findings.append(
            f"does not separate methods: {agreement.rule} on {agreement.matches} of "
            f"{agreement.evaluable} tasks"
        )
    return findings


# (stats key, value counted, message): a finding "<n> of <total> <message>" when n > 0
COUNTED_FINDINGS: tuple[tuple[str, object, str], ...] = (
    ("target_created_after_cutoff", True, "hidden targets are taxonomy nodes created after the cutoff"),
    ("options", 0, "planning targets hold no ranked option at all"),
    ("has_realized_opportunity", False, "bottleneck targets name no realized opportunity"),
    (
        "top_tied",
        True,
        "venue targets have a tied top venue family (their recorded likely bucket breaks the tie)",
    ),
    ("target_named_in_question", True, "tasks name their hidden top venue bucket in the public question"),
)


def stat_findings(targets: Sequence[HiddenTarget]) -> list[str]:
    """Concentrations read from hidden-target stats (mostly what imported releases state about themselves)."""
    total = len(targets)
    counts = {
        "options created after the cutoff": sum(
            int(target.stats.get("options_created_after_cutoff") or 0) > 0 for target in targets
        ),
        "without window evidence": sum(
            int(target.stats.get("options_without_window_evidence") or 0) > 0 for target in targets
        ),
        "single-paper clusters": sum(
            1
            for target in targets
            if target.stats.get("limitation_counts") and max(target.stats["limitation_counts"]) <= 1
        ),
    }
    messages = {
        "options created after the cutoff": "tasks rank options that were created after the cutoff",
        "without window evidence": "planning targets rank options with no post-cutoff evidence "
        "(pre-cutoff future-work statements)",
        "single-paper clusters": "'recurring' limitation clusters are each backed by a single paper",
    }
    for key, value, message in COUNTED_FINDINGS:
        counts[key] = sum(1 for target in targets if key in target.stats and target.stats[key] == value)
        messages[key] = message
    findings = [f"{count} of {total} {messages[key]}" for key, count in counts.items() if count]
    relations = Counter(
        str(target.stats["pair_relation"]) for target in targets if "pair_relation" in target.stats
    )
    if relations["parent_wins"] or relations["child_wins"]:
        findings.append(
            f"{relations['parent_wins'] + relations['child_wins']} of {sum(relations.values())} comparative "
            f"pairs are a node against its own descendant; the parent wins {relations['parent_wins']}"
        )
    return findings


def _gate(audit: FamilyAudit, settings: TaskSettings) -> None:
    if audit.top_label_share is not None and audit.top_label_share > settings.max_label_share:
        label = next(iter(audit.labels))
        audit.reasons.append(
            f"label {label!r} holds {audit.top_label_share:.0%} of the family's trajectory "
            f"labels (gate: <= {settings.max_label_share:.0%})"
        )
    rates = [
        Rate(
            rule="persistence",
            how=HOW["persistence"],
            evaluable=audit.persistence_evaluable,
            matches=audit.persistence_matches,
            rate=audit.persistence_rate,
        ),
        audit.smallest_option_wins,
        audit.largest_option_wins,
        *audit.rule_baselines,
    ]
    for rate in rates:
        if rate is None or rate.rate is None or rate.evaluable < settings.min_gate_tasks:
            continue
        if rate.rate > settings.max_baseline_share:
            audit.reasons.append(
                f"{rate.rule} matches {rate.matches} of {rate.evaluable} tasks ({rate.rate:.0%}; "
                f"gate: <= {settings.max_baseline_share:.0%})"
            )
    if audit.near_duplicate_option_tasks:
        audit.reasons.append(
            f"{len(audit.near_duplicate_option_tasks)} tasks offer near-duplicate options (one direction "
            "under two names)"
        )
    if audit.duplicates:
        audit.reasons.append(
            f"{sum(len(ids) for ids in audit.duplicates)} tasks in {len(audit.duplicates)} "
            "duplicate-decision groups"
        )
    audit.passed = not audit.reasons


def _rate_line(rate: Rate | None) -> str:
    if rate is None or rate.rate is None:
        return "not computable"
    return f"{rate.matches}/{rate.evaluable} ({rate.rate:.0%})"


def render_audit(report: AuditReport) -> str:
    """Plain-text rendering of an audit (what ``foresci tasks audit`` prints)."""
    gates = "PASS" if report.passed else "FAIL"
    enforced = "" if report.gates_enforced else " (reported, not enforced: imported release)"
    lines = [f"tasks: {report.tasks}    gates: {gates}{enforced}"]
    if report.release_checks:
        lines.extend(render_release_checks(report.release_checks))
    if report.missing_hidden:
        lines.append(f"tasks without a hidden target: {len(report.missing_hidden)}")
    for family, audit in report.families.items():
        lines.append(f"\n[{family}] tasks={audit.tasks}  {'pass' if audit.passed else 'FAIL'}")
        lines.append(
            "  by domain: " + ", ".join(f"{key}={value}" for key, value in sorted(audit.by_domain.items()))
        )
        lines.append(
            "  by horizon: " + ", ".join(f"{key}={value}" for key, value in sorted(audit.by_horizon.items()))
        )
        if audit.labels:
            total = sum(audit.labels.values())
            lines.append(
                "  trajectory labels: "
                + ", ".join(f"{label}={count} ({count / total:.0%})" for label, count in audit.labels.items())
            )
        if audit.persistence_rate is not None:
            lines.append(
                f"  persistence match: {audit.persistence_matches}/{audit.persistence_evaluable} "
                f"({audit.persistence_rate:.0%})"
            )
        else:
            lines.append("  persistence match: not computable (no pre-cutoff counts per option)")
        lines.append(
            f"  smallest option wins: {_rate_line(audit.smallest_option_wins)}; "
            f"largest option wins: {_rate_line(audit.largest_option_wins)}"
        )
        lines.append(
            "  fixed rules: " + "; ".join(f"{rate.rule} {_rate_line(rate)}" for rate in audit.rule_baselines)
        )
        if audit.method_agreement is not None:
            lines.append(
                f"  same decision ({audit.method_agreement.rule}): {_rate_line(audit.method_agreement)}"
            )
        lines.append(
            f"  duplicate-decision groups: {len(audit.duplicates)}; identical question, different "
            f"answer: {len(audit.identical_question_pairs)} pairs"
        )
        if audit.near_duplicate_option_tasks or audit.near_duplicate_options_dropped:
            lines.append(
                f"  near-duplicate options: {len(audit.near_duplicate_option_tasks)} tasks offer them; "
                f"{audit.near_duplicate_options_dropped} eligible nodes left out of option pools as "
                "near-duplicates"
            )
        lines.append(
            f"  targets created after the cutoff: {audit.targets_created_after_cutoff}; tasks offering "
            f"options created after it: {audit.options_created_after_cutoff}"
        )
        lines += [f"  finding: {finding}" for finding in audit.findings]
        lines += [f"  gate: {reason}" for reason in audit.reasons]
    if report.proxy_checks:
        lines.append(render_checks(report.proxy_checks))
    return "\n".join(lines)
