"""``foresci demo``: foresci's main job end to end on the embedded synthetic world.

Stages (each the real code path a user runs on real data):
world -> knowledge base -> taxonomy at the cutoff -> release (the shipped families, plus numeric and binary
forecast questions and the concept-pair family's bulk pair set) -> answering methods -> evaluation ->
terminal leaderboard + HTML report (with the forecast table: CRPS, coverage, Brier, skill). Without an
LLM endpoint only the non-LLM methods (trend, persistence) answer; with ``FORESCI_LLM__BASE_URL`` set
the LLM methods join, and name-only too.

The bulk link-prediction set is scored by the pair-scoring methods of the full-mode runs
(:mod:`foresci.app.demo_emergence`: AUC and precision@100 in each run's ``summary.json`` and the report,
and a table in the terminal summary).

The terminal summary ends with forecaster quality on the lead family (the first registered one the run
scored): strict top-1 and FTA with bootstrap 95 % intervals next to chance
(:mod:`foresci.evaluation.quality`), over enough of its tasks (``per_family``) for the interval to say whether
a forecaster beats chance. Trend shares are normalised by
the world's domain categories, a stable reference (the synthetic stream has no collection drift).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import typer

from foresci.core.settings import Settings
from foresci.sim.knobs import WorldConfig


@dataclass
class DemoResult:
    """Where the demo put things and how long each stage took."""

    out: Path
    world: Path
    kb: Path
    taxonomies: list[Path]
    release: Path
    runs: list[Path]
    report: Path | None
    timings: dict[str, float] = field(default_factory=dict)
    cpu_seconds: dict[str, float] = field(default_factory=dict)


@contextmanager
def _stage(console: object, timings: dict[str, float], cpu: dict[str, float], name: str) -> Iterator[None]:
    """Time a stage (wall seconds into ``timings``, the process's CPU seconds into ``cpu``) and print a
    heading for it.

    CPU seconds next to wall seconds show how much of a slow stage was waiting for a busy machine.
    """
    console.print(f"[bold cyan]▶ {name}[/bold cyan]")  # type: ignore[attr-defined]
    started, cpu_started = time.perf_counter(), time.process_time()
    yield
    timings[name] = round(time.perf_counter() - started, 2)
    used = round(time.process_time() - cpu_started, 2)
    cpu[name] = used
    console.print(f"  [dim]done in {timings[name]:.1f} s (CPU {used:.1f} s)[/dim]")  # type: ignore[attr-defined]


DEMO_TASKS_PER_FAMILY = 40
# With the local model: 2 tasks per family. One is too few: a one-task family's trajectory label holds
# 100 % of its labels, so the release gate (no label over 50 %) drops direction forecasting.
DEMO_LOCAL_TASKS_PER_FAMILY = 2
DEMO_FORECAST_QUESTIONS = 16
# What every method answers with the local model (of those 8 tasks and 16 questions): at about 90 prompt
# tokens/s (SmolLM2-135M on two cores) each answer and each judged row costs 10-30 s, so the whole
# release would take well over half an hour.
DEMO_LOCAL_ANSWERED_PER_FAMILY = 1
DEMO_LOCAL_ANSWERED_QUESTIONS = 2
# Rows the local model judges: each run's first task (about three judge calls of 10-60 s per row); every
# row is also scored offline. Judging all 36 rows took over 40 minutes at load 8.
DEMO_LOCAL_JUDGED_TASKS = 1


def run_demo(
    out: Path,
    seed: int | None = None,
    per_family: int = DEMO_TASKS_PER_FAMILY,
    quiet: bool = False,
    config: WorldConfig | None = None,
    report: bool = True,
    settings: Settings | None = None,
    answered: tuple[int, int] | None = None,
    judged_tasks: int | None = None,
) -> DemoResult:
    """Run every stage on the default synthetic world (or ``config``) under ``out``; return the artifact
    paths. ``report=False`` skips the HTML report (benchmarks read the scores directly); ``settings``
    replaces the environment's settings; ``answered=(tasks per family, forecast questions)`` has every
    method answer only that subset of the release, and ``judged_tasks`` has the LLM judges score only each
    run's first that many tasks (in ``runs-judged``, with their own report) while every row is scored
    offline (the local model's demo)."""
    from rich.console import Console

    from foresci.agents.cli import write_run_manifest
    from foresci.app.demo_emergence import bulk_table, score_bulk
    from foresci.core.io import read_json, read_models
    from foresci.evaluation.models import Score
    from foresci.evaluation.quality import family_quality, quality_table
    from foresci.evaluation.report import write_report
    from foresci.evaluation.runner import evaluate_run
    from foresci.evaluation.summary import leaderboard_legend, leaderboard_tables
    from foresci.kb.build import build_kb
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase
    from foresci.methods import shipped_methods
    from foresci.methods.runner import run_release
    from foresci.sim.world import default_world_config, generate_world, load_ground_truth
    from foresci.tasks.build import build_release
    from foresci.tasks.families.lookup import registered_names
    from foresci.tasks.release import load_release
    from foresci.taxonomy.build import build_taxonomy
    from foresci.taxonomy.rules import TaxonomyRules
    from foresci.taxonomy.store import save_taxonomy

    console = Console(quiet=quiet)
    settings = settings.model_copy(deep=True) if settings is not None else Settings()
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    with _stage(console, timings, cpu, "synthetic world"):
        config = config or default_world_config()
        if seed is not None:
            config = config.model_copy(update={"seed": seed})
        world = generate_world(config, out / "world")
        truth = load_ground_truth(world.root)
        console.print(
            f"  {truth.paper_count} papers, cutoff {truth.cutoff}, "
            f"window {truth.window_months[0]}…{truth.window_months[-1]}"
        )

    world_domains = [domain.slug for domain in truth.domains]
    # Screen only for the world's invented domains: the shipped real domains have no papers here.
    settings.kb = settings.kb.model_copy(update={"domains": world_domains})
    # The world's own categories are collected throughout: the stable reference trend normalises by.
    settings.agents = settings.agents.model_copy(
        update={"reference_categories": sorted({domain.category for domain in truth.domains})}
    )
    with _stage(console, timings, cpu, "knowledge base"):
        kb_dir = out / "kb"
        summary = build_kb([world.corpus], kb_dir, settings, domains_dirs=[world.domains], progress=not quiet)
        console.print(f"  {summary.papers} papers, {summary.quarantined} quarantined")
        kb = KnowledgeBase.open(kb_dir, settings)

    cutoff = truth.cutoff
    taxonomy_dirs: list[Path] = []
    snapshots = {}
    with _stage(console, timings, cpu, f"taxonomy at {cutoff}"):
        rules = TaxonomyRules.load(settings.taxonomy)  # the rule files, read once for every domain
        for domain in world_domains:
            history = build_taxonomy(kb, domain, cutoff, settings, rules=rules)
            folder = save_taxonomy(
                history,
                out / "taxonomy" / domain,
                inputs={"kb": str(kb_dir), "domain": domain, "cutoff": cutoff.isoformat()},
            )
            taxonomy_dirs.append(Path(folder))
            snapshots[domain] = history.final
            console.print(
                f"  {domain}: {len(history.final.nodes)} nodes over {len(history.snapshots)} slices"
            )

    with _stage(console, timings, cpu, "foresight tasks"):
        release_dir = build_release(
            kb,
            out / "release",
            cutoff,
            domains=world_domains,
            settings=settings,
            per_family=per_family,
            snapshots=snapshots,
            forecast_questions=DEMO_FORECAST_QUESTIONS,
            rules=rules,
        )
        counts = read_json(release_dir / "manifest.json").get("counts", {})
        console.print(f"  {counts.get('tasks', '?')} tasks: {counts.get('by_family', {})}")
        forecasts = counts.get("forecast_questions") or {}
        console.print(f"  {forecasts.get('questions', 0)} forecast questions: {forecasts.get('by_kind', {})}")

    release = load_release(release_dir)
    tasks, questions = release.tasks, release.questions
    if answered is not None:
        from foresci.app.local_demo import demo_subset

        tasks, questions = demo_subset(tasks, questions, *answered)
        console.print(f"  every method answers {len(tasks)} of the {len(release.tasks)} tasks "
                      f"({answered[0]} per family) and {len(questions)} of the {len(release.questions)} "
                      "forecast questions")

    def view_factory(task_cutoff):  # type: ignore[no-untyped-def]
        return KBView(kb, task_cutoff)

    plans: list[tuple[str, list[str], str]] = [("baselines", shipped_methods(uses_llm=False), "full")]
    if settings.llm.configured:
        llm_methods = shipped_methods(uses_llm=True)
        plans += [("llm", llm_methods, "full"), ("name-only", llm_methods[:1], "name_only")]
    run_dirs: list[Path] = []
    for name, methods, mode in plans:
        with _stage(console, timings, cpu, f"answering: {', '.join(methods)} ({mode})"):
            run_dir = out / "runs" / name
            run_release(
                tasks,
                run_dir,
                settings,
                methods,
                mode=mode,  # type: ignore[arg-type]
                view_factory=view_factory,
                progress=not quiet,
                questions=questions,
            )
            if mode == "full":  # a release's bulk pair set, as `foresci run` scores it
                score_bulk(release_dir, run_dir, methods, view_factory)
            write_run_manifest(run_dir, release_dir, kb_dir, settings, methods, [], mode)
            run_dirs.append(run_dir)

    judge_all = settings.llm.configured and judged_tasks is None
    with _stage(console, timings, cpu, "evaluation" if not settings.llm.configured or judge_all
                else "evaluation (offline)"):
        for run_dir in run_dirs:
            evaluate_run(run_dir, release_dir, settings, offline=not judge_all)
    judged_dirs: list[Path] = []
    if settings.llm.configured and judged_tasks is not None:
        from foresci.app.local_demo import judged_sample

        stage = f"evaluation (LLM judges, first {judged_tasks} task(s) of each run)"
        with _stage(console, timings, cpu, stage):
            judged_dirs = judged_sample(run_dirs, out / "runs-judged", judged_tasks)
            for run_dir in judged_dirs:
                evaluate_run(run_dir, release_dir, settings, offline=False)

    report_path: Path | None = None
    if report:
        with _stage(console, timings, cpu, "report"):
            report_path = write_report(run_dirs, out / "report", settings, taxonomy_dirs=taxonomy_dirs)
            summary_data = read_json(out / "report" / "summary.json")
            for table in leaderboard_tables(summary_data, "all", width=console.width):
                console.print(table)
            if legend := leaderboard_legend(summary_data, "all"):
                console.print(legend, style="dim", markup=False, highlight=False)
            console.print(f"  HTML report: {report_path}")
            console.print(f"  Markdown:    {out / 'report' / 'report.md'}")
            if judged_dirs:
                judged_report = write_report(judged_dirs, out / "report-judged", settings)
                judged_data = read_json(out / "report-judged" / "summary.json")
                console.print("  LLM-judged sample (Fact, Trace, Pers by the local model):")
                for table in leaderboard_tables(judged_data, "all", width=console.width):
                    console.print(table)
                console.print(f"  HTML report of the judged sample: {judged_report}")
    quality = family_quality(
        read_models(run_dirs[0] / "scores.jsonl", Score), {task.task_id: task for task in release.tasks}
    )
    lead = next((name for name in registered_names() if name in quality), None)
    if lead is not None:
        console.print(quality_table(quality[lead]))
    bulk = bulk_table(read_json(run_dirs[0] / "summary.json"))
    if bulk is not None:
        console.print(bulk)
    return DemoResult(
        out=out,
        world=world.root,
        kb=kb_dir,
        taxonomies=taxonomy_dirs,
        release=release_dir,
        runs=run_dirs,
        report=report_path,
        timings=timings,
        cpu_seconds=cpu,
    )


def demo_command(
    out: Path = typer.Option(Path("demo-output"), "--out", help="folder for every artifact of the demo"),
    seed: int | None = typer.Option(None, "--seed", help="world seed (default: settings.sim.seed)"),
    per_family: int | None = typer.Option(
        None, "--per-family",
        help=f"tasks per family, at most (default {DEMO_TASKS_PER_FAMILY}; "
        f"{DEMO_LOCAL_TASKS_PER_FAMILY} with --llm local)",
    ),
    llm: str | None = typer.Option(
        None, "--llm", help="'local': serve the packaged SmolLM2-135M-Instruct (the local-llm extra, "
        "make llm) and add the five LLM methods and name-only; every method then answers "
        f"{DEMO_LOCAL_ANSWERED_PER_FAMILY} task per family and {DEMO_LOCAL_ANSWERED_QUESTIONS} forecast "
        "questions, every row is scored offline and each run's first task is judged by the same model"
    ),
    llm_threads: int = typer.Option(2, "--llm-threads", min=1, help="CPU threads of the local model server"),
) -> None:
    """Run foresci's main job end to end on a generated synthetic world (no data, no LLM needed).

    Generates a world with planted dynamics, builds the knowledge base, induces the taxonomy at the
    world's cutoff, builds a release of all five task families, answers it with the trend and persistence
    forecasters and the link-prediction methods (and the LLM methods when FORESCI_LLM__BASE_URL is set),
    scores the answers and writes the HTML report.

    Example:

      foresci demo --out demo-output && xdg-open demo-output/report/index.html

      foresci demo --llm local --out demo-local   # with the packaged local model (make llm first)
    """
    if llm not in (None, "local"):
        raise typer.BadParameter("expected 'local' (or set FORESCI_LLM__BASE_URL for any endpoint)",
                                 param_hint="--llm")
    if llm == "local":
        from foresci.app.local_demo import error_rate_lines, local_llm_environment

        with local_llm_environment(out, threads=llm_threads) as server:
            typer.echo(f"local model {server.name} at {server.base_url} ({server.threads} threads)")
            result = run_demo(out, seed=seed, per_family=per_family or DEMO_LOCAL_TASKS_PER_FAMILY,
                              answered=(DEMO_LOCAL_ANSWERED_PER_FAMILY, DEMO_LOCAL_ANSWERED_QUESTIONS),
                              judged_tasks=DEMO_LOCAL_JUDGED_TASKS)
        typer.echo("\n".join(["error rows per method:", *error_rate_lines(result.runs)]))
    else:
        from foresci.core.threads import use_idle_cores
        from foresci.embedders.embedder import embed_workers

        settings = Settings()
        threads = use_idle_cores(settings)  # the local model is not competing for cores here
        # embedding, most of the demo's time, runs on every core whatever the load at the start
        # (a worker on a busy core only slows itself): FORESCI_RUNTIME__EMBED_WORKERS sets it
        typer.echo(f"embedding on {embed_workers(settings)} core(s), search on {threads} thread(s) "
                   "(FORESCI_RUNTIME__EMBED_WORKERS, FORESCI_RUNTIME__THREADS set them)")
        result = run_demo(out, seed=seed, per_family=per_family or DEMO_TASKS_PER_FAMILY)
    total, cpu = sum(result.timings.values()), sum(result.cpu_seconds.values())
    typer.echo(f"demo finished in {total:.0f} s (CPU {cpu:.0f} s); artifacts under {result.out}")
