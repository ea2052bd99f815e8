"""``write_report``: a static, self-contained HTML report (and ``report.md``) from evaluated runs."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, Undefined

from foresci.contracts import Answer
from foresci.core.errors import UserError
from foresci.core.io import read_json, read_models, write_json
from foresci.core.settings import Settings
from foresci.core.transcript_log import (
    JUDGE_TRANSCRIPTS_FILE,
    TRANSCRIPTS_FILE,
    event_parts,
    read_transcripts,
)
from foresci.evaluation.loading import answer_key, load_answers
from foresci.evaluation.metrics import (
    all_metrics,
    answer_text,
    headline_metric_names,
    metric_info,
    metric_labels,
    offline_stand_ins,
    task_metric_names,
)
from foresci.evaluation.models import Score
from foresci.evaluation.paired import base_method
from foresci.evaluation.plots import coverage_bars, low_score_heatmap, reliability_diagram
from foresci.evaluation.report_template import REPORT_TEMPLATE, TABLE_MACRO
from foresci.evaluation.report_versions import (
    renamed_answers,
    renamed_scores,
    renames,
    split_note,
    versions_by_method,
)
from foresci.evaluation.runner import SCORES_NAME, SUMMARY_NAME
from foresci.evaluation.summary import build_summary, entry_label
from foresci.evaluation.trace import citation_note
from foresci.tasks.models import Task


def drilldown_metric_names() -> list[str]:
    """The metrics a drill-down row shows first: the headline ones and their offline stand-ins, in
    registration order."""
    shown = {*headline_metric_names(), *offline_stand_ins().values()}
    return [metric.name for metric in all_metrics() if metric.name in shown]


def fmt(value: Any) -> str:
    """A number with three decimals, '–' for missing values."""
    if value is None or isinstance(value, Undefined):
        return "–"
    if isinstance(value, str):
        return value
    return f"{float(value):.3f}"


def cell(metric: dict[str, Any] | None) -> str:
    """'mean [low, high]' of an aggregated metric, '–' when absent."""
    if not metric:
        return "–"
    return f"{metric['mean']:.3f} [{metric['low']:.3f}, {metric['high']:.3f}]"


def data_uri(png: bytes) -> str:
    """A PNG as an inline data URI."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def load_scored_run(run_dir: Path) -> tuple[dict[str, Any], list[Score]]:
    """The summary and scores of an evaluated run; errors say to run `foresci eval` first."""
    summary_path, scores_path = Path(run_dir) / SUMMARY_NAME, Path(run_dir) / SCORES_NAME
    if not summary_path.is_file() or not scores_path.is_file():
        raise FileNotFoundError(
            f"{run_dir}: no {SUMMARY_NAME}/{SCORES_NAME}; run `foresci eval {run_dir}` first"
        )
    return read_json(summary_path), read_models(scores_path, Score)


def _tasks_of(release: str | None) -> dict[str, Task]:
    if not release or not (Path(release) / "tasks.jsonl").is_file():
        return {}
    return {task.task_id: task for task in read_models(Path(release) / "tasks.jsonl", Task)}


def _metric_note(name: str, result: Any) -> str:
    """The drill-down note of one metric result: the failure or why unavailable, else the metric's own."""
    if result.error:
        return f"judge error: {result.error}"
    if not result.available:
        return result.reason or "unavailable"
    metric = next((metric for metric in all_metrics() if metric.name == name), None)
    note = metric.note(result) if metric is not None else ""
    outcome = (result.details or {}).get("outcome")
    return note or (f"outcome {outcome:g}" if isinstance(outcome, int | float) else "")


def _questions_of(release: str | None) -> dict[str, str]:
    """The text of each forecast question of ``release`` by id (its public forecast.jsonl)."""
    path = Path(release) / "forecast.jsonl" if release else None
    if path is None or not path.is_file():
        return {}
    from foresci.tasks.models import ForecastQuestion

    return {row.question_id: row.text for row in read_models(path, ForecastQuestion)}


def forecast_text(answer: Answer) -> str:
    """A forecast row's answer as read: its quantiles or its probability."""
    values = [f"{name} {answer.payload[name]:g}" for name in ("p10", "p50", "p90", "probability")
              if answer.payload.get(name) is not None]
    return ", ".join(values) or "(no forecast)"


def pool_scores(runs: Sequence[tuple[Path, Sequence[Score]]]) -> tuple[list[Score], list[str]]:
    """The rows of several runs with each (task, method, backbone, mode) counted once, and notes saying so.

    When a row is in several runs, a judged score is kept over an offline one, else the first run's.
    """
    kept: dict[str, tuple[Path, Score]] = {}
    repeats: dict[str, list[Path]] = {}
    for run_dir, scores in runs:
        for score in scores:
            key = score.key or answer_key(score.task_id, score.method, score.model, score.mode)
            if key not in kept:
                kept[key] = (run_dir, score)
                continue
            repeats.setdefault(key, [kept[key][0]]).append(run_dir)
            if score.evaluation == "judged" and kept[key][1].evaluation != "judged":
                kept[key] = (run_dir, score)
    notes = []
    if repeats:
        folders = sorted({str(path) for paths in repeats.values() for path in paths})
        example = next(iter(repeats))
        notes.append(
            f"{len(repeats)} row(s) with the same task, method, backbone and mode are in more than one run "
            f"({', '.join(folders)}) and are counted once (a judged score over an offline one, else the "
            f"first run's); e.g. {example}"
        )
    return [score for _, score in kept.values()], notes


def evaluation_text(evaluations: dict[str, str]) -> str:
    """How the runs were evaluated, e.g. 'offline', 'judged' or 'mixed: a offline, b judged'."""
    kinds = set(evaluations.values())
    if len(kinds) <= 1:
        return next(iter(kinds), "offline")
    return "mixed: " + ", ".join(f"{run} {kind}" for run, kind in evaluations.items())


def backbone_pivot(overall: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Table 2 layout: one row per method, one column group per backbone, the headline metrics' means
    (Fact/FTA/Trace/Pers and any headline metric registered after them).

    Each headline column uses the judged metric when any entry has it, else its offline stand-in
    (labelled as such). Name-only entries are left out (they appear in the main leaderboard).
    """
    entries = [entry for entry in overall if entry["mode"] == "full"]
    metrics = []
    stand_ins = offline_stand_ins()
    for judged in headline_metric_names():
        offline = stand_ins.get(judged)
        if any(judged in entry["metrics"] for entry in entries):
            metrics.append(judged)
        elif offline and any(offline in entry["metrics"] for entry in entries):
            metrics.append(offline)
    backbones = sorted({entry["model"] or "non-LLM" for entry in entries})
    rows: dict[str, dict[str, dict[str, str]]] = {}
    for entry in entries:
        cells = rows.setdefault(entry["method"], {})
        cells[entry["model"] or "non-LLM"] = {
            name: fmt(entry["metrics"][name]["mean"]) if name in entry["metrics"] else "–" for name in metrics
        }
    return {
        "backbones": backbones,
        "metrics": metrics,
        "rows": [{"method": method, "cells": cells} for method, cells in sorted(rows.items())],
    }


def transcript_view(stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored transcript as the drill-down shows it: a one-line summary and, per event, its messages,
    the model's text and the other fields as JSON (tool arguments and results, tokens, timings)."""
    if stored is None:
        return None
    totals = stored.get("totals") or {}
    summary = (
        f"{totals.get('calls', 0):g} model call(s), {totals.get('cache_hits', 0):g} cache hit(s), "
        f"{totals.get('prompt_tokens', 0):g}+{totals.get('completion_tokens', 0):g} tokens, "
        f"{totals.get('tool_calls', 0):g} tool call(s), {totals.get('retries', 0):g} retries, "
        f"{totals.get('reasks', 0):g} re-asks, {totals.get('evidence_dropped', 0):g} evidence line(s) "
        f"dropped to fit the context, {totals.get('llm_seconds', 0):g} s waiting for the model"
    )
    events = []
    for event in stored.get("events", []):
        parts = event_parts(event)
        fields = parts["fields"]
        parts["fields"] = (
            json.dumps(fields, ensure_ascii=False, sort_keys=True, default=str) if fields else ""
        )
        events.append(parts)
    return {"id": stored.get("id"), "unit": stored.get("unit"), "summary": summary, "events": events}


def drilldown_rows(
    scores: Sequence[Score],
    answers: dict[str, Answer],
    tasks: dict[str, Task],
    limit: int,
    transcripts: dict[str, dict[str, Any]] | None = None,
    questions: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One drill-down record per scored row: task, answer text, evidence, every metric, and the
    transcripts of the answer and of its judge calls (from ``transcripts``, by id)."""
    transcripts = transcripts or {}
    labels, shown_first = metric_labels(), drilldown_metric_names()
    rows = []
    for score in list(scores)[:limit]:
        answer = answers.get(score.key or "")
        task = tasks.get(score.task_id)
        answer_transcript = transcripts.get(answer.transcript) if answer and answer.transcript else None
        judge_transcript = transcripts.get(score.transcript) if score.transcript else None
        headline = [
            (labels.get(name, name), fmt(score.metrics[name].value))
            for name in shown_first
            if name in score.metrics and score.metrics[name].available
        ]
        rows.append(
            {
                "task_id": score.task_id,
                "family": score.family,
                "status": score.status,
                "error": score.error,
                "citations": citation_note(score.citations) if score.citations else "",
                "evidence_none": score.evidence == "none",
                "label": entry_label(score.method, score.model, score.mode),
                "evaluation": score.evaluation,
                "contract": score.contract,
                "contract_notes": score.contract_notes,
                "headline": headline,
                "title": task.title if task else "",
                "question": task.question if task else (questions or {}).get(score.task_id, ""),
                "text": (forecast_text(answer) if score.family == "forecast" else answer_text(answer))
                if answer else "",
                "evidence": [item.model_dump() for item in answer.support.evidence[:12]]
                if answer and answer.support
                else [],
                "metrics": [
                    {
                        "name": name,
                        "value": result.value,
                        "precision": result.precision,
                        "recall": result.recall,
                        "variance": result.variance,
                        "note": _metric_note(name, result),
                    }
                    for name, result in score.metrics.items()
                ],
                "transcripts": [
                    (title, view)
                    for title, stored in (("Answer transcript", answer_transcript),
                                          ("Judge transcript", judge_transcript))
                    if (view := transcript_view(stored)) is not None
                ],
            }
        )
    return rows


def load_transcripts(
    run_dirs: Sequence[Path], answers: dict[str, Answer], scores: Sequence[Score]
) -> dict[str, dict[str, Any]]:
    """The answer and judge transcripts the given rows reference, by id, from every run folder."""
    wanted = {answer.transcript for answer in answers.values() if answer.transcript}
    wanted |= {score.transcript for score in scores if score.transcript}
    found: dict[str, dict[str, Any]] = {}
    for run_dir in run_dirs:
        for name in (TRANSCRIPTS_FILE, JUDGE_TRANSCRIPTS_FILE):
            found.update(read_transcripts(Path(run_dir) / name, wanted))
    return found


def _taxonomy_figures(
    taxonomy_dirs: Sequence[Path], work_dir: Path
) -> tuple[list[tuple[str, str]], list[str]]:
    """Taxonomy and node growth PNGs (the taxonomy component's plots) for each taxonomy folder given.

    A folder that is not a taxonomy (or a taxonomy without snapshots) becomes a note, not a failure.
    """
    if not taxonomy_dirs:
        return [], []
    from foresci.taxonomy.plots import plot_node_growth, plot_taxonomy_growth
    from foresci.taxonomy.store import load_taxonomy

    figures: list[tuple[str, str]] = []
    notes: list[str] = []
    for index, folder in enumerate(taxonomy_dirs):
        try:
            history = load_taxonomy(folder)
            paths = [
                plot_taxonomy_growth(history, work_dir / f"taxonomy_growth_{index}.png"),
                plot_node_growth(history.final, work_dir / f"node_growth_{index}.png"),
            ]
        except (FileNotFoundError, ValueError, UserError) as error:
            notes.append(f"{folder}: no growth plots ({error})")
            continue
        for path in paths:
            figures.append(
                (
                    f"{history.domain}: {Path(path).stem.rsplit('_', 1)[0].replace('_', ' ')}",
                    data_uri(Path(path).read_bytes()),
                )
            )
    return figures, notes


def _repair(entry: dict[str, Any]) -> str:
    contract = entry.get("contract")
    if not contract:
        return "–"
    return f"{100 * contract['rate']:.0f}% ({contract['repaired']} repaired, {contract['invalid']} invalid)"


def _review_notes(summaries: Sequence[dict[str, Any]]) -> list[str]:
    """Each scored release's review line (foresci.tasks.review): reviewed by whom, or not reviewed."""
    from foresci.core.io import read_json
    from foresci.tasks.review import review_line

    notes = []
    for release in sorted({str(summary.get("release")) for summary in summaries if summary.get("release")}):
        manifest = Path(release) / "manifest.json"
        if manifest.is_file():
            notes.append(f"{release}: {review_line(read_json(manifest))}")
    return notes


def _markdown(summary: dict[str, Any], metric_names: list[str]) -> str:
    labels = metric_labels()
    lines = [
        "# foresci evaluation report",
        "",
        f"Runs: {', '.join(summary.get('runs', [summary.get('run_dir', '')]))}; "
        f"release: {summary.get('release')}; "
        f"evaluation: {summary['evaluation_text']}.",
        "",
        *(f"Note: {note}" for note in summary.get("notes", [])),
        "",
    ]
    mixed = summary["evaluation_text"].startswith("mixed")
    for family in ["all", *sorted({e["family"] for e in summary["leaderboard"]} - {"all"})]:
        entries = [e for e in summary["leaderboard"] if e["family"] == family]
        extra = ["evaluation"] if mixed else []
        lines += [
            f"## Leaderboard: {family}",
            "",
            "| method · backbone | n | repair rate | "
            + " | ".join([*extra, *(labels.get(n, n) for n in metric_names)])
            + " |",
            "|---|---:|---:|" + "---|" * len(extra) + "---:|" * len(metric_names),
        ]
        for entry in entries:
            values = [
                fmt(entry["metrics"][n]["mean"]) if n in entry["metrics"] else "–" for n in metric_names
            ]
            kinds = [str(entry.get("evaluation", "offline"))] if mixed else []
            cells = [entry["label"], str(entry["n_rows"]), _repair(entry), *kinds, *values]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    diagnostics = summary["diagnostics"]
    lines += ["## Diagnostics", "", "Low-score rates (bottom 20 %) by family:", ""]
    for group, rates in sorted(diagnostics["low_score"]["by_family"].items()):
        lines.append(f"- {group}: " + ", ".join(f"{k} {v:.2f}" for k, v in rates.items()))
    conflicts = diagnostics["fact_fta_conflicts"]
    lines += ["", f"Fact–FTA conflicts (|gap| ≥ {conflicts['gap']}): {conflicts['count']}", ""]
    for row in diagnostics["correlations"]:
        lines.append(
            f"- {row['pair']}: n={row['n']}, Spearman {fmt(row['spearman'])}, Pearson {fmt(row['pearson'])}"
        )
    counts = summary.get("counts", {})
    lines += [
        "",
        "## Rows",
        "",
        f"{counts.get('rows', 0)} rows, {counts.get('scored', 0)} scored, "
        f"{counts.get('answer_errors', 0)} answer errors, {counts.get('evidence_none', 0)} answered from no "
        f"paper (evidence: none), {counts.get('unknown_citations', 0)} unknown and "
        f"{counts.get('after_cutoff_citations', 0)} after-cutoff citations.",
    ]
    if counts.get("citations_not_checked"):
        lines += ["", f"{counts['citations_not_checked']} answer(s) with support: citations not checked and "
                  "Trace, Trace~off not computed, for want of a KB (give `foresci eval RUN --kb KB`)."]
    errors = summary.get("answer_errors") or []
    if errors:
        lines += ["", "## Answer errors", "", "| task | method · backbone | error |", "|---|---|---|"]
        for row in errors:
            message = " ".join(str(row.get("error") or "").split()).replace("|", "\\|")[:300]
            lines.append(f"| {row['task_id']} | {row['entry']} | {message} |")
    unanswered = summary.get("tasks_without_answer") or []
    if unanswered:
        lines += ["", f"## Tasks with no answer ({len(unanswered)})", "", ", ".join(unanswered)]
    if summary.get("forecast"):
        lines += ["", "## Forecasts", "",
                  "| method | CRPS | Brier | Brier skill | CRPS skill vs ref. | Brier skill vs ref. |",
                  "|---|---:|---:|---:|---:|---:|"]
        for entry in summary["forecast"]:
            versus = entry.get("skill_vs_reference") or {}
            lines.append(
                f"| {entry['label']} | {cell(entry['metrics'].get('crps'))} | "
                f"{cell(entry['metrics'].get('brier'))} | {fmt(entry.get('brier_skill'))} | "
                f"{fmt(versus.get('crps'))} | {fmt(versus.get('brier'))} |"
            )
    if summary.get("paired"):
        from foresci.evaluation.paired import paired_lines

        lines += ["", "## Paired differences (same method, other label or version)", "",
                  *(f"- {line}" for line in paired_lines(summary["paired"]))]
    return "\n".join(lines) + "\n"


def write_report(
    run_dirs: Sequence[Path], out_dir: Path, settings: Settings, taxonomy_dirs: Sequence[Path] = ()
) -> Path:
    """Write ``out_dir/index.html`` (self-contained), ``report.md``, ``summary.json``; return the HTML path.

    One run: its own summary.json is shown as is. Several runs: their scores are pooled and summarised
    again (so entries are comparable and p-values are against the pooled leader).
    """
    if not run_dirs:
        raise ValueError("write_report needs at least one run folder")
    summaries, per_run, answers, tasks = [], [], {}, {}
    questions: dict[str, str] = {}
    run_answers: list[list[Answer]] = []
    for run_dir in run_dirs:
        summary, scores = load_scored_run(Path(run_dir))
        summaries.append(summary)
        per_run.append((Path(run_dir), scores))
        has_answers = any((Path(run_dir) / name).is_file() for name in ("answers.jsonl", "forecasts.jsonl"))
        run_answers.append(load_answers(Path(run_dir)) if has_answers else [])
        tasks.update(_tasks_of(summary.get("release")))
        questions.update(_questions_of(summary.get("release")))
    names = renames([versions_by_method(rows) for rows in run_answers]) if len(run_dirs) > 1 else []
    if any(names):  # a method at other versions in other runs: its rows are kept apart
        per_run = [(path, renamed_scores(scores, renamed))
                   for (path, scores), renamed in zip(per_run, names, strict=True)]
        run_answers = [renamed_answers(rows, renamed)
                       for rows, renamed in zip(run_answers, names, strict=True)]
    for rows in run_answers:
        for answer in rows:
            answers[answer_key(answer.task_id, answer.method, answer.model, answer.mode)] = answer
    all_scores, notes = pool_scores(per_run)
    if any(names) and (note := split_note([Path(run) for run in run_dirs], names)):
        notes.insert(0, note)
    evaluations = {  # a run no judge scored (e.g. forecasts only) is offline, whatever was asked
        str(path): "judged" if not summary.get("offline") and any(s.evaluation == "judged" for s in scores)
        else "offline"
        for (path, scores), summary in zip(per_run, summaries, strict=True)
    }
    if len(summaries) == 1:
        combined = dict(summaries[0])
    else:
        combined = build_summary(
            all_scores,
            settings.evaluation,
            {
                "release": ", ".join(sorted({str(s.get("release")) for s in summaries})),
                "offline": all(s.get("offline") for s in summaries),
            },
        )
    from foresci.evaluation.emergence import SECTION, emergence_markdown, emergence_table, merge_sections

    bulk = merge_sections([summary.get(SECTION) for summary in summaries])
    if bulk is not None:
        combined[SECTION] = bulk
    combined["runs"] = [str(path) for path in run_dirs]
    combined["evaluations"] = evaluations
    combined["evaluation_text"] = evaluation_text(evaluations)
    combined["notes"] = [*notes, *_review_notes(summaries)]
    if len(run_dirs) > 1 or len({score.method for score in all_scores}) > 1:
        from foresci.evaluation.paired import paired_differences

        paired = paired_differences(all_scores, task_metric_names())
        if paired:  # versions or labels of one method side by side
            combined["paired"] = paired
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    leaderboard = combined["leaderboard"]
    metric_names = [n for n in task_metric_names() if any(n in e["metrics"] for e in leaderboard)]
    overall = sorted(
        [e for e in leaderboard if e["family"] == "all"], key=lambda e: (e["model"] or "", e["method"])
    )
    per_family: dict[str, list[dict[str, Any]]] = {}
    for entry in leaderboard:
        if entry["family"] != "all":
            per_family.setdefault(entry["family"], []).append(entry)
    low = combined["diagnostics"]["low_score"]
    heatmaps = [
        (title, data_uri(png))
        for title, rates in (
            ("Low-score rate by family", low["by_family"]),
            ("Low-score rate by method", low["by_method"]),
        )
        if (png := low_score_heatmap(rates, title)) is not None
    ]
    forecast = combined.get("forecast", [])
    forecast_plots = []
    if (png := reliability_diagram({e["label"]: e.get("reliability", []) for e in forecast})) is not None:
        forecast_plots.append(("reliability diagram", data_uri(png)))
    if (png := coverage_bars({e["label"]: e["coverage"] for e in forecast if e.get("coverage")})) is not None:
        forecast_plots.append(("coverage bars", data_uri(png)))
    taxonomy_plots, taxonomy_notes = _taxonomy_figures(taxonomy_dirs, out_dir / "figures")
    limit = settings.evaluation.drilldown_limit
    shown = all_scores[:limit]
    shown_answers = {key: answers[key] for score in shown if (key := score.key or "") in answers}
    transcripts = load_transcripts(run_dirs, shown_answers, shown)
    environment = Environment(autoescape=True, undefined=Undefined)
    template = environment.from_string(TABLE_MACRO + REPORT_TEMPLATE)
    html = template.render(
        runs=combined["runs"],
        release=combined.get("release"),
        offline=combined.get("offline"),
        any_offline="offline" in evaluations.values(),
        evaluation=combined["evaluation_text"],
        mixed=len(set(evaluations.values())) > 1,
        notes=notes,
        counts=combined["counts"],
        overall=overall,
        per_family=per_family,
        metric_names=metric_names,
        labels=metric_labels(),
        metric_info=metric_info(),
        low=low,
        heatmaps=heatmaps,
        correlations=combined["diagnostics"]["correlations"],
        conflicts=combined["diagnostics"]["fact_fta_conflicts"],
        lift=combined["diagnostics"]["foresight_lift"],
        pivot=backbone_pivot(overall),
        forecast=forecast,
        forecast_plots=forecast_plots,
        taxonomy_plots=taxonomy_plots,
        taxonomy_notes=taxonomy_notes,
        rows=drilldown_rows(all_scores, answers, tasks, limit, transcripts, questions),
        truncated=len(all_scores) if len(all_scores) > limit else 0,
        paired=combined.get("paired", []),
        emergence=emergence_table(bulk),
        emergence_note=(bulk or {}).get("note"),
        base_method=base_method,
        fmt=fmt,
        cell=cell,
    )
    index = out_dir / "index.html"
    index.write_text(html, encoding="utf-8")
    markdown = _markdown(combined, metric_names)
    if lines := emergence_markdown(bulk):
        markdown += "\n".join(lines) + "\n"
    (out_dir / "report.md").write_text(markdown, encoding="utf-8")
    write_json(out_dir / "summary.json", combined)
    return index
