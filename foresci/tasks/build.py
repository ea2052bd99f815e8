"""Build a release from a KB: taxonomy at the cutoff, window evidence, family builders, gates, files."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foresci.core.artifacts import write_manifest
from foresci.core.errors import UserError
from foresci.core.io import write_jsonl
from foresci.kb.store import last_announcement
from foresci.tasks.audit import AuditReport, audit_tasks
from foresci.tasks.builders.common import Built, select_balanced
from foresci.tasks.candidates import no_candidate_record
from foresci.tasks.collector import freeze_loaded, with_quiet_collector
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_builds import DomainJob, build_domains, merge_domains
from foresci.tasks.domain_inputs import (
    domains_with_papers,
)
from foresci.tasks.families import family_names, get_family
from foresci.tasks.families.base import ReleaseParts
from foresci.tasks.hidden import Resolution
from foresci.tasks.hidden_io import write_forecast_hidden, write_hidden
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.release import write_public
from foresci.tasks.release_checks import check_record
from foresci.tasks.windows import HORIZON_MONTHS, make_window
from foresci.taxonomy.models import Snapshot
from foresci.taxonomy.rules import TaxonomyRules

if TYPE_CHECKING:

    from foresci.core.settings import Settings



def select_tasks(pools: Mapping[str, list[Built]], per_family: int, settings: TaskSettings) -> dict[str,
                                                                                                    list[Built]]:
    """Balanced selection per family, spreading picks over domains and horizons."""
    selected: dict[str, list[Built]] = {}
    for family, items in pools.items():
        shuffled = list(items)
        random.Random(f"{settings.seed}:select:{family}").shuffle(shuffled)
        selected[family] = select_balanced(shuffled, per_family, settings,
                                           group_of=lambda item: f"{item.task.domain}|{item.task.horizon}")
    return selected


def write_release(out: Path, selected: Mapping[str, list[Built]], settings: TaskSettings, *,
                  inputs: dict[str, Any], extra_counts: dict[str, Any] | None = None,
                  questions: Sequence[ForecastQuestion] = (),
                  resolutions: Sequence[Resolution] = (),
                  parts: Sequence[ReleaseParts] = ()) -> AuditReport:
    """Audit, apply the gates, then write tasks.jsonl, hidden.jsonl and manifest.json into ``out``.

    Forecast ``questions`` go to forecast.jsonl (public) and their ``resolutions`` to
    forecast_hidden.jsonl (hidden, beside hidden.jsonl). ``parts``: what families add beside their tasks
    (their questions after ``questions``, their public and hidden files, their counts).
    """
    questions = [*questions, *(question for part in parts for question in part.questions)]
    resolutions = [*resolutions, *(resolution for part in parts for resolution in part.resolutions)]
    items = [item for family in family_names() for item in selected.get(family, [])]
    tasks = [item.task for item in items]
    hidden = {item.hidden.task_id: item.hidden for item in items}
    report = audit_tasks(tasks, hidden, settings)
    rejected = [family for family, audit in report.families.items() if not audit.passed]
    if settings.enforce_gates and rejected:
        items = [item for item in items if item.task.family not in rejected]
        tasks = [item.task for item in items]
    out.mkdir(parents=True, exist_ok=True)
    files = write_public(out, tasks, list(questions))
    files.append(write_hidden(out, [item.hidden for item in items]))
    if questions:
        files.append(write_forecast_hidden(out, [row.model_dump(mode="json") for row in resolutions]))
    for part in parts:
        for name, rows in (*part.public_files.items(), *part.hidden_files.items()):
            write_jsonl(out / name, rows)
            files.append(name)
    counts = {"tasks": len(tasks),
              "by_family": dict(Counter(task.family for task in tasks)),
              "by_domain": dict(Counter(task.domain for task in tasks)),
              "by_horizon": dict(Counter(task.horizon for task in tasks)),
              "cutoffs": sorted({task.cutoff.isoformat() for task in tasks}),
              "windows": sorted({f"{task.horizon}:{task.window_start}..{task.window_end}" for task in tasks}),
              "rejected_families": {family: report.families[family].reasons for family in rejected},
              "audit": report.model_dump(mode="json"), **(extra_counts or {})}
    for part in parts:
        counts.update(part.counts)
    if questions:
        from foresci.tasks.forecast import question_counts

        counts["forecast_questions"] = {"questions": len(questions), **question_counts(questions)}
    write_manifest(out, "release", inputs=inputs, config=settings.model_dump(mode="json"), files=files,
                   counts=counts)
    return report


def _families_with_closed_windows(chosen: list[Any], cutoff: date, windows: Sequence[str], latest: date,
                                  asked: bool, progress: Callable[[str], None] | None,
                                  kb_path: Any, left_out: dict[str, str] | None = None) -> list[Any]:
    """The families whose own windows beyond the forecast ones (the venue cycle) have closed by ``latest``.

    A family left out for an open window is named in a warning; one the user asked for (``asked``:
    ``--families``) is an error naming the window: `--window 3m` on a KB three months past the cutoff
    builds every family but one whose own six-month window (a venue cycle) has not closed. ``left_out``:
    where to record each family left out (name -> why), for the manifest and the command's warning."""
    kept = []
    for family in chosen:
        needed = [make_window(cutoff, horizon) for horizon in family.horizons
                  if horizon not in windows and horizon not in HORIZON_MONTHS]
        still_open = [window for window in needed if latest < window.end]
        if not still_open:
            kept.append(family)
            continue
        window = still_open[0]
        text = (f"the KB ends on {latest}; {family.name} reads the {window.horizon} window ({window.start}.."
                f"{window.end}), which has not closed in it")
        if asked:
            raise UserError(f"{text}: leave {family.name} out of --families or use a later KB", path=kb_path,
                            field="--cutoff")
        if left_out is not None:
            left_out[family.name] = text
        if progress:
            progress(f"warning: left out {family.name}: {text}")
    if not kept:
        raise UserError(f"the KB ends on {latest}: no family's windows have closed in it", path=kb_path,
                        field="--cutoff")
    return kept


def _no_candidate_counts(pools: Mapping[str, list[Built]], drops: Mapping[str, Any]) -> dict[str, Any]:
    """``{"no_candidate": ...}`` for the families left with no candidate (nothing when every family has
    some, so the manifest of such a release keeps its keys)."""
    record = no_candidate_record(pools, drops)
    return {"no_candidate": record} if record else {}


@with_quiet_collector
def build_release(kb: Any, out: Path, cutoff: date, windows: Sequence[str] = ("3m", "6m"),
                  domains: Sequence[str] | None = None, settings: Settings | None = None,
                  per_family: int = 25,
                  snapshots: Mapping[str, Snapshot] | None = None, taxonomy_dir: Path | None = None,
                  progress: Callable[[str], None] | None = None,
                  forecast_questions: int | None = None, families: Sequence[str] | None = None,
                  rules: TaxonomyRules | None = None) -> Path:
    """Build a release folder from ``kb`` at ``cutoff``: 3m/6m windows, a venue cycle, all families.

    ``forecast_questions`` (default ``settings.tasks.forecast_questions``): that many resolvable numeric and
    binary questions, spread over the windows, frozen from papers <= cutoff and resolved from the KB
    (forecast.jsonl public, forecast_hidden.jsonl hidden); 0 writes none. ``families``: only these task
    families (default every registered one); the venue cycle is read only when one of them needs it.

    ``snapshots``: taxonomies T(d, t) already induced (domain -> Snapshot); others are induced here with
    ``build_taxonomy`` from papers up to the cutoff, or loaded from / saved to ``taxonomy_dir/<domain>``.
    ``rules``: the taxonomy's rule files as the command loaded them (None: read here, once for every
    domain and window). Refuses windows the KB has not yet closed.
    """
    from foresci.core.settings import Settings

    settings = settings or Settings()
    task_settings = settings.tasks
    chosen = [get_family(name) for name in (family_names() if families is None else families)]
    latest = last_announcement(kb)
    for window in (make_window(cutoff, horizon) for horizon in windows):
        if latest < window.end:
            raise UserError(f"the KB ends on {latest}; the {window.horizon} window ({window.start}.."
                            f"{window.end}) has not closed in it: use a later KB or an earlier --cutoff",
                            path=getattr(kb, "path", None), field="--cutoff")
    left_out: dict[str, str] = {}
    chosen = _families_with_closed_windows(chosen, cutoff, windows, latest, families is not None, progress,
                                           getattr(kb, "path", None), left_out)
    extra = sorted({horizon for family in chosen for horizon in family.horizons} - set(windows)
                   - set(HORIZON_MONTHS))  # windows a family reads beyond the forecast ones (venue cycle)
    window_list = [make_window(cutoff, horizon) for horizon in (*windows, *extra)]
    kept, skipped = domains_with_papers(kb, list(domains or kb.domains), cutoff,
                                        settings.taxonomy.member_statuses)
    freeze_loaded()  # the KB's papers, read by the line above
    for domain, reason in skipped.items():
        if progress:
            progress(f"warning: skipped domain {domain}: {reason}")
    wanted = task_settings.forecast_questions if forecast_questions is None else forecast_questions
    names = tuple(family.name for family in chosen)
    job = DomainJob(kb=kb, cutoff=cutoff, settings=settings, taxonomy_dir=taxonomy_dir,
                    snapshots=snapshots or {}, windows=tuple(window_list), families=names,
                    per_family=per_family, forecast_questions=wanted,
                    rules=rules or TaxonomyRules.load(settings.taxonomy))
    built = build_domains(job, kept, progress)
    used_snapshots = {item.domain: item.snapshot for item in built}
    pools, problems, family_seconds, parts, drops = merge_domains(built, names)
    if progress:
        progress("built candidates: " + ", ".join(f"{family} {value:.1f} s"
                                                  for family, value in family_seconds.items()))
    selected = select_tasks(pools, per_family, task_settings)
    lint = [problem for problem in problems if not problem.startswith("check:")]
    checks = [problem for problem in problems if problem.startswith("check:")]
    inputs = {"kb": str(getattr(kb, "path", "")), "kb_fingerprint": str(getattr(kb, "fingerprint", "")),
              "cutoff": cutoff.isoformat(), "windows": list(windows), "domains": list(domains or kb.domains),
              "per_family": per_family}
    if families is not None:
        inputs["families"] = [family.name for family in chosen]
    questions: list[ForecastQuestion] = []
    resolutions: list[Resolution] = []
    if wanted > 0:
        from foresci.tasks.forecast import release_forecasts

        if progress:
            progress(f"freezing and resolving {wanted} forecast questions")
        questions, resolutions = release_forecasts(kb, cutoff, list(windows), wanted, settings,
                                                   used_snapshots, kept)
    if progress:
        progress("auditing and writing the release")
    write_release(out, selected, task_settings, inputs=inputs,
                  extra_counts={"candidates_by_family": {family: len(items) for family,
                                                         items in pools.items()},
                                "lint_dropped": len(lint), "lint_examples": lint[:10],
                                "checks": check_record(checks, selected),
                                "skipped_domains": skipped, "left_out_families": left_out,
                                **_no_candidate_counts(pools, drops)},
                  questions=questions, resolutions=resolutions, parts=parts)
    return out
