"""Import a ResearchForesight release (``tasks.jsonl`` + ``tasks_hidden_eval.jsonl``) into foresci types.

Faithful mappings only (``foresci.tasks.rf_families`` maps each family and subtype); every ground-truth
field without one is listed in ``HiddenTarget.unmapped`` and counted in the import summary (the manifest's
``counts.import_summary``). With pre-cutoff literature the importer counts each named option's papers up to
its own task's cutoff, so the audit can score persistence where their records hold no counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_file, write_manifest
from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl_numbered
from foresci.kb.models import Paper
from foresci.tasks.families import get_family
from foresci.tasks.hidden import Claim, HiddenTarget, Slot
from foresci.tasks.hidden_io import write_hidden
from foresci.tasks.models import Horizon, Task
from foresci.tasks.release import write_public
from foresci.tasks.rf_families import map_bottleneck, map_direction, map_planning, map_venue
from foresci.tasks.text import content_tokens
from foresci.tasks.windows import make_window

PUBLIC_FILE, HIDDEN_FILE = "tasks.jsonl", "tasks_hidden_eval.jsonl"
FAMILY_MAP: dict[str, str] = {
    "direction_forecasting": "direction_forecasting",
    "bottleneck_opportunity_discovery": "bottleneck_opportunity",
    "strategic_research_planning": "strategic_planning",
    "venue_aware_research_positioning": "venue_positioning",
    "venue_positioning": "venue_positioning",
    "venue_conditioned_positioning": "venue_positioning",
}
Mapper = Callable[[Task, Any, dict[str, Any]], set[str]]  # each takes its family's target
MAPPERS: dict[str, Mapper] = {
    "direction_forecasting": map_direction,
    "bottleneck_opportunity": map_bottleneck,
    "strategic_planning": map_planning,
    "venue_positioning": map_venue,
}
HORIZON_MAP: dict[str, Horizon] = {
    "quarter": "3m",
    "quarterly": "3m",
    "3m": "3m",
    "half_year": "6m",
    "half-year": "6m",
    "halfyear": "6m",
    "6m": "6m",
}
DOMAIN_SLUGS = {
    "LLM agents": "llm_agent",
    "LLM fine-tuning and post-training": "llm_finetuning_post_training",
    "RAG and retrieval structuring": "rag_and_retrieval_structuring",
    "Visual generative modeling and diffusion": "visual_generative_modeling_and_diffusion",
}
OPTION_MATCH = 0.75
UNMAPPED_TOP_LEVEL = ("judge", "candidate_quality_judge", "public_metadata", "evaluation_rubric")


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+", text or "") if len(part.strip()) > 20]


def _claims(row: dict[str, Any]) -> list[Claim]:
    points = [str(point) for point in row.get("expected_answer_points") or []]
    texts = points or _sentences(str(row.get("gold_answer") or ""))
    return [Claim(claim_id=f"c{index}", text=text) for index, text in enumerate(texts, start=1)]


def _public(row: dict[str, Any], hidden_row: dict[str, Any], family: str, path: Path, line: int) -> Task:
    horizon = HORIZON_MAP.get(str(row.get("horizon", "")))
    if horizon is None:
        raise UserError(
            f"unknown horizon {row.get('horizon')!r} (known: {sorted(HORIZON_MAP)})",
            path=path,
            line=line,
            field="horizon",
        )
    try:
        cutoff = date.fromisoformat(str(row["time_cutoff"]))
    except (KeyError, ValueError) as error:
        raise UserError(
            f"no ISO date: {row.get('time_cutoff')!r}", path=path, line=line, field="time_cutoff"
        ) from error
    window = make_window(cutoff, horizon)
    spec = row.get("deliverable_spec") or {}
    domain = str(hidden_row.get("domain") or DOMAIN_SLUGS.get(row["domain"], row["domain"]))
    return Task(
        task_id=row["task_id"],
        family=family,
        domain=domain,
        cutoff=cutoff,
        horizon=horizon,
        window_start=window.start,
        window_end=window.end,
        title=row["title"],
        question=row["question"],
        deliverable=list(spec.get("requirements") or []),
        context={"domain_name": row["domain"], "answer_format": spec.get("format")},
        source="researchforesight",
        subtype=row.get("subtype"),
    )


def count_pre_cutoff(names: Iterable[str], papers: Iterable[Paper], cutoff: date) -> dict[str, int]:
    """Papers announced on or before ``cutoff`` whose text holds >= 75 % of each name's content words."""
    wanted = {name: set(content_tokens(name)) for name in names}
    counts = dict.fromkeys(wanted, 0)
    for paper in papers:
        if paper.announced > cutoff:
            continue
        words = set(content_tokens(paper.text))
        for name, tokens in wanted.items():
            if tokens and len(tokens & words) >= OPTION_MATCH * len(tokens):
                counts[name] += 1
    return counts


def add_pre_cutoff_counts(
    tasks: Sequence[Task], targets: Sequence[HiddenTarget], papers: Sequence[Paper], source: str
) -> int:
    """Record, for every task with two or more options and no recorded counts, each option's pre-cutoff
    papers up to that task's own cutoff, and the persistence outcome; returns the tasks counted."""
    by_cutoff: dict[date, list[tuple[Task, HiddenTarget]]] = {}
    for task, target in zip(tasks, targets, strict=True):
        if len(task.candidates) >= 2 and "option_pre_counts" not in target.stats:
            by_cutoff.setdefault(task.cutoff, []).append((task, target))
    for cutoff, pairs in sorted(by_cutoff.items()):
        names = {candidate.name for task, _ in pairs for candidate in task.candidates}
        counts = count_pre_cutoff(names, papers, cutoff)
        for task, target in pairs:
            target.stats["option_pre_counts"] = {
                candidate.option_id: counts[candidate.name] for candidate in task.candidates
            }
            target.stats["pre_counts_source"] = f"{source} up to the task's cutoff {cutoff.isoformat()}"
            set_persistence(target)
    return sum(len(pairs) for pairs in by_cutoff.values())


def set_persistence(target: HiddenTarget) -> None:
    """Persistence outcome from ``option_pre_counts``: the unique option with most pre-cutoff papers is
    the answer; None (not evaluable) on a tie or without a hidden top."""
    counts: dict[str, int] = target.stats.get("option_pre_counts") or {}
    top = target.top_option()
    if not counts or top is None or "persistence_match" in target.stats:
        return
    most = max(counts.values())
    leaders = [option for option, count in counts.items() if count == most]
    if len(leaders) == 1:
        target.stats["persistence_answer"] = leaders[0]
        target.stats["persistence_match"] = leaders[0] == top


def _read_rows(path: Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise UserError(
            f"no {what} file; a ResearchForesight release holds {PUBLIC_FILE} and {HIDDEN_FILE}", path=path
        )
    return list(iter_jsonl_numbered(path))


def import_researchforesight(src: Path | str, out: Path | str, papers: Iterable[Paper] | None = None) -> Path:
    """Convert a ResearchForesight release folder into a foresci release folder at ``out``.

    ``papers``: optional literature (e.g. ``kb.papers()``); options are counted on papers up to each
    task's own cutoff. Unknown families are skipped and counted in the summary.
    """
    src, out = Path(src), Path(out)
    public_path, hidden_path = src / PUBLIC_FILE, src / HIDDEN_FILE
    public_rows = _read_rows(public_path, "public tasks")
    hidden_rows: dict[str, dict[str, Any]] = {
        row["task_id"]: row for _, row in _read_rows(hidden_path, "hidden targets")
    }
    tasks: list[Task] = []
    targets: list[HiddenTarget] = []
    skipped: Counter[str] = Counter()
    for line, row in public_rows:
        hidden_row = hidden_rows.get(row.get("task_id", ""))
        if hidden_row is None:
            raise UserError(
                f"task {row.get('task_id')!r} has no row in {HIDDEN_FILE}",
                path=public_path,
                line=line,
                field="task_id",
            )
        family = FAMILY_MAP.get(str(row.get("family")))
        if family is None:
            skipped[str(row.get("family"))] += 1
            continue
        task = _public(row, hidden_row, family, public_path, line)
        truth = hidden_row.get("ground_truth") or {}
        target = get_family(family).hidden_model()(task_id=task.task_id, family=family,
                                                   claims=_claims(hidden_row))
        target.stats["subtype"] = row.get("subtype")
        target.stats["source_family"] = hidden_row.get("family")
        used = MAPPERS[family](task, target, truth)
        reference = truth.get("reference_papers") or {}
        target.evidence_ids = [
            item["paper_id"]
            for key, items in reference.items()
            if key != "history"
            for item in items
            if "paper_id" in item
        ][:20]
        target.unmapped = sorted(
            f"ground_truth.{key}" for key in truth if key not in used | {"reference_papers"}
        )
        target.unmapped += [key for key in UNMAPPED_TOP_LEVEL if hidden_row.get(key)]
        if family == "bottleneck_opportunity" and not getattr(target, "opportunity", []):
            target.unmapped.append("opportunity: no realized opportunity in their ground truth")
        if family == "venue_positioning" and not getattr(target, "ranking", []):
            target.unmapped.append("venue ordering: no top-tier venue bucket in their records")
        if not target.slots:
            target.slots.append(
                Slot(name="gold_answer", variants=[str(hidden_row.get("gold_answer") or task.title)])
            )
        tasks.append(task)
        targets.append(target)
    counted = add_pre_cutoff_counts(tasks, targets, list(papers), "KB papers") if papers is not None else 0
    for target in targets:
        set_persistence(target)
    summary = import_summary(tasks, targets, skipped, counted)
    out.mkdir(parents=True, exist_ok=True)
    files = write_public(out, tasks)
    files.append(write_hidden(out, targets))
    write_manifest(
        out,
        "release",
        inputs={
            "source": str(src),
            "tasks_sha256": sha256_file(public_path),
            "hidden_sha256": sha256_file(hidden_path),
            "pre_cutoff_papers_counted": papers is not None,
        },
        config={"importer": "researchforesight"},
        files=files,
        counts={
            "tasks": len(tasks),
            "cutoffs": sorted({task.cutoff.isoformat() for task in tasks}),
            "import_summary": summary,
        },
    )
    return out


def import_summary(
    tasks: Sequence[Task], targets: Sequence[HiddenTarget], skipped: Counter[str], counted: int
) -> dict[str, Any]:
    """Counts per family/subtype, options given, unmapped fields, skipped families, KB-counted tasks."""
    return {
        "by_family": dict(Counter(task.family for task in tasks)),
        "by_subtype": dict(Counter(f"{task.family}/{task.subtype}" for task in tasks)),
        "with_candidates": dict(Counter(task.family for task in tasks if task.candidates)),
        "single_option": sum(len(task.candidates) == 1 for task in tasks),
        "unmapped_fields": dict(
            Counter(field for target in targets for field in target.unmapped).most_common()
        ),
        "skipped_families": dict(skipped),
        "options_counted_on_kb": counted,
    }


def render_summary(summary: dict[str, Any]) -> str:
    """Plain-text import summary (what ``foresci tasks import-rf`` prints before the audit)."""
    lines = [
        "import summary:",
        "  by subtype: "
        + ", ".join(f"{key}={value}" for key, value in sorted(summary["by_subtype"].items())),
        "  tasks with candidate options: "
        + ", ".join(f"{key}={value}" for key, value in sorted(summary["with_candidates"].items())),
        f"  tasks with a single option: {summary['single_option']}",
        f"  tasks whose options were counted on the KB: {summary['options_counted_on_kb']}",
    ]
    if summary["skipped_families"]:
        lines.append(
            "  skipped (unknown family): "
            + ", ".join(f"{key}={value}" for key, value in summary["skipped_families"].items())
        )
    lines.append(
        "  unmapped fields (tasks): "
        + ", ".join(f"{key}={value}" for key, value in summary["unmapped_fields"].items())
    )
    return "\n".join(lines)
