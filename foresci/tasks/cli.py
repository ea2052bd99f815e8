"""CLI: ``foresci tasks ...`` (releases) and ``foresci forecast ...`` (prospective packages)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from foresci.app.cli_options import known_windows, parse_date_option
from foresci.core.errors import UserError

app = typer.Typer(help="Build, show, validate and audit foresight task releases.", no_args_is_help=True)
forecast_app = typer.Typer(help="Prospective forecast packages: make now, resolve later.",
                           no_args_is_help=True)




def _open_kb(path: Path):  # type: ignore[no-untyped-def]
    from foresci.core.settings import Settings
    from foresci.kb.store import KnowledgeBase

    return KnowledgeBase.open(path, Settings())


@app.command("build")
def build_command(
    kb: Path = typer.Argument(..., help="KB folder (from `foresci kb build`) covering the windows."),
    cutoff: str = typer.Option(..., "--cutoff", help="cutoff date t (YYYY-MM-DD); tasks see nothing after "
                               "it"),
    out: Path = typer.Option(..., "--out", help="release folder to write"),
    window: list[str] = typer.Option(["3m", "6m"], "--window", help="forecast windows after t: 1m, 2m, 3m "
                                     "or 6m (repeatable)", callback=known_windows),
    per_family: int = typer.Option(25, "--per-family", min=1,
                                   help="tasks per family (across domains and windows)"),
    domain: list[str] = typer.Option([], "--domain", help="only these domain slugs (repeatable); default "
                                     "all"),
    taxonomy_dir: Path | None = typer.Option(None, "--taxonomy-dir", help="reuse T(d,t) saved in "
                                             "DIR/<domain>; induce and save there when missing"),
    forecast: int | None = typer.Option(None, "--forecast", min=0, help="also write N resolvable forecast "
                                        "questions (numeric and binary; default settings "
                                        "tasks.forecast_questions)"),
    families: str | None = typer.Option(None, "--families", help="only these task families (comma list; "
                                        "`foresci tasks families` lists them); default all. A "
                                        "family's own windows (e.g. a venue cycle) are read only when it "
                                        "is one"),
) -> None:
    """Build a release: tasks.jsonl (public), hidden.jsonl (targets), manifest.json (counts, hashes, audit).

    With --forecast N the release also carries N forecast questions (forecast.jsonl, public) spread over the
    windows and their resolutions (forecast_hidden.jsonl, hidden); every method answers them in `foresci run`
    and `foresci eval` scores them with CRPS, coverage and Brier. A family with release parts adds its own
    after those N: the concept-pair family its binary questions (taxonomy/emergence.yaml
    release.forecast_questions_per_set per domain and window) and its bulk link-prediction set
    (emergence_pairs.jsonl, emergence_hidden.jsonl).

    Examples:

        foresci tasks build workspace/kb --cutoff 2025-12-31 --out workspace/release --window 3m --window 6m

        foresci tasks build workspace/kb --cutoff 2025-12-31 --out workspace/release --forecast 24
    """
    from rich.console import Console

    from foresci.core.settings import Settings
    from foresci.tasks.audit import audit_tasks, render_audit
    from foresci.tasks.build import build_release
    from foresci.tasks.domain_builds import paused_while_forking
    from foresci.tasks.hidden_io import load_hidden
    from foresci.tasks.release import load_release

    chosen_families = _family_list(families)  # a bad name is refused before the KB is opened
    console = Console(stderr=True)
    with console.status("opening the KB") as status, paused_while_forking(status.stop, status.start):
        store = _open_kb(kb)
        build_release(store, out, parse_date_option(cutoff, "--cutoff"), windows=tuple(window),
                      domains=domain or None, settings=Settings(), per_family=per_family,
                      taxonomy_dir=taxonomy_dir, progress=status.update, forecast_questions=forecast,
                      families=chosen_families)
    release = load_release(out)
    typer.echo(render_audit(audit_tasks(release.tasks, load_hidden(out))))
    _warn_skipped_domains(release.manifest)
    _warn_rejected_families(release.manifest)
    _warn_empty_families(release.manifest, chosen_families)
    questions = f" and {len(release.questions)} forecast questions" if release.questions else ""
    typer.echo(f"wrote {len(release.tasks)} tasks{questions} to {out}")


def _family_list(value: str | None) -> list[str] | None:
    """The families of ``--families`` (None: all); an unknown name is a usage error naming the known."""
    if value is None:
        return None
    from foresci.tasks.families import family_names

    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in family_names()]
    if unknown or not names:
        raise typer.BadParameter(f"unknown task family {', '.join(unknown) or value!r}; known: "
                                 f"{', '.join(family_names())}", param_hint="--families")
    return names


def _warn_skipped_domains(manifest: dict[str, Any]) -> None:
    """Print one warning line (stderr) per domain a build skipped, as recorded in its manifest."""
    for domain, reason in (manifest.get("counts", {}).get("skipped_domains") or {}).items():
        typer.echo(f"warning: skipped domain {domain}: {reason}", err=True)


def _warn_rejected_families(manifest: dict[str, Any]) -> None:
    """Print one warning line (stderr) per family the gates kept out of the release, with its gate failures
    (the audit printed above covers only what was written)."""
    counts = manifest.get("counts", {})
    families = counts.get("audit", {}).get("families", {})
    for family, reasons in (counts.get("rejected_families") or {}).items():
        selected = families.get(family, {}).get("tasks", 0)
        typer.echo(f"warning: left out family {family} ({selected} selected tasks failed the gates): "
                   + "; ".join(reasons), err=True)


def _warn_empty_families(manifest: dict[str, Any], chosen: list[str] | None) -> None:
    """Print one warning line (stderr) per family left out because a window it reads has not closed
    (naming the window), then one per asked-for family that has no task in the release and was not left
    out (the gates' have their own line), saying why: no candidate at all, or every candidate dropped
    while selecting (lint, near-duplicates, balance); when the builder's tasks were all dropped before
    becoming candidates, the checks that dropped them, with counts and an example."""
    from foresci.tasks.candidates import why_no_candidate
    from foresci.tasks.families import family_names

    counts = manifest.get("counts", {})
    written = counts.get("by_family") or {}
    candidates = counts.get("candidates_by_family") or {}
    rejected = counts.get("rejected_families") or {}
    for family, why in (counts.get("left_out_families") or {}).items():
        typer.echo(f"warning: left out {family}: {why}", err=True)
    for family in chosen or family_names():
        if written.get(family) or family in rejected or family in (counts.get("left_out_families") or {}):
            continue
        found = candidates.get(family, 0)
        dropped = (counts.get("no_candidate") or {}).get(family)
        if dropped:
            reason = "no candidate task: " + why_no_candidate(dropped)
        elif found:
            reason = f"its {found} candidate tasks were all dropped while selecting (lint, near-duplicate " \
                     "options, label and persistence balance)"
        else:
            reason = ("no candidate task in any domain and window: its builder found no option set that "
                      "passes its checks (too few papers or taxonomy nodes, or no clear winner in the "
                      "window); a bigger world, a later cutoff or more papers a month may give some")
        typer.echo(f"warning: no {family} task: {reason}", err=True)


@app.command("show")
def show_command(
    release: Path = typer.Argument(..., help="release folder"),
    task: str | None = typer.Option(None, "--task", help="print one public task in full"),
) -> None:
    """List a release's public tasks, or print one in full (public fields only).

    Examples:

        foresci tasks show workspace/release

        foresci tasks show workspace/release --task df-20251231-3m-0123456789
    """
    from rich.console import Console
    from rich.table import Table

    from foresci.tasks.release import load_release

    loaded = load_release(release)
    if task:
        typer.echo(json.dumps(loaded.task(task).model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    from foresci.tasks.review import review_line

    console = Console()
    domains = sorted({item.domain for item in loaded.tasks})
    heading = f"{release} ({len(loaded.tasks)} tasks; {review_line(loaded.manifest)})"
    heading += f" of domain {domains[0]}" if len(domains) == 1 else ""
    if console.width < 140:  # ids, families and domains never cut: each task on two lines
        console.print(heading, markup=False, highlight=False)
        for item in loaded.tasks:
            where = f"  {item.domain}" if len(domains) > 1 else ""
            options = f"  {len(item.candidates)} options" if item.candidates else ""
            console.print(f"{item.task_id}  {item.family}{where}  {item.horizon}{options}", markup=False,
                          highlight=False, soft_wrap=True)
            console.print(f"    {item.title}", markup=False, highlight=False)
        return
    table = Table(title=heading)
    for column in ("task_id", "family", "domain", "horizon", "options"):
        table.add_column(column, no_wrap=True)
    table.add_column("title", overflow="fold")
    for item in loaded.tasks:
        table.add_row(item.task_id, item.family, item.domain, item.horizon, str(len(item.candidates)),
                      item.title)
    console.print(table)


@app.command("families")
def families_command() -> None:
    """List the registered task families (the shipped four, then those of extensions named in
    FORESCI_EXTENSIONS or the entry-point group foresci.extensions).

    Example:

        FORESCI_EXTENSIONS=my_lab.families foresci tasks families
    """
    from rich.console import Console
    from rich.table import Table

    from foresci.tasks.families import all_families

    console = Console()
    if console.width < 140:  # names never cut: each family as a short block of lines
        import textwrap

        for family in all_families():
            typer.echo(f"{family.name} (id prefix {family.abbreviation})")
            for line in (f"answer {family.answer_schema.__name__}; windows {', '.join(family.horizons)}; "
                         f"forecast {family.forecast_kind or '-'}", f"metrics: {', '.join(family.metrics)}",
                         f"defined in {type(family).__module__}"):
                typer.echo(textwrap.fill(line, width=max(console.width, 40), initial_indent="  ",
                                         subsequent_indent="    ", break_long_words=False))
        return
    table = Table(title="task families")
    for column in ("family", "id prefix", "answer", "windows", "forecast", "metrics", "defined in"):
        table.add_column(column)
    for family in all_families():
        table.add_row(family.name, family.abbreviation, family.answer_schema.__name__,
                      ", ".join(family.horizons), family.forecast_kind or "-", ", ".join(family.metrics),
                      type(family).__module__)
    console.print(table)


@app.command("validate")
def validate_command(release: Path = typer.Argument(..., help="release folder")) -> None:
    """Check schema, unique ids, public/hidden agreement and the leakage lint; exit 1 on any problem.

    Example:

        foresci tasks validate workspace/release
    """
    from foresci.tasks.validate import validate_release

    try:
        problems = validate_release(release)
    except (ValueError, UserError, FileNotFoundError) as error:
        typer.echo(f"invalid: {error}", err=True)
        raise typer.Exit(1) from error
    for problem in problems:
        typer.echo(problem)
    if problems:
        typer.echo(f"{len(problems)} problem(s)", err=True)
        raise typer.Exit(1)
    from foresci.tasks.release import load_release
    from foresci.tasks.review import review_line

    typer.echo(f"valid; {review_line(load_release(release).manifest)}")


def _run_decisions(run: Path, methods: tuple[str, str]) -> dict[str, dict[str, str | None]]:
    """method -> task id -> decision, read from a run's ``answers.jsonl`` (ok rows of two methods)."""
    from foresci.core.io import iter_jsonl
    from foresci.tasks.audit_rates import decision_of

    decisions: dict[str, dict[str, str | None]] = {method: {} for method in methods}
    for row in iter_jsonl(run / "answers.jsonl"):
        if row.get("method") in decisions and row.get("status") == "ok":
            decisions[row["method"]][row["task_id"]] = decision_of(row.get("payload") or {})
    return decisions


@app.command("audit")
def audit_command(
    release: Path = typer.Argument(..., help="release folder (ours or an imported one)"),
    as_json: bool = typer.Option(False, "--json", help="print the audit as JSON"),
    kb: Path | None = typer.Option(None, "--kb", help="KB to count each option's pre-cutoff papers at "
                                                      "its task's own cutoff where no counts are recorded, "
                                                      "and to check concept-pair premises against each "
                                                      "domain's pre-cutoff title+abstract text"),
    run: Path | None = typer.Option(None, "--run", help="a run folder whose trend and persistence answers "
                                                        "are compared per family (does the family separate "
                                                        "methods?)"),
    scores: Path | None = typer.Option(None, "--scores", help="an evaluated run (scores.jsonl) to check the "
                                                              "offline proxies against --control"),
    control: Path | None = typer.Option(None, "--control", help="the same methods evaluated on the blind "
                                                                "copy (`tasks blind-copy`): zero evidence"),
) -> None:
    """Print the triviality audit: labels, persistence, smallest/largest option, fixed rules, duplicates.

    Every rate says how it was computed (``how`` in the JSON). Gates (no label > 50 %, persistence and
    every blind rule <= 60 %, no duplicate decisions) are enforced by ``tasks build``; for imported
    releases they are reported only.

    Examples:

        foresci tasks audit workspace/release

        foresci tasks audit workspace/rf --kb workspace/kb --run workspace/runs/rf --json

        foresci tasks audit workspace/rf --scores workspace/runs/rf --control workspace/runs/rf-blind
    """
    from foresci.core.settings import Settings
    from foresci.tasks.audit import audit_tasks, render_audit
    from foresci.tasks.hidden_io import load_hidden
    from foresci.tasks.release import load_release
    from foresci.tasks.rf_import import add_pre_cutoff_counts

    loaded = load_release(release)
    hidden = load_hidden(release)
    if kb is not None:
        targets = [hidden[task.task_id] for task in loaded.tasks if task.task_id in hidden]
        tasks = [task for task in loaded.tasks if task.task_id in hidden]
        add_pre_cutoff_counts(tasks, targets, _open_kb(kb).papers(), f"KB {kb}")
    decisions = _run_decisions(run, ("trend", "persistence")) if run is not None else None
    indexes = _domain_indexes(_open_kb(kb), loaded.tasks) if kb is not None else None
    report = audit_tasks(loaded.tasks, hidden, Settings().tasks, decisions, indexes)
    if scores is not None and control is not None:
        from foresci.evaluation.proxy_control import proxy_separation

        report.proxy_checks = proxy_separation(scores, control)
    from foresci.tasks.review import review_line

    typer.echo(report.model_dump_json(indent=2) if as_json
               else render_audit(report) + "\n" + review_line(loaded.manifest))


def _domain_indexes(store: Any, tasks: list[Any]) -> dict[str, Any]:
    """domain -> the text index of its papers up to the tasks' cutoff (title + abstract), for the
    release checks that read text (the index `tasks build` gives them: :func:`premise_index`)."""
    from foresci.tasks.domain_builds import premise_index

    cutoffs: dict[str, Any] = {}
    for task in tasks:
        cutoffs[task.domain] = max(cutoffs.get(task.domain, task.cutoff), task.cutoff)
    return {domain: premise_index(store, domain, cutoff) for domain, cutoff in sorted(cutoffs.items())}


@app.command("review")
def review_command(
    release: Path = typer.Argument(..., help="release folder"),
    apply: Path | None = typer.Option(None, "--apply", help="a filled review sheet (CSV) to record on the "
                                                            "release"),
    reviewer: str = typer.Option("", "--reviewer", help="who reviewed (recorded with --apply; required "
                                                        "there)"),
    kb: Path | None = typer.Option(None, "--kb", help="KB to show the evidence papers' titles"),
    out: Path | None = typer.Option(None, "--out", help="folder of the sheet (default RELEASE/review)"),
) -> None:
    """Curate a release: write a review sheet, or record a filled one.

    Without --apply: writes sheet.html (each task's public side, hidden key, evidence titles and the
    release checks' flags) and sheet.csv (decision: approve, reject or edit; note; question for an
    edit). With --apply: rejected tasks leave the release, edited ones get the new question, the
    decisions go to review.jsonl and the manifest records the review's hash (every report then says the
    release was reviewed).

    Examples:

        foresci tasks review workspace/release --kb workspace/kb

        foresci tasks review workspace/release --apply workspace/release/review/sheet.csv --reviewer ada
    """
    from foresci.core.errors import UserError
    from foresci.tasks.review import apply_sheet, review_line, write_sheet

    if apply is not None:
        if not reviewer.strip():
            raise UserError("name the reviewer", field="--reviewer")
        apply_sheet(release, apply, reviewer.strip())
        from foresci.tasks.release import load_release

        typer.echo(review_line(load_release(release).manifest))
        return
    titles = None
    if kb is not None:
        store = _open_kb(kb)

        def titles(ids):  # type: ignore[no-untyped-def]
            rows = {paper_id: store.row_of(paper_id) for paper_id in ids}
            return {paper_id: store.paper_at(row).title for paper_id, row in rows.items() if row is not None}
    page, sheet = write_sheet(release, out, titles)
    typer.echo(f"wrote {page} and {sheet}")


@app.command("blind-copy")
def blind_copy_command(
    release: Path = typer.Argument(..., help="release folder to copy"),
    out: Path = typer.Argument(..., help="folder of the blind copy"),
    cutoff: str = typer.Option("1990-01-01", "--cutoff", help="cutoff before any paper of the KB"),
) -> None:
    """Copy a release with every cutoff moved before the KB: methods run on it answer with zero papers.

    The zero-evidence control of the offline proxies (see `tasks audit --scores --control`).

    Example:

        foresci tasks blind-copy workspace/rf workspace/rf-blind
    """
    from foresci.evaluation.proxy_control import blind_copy

    blind_copy(release, out, parse_date_option(cutoff, "--cutoff"))
    typer.echo(f"wrote the blind copy of {release} to {out}")


@app.command("import-rf")
def import_rf_command(
    source: Path = typer.Argument(..., help="ResearchForesight release folder (tasks.jsonl + "
                                            "tasks_hidden_eval.jsonl)"),
    out: Path = typer.Argument(..., help="foresci release folder to write"),
    kb: Path | None = typer.Option(None, "--kb", help="KB to count each option's pre-cutoff papers at its "
                                                      "task's own cutoff (persistence where their records "
                                                      "hold no counts)"),
) -> None:
    """Import a ResearchForesight release (all four families) into foresci types; print summary and audit.

    Example:

        foresci tasks import-rf ../shared/releases/researchforesight-quarter workspace/rf --kb workspace/kb
    """
    from foresci.core.artifacts import read_manifest
    from foresci.tasks.audit import audit_tasks, render_audit
    from foresci.tasks.hidden_io import load_hidden
    from foresci.tasks.release import load_release
    from foresci.tasks.rf_import import import_researchforesight, render_summary

    papers = _open_kb(kb).papers() if kb is not None else None
    import_researchforesight(source, out, papers)
    loaded = load_release(out)
    typer.echo(render_summary(read_manifest(out).counts["import_summary"]))
    typer.echo(render_audit(audit_tasks(loaded.tasks, load_hidden(out))))
    typer.echo(f"imported {len(loaded.tasks)} tasks into {out}")


@forecast_app.command("package")
def package_command(
    kb: Path = typer.Option(..., "--kb", help="KB folder; only papers up to the cutoff are read"),
    cutoff: str = typer.Option(..., "--cutoff", help="cutoff date (YYYY-MM-DD), usually today"),
    out: Path = typer.Option(..., "--out", help="package folder to write"),
    window: str = typer.Option("3m", "--window", help="1m, 2m, 3m or 6m after the cutoff",
                               callback=known_windows),
    n: int = typer.Option(12, "-n", min=1,
                          help="number of questions (balanced over families, numeric/binary)"),
    taxonomy_dir: Path | None = typer.Option(None, "--taxonomy-dir",
                                             help="reuse T(d,t) saved in DIR/<domain>; "
                                             "induce and save there when missing"),
) -> None:
    """Freeze N resolvable questions about the window after the cutoff (hashes + creation time).

    Example:

        foresci forecast package --kb workspace/kb --cutoff 2025-12-31 --window 3m --out workspace/pkg -n 12
    """
    from rich.console import Console

    from foresci.tasks.forecast import make_package

    with Console(stderr=True).status("building the package"):
        make_package(_open_kb(kb), out, parse_date_option(cutoff, "--cutoff"), window=window, n=n,
                     taxonomy_dir=taxonomy_dir)
    typer.echo((out / "forecast.jsonl").read_text(encoding="utf-8"))
    from foresci.core.io import read_json

    _warn_skipped_domains(read_json(out / "manifest.json"))
    typer.echo(f"package frozen at {out}")


@forecast_app.command("resolve")
def resolve_command(
    package: Path = typer.Argument(..., help="package folder from `forecast package`"),
    kb: Path = typer.Option(..., "--kb", help="a newer KB covering the whole window"),
) -> None:
    """Resolve a package against newer literature; writes resolutions.jsonl beside the questions.

    Refuses (exit 1) while the KB does not cover the window's last day.

    Example:

        foresci forecast resolve workspace/pkg --kb workspace/kb-newer
    """
    from foresci.tasks.forecast import WindowNotClosedError, resolve_package

    try:
        written = resolve_package(package, _open_kb(kb))
    except WindowNotClosedError as error:
        typer.echo(f"refused: {error}", err=True)
        raise typer.Exit(1) from error
    typer.echo(written.read_text(encoding="utf-8"))
    typer.echo(f"wrote {written}")
