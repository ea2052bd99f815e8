"""Import a ResearchForesight release (``tasks.jsonl`` + ``tasks_hidden_eval.jsonl``) into foresci types.

Faithful mappings only; every ground-truth field without one is listed in ``HiddenTarget.unmapped``.
Facts the audit needs that their files state (node creation slices, counts) go to ``HiddenTarget.stats``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import Any

from foresci.artifacts import sha256_file, write_manifest
from foresci.io import iter_jsonl
from foresci.kb.models import Paper
from foresci.tasks.hidden import Claim, HiddenTarget, Slot
from foresci.tasks.hidden_io import write_hidden
from foresci.tasks.models import Family, Horizon, Task
from foresci.tasks.release import write_public
from foresci.tasks.text import content_tokens
from foresci.tasks.windows import make_window

FAMILY_MAP: dict[str, Family] = {"direction_forecasting": "direction_forecasting",
              "bottleneck_opportunity_discovery": "bottleneck_opportunity",
              "strategic_research_planning": "strategic_planning",
              "venue_positioning": "venue_positioning", "venue_conditioned_positioning": "venue_positioning"}
HORIZON_MAP: dict[str, Horizon] = {"quarter": "3m", "quarterly": "3m", "3m": "3m", "half_year": "6m",
                                   "half-year": "6m",
               "6m": "6m"}
DOMAIN_SLUGS = {"LLM agents": "llm_agent",
                "LLM fine-tuning and post-training": "llm_finetuning_post_training",
                "RAG and retrieval structuring": "rag_and_retrieval_structuring",
                "Visual generative modeling and diffusion": "visual_generative_modeling_and_diffusion"}
SLICE = re.compile(r"^(\d{4})Q([1-4])$")
OPTION_MATCH = 0.75


def slice_start(label: str | None) -> date | None:
    """First day of a 'YYYYQn' time slice; None when absent or malformed."""
    match = SLICE.match(label or "")
    if not match:
        return None
    return date(int(match.group(1)), 3 * (int(match.group(2)) - 1) + 1, 1)


def _humanise(name: str) -> str:
    return name.replace("_", " ").strip()


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+", text or "") if len(part.strip()) > 20]


def _claims(row: dict[str, Any]) -> list[Claim]:
    points = [str(point) for point in row.get("expected_answer_points") or []]
    texts = points or _sentences(row.get("gold_answer", ""))
    return [Claim(claim_id=f"c{index}", text=text) for index, text in enumerate(texts, start=1)]


def _public(row: dict[str, Any], hidden_row: dict[str, Any], where: str) -> Task:
    family = FAMILY_MAP.get(row["family"])
    if family is None:
        raise ValueError(f"{where}: field family: unknown ResearchForesight family {row['family']!r}")
    horizon = HORIZON_MAP.get(str(row.get("horizon", "")))
    if horizon is None:
        raise ValueError(f"{where}: field horizon: unknown horizon {row.get('horizon')!r}")
    cutoff = date.fromisoformat(row["time_cutoff"])
    window = make_window(cutoff, horizon)
    spec = row.get("deliverable_spec") or {}
    domain = hidden_row.get("domain") or DOMAIN_SLUGS.get(row["domain"], row["domain"])
    return Task(task_id=row["task_id"], family=family, domain=domain, cutoff=cutoff, horizon=horizon,
                window_start=window.start, window_end=window.end, title=row["title"],
                question=row["question"],
                deliverable=list(spec.get("requirements") or []),
                context={"domain_name": row["domain"], "answer_format": spec.get("format")},
                source="researchforesight", subtype=row.get("subtype"))


def _direction(target: HiddenTarget, truth: dict[str, Any], cutoff: date) -> set[str]:
    terminal = truth.get("future_terminal") or {}
    used = {"future_terminal", "trajectory", "emergent_descendants"}
    name = _humanise(terminal.get("display_name", ""))
    if name:
        target.slots.append(Slot(name="primary_direction", variants=[name]))
        target.stats["primary_direction_name"] = name
    neighbours = [_humanise(item.get("display_name", "")) for item in truth.get("emergent_descendants") or []]
    target.stats["acceptable_direction_names"] = [item for item in neighbours if item and item != name]
    label = (truth.get("trajectory") or {}).get("trajectory_label")
    if label in ("accelerating", "fragmenting", "steady", "cooling"):
        target.trajectory = label
        target.slots.append(Slot(name="trajectory", variants=[label]))
    created = slice_start(terminal.get("created_time_slice"))
    target.stats["target_created"] = terminal.get("created_time_slice")
    target.stats["target_created_after_cutoff"] = created is not None and created > cutoff
    target.stats["trajectory_measures"] = truth.get("trajectory")
    target.stats["persistence_match"] = None
    return used


def _bottleneck(target: HiddenTarget, truth: dict[str, Any]) -> set[str]:
    used = {"historical_limitation_cluster", "realized_opportunity_directions", "future_descendants"}
    clusters = truth.get("historical_limitation_cluster") or []
    if clusters:
        primary = clusters[0]
        target.bottleneck = [primary.get("name", ""), *[item.get("name", "") for item in clusters[1:]]]
        target.bottleneck = [text for text in target.bottleneck if text]
        target.slots.append(Slot(name="bottleneck", variants=target.bottleneck[:1] + [
            primary.get("description", "")] if primary.get("description") else target.bottleneck[:1]))
        counts = [int(item.get("count", 0)) for item in clusters]
        top = max(counts)
        tied = counts.count(top) > 1
        target.stats["limitation_counts"] = counts
        comparative = len(counts) >= 2 and not tied
        target.stats["persistence_match"] = counts[0] == top if comparative else None
    opportunities = [_humanise(item.get("display_name",
                                        "")) for item in truth.get("realized_opportunity_directions")
                     or truth.get("future_descendants") or []]
    target.opportunity = [item for item in opportunities if item]
    if target.opportunity:
        target.slots.append(Slot(name="opportunity", variants=target.opportunity))
    target.stats["has_realized_opportunity"] = bool(target.opportunity)
    return used


def _planning(target: HiddenTarget, truth: dict[str, Any], cutoff: date,
              pre_counts: dict[str, int] | None) -> set[str]:
    used = {"direction_records", "candidate_directions"}
    records = sorted(truth.get("direction_records") or [],
                     key=lambda item: -int(item.get("future_paper_count", 0)))
    target.ranking = [_humanise(item.get("display_name", "")) for item in records]
    if target.ranking:
        target.slots.append(Slot(name="top_priority", variants=target.ranking[:1]))
    created = [slice_start(item.get("created_time_slice")) for item in records]
    target.stats["options"] = len(records)
    target.stats["options_created_after_cutoff"] = sum(1 for day in created
                                                       if day is not None and day > cutoff)
    target.stats["future_paper_counts"] = {_humanise(item.get("display_name",
                                                              "")): item.get("future_paper_count")
                                           for item in records}
    target.stats["options_without_window_evidence"] = sum(1 for item in records
                                                          if "future_paper_count" not in item)
    target.stats["persistence_match"] = None
    if pre_counts is not None and len(records) >= 2:
        counts = {name: pre_counts.get(name, 0) for name in target.ranking}
        target.stats["pre_cutoff_counts"] = counts
        leader = max(counts.values())
        leaders = [name for name, count in counts.items() if count == leader]
        if len(leaders) == 1:
            target.stats["persistence_answer"] = leaders[0]
            target.stats["persistence_match"] = leaders[0] == target.ranking[0]
    return used


def option_names(hidden_rows: Iterable[dict[str, Any]]) -> set[str]:
    """Names of every planning option of a ResearchForesight hidden file (for pre-cutoff counting)."""
    return {_humanise(item.get("display_name", "")) for row in hidden_rows
            for item in (row.get("ground_truth") or {}).get("direction_records") or []}


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


def import_researchforesight(src: Path | str, out: Path | str, papers: Iterable[Paper] | None = None) -> Path:
    """Convert a ResearchForesight release folder into a foresci release folder at ``out``.

    ``papers``: optional pre-cutoff literature (e.g. ``kb.papers(until=cutoff)``); with it the importer
    counts each planning option's pre-cutoff papers so the audit can score persistence on comparative
    planning tasks (their files carry no pre-cutoff counts per option).
    """
    src, out = Path(src), Path(out)
    public_rows = list(iter_jsonl(src / "tasks.jsonl"))
    hidden_rows = {row["task_id"]: row for row in iter_jsonl(src / "tasks_hidden_eval.jsonl")}
    pre_counts = None
    if papers is not None:
        cutoffs = {date.fromisoformat(row["time_cutoff"]) for row in public_rows}
        pre_counts = count_pre_cutoff(option_names(hidden_rows.values()), papers, max(cutoffs))
    tasks: list[Task] = []
    targets: list[HiddenTarget] = []
    for line_number, row in enumerate(public_rows, start=1):
        where = f"{src / 'tasks.jsonl'}:{line_number}"
        hidden_row = hidden_rows.get(row["task_id"])
        if hidden_row is None:
            raise ValueError(f"{where}: task {row['task_id']} has no row in tasks_hidden_eval.jsonl")
        task = _public(row, hidden_row, where)
        truth = hidden_row.get("ground_truth") or {}
        target = HiddenTarget(task_id=task.task_id, family=task.family, claims=_claims(hidden_row))
        if task.family == "direction_forecasting":
            used = _direction(target, truth, task.cutoff)
        elif task.family == "bottleneck_opportunity":
            used = _bottleneck(target, truth)
        elif task.family == "strategic_planning":
            used = _planning(target, truth, task.cutoff, pre_counts)
        else:
            used = set()
        reference = truth.get("reference_papers") or {}
        target.evidence_ids = [item["paper_id"] for key, items in reference.items() if key != "history"
                               for item in items if "paper_id" in item][:20]
        target.unmapped = sorted(f"ground_truth.{key}" for key in truth
                                 if key not in used | {"reference_papers"})
        target.unmapped += [f"{key}" for key in ("judge", "candidate_quality_judge", "public_metadata")
                            if hidden_row.get(key)]
        if task.family == "bottleneck_opportunity" and not target.opportunity:
            target.unmapped.append("opportunity: no realized opportunity in their ground truth")
        if not target.slots:
            target.slots.append(Slot(name="gold_answer",
                                     variants=[hidden_row.get("gold_answer") or task.title]))
        tasks.append(task)
        targets.append(target)
    out.mkdir(parents=True, exist_ok=True)
    files = write_public(out, tasks)
    files.append(write_hidden(out, targets))
    write_manifest(out, "release", inputs={"source": str(src),
                                           "tasks_sha256": sha256_file(src / "tasks.jsonl"),
                                           "pre_cutoff_papers_counted": papers is not None},
                   config={"importer": "researchforesight"}, files=files,
                   counts={"tasks": len(tasks),
                           "cutoffs": sorted({task.cutoff.isoformat() for task in tasks})})
    return out
