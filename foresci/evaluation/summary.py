"""Aggregate scored rows into ``summary.json``: leaderboards with bootstrap CIs, forecasts, diagnostics."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.diagnostics import (
    fact_fta_conflicts,
    foresight_lift,
    low_score_rates,
    metric_correlations,
    metric_value,
)
from foresci.evaluation.forecast import (
    NOMINAL_COVERAGE,
    difficulty_adjusted,
    paired_skill,
    reliability_bins,
)
from foresci.evaluation.metrics import (
    all_metrics,
    forecast_metric_names,
    judge_metric_names,
    metric_info,
    metric_labels,
    task_metric_names,
)
from foresci.evaluation.models import NO_KB, Score
from foresci.evaluation.stats import bootstrap_mean, paired_bootstrap_pvalue

GroupKey = tuple[str, str | None, str]


def group_key(score: Score) -> GroupKey:
    """(method, model, mode): one leaderboard entry."""
    return score.method, score.model, score.mode


def entry_label(method: str, model: str | None, mode: str) -> str:
    """Readable name of a leaderboard entry, e.g. 'aris · gpt-4o' or 'native · gpt-4o (name_only)'."""
    label = method if not model else f"{method} · {model}"
    return label if mode == "full" else f"{label} ({mode})"


def contract_rates(rows: Sequence[Score]) -> dict[str, Any]:
    """How the rows' answers met their task contract: counts repaired (only after a contract-fix re-ask)
    and invalid (still breaking it, scored as given), and the repair rate = (repaired + invalid) / rows."""
    repaired = sum(1 for score in rows if score.contract == "repaired")
    invalid = sum(1 for score in rows if score.contract == "invalid")
    rate = (repaired + invalid) / len(rows) if rows else 0.0
    return {"repaired": repaired, "invalid": invalid, "rate": rate}


def evaluation_label(rows: Sequence[Score]) -> str:
    """'offline', 'judged', or 'mixed (judged k of n)' for rows pooled from differently evaluated runs."""
    judged = sum(1 for score in rows if score.evaluation == "judged")
    if judged == len(rows):
        return "judged"
    return "offline" if judged == 0 else f"mixed (judged {judged} of {len(rows)})"


def _aggregate(rows: Sequence[Score], names: Sequence[str], settings: EvaluationSettings) -> dict[str, Any]:
    """Each metric's cell over ``rows``: the bootstrap mean with a 95 % interval, or its own reduction."""
    custom = {metric.name: metric for metric in all_metrics() if metric.aggregate == "custom"}
    metrics: dict[str, Any] = {}
    for name in names:
        values = [value for score in rows for value in [metric_value(score, name)] if value is not None]
        if not values:
            continue
        if name in custom:
            metrics[name] = dict(custom[name].reduce(values, settings))
            continue
        interval = bootstrap_mean(values, settings.bootstrap_samples, settings.seed)
        variances: list[float] = [
            float(score.metrics[name].variance or 0.0)
            for score in rows
            if name in score.metrics and score.metrics[name].variance is not None
        ]
        metrics[name] = {
            "mean": interval.mean,
            "low": interval.low,
            "high": interval.high,
            "n": interval.n,
            "variance": float(np.mean(variances)) if variances else None,
        }
    return metrics


LEADER_COVERAGE = 0.5
"""An entry leads a column only if it was scored on at least this share of the column's largest task count:
a method answered on 6 tasks is no leader over methods scored on 102 (its mean is another question's)."""
DISPLAY_DECIMALS = 3
"""Means are compared as they are shown (3 decimals): entries that print the same mean tie."""


def _leaders(ranked: list[dict[str, Any]], name: str, sign: int) -> list[dict[str, Any]]:
    """The entries that lead column ``name`` (``sign``: +1 higher is better, -1 lower): the best mean, as
    shown, among the entries with enough coverage (:data:`LEADER_COVERAGE`). None when every covered entry
    shows the same mean (a tie that separates nobody, such as 0.000 for all) or fewer than two are covered."""
    largest = max(entry["metrics"][name].get("n", 0) for entry in ranked)
    covered = [entry for entry in ranked if entry["metrics"][name].get("n", 0) >= LEADER_COVERAGE * largest]
    for entry in ranked:
        if entry not in covered:
            entry["metrics"][name]["low_coverage"] = True
    shown = {id(entry): round(entry["metrics"][name]["mean"] * sign, DISPLAY_DECIMALS) for entry in covered}
    if len(covered) < 2 or len(set(shown.values())) == 1:
        return []
    best = max(shown.values())
    return [entry for entry in covered if shown[id(entry)] == best]


def _add_leader_pvalues(
    entries: list[dict[str, Any]],
    rows_by_key: dict[GroupKey, list[Score]],
    names: Sequence[str],
    settings: EvaluationSettings,
) -> None:
    """Mark the leader(s) of each metric and a paired-bootstrap p-value (shared tasks) for the others.

    The leader has the best mean in the metric's direction (``Metric.higher_is_better``) among the entries
    scored on enough of the column's tasks (:func:`_leaders`; the others are marked ``low_coverage``).
    Entries showing the best mean are all leaders (and get no p-value); with a single covered entry, or
    when all covered entries show the same mean, there is no leader.
    """
    directions = {metric.name: metric.higher_is_better for metric in all_metrics()}
    for name in names:
        higher_is_better = directions.get(name, True)
        sign = 1 if higher_is_better else -1
        ranked = [entry for entry in entries if name in entry["metrics"]]
        if len(ranked) < 2:
            continue
        leaders = _leaders(ranked, name, sign)
        if not leaders:
            for entry in ranked:
                entry["metrics"][name]["leader"] = False
            continue
        leader = leaders[0]
        leader_rows = {
            s.task_id: v for s in rows_by_key[leader["key"]] for v in [metric_value(s, name)] if v is not None
        }
        for entry in ranked:
            cell = entry["metrics"][name]
            cell["leader"] = any(entry is tied for tied in leaders)
            if cell["leader"]:
                continue
            other = {
                s.task_id: v
                for s in rows_by_key[entry["key"]]
                for v in [metric_value(s, name)]
                if v is not None
            }
            shared = sorted(set(leader_rows) & set(other))
            if len(shared) >= 2:
                cell["p_vs_leader"] = paired_bootstrap_pvalue(
                    [leader_rows[t] for t in shared],
                    [other[t] for t in shared],
                    settings.bootstrap_samples,
                    settings.seed,
                    higher_is_better,
                )


def leaderboard(scores: Sequence[Score], settings: EvaluationSettings) -> list[dict[str, Any]]:
    """One entry per (method, model, mode) and family ('all' first), each task metric's cell (mean and
    95 % CI, or its reducer's)."""
    names = task_metric_names()
    rows_by_key: dict[GroupKey, list[Score]] = defaultdict(list)
    for score in scores:
        if score.status == "ok" and score.family != "forecast":
            rows_by_key[group_key(score)].append(score)
    overall: list[dict[str, Any]] = []
    per_family: list[dict[str, Any]] = []
    for key in sorted(rows_by_key, key=lambda k: (k[0], k[1] or "", k[2])):
        rows = rows_by_key[key]
        base = {"method": key[0], "model": key[1], "mode": key[2], "label": entry_label(*key)}
        overall.append(
            {
                **base,
                "key": key,
                "family": "all",
                "n_rows": len(rows),
                "contamination_risk_rows": sum(1 for score in rows if score.contamination_risk),
                "contract": contract_rates(rows),
                "evaluation": evaluation_label(rows),
                "metrics": _aggregate(rows, names, settings),
            }
        )
        for family in sorted({score.family for score in rows}):
            family_rows = [score for score in rows if score.family == family]
            per_family.append(
                {
                    **base,
                    "family": family,
                    "n_rows": len(family_rows),
                    "contract": contract_rates(family_rows),
                    "evaluation": evaluation_label(family_rows),
                    "metrics": _aggregate(family_rows, names, settings),
                }
            )
    _add_leader_pvalues(overall, rows_by_key, names, settings)
    for entry in overall:
        entry.pop("key")
    return overall + per_family


def forecast_summary(scores: Sequence[Score], settings: EvaluationSettings) -> list[dict[str, Any]]:
    """Per (method, model, mode): CRPS, coverage, x3/x10 hits, Brier, skill, reliability, p-values."""
    rows_by_key: dict[GroupKey, list[Score]] = defaultdict(list)
    for score in scores:
        if score.status == "ok" and score.family == "forecast":
            rows_by_key[group_key(score)].append(score)
    entries: list[dict[str, Any]] = []
    for key in sorted(rows_by_key, key=lambda k: (k[0], k[1] or "", k[2])):
        rows = rows_by_key[key]
        entry: dict[str, Any] = {
            "method": key[0],
            "model": key[1],
            "mode": key[2],
            "label": entry_label(*key),
            "key": key,
            "metrics": _aggregate(rows, forecast_metric_names(), settings),
        }
        numeric = [score for score in rows if "crps" in score.metrics]
        if numeric:
            entry["n_numeric"] = len(numeric)
            entry["coverage"] = {
                str(k): {
                    "observed": float(np.mean([metric_value(s, f"cover_{k}") or 0.0 for s in numeric])),
                    "nominal": nominal,
                }
                for k, nominal in NOMINAL_COVERAGE.items()
            }
            entry["within_x3"] = float(np.mean([metric_value(s, "within_x3") or 0.0 for s in numeric]))
            entry["within_x10"] = float(np.mean([metric_value(s, "within_x10") or 0.0 for s in numeric]))
            raw_baselines = [s.metrics["crps"].details.get("baseline_crps") for s in numeric]
            baselines = [float(value) for value in raw_baselines if value is not None]
            if len(baselines) == len(numeric) and sum(baselines) > 0:
                entry["crps_skill"] = 1 - float(
                    np.mean([metric_value(s, "crps") or 0.0 for s in numeric]) / np.mean(baselines)
                )
        binary = [score for score in rows if "brier" in score.metrics]
        if binary:
            entry["n_binary"] = len(binary)
            baseline = float(np.mean([s.metrics["brier"].details["baseline_brier"] for s in binary]))
            mean_brier = float(np.mean([metric_value(s, "brier") or 0.0 for s in binary]))
            entry["brier_skill"] = None if baseline == 0 else 1 - mean_brier / baseline
            entry["reliability"] = reliability_bins(
                [s.metrics["brier"].details["probability"] for s in binary],
                [s.metrics["brier"].details["outcome"] for s in binary],
            )
        entries.append(entry)
    _add_leader_pvalues(entries, rows_by_key, forecast_metric_names(), settings)
    _add_reference_skill(entries, rows_by_key, settings.forecast_reference)
    for name in ("brier", "crps"):
        fitted = difficulty_adjusted(
            [
                (score.task_id, entry_label(*key), value)
                for key, rows in rows_by_key.items()
                for score in rows
                for value in [metric_value(score, name)]
                if value is not None
            ]
        )
        for entry in entries:
            if entry["label"] in fitted:
                entry[f"{name}_adjusted"] = fitted[entry["label"]]
    for entry in entries:
        entry.pop("key")
    return entries


def _add_reference_skill(entries: list[dict[str, Any]], rows_by_key: dict[GroupKey, list[Score]],
                         reference: str) -> None:
    """Each entry's CRPS and Brier skill against the reference method's forecasts of the same questions."""
    reference_keys = [key for key in rows_by_key if key[0] == reference and key[2] == "full"]
    if not reference_keys:
        return
    reference_rows = rows_by_key[sorted(reference_keys, key=lambda k: k[1] or "")[0]]
    for entry in entries:
        skill: dict[str, Any] = {"reference": reference}
        for name in ("crps", "brier"):
            values = {
                score.task_id: value
                for score in rows_by_key[entry["key"]]
                if (value := metric_value(score, name)) is not None
            }
            reference_values = {
                score.task_id: value
                for score in reference_rows
                if (value := metric_value(score, name)) is not None
            }
            skill[name], skill[f"n_{name}"] = paired_skill(values, reference_values)
        entry["skill_vs_reference"] = skill


def _row_order(score: Score) -> tuple[str, str, str, str, str]:
    return (score.key or "", score.task_id, score.method, score.model or "", score.mode)


def build_summary(
    scores: Sequence[Score],
    settings: EvaluationSettings,
    meta: dict[str, Any],
    persistence_method: str = "persistence",
) -> dict[str, Any]:
    """The whole ``summary.json`` document.

    Rows are put in one order first (their row key, then task, method, model and mode), so bootstrap
    intervals, float sums and tie order do not depend on the order concurrent workers wrote them in.
    """
    scores = sorted(scores, key=_row_order)
    judge_names = judge_metric_names()
    counts: dict[str, Any] = {
        "rows": len(scores),
        "scored": sum(1 for s in scores if s.status == "ok"),
        "answer_errors": sum(1 for s in scores if s.status == "error"),
        "missing_target": sum(1 for s in scores if s.status == "missing"),
        "contamination_risk": sum(1 for s in scores if s.contamination_risk),
        "evidence_none": sum(1 for s in scores if s.evidence == "none"),
        "unknown_citations": sum(len((s.citations or {}).get("unknown_ids", [])) for s in scores),
        "after_cutoff_citations": sum(len((s.citations or {}).get("after_cutoff_ids", [])) for s in scores),
        "citations_not_checked": sum(1 for s in scores if any(result.reason == NO_KB
                                                              for result in s.metrics.values())),
        "judged_ok": sum(
            1
            for s in scores
            if any(s.metrics[n].value is not None for n in judge_names if n in s.metrics)
            and s.evaluation == "judged"
        ),
    }
    judge_errors: dict[str, int] = defaultdict(int)
    for score in scores:
        for name, result in score.metrics.items():
            if result.error:
                judge_errors[name] += 1
    counts["judge_errors"] = dict(judge_errors)
    errors_by_method: dict[str, int] = defaultdict(int)
    for score in scores:
        if score.status != "ok":
            errors_by_method[entry_label(*group_key(score))] += 1
    return {
        **meta,
        "counts": counts,
        "errors_by_entry": dict(errors_by_method),
        "contract": contract_rates([s for s in scores if s.status == "ok" and s.family != "forecast"]),
        "answer_errors": [
            {"task_id": s.task_id, "entry": entry_label(*group_key(s)), "error": s.error}
            for s in scores
            if s.status == "error"
        ],
        "leaderboard": leaderboard(scores, settings),
        "forecast": forecast_summary(scores, settings),
        "diagnostics": {
            "low_score": low_score_rates(scores, settings.low_score_fraction),
            "correlations": metric_correlations(scores),
            "fact_fta_conflicts": fact_fta_conflicts(scores, settings.conflict_gap),
            "foresight_lift": foresight_lift(scores, persistence_method),
        },
        "metric_labels": metric_labels(),
        "metric_info": metric_info(),
    }


def _cell(entry: dict[str, Any], name: str) -> str:
    cell = entry["metrics"].get(name)
    if cell is None:
        return "–"
    mark = "*" if cell.get("leader") else "°" if cell.get("low_coverage") else ""
    return f"{cell['mean']:.3f}{mark}"


def offline_legend(names: Sequence[str]) -> str:
    """One line naming what each shown ``~off`` column stands in for ("FTA~off = FTA offline: ...")."""
    info = metric_info()
    parts = [f"{info[name]['label']} = {info[name]['description']}" for name in names
             if name in info and info[name]["label"].endswith("~off")]
    return "; ".join(parts)


def _repair_cell(entry: dict[str, Any]) -> str:
    contract = entry.get("contract") or {}
    return f"{100 * contract.get('rate', 0.0):.0f}%" if contract else "–"


BACKBONE_KEEP = 12
"""Backbone names up to this many characters are shown whole in the terminal leaderboard's label column;
longer ones get a short key (``b1``, ``b2``, ...) spelled out in the legend."""
LABEL_WIDTH = 20
"""The terminal leaderboard's label column: at most this wide (longer labels wrap, never cut)."""


def backbone_keys(entries: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Backbone name -> its short key (``b1``, ...) for the backbones longer than :data:`BACKBONE_KEEP`,
    in order of first appearance."""
    keys: dict[str, str] = {}
    for entry in entries:
        model = entry.get("model")
        if model and len(model) > BACKBONE_KEEP and model not in keys:
            keys[model] = f"b{len(keys) + 1}"
    return keys


def wrappable(label: str, width: int) -> str:
    """``label`` with a space where it may wrap when it is wider than ``width``: before an ``@version`` and
    after a URL's ``://`` (``first_option`` / ``@src:b20682c4c9c1``, ``http://`` / ``127.0.0.1:8765/``),
    so a folded label never splits a name mid-word when it need not."""
    return label.replace("@", " @").replace("://", ":// ") if len(label) > width else label


def short_label(entry: dict[str, Any], keys: dict[str, str]) -> str:
    """An entry's label with its backbone shown as its key (``native · b1``) when ``keys`` has one."""
    if "method" not in entry:
        return str(entry["label"])
    model = entry.get("model")
    return entry_label(entry["method"], keys.get(model, model) if model else None, entry.get("mode", "full"))


def leaderboard_tables(summary: dict[str, Any], family: str = "all", width: int = 80) -> list[Any]:
    """The leaderboard of one family as rich Tables that fit ``width`` columns (:func:`leaderboard_legend`
    says what their marks and backbone keys mean).

    Every column keeps its header on one line. Columns: entry, n, repair rate (answers re-asked or still
    breaking the task contract), evaluation (offline/judged/mixed, when the entries differ), then the
    metric means (* = leader, ° = too few tasks to lead), judged metrics first. The label column is
    "method" unless an entry names a backbone; a backbone name longer than :data:`BACKBONE_KEEP` shows as
    its key (``native · b1``). When the metric columns do not fit beside the label and the n/repair/eval
    columns, the rest go to a second table that repeats only the label column (80 columns hold a judged
    run's eight metrics in two tables); a repair column of 0% everywhere is left out when that keeps
    the board in one table.
    """
    from rich import box
    from rich.table import Table

    entries = [entry for entry in summary.get("leaderboard", []) if entry["family"] == family]
    if not entries:  # a run of forecasts only: no task board (not an empty table)
        return []
    names = [name for name in task_metric_names() if any(name in entry["metrics"] for entry in entries)]
    labels = metric_labels()
    keys = backbone_keys(entries)
    shown = [short_label(entry, keys) for entry in entries]
    kinds = {entry.get("evaluation", "offline") for entry in entries}
    fixed: list[tuple[str, Any]] = [("n", lambda entry: str(entry["n_rows"])), ("repair", _repair_cell)]
    if len(kinds) > 1:
        fixed.append(("eval", lambda entry: str(entry.get("evaluation", "offline")).split(" ")[0]))
    columns = [(labels.get(name, name), lambda entry, name=name: _cell(entry, name)) for name in names]

    def column_width(header: str, cell: Any) -> int:
        return max([len(header), *(len(cell(entry)) for entry in entries)]) + 3  # padding and divider

    label_header = "method · backbone" if any(entry.get("model") for entry in entries) else "method"
    label_width = min(max([len(label_header), *(len(label) for label in shown)]), LABEL_WIDTH)
    shown = [wrappable(label, label_width) for label in shown]
    # a table is 1 narrower than the sum of its column widths (no padding at its outer edges, 2 edge chars)
    room = width + 1 - (label_width + 3)

    def pack(fixed: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
        budget = room - sum(column_width(header, cell) for header, cell in fixed)
        groups: list[list[tuple[str, Any]]] = [[]]
        used = 0
        for header, cell in columns:
            needed = column_width(header, cell)
            if groups[-1] and used + needed > budget:
                groups.append([])
                used, budget = 0, room  # later tables repeat only the label column
            groups[-1].append((header, cell))
            used += needed
        return groups

    groups = pack(fixed)
    if len(groups) > 1 and all(_repair_cell(entry) in ("0%", "–") for entry in entries):
        bare = [column for column in fixed if column[0] != "repair"]  # a column that says nothing
        if len(pack(bare)) == 1:
            fixed, groups = bare, pack(bare)
    tables = []
    for index, group in enumerate(groups):
        part = f", part {index + 1} of {len(groups)}" if len(groups) > 1 else ""
        table = Table(title=f"leaderboard: {family}{part}", box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column(label_header, overflow="fold", width=label_width)
        shown_columns = [*fixed, *group] if index == 0 else group
        for header, cell in shown_columns:
            table.add_column(header, justify="right", no_wrap=True, width=column_width(header, cell) - 3)
        for label, entry in zip(shown, entries, strict=True):
            table.add_row(label, *(cell(entry) for _, cell in shown_columns))
        tables.append(table)
    return tables


def leaderboard_legend(summary: dict[str, Any], family: str = "all") -> str:
    """What :func:`leaderboard_tables` marks mean, the backbones its keys stand for and what each shown
    ``~off`` column approximates: printed after the tables at the terminal's width (a caption would wrap
    at the narrow table's)."""
    entries = [entry for entry in summary.get("leaderboard", []) if entry["family"] == family]
    if not entries:
        return ""
    names = [name for name in task_metric_names() if any(name in entry["metrics"] for entry in entries)]
    legend = offline_legend(names)
    keys = "; ".join(f"{key} = {model}" for model, key in backbone_keys(entries).items())
    lines = [f"mean over tasks; * leader; ° scored on under {LEADER_COVERAGE:.0%} of the column's most tasks "
             "(never the leader); repair = re-asked or invalid answers"]
    lines += [f"backbones: {keys}"] if keys else []
    return "\n".join([*lines, legend] if legend else lines)
