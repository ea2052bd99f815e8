"""Triviality audit of a release (SPEC §6): label concentration, persistence match rates, duplicates.

Persistence is the baseline "the past continues": pick the option with more pre-cutoff papers (or the
most frequent pre-cutoff bottleneck, or the pre-cutoff venue mix). A family that persistence solves at
``reject_persistence_share`` or more is rejected; a trajectory label above ``max_label_share`` of a family
fails the gate too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from foresci.tasks.config import TaskSettings
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task


class FamilyAudit(BaseModel):
    """Audit figures of one family."""

    model_config = ConfigDict(extra="forbid")

    family: str
    tasks: int
    by_domain: dict[str, int] = Field(default_factory=dict)
    by_horizon: dict[str, int] = Field(default_factory=dict)
    labels: dict[str, int] = Field(default_factory=dict, description="trajectory label -> tasks")
    top_label_share: float | None = None
    persistence_evaluable: int = 0
    persistence_matches: int = 0
    persistence_rate: float | None = None
    duplicates: list[list[str]] = Field(default_factory=list,
                                        description="groups of task ids, same decision")
    findings: list[str] = Field(default_factory=list, description="other concentrations worth reporting")
    passed: bool = True
    reasons: list[str] = Field(default_factory=list)


class AuditReport(BaseModel):
    """Audit of a whole release."""

    model_config = ConfigDict(extra="forbid")

    tasks: int
    families: dict[str, FamilyAudit]
    passed: bool
    missing_hidden: list[str] = Field(default_factory=list)


def decision_signature(task: Task, hidden: HiddenTarget | None) -> tuple[object, ...]:
    """What makes two tasks the same decision: family, horizon, domain, options and the hidden answer."""
    options = tuple(sorted(candidate.name.lower() for candidate in task.candidates))
    answer: object = None
    if hidden is not None:
        answer = hidden.primary_direction or (hidden.bottleneck[0].lower() if hidden.bottleneck else None) \
            or (tuple(hidden.ranking[:1]) if hidden.ranking else None)
        if hidden.primary_direction or hidden.ranking:
            names = {candidate.option_id: candidate.name.lower() for candidate in task.candidates}
            answer = names.get(str(hidden.primary_direction or hidden.ranking[0]), answer)
    subject = str(task.context.get("subdirection") or task.context.get("contribution") or "").lower()
    if answer is None and not options:
        subject = subject or " ".join(task.title.lower().split())
    return task.family, task.horizon, task.domain, options, subject, answer


def audit_tasks(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget],
                settings: TaskSettings | None = None) -> AuditReport:
    """Audit public tasks with their hidden targets; gates use ``settings`` (defaults when None)."""
    settings = settings or TaskSettings()
    families: dict[str, FamilyAudit] = {}
    grouped: dict[str, list[Task]] = {}
    for task in tasks:
        grouped.setdefault(task.family, []).append(task)
    missing = [task.task_id for task in tasks if task.task_id not in hidden]
    for family, members in sorted(grouped.items()):
        audit = FamilyAudit(family=family, tasks=len(members),
                            by_domain=dict(Counter(task.domain for task in members)),
                            by_horizon=dict(Counter(task.horizon for task in members)))
        labels = Counter(hidden[task.task_id].trajectory for task in members
                         if task.task_id in hidden and hidden[task.task_id].trajectory)
        audit.labels = {str(label): count for label, count in labels.most_common()}
        if labels:
            audit.top_label_share = labels.most_common(1)[0][1] / sum(labels.values())
        outcomes = [hidden[task.task_id].stats.get("persistence_match")
                    for task in members if task.task_id in hidden]
        evaluable = [bool(outcome) for outcome in outcomes if outcome is not None]
        audit.persistence_evaluable = len(evaluable)
        audit.persistence_matches = sum(evaluable)
        if evaluable:
            audit.persistence_rate = sum(evaluable) / len(evaluable)
        signatures: dict[tuple[object, ...], list[str]] = {}
        for task in members:
            signatures.setdefault(decision_signature(task, hidden.get(task.task_id)),
                                  []).append(task.task_id)
        audit.duplicates = [ids for ids in signatures.values() if len(ids) > 1]
        audit.findings = stat_findings([hidden[task.task_id] for task in members if task.task_id in hidden])
        _gate(audit, settings)
        families[family] = audit
    passed = all(audit.passed for audit in families.values()) and not missing
    return AuditReport(tasks=len(tasks), families=families, passed=passed, missing_hidden=missing)


def stat_findings(targets: Sequence[HiddenTarget]) -> list[str]:
    """Concentrations read from hidden-target stats (mostly what imported releases state about themselves)."""
    findings: list[str] = []
    total = len(targets)

    def count(key: str, value: object) -> int:
        return sum(1 for target in targets if key in target.stats and target.stats[key] == value)

    created_after = count("target_created_after_cutoff", True)
    if created_after:
        findings.append(f"{created_after} of {total} hidden targets are taxonomy nodes created after the "
                        f"cutoff")
    options_after = sum(int(target.stats.get("options_created_after_cutoff") or 0) > 0 for target in targets)
    if options_after:
        findings.append(f"{options_after} of {total} tasks rank options that were created after the cutoff")
    no_options = count("options", 0)
    if no_options:
        findings.append(f"{no_options} of {total} planning targets hold no ranked option at all")
    single = count("options", 1)
    if single:
        findings.append(f"{single} of {total} planning targets hold a single option (no ranking to get "
                        f"right)")
    unevidenced = sum(int(target.stats.get("options_without_window_evidence") or 0) > 0 for target in targets)
    if unevidenced:
        findings.append(f"{unevidenced} of {total} planning targets rank options with no post-cutoff "
                        f"evidence "
                        "(pre-cutoff future-work statements)")
    no_opportunity = count("has_realized_opportunity", False)
    if no_opportunity:
        findings.append(f"{no_opportunity} of {total} bottleneck targets name no realized opportunity")
    once = sum(1 for target in targets if target.stats.get("limitation_counts")
               and max(target.stats["limitation_counts"]) <= 1)
    if once:
        findings.append(f"{once} of {total} 'recurring' limitation clusters are each backed by a single "
                        f"paper")
    return findings


def _gate(audit: FamilyAudit, settings: TaskSettings) -> None:
    if audit.top_label_share is not None and audit.top_label_share > settings.max_label_share:
        label = next(iter(audit.labels))
        audit.reasons.append(f"label {label!r} holds {audit.top_label_share:.0%} of the family's trajectory "
                             f"labels "
                             f"(gate: <= {settings.max_label_share:.0%})")
    if audit.persistence_rate is not None and audit.persistence_rate >= settings.reject_persistence_share:
        audit.reasons.append(f"persistence (more pre-cutoff evidence wins) matches "
                             f"{audit.persistence_matches} of "
                             f"{audit.persistence_evaluable} tasks ({audit.persistence_rate:.0%}; gate: < "
                             f"{settings.reject_persistence_share:.0%})")
    if audit.duplicates:
        audit.reasons.append(f"{sum(len(ids) for ids in audit.duplicates)} tasks in {len(audit.duplicates)} "
                             "duplicate-decision groups")
    audit.passed = not audit.reasons


def render_audit(report: AuditReport) -> str:
    """Plain-text rendering of an audit (what ``foresci tasks audit`` prints)."""
    lines = [f"tasks: {report.tasks}    gates: {'PASS' if report.passed else 'FAIL'}"]
    if report.missing_hidden:
        lines.append(f"tasks without a hidden target: {len(report.missing_hidden)}")
    for family, audit in report.families.items():
        lines.append(f"\n[{family}] tasks={audit.tasks}  {'pass' if audit.passed else 'FAIL'}")
        lines.append("  by domain: " + ", ".join(f"{key}={value}" for key,
                                                 value in sorted(audit.by_domain.items())))
        lines.append("  by horizon: " + ", ".join(f"{key}={value}" for key,
                                                  value in sorted(audit.by_horizon.items())))
        if audit.labels:
            total = sum(audit.labels.values())
            lines.append("  trajectory labels: " + ", ".join(f"{label}={count} ({count / total:.0%})"
                                                             for label, count in audit.labels.items()))
        if audit.persistence_rate is not None:
            lines.append(f"  persistence match: {audit.persistence_matches}/{audit.persistence_evaluable} "
                         f"({audit.persistence_rate:.0%})")
        else:
            lines.append("  persistence match: not computable (no pre-cutoff evidence per option)")
        lines.append(f"  duplicate-decision groups: {len(audit.duplicates)}")
        lines += [f"  finding: {finding}" for finding in audit.findings]
        lines += [f"  gate: {reason}" for reason in audit.reasons]
    return "\n".join(lines)
