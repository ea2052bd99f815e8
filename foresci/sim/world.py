"""Generate a synthetic research world: corpus, domain definitions, ground truth and manifest.

Example::

    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
    paths = generate_world(WorldConfig(seed=7, difficulty=0.2), Path("worlds/w7"))
    truth = load_ground_truth(paths.root)
    truth.by_label("accelerating")
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import yaml

from foresci.core.artifacts import write_manifest
from foresci.core.io import write_json, write_jsonl
from foresci.sim.config import SimSettings
from foresci.sim.corpus import Draft, Drafter, apply_noise, assign_ids, rows_by_day, write_day_files
from foresci.sim.dynamics import post_slope, pre_slope, window_factor
from foresci.sim.knobs import WorldConfig, parse_month
from foresci.sim.plan import (
    BACKGROUND_CATEGORY,
    DirectionPlan,
    DomainPlan,
    WorldPlan,
    plan_world,
    rounded,
    total_counts,
    total_rates,
    venue_weights,
)
from foresci.sim.truth import (
    GROUND_TRUTH_NAME,
    PAPER_LABELS_NAME,
    BottleneckTruth,
    ChildTruth,
    DirectionTruth,
    DomainTruth,
    GroundTruth,
    PaperLabel,
    load_ground_truth,
    planted_trajectory,
)

__all__ = [
    "GroundTruth",
    "WorldConfig",
    "WorldPaths",
    "default_world_config",
    "generate_world",
    "load_ground_truth",
    "planted_trajectory",
    "world_config_from_settings",
]

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class WorldPaths:
    """Where a generated world's parts are."""

    root: Path
    corpus: Path
    domains: Path
    ground_truth: Path
    paper_labels: Path
    manifest: Path
    corpus_files: tuple[Path, ...]


def default_world_config(settings: SimSettings | None = None) -> WorldConfig:
    """The embedded default world of the demo (3 domains x 10 directions, 18 months, ~2,600 papers);
    with ``settings`` (the ``sim`` section, e.g. FORESCI_SIM__DIFFICULTY=0.9) its knobs override."""
    return WorldConfig() if settings is None else world_config_from_settings(settings)


def world_config_from_settings(settings: SimSettings) -> WorldConfig:
    """A WorldConfig from the ``sim`` settings section (FORESCI_SIM__SEED=..., etc.)."""
    return WorldConfig(**settings.world_overrides())


def _last_day(month_key: str) -> date:
    year, month = parse_month(month_key, "month")
    return date(year, month, calendar.monthrange(year, month)[1])


def _month_key(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def _observed_counts(plan: WorldPlan, drafts: list[Draft]) -> dict[str, dict[str, int]]:
    """Per direction: kept papers written with its (or its children's) vocabulary, by announcement month."""
    owner = {direction.direction_id: direction.direction_id for direction in plan.directions}
    owner.update(
        {
            child.child_id: direction.direction_id
            for direction in plan.directions
            for child in direction.children
        }
    )
    counts = {direction.direction_id: dict.fromkeys(plan.months, 0) for direction in plan.directions}
    for draft in drafts:
        if draft.dropped or draft.written_as is None:
            continue
        month = _month_key(draft.announced)
        counts[owner[draft.written_as]][month] += 1
    return counts


def _chain_as_written(
    plan: WorldPlan, truth: BottleneckTruth, resolutions: dict[str, Draft]
) -> BottleneckTruth:
    """The chain's truth with its resolution month as announced (noise may delay the first paper)."""
    first = resolutions.get(truth.bottleneck)
    if first is None:
        return truth
    return truth.model_copy(
        update={
            "resolved": _month_key(first.announced),
            "after_cutoff": first.announced > plan.config.cutoff,
            "resolution_paper_id": first.paper_id,
        }
    )


def _direction_truth(
    plan: WorldPlan, direction: DirectionPlan, observed: dict[str, int], resolutions: dict[str, Draft]
) -> DirectionTruth:
    months = plan.months
    rates = total_rates(direction)
    children = [
        ChildTruth(
            child_id=child.child_id,
            vocabulary=child.vocabulary,
            emerges=months[child.emerges],
            true_monthly_rates={
                month: rounded(rate) for month, rate in zip(months, child.rates, strict=True)
            },
            planted_counts=dict(zip(months, child.counts, strict=True)),
        )
        for child in direction.children
    ]
    config = plan.config
    return DirectionTruth(
        direction_id=direction.direction_id,
        domain=direction.domain,
        name=direction.vocabulary.name,
        vocabulary=direction.vocabulary,
        trajectory=direction.label,
        base_rate=rounded(direction.base_rate),
        pre_slope=rounded(pre_slope(direction.label, config.trend_strength, config.difficulty)),
        post_slope=rounded(post_slope(direction.label, direction.trend_strength)),
        planted_factor=rounded(window_factor(rates, plan.cutoff_index)),
        true_monthly_rates={month: rounded(rate) for month, rate in zip(months, rates, strict=True)},
        planted_counts=dict(zip(months, total_counts(direction), strict=True)),
        observed_counts=observed,
        children=children,
        bottlenecks=[_chain_as_written(plan, chain.truth, resolutions) for chain in direction.chains],
        venue_ranking=direction.venue_ranking,
        venue_weights=venue_weights(direction.venue_ranking),
    )


def build_truth(plan: WorldPlan, drafts: list[Draft]) -> GroundTruth:
    """Assemble the ground truth of a drafted world."""
    observed = _observed_counts(plan, drafts)
    resolutions = {draft.resolves: draft for draft in drafts if draft.resolves and not draft.dropped}
    kept = [draft for draft in drafts if not draft.dropped]
    return GroundTruth(
        seed=plan.config.seed,
        config=plan.config.model_dump(mode="json"),
        months=plan.months,
        cutoff=plan.config.cutoff,
        cutoff_month=plan.months[plan.cutoff_index],
        window_months=plan.months[plan.cutoff_index + 1 :],
        domains=[
            DomainTruth(
                slug=domain.slug,
                name=domain.name,
                category=domain.category,
                direction_ids=[direction.direction_id for direction in domain.directions],
            )
            for domain in plan.domains
        ],
        directions=[
            _direction_truth(plan, direction, observed[direction.direction_id], resolutions)
            for direction in plan.directions
        ],
        method_relations=[relation.truth for relation in plan.relations],
        background_category=BACKGROUND_CATEGORY,
        paper_count=len(kept),
        row_count=sum(1 + len(draft.repeat_days) for draft in kept),
        noise_counts=noise_counts(drafts),
    )


def noise_counts(drafts: list[Draft]) -> dict[str, int]:
    """How many papers each kind of observation noise touched."""
    kept = [draft for draft in drafts if not draft.dropped]
    return {
        "dropped": len(drafts) - len(kept),
        "delayed": sum(draft.delayed_days > 0 for draft in kept),
        "repeated": sum(bool(draft.repeat_days) for draft in kept),
        "mislabelled": sum("mislabelled" in draft.roles for draft in kept),
        "stringified": sum(draft.stringify_authors or draft.stringify_categories for draft in kept),
    }


def paper_labels(drafts: list[Draft]) -> list[PaperLabel]:
    """The planted identity of every kept paper, by id."""
    kept = sorted((draft for draft in drafts if not draft.dropped), key=lambda item: item.paper_id)
    return [
        PaperLabel(
            paper_id=draft.paper_id,
            announced=draft.announced,
            planned_month=_month_key(draft.planned_day),
            domain=draft.domain,
            direction_id=draft.direction_id,
            child_id=draft.child_id,
            written_as=draft.written_as,
            roles=draft.roles,
            delayed_days=draft.delayed_days,
            repeats=len(draft.repeat_days),
        )
        for draft in kept
    ]


def domain_definition(domain: DomainPlan, background_name: str) -> dict[str, object]:
    """The domain's definition in the KB's domain-file schema (kb/domains/<slug>.yaml)."""
    seeds = [
        f"{direction.vocabulary.name} methods such as {direction.vocabulary.method} for "
        f"{direction.vocabulary.task} in {domain.name}"
        for direction in domain.directions
    ]
    keywords = [
        domain.name,
        *(direction.vocabulary.name for direction in domain.directions),
        *(direction.vocabulary.method for direction in domain.directions),
    ]
    return {
        "slug": domain.slug,
        "name": domain.name.title(),
        "description": f"Synthetic research domain '{domain.name}' (invented vocabulary; generated by "
        f"foresci sim).",
        "seed_descriptions": seeds,
        "include_keywords": keywords,
        "exclude_keywords": [background_name],
        "categories": [domain.category],
    }


def write_domain_files(folder: Path, plan: WorldPlan) -> list[Path]:
    """Write one YAML domain definition per invented domain."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for domain in plan.domains:
        path = folder / f"{domain.slug}.yaml"
        path.write_text(
            yaml.safe_dump(
                domain_definition(domain, plan.background_name),
                sort_keys=False,
                allow_unicode=True,
                width=110,
            ),
            encoding="utf-8",
        )
        paths.append(path)
    return paths


def generate_world(cfg: WorldConfig, out: Path | str, progress: Progress | None = None) -> WorldPaths:
    """Generate a world into ``out``: corpus/YYYY-MM-DD.jsonl[.gz], domains/*.yaml, ground_truth.json,
    paper_labels.jsonl and manifest.json. Same config → byte-identical files (the manifest's
    created_at aside). ``progress(stage, done, total)`` is called as months are drafted."""
    out = Path(out)
    corpus_dir = out / "corpus"
    for stale in (*sorted(corpus_dir.glob("*.jsonl*")), *sorted((out / "domains").glob("*.yaml"))):
        stale.unlink()
    plan = plan_world(cfg)
    done = 0

    def advance() -> None:
        nonlocal done
        done += 1
        if progress:
            progress("drafting papers", done, len(plan.months))

    drafts = Drafter(plan).draft_all(advance)
    apply_noise(drafts, cfg, _last_day(plan.months[-1]))
    assign_ids(drafts)
    corpus_files = write_day_files(corpus_dir, rows_by_day(drafts), cfg.gzip)
    if progress:
        progress("writing corpus", len(plan.months), len(plan.months))
    domain_files = write_domain_files(out / "domains", plan)
    truth = build_truth(plan, drafts)
    write_json(out / GROUND_TRUTH_NAME, truth)
    write_jsonl(out / PAPER_LABELS_NAME, paper_labels(drafts))
    relative = [path.relative_to(out).as_posix() for path in (*corpus_files, *domain_files)]
    write_manifest(
        out,
        "world",
        config=cfg.model_dump(mode="json"),
        files=[GROUND_TRUTH_NAME, PAPER_LABELS_NAME, *relative],
        counts={
            "papers": truth.paper_count,
            "rows": truth.row_count,
            "days": len(corpus_files),
            "domains": len(plan.domains),
            "directions": len(plan.directions),
            "noise": truth.noise_counts,
        },
    )
    return WorldPaths(
        root=out,
        corpus=corpus_dir,
        domains=out / "domains",
        ground_truth=out / GROUND_TRUTH_NAME,
        paper_labels=out / PAPER_LABELS_NAME,
        manifest=out / "manifest.json",
        corpus_files=tuple(corpus_files),
    )
