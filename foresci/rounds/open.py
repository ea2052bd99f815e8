"""Freeze a round at the KB's last announcement day: one forecast package per window and the family tasks
(:mod:`foresci.rounds.family_tasks`; a family's own round items, tasks and questions, through its
``round_items`` hooks), hashed, baselines in (persistence, trend and recency answer the
family tasks too; the name-only LLM baseline answers both when an LLM endpoint is configured).

The round folder is built in a staging folder and appears with one rename (public files, ``round.json``
and the naive baselines' first submissions together), so a kill leaves the round whole or absent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_json
from foresci.core.io import atomic_folder, write_json
from foresci.evaluation.fta import TextEncoder
from foresci.kb.store import last_announcement
from foresci.rounds.answering import shared_views
from foresci.rounds.baselines import base_rate_answers, chance_answers
from foresci.rounds.family_tasks import Frozen, freeze_tasks, open_items, task_windows, write_frozen
from foresci.rounds.ledger import (
    PUBLIC_DIR,
    ROUND_FILE,
    RoundManifest,
    fault_point,
    load_config,
    public_files,
    round_dir,
    round_id_for,
)
from foresci.rounds.slot_fta import round_encoder
from foresci.rounds.submit import (
    answer_tasks_with_method,
    answer_with_method,
    commit_version,
    round_questions,
)
from foresci.tasks.forecast import chosen_rules, make_package, question_rule
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot
from foresci.taxonomy.phrase_store import phrase_store
from foresci.taxonomy.rules import RULE_FILES, TaxonomyRules

KB_BASELINES = ("persistence", "trend")
NAME_ONLY = "name-only"  # the LLM baseline: native in name-only mode, when an LLM endpoint is configured
NAME_ONLY_METHOD = "native"
TASK_ONLY_BASELINES = ("recency",)  # answer direction and planning tasks (no questions), reading the KB


def round_snapshots(
    kb: Any,
    cutoff: date,
    settings: Any,
    snapshots: Mapping[str, Snapshot] | None,
    taxonomy_dir: Path | None,
    rules: TaxonomyRules | None = None,
) -> dict[str, Snapshot]:
    """T(d, cutoff) of every KB domain with papers at the cutoff (given, reused or induced with ``rules``,
    the taxonomy's rule files as the command loaded them)."""
    from foresci.tasks.domain_inputs import domains_with_papers, snapshot_for

    kept, _ = domains_with_papers(kb, list(kb.domains), cutoff,
                                  settings.taxonomy.member_statuses)
    return {
        domain: (snapshots or {}).get(domain) or snapshot_for(kb, domain, cutoff, settings, taxonomy_dir,
                                                                rules=rules)
        for domain in kept
    }


def share_snapshots(view: Any, used: Mapping[str, Snapshot], settings: Any,
                    rules: TaxonomyRules | None = None) -> None:
    """Hand the round's T(d, t) to the KB-reading baselines' view (they route into it instead of inducing
    it again: ~16 s of a real-corpus opening) when it was induced as theirs is: from the KB's papers with
    default ``taxonomy`` settings and no LLM naming (:mod:`foresci.agents.baselines.routing`). ``rules``
    (the command's rule files) are handed to the view too when the default settings name the same files,
    so a baseline that still induces a T(d, t) reads no rule file again."""
    from foresci.agents.baselines.routing import seed_routed, share_rules
    from foresci.core.settings import Settings

    defaults = Settings().taxonomy
    if rules is not None and all(getattr(settings.taxonomy, name) == getattr(defaults, name)
                                 for name in RULE_FILES):
        share_rules(view, rules)
    if settings.taxonomy != defaults or settings.llm.configured:
        return
    for domain, snapshot in used.items():
        seed_routed(view, domain, snapshot)


def commit_name_only(
    staging: Path, questions: list[Any], tasks: list[Any], settings: Any, cutoff: date, round_id: str
) -> Path:
    """The name-only LLM baseline's first submission: ``native`` asked with each question and each task's
    option names alone (no KB, no literature), on the configured endpoint's agent model."""
    from foresci.llm import role_model

    label, rows, transcripts = answer_with_method(
        questions, NAME_ONLY_METHOD, settings, None, mode="name_only"
    )
    task_rows, task_transcripts = answer_tasks_with_method(
        tasks, NAME_ONLY_METHOD, settings, None, mode="name_only"
    )
    source = {
        "kind": "baseline",
        "value": f"{label} (name_only)",
        "model": role_model(settings, "agent"),
    }
    return commit_version(
        staging,
        NAME_ONLY,
        rows,
        source,
        cutoff,
        round_id,
        transcripts=(transcripts or b"") + (task_transcripts or b"") or None,
        task_rows=task_rows,
    )


def open_round(
    ledger: Path | str,
    kb: Any,
    settings: Any = None,
    *,
    snapshots: Mapping[str, Snapshot] | None = None,
    scheduled_for: date | None = None,
    view_for: Callable[[date], Any] | None = None,
    taxonomy_dir: Path | None = None,
    encoder: TextEncoder | None = None,
    cutoff: date | None = None,
    round_id: str | None = None,
    rules: TaxonomyRules | None = None,
) -> str:
    """Freeze the round at ``kb``'s last announcement day, or at ``cutoff`` (a missed scheduled round: the
    KB read as it stood that day), kept as is when it exists; returns its id (``round_id``, by default
    ``r-CUTOFF``).

    ``view_for`` (cutoff -> KBView) lets the KB-reading baselines (persistence, trend; recency: tasks) answer;
    without it only the question-only baselines (always-0.5, base-rate) do. With an LLM endpoint configured
    (``settings.llm.configured``: ``FORESCI_LLM__BASE_URL``) the name-only LLM baseline answers too.
    ``encoder``: the embedder of the bottleneck options' same-node check (default: the KB's own model).
    ``rules``: the taxonomy's rule files as the command loaded them (None: read once here, from
    ``settings.taxonomy``), handed to every induction of the opening.
    """
    from foresci.core.settings import Settings

    ledger = Path(ledger)
    settings = settings or Settings()
    view_for = shared_views(view_for)  # one view per cutoff: the baselines induce T(d, t) from it once
    config = load_config(ledger)
    latest = last_announcement(kb)
    cutoff = latest if cutoff is None else min(cutoff, latest)
    round_id = round_id or round_id_for(cutoff)
    target = round_dir(ledger, round_id)
    if (target / ROUND_FILE).is_file():
        return round_id
    rules = rules or TaxonomyRules.load(settings.taxonomy)
    with phrase_store(settings.cache_dir), atomic_folder(target) as staging:
        used = round_snapshots(kb, cutoff, settings, snapshots, taxonomy_dir, rules)
        if view_for is not None and snapshots is None and taxonomy_dir is None:
            share_snapshots(view_for(cutoff), used, settings, rules)
        frozen: list[Frozen] = []
        items = open_items(kb, cutoff, used, config.families, config, f"{config.seed}:{round_id}")
        if config.family_tasks and config.families:
            embedder = encoder if encoder is not None else round_encoder(kb, settings)
            frozen, reader = freeze_tasks(
                kb,
                cutoff,
                used,
                config.families,
                config.windows,
                config.family_tasks,
                settings.tasks,
                f"{config.seed}:{round_id}",
                None if embedder is None else embedder.encode,
            )
            assert reader.latest is None or reader.latest <= cutoff
            for opened in items:
                frozen += opened.round_tasks(config.windows, config.family_tasks)
            write_frozen(staging / PUBLIC_DIR, frozen, used, settings.tasks)
        supply = settings.rounds
        wanted = supply.questions if config.questions is None else config.questions
        pairs = (supply.emergence_questions if config.emergence_questions is None
                 else config.emergence_questions)
        windows = {}
        for window in config.windows:
            make_package(
                kb,
                staging / PUBLIC_DIR / window,
                cutoff,
                window=window,
                n=wanted,
                settings=settings,
                snapshots=used,
                taxonomy_dir=taxonomy_dir,
                extra_questions=[question for opened in items
                                 for question in opened.round_questions(window, pairs, supply)],
                supply=supply,
                seed=f"{config.seed}:{round_id}:{window}",
            )
            frame = make_window(cutoff, window)
            windows[window] = {"start": frame.start.isoformat(), "end": frame.end.isoformat()}
        files = public_files(staging)
        draft = RoundManifest(
            round_id=round_id,
            cutoff=cutoff,
            scheduled_for=scheduled_for,
            windows=windows,
            files=files,
            public_hash=sha256_json(files),
            items=0,
            created_at=datetime.now(UTC).isoformat(),
            tasks=len(frozen),
            task_windows={
                horizon: {"start": frame.start.isoformat(), "end": frame.end.isoformat()}
                for horizon, frame in task_windows(frozen, cutoff).items()
            },
        )
        questions = round_questions(staging, draft)
        draft.items = len(questions)
        draft.counts = {
            "by_kind": dict(Counter(question.kind for question in questions)),
            "by_family": dict(Counter(str(question.params.get("family")) for question in questions)),
            "by_domain": dict(Counter(question.domain for question in questions)),
            "tasks_by_family": dict(Counter(item.task.family for item in frozen)),
            "tasks_by_domain": dict(Counter(item.task.domain for item in frozen)),
            "tasks_by_window": dict(Counter(item.task.horizon for item in frozen)),
            "by_rule": dict(Counter(question_rule(question) for question in questions)),
            "supply": {"questions": wanted, "emergence_questions": pairs, "node_cap": supply.node_cap,
                       "concept_cap": supply.concept_cap, "venue_cap": supply.venue_cap,
                       "emergence_strata": list(supply.emergence_strata),
                       "min_node_papers": supply.min_node_papers,
                       "rules": chosen_rules(supply)},
        }
        write_json(staging / ROUND_FILE, draft)
        source = {"kind": "baseline", "value": "answered at open"}
        commit_version(staging, "always-0.5", chance_answers(questions), source, cutoff, round_id)
        commit_version(staging, "base-rate", base_rate_answers(questions), source, cutoff, round_id)
        tasks = [item.task for item in frozen]
        if view_for is not None:
            for name in KB_BASELINES:
                label, rows, transcripts = answer_with_method(questions, name, settings, view_for)
                task_rows, task_transcripts = answer_tasks_with_method(tasks, name, settings, view_for)
                commit_version(
                    staging,
                    label,
                    rows,
                    {**source, "value": name},
                    cutoff,
                    round_id,
                    transcripts=(transcripts or b"") + (task_transcripts or b"") or None,
                    task_rows=task_rows,
                )
        if settings.llm.configured:
            commit_name_only(staging, questions, tasks, settings, cutoff, round_id)
        for name in TASK_ONLY_BASELINES if view_for is not None else ():
            task_rows, task_transcripts = answer_tasks_with_method(tasks, name, settings, view_for)
            if task_rows:
                source_of = {**source, "value": name}
                commit_version(
                    staging, name, [], source_of, cutoff, round_id, task_transcripts, task_rows=task_rows
                )
        fault_point("open-staged")
        assert all(opened.reader.latest is None or opened.reader.latest <= cutoff for opened in items)
    return round_id
