"""What opening a round costs: the KB baselines share one view per cutoff (T(d, t) induced once per domain,
not once per method), and a ledger's schedule ``end`` stops opening rounds after it."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import foresci.agents.baselines.routing as routing
from foresci.rounds.answering import shared_views
from foresci.rounds.ledger import LedgerConfig, init_ledger, round_dir, round_ids, schedule_days
from foresci.rounds.submit import versions
from foresci.rounds.tick import tick
from tests.rounds.helpers import make_ledger, toy_settings
from tests.tasks.toy import CUTOFF, ToyKB


class ToyView:
    """A KB view at ``cutoff`` over the toy KB (the reads the trend and persistence baselines make)."""

    def __init__(self, kb: ToyKB, cutoff: date) -> None:
        self.kb, self.cutoff = kb, cutoff

    def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ("core", "support")) -> list[Any]:
        return self.kb.papers(until=self.cutoff)

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        return dict(Counter(f"{p.announced.year:04d}-{p.announced.month:02d}" for p in self.papers()))

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[Any]:
        return []

    def get(self, paper_id: str) -> Any:
        return next((paper for paper in self.papers() if paper.paper_id == paper_id), None)

    def embeddings(self, paper_ids: list[str]) -> Any:
        return self.kb.embeddings(paper_ids)


def test_shared_views_hand_out_one_view_per_cutoff() -> None:
    made: list[date] = []

    def view_for(cutoff: date) -> object:
        made.append(cutoff)
        return object()

    shared = shared_views(view_for)
    assert shared is not None and shared(CUTOFF) is shared(CUTOFF) and shared(date(2026, 1, 1)) is not None
    assert made == [CUTOFF, date(2026, 1, 1)]
    assert shared_views(None) is None


def test_open_induces_each_domain_once_for_both_kb_baselines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = make_ledger(tmp_path)
    kb = ToyKB(until=CUTOFF)
    made: list[date] = []
    induced: list[tuple[int, str | None]] = []
    induce = routing._induce

    def counted(view: Any, domain: str | None) -> Any:
        induced.append((id(view), domain))
        return induce(view, domain)

    def view_for(cutoff: date) -> ToyView:
        made.append(cutoff)
        return ToyView(kb, cutoff)

    monkeypatch.setattr(routing, "_induce", counted)
    actions = tick(ledger, kb, toy_settings(), snapshots={"toy": kb.snapshot}, view_for=view_for)
    assert actions[0].startswith("opened")
    folder = round_dir(ledger, round_ids(ledger)[0])
    assert len(versions(folder, "trend")) == len(versions(folder, "persistence")) == 1
    assert len(versions(folder, "recency")) == 1  # tasks state no recent counts: it reads them from the view
    assert made == [CUTOFF]  # every baseline answered through the one view
    assert induced and len(induced) == len(set(induced)) == 1  # T(toy, cutoff) once, not once per method


def test_schedule_end_stops_opening_rounds(tmp_path: Path) -> None:
    config = LedgerConfig(schedule="month-end", start=date(2025, 10, 1), end=date(2025, 11, 30))
    assert schedule_days(config, date(2026, 3, 31)) == [date(2025, 10, 31), date(2025, 11, 30)]
    assert schedule_days(config.model_copy(update={"end": None}), date(2026, 1, 31))[-1] == date(2026, 1, 31)
    ledger = tmp_path / "ledger"
    init_ledger(ledger, LedgerConfig(schedule="month-end", start=date(2025, 12, 1), end=date(2025, 11, 30),
                                     questions=8))
    kb = ToyKB(until=CUTOFF)
    assert tick(ledger, kb, toy_settings(), snapshots={"toy": kb.snapshot}) in ([], ["board updated"])
    assert round_ids(ledger) == []


def test_the_round_hands_its_taxonomy_to_the_kb_baselines(monkeypatch: pytest.MonkeyPatch) -> None:
    """open_round's T(d, t) is the baselines' (same papers, vectors, default taxonomy settings): they route
    into it instead of inducing it again, with the same routed papers; other taxonomy settings: induced."""
    from foresci.rounds.open import share_snapshots

    kb = ToyKB(until=CUTOFF)
    induced = routing._induce(ToyView(kb, CUTOFF), "toy")
    assert induced is not None
    calls: list[str | None] = []
    induce = routing._induce
    monkeypatch.setattr(routing, "_induce", lambda view, domain: calls.append(domain) or induce(view, domain))
    seeded = ToyView(kb, CUTOFF)
    share_snapshots(seeded, {"toy": induced.snapshot}, toy_settings())
    found = routing.routed_taxonomy(seeded, "toy")
    assert calls == [] and found is not None and found.routed == induced.routed
    other = toy_settings()
    other.taxonomy.seed += 1
    share_snapshots(fresh := ToyView(kb, CUTOFF), {"toy": induced.snapshot}, other)
    routing.routed_taxonomy(fresh, "toy")
    assert calls == ["toy"]


def test_subject_papers_read_one_index_per_view_and_domain() -> None:
    """The baselines' subject papers of every question are those a scan of the domain's papers finds (most
    of the quoted subject's content words among a paper's tokens), from one read of the view's papers."""
    from foresci.agents.baselines.questions import QUOTED, subject_papers
    from foresci.tasks.forecast import freeze_questions
    from foresci.tasks.text import content_tokens

    kb = ToyKB(until=CUTOFF)
    questions, _, _ = freeze_questions(kb, CUTOFF, "3m", 40, toy_settings(), {"toy": kb.snapshot},
                                       supply=toy_settings().rounds, seed="s")
    reads: list[str | None] = []

    class CountingView(ToyView):
        def papers(self, domain: str | None = None,
                   statuses: tuple[str, ...] = ("core", "support")) -> list[Any]:
            reads.append(domain)
            return super().papers(domain, statuses)

    view = CountingView(kb, CUTOFF)
    found_any = False
    for question in questions:
        words = set(content_tokens(QUOTED.findall(question.text)[0]))
        needed = max(1, -(-3 * len(words) // 5))
        scanned = [paper.paper_id for paper in ToyView(kb, CUTOFF).papers(question.domain)
                   if len(words & set(content_tokens(paper.text))) >= needed]
        assert [paper.paper_id for paper in subject_papers(view, question)] == scanned
        found_any = found_any or bool(scanned)
    assert found_any and len(questions) > 5 and reads == ["toy"]


def test_biweekly_rounds_are_every_fourteen_days_and_their_windows_are_horizons() -> None:
    """``schedule: every-n-days`` (``every_days`` 14 by default) is the biweekly cadence; a mid-month
    cutoff's 3-month window is still a horizon after it (its questions resolve as a month end's do)."""
    from foresci.tasks.forecast import _horizon
    from foresci.tasks.models import ForecastQuestion
    from foresci.tasks.windows import make_window

    config = LedgerConfig(schedule="every-n-days", start=date(2025, 7, 1))
    days = schedule_days(config, date(2025, 9, 1))
    assert days == [date(2025, 7, 1), date(2025, 7, 15), date(2025, 7, 29), date(2025, 8, 12),
                    date(2025, 8, 26)]
    for cutoff in days:
        frame = make_window(cutoff, "3m")
        question = ForecastQuestion(question_id="q", kind="binary", domain="d", cutoff=cutoff, text="t",
                                    resolution_rule="r", window_start=frame.start, window_end=frame.end)
        assert _horizon(question) == "3m" and frame.start > cutoff


def test_a_rounds_transcripts_are_built_in_memory_as_the_log_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    from types import SimpleNamespace

    from foresci.core.settings import Settings
    from foresci.core.transcript_log import TranscriptLog, read_transcripts
    from foresci.core.transcripts import Transcript
    from foresci.rounds import answering

    transcripts = [Transcript(events=[{"kind": "baseline_read", "t_s": 0.1, "counts": [1, 2]}]),
                   Transcript(events=[{"kind": "note", "t_s": 0.2, "text": "see http://127.0.0.1:9/x"}])]
    rows = [SimpleNamespace(status="ok", error=None, transcript=None),
            SimpleNamespace(status="failed", error="boom", transcript=None)]
    entries = [("forecast", "q-1", transcripts[0], rows[0]), ("answer", "t-1", transcripts[1], rows[1])]
    log = TranscriptLog(tmp_path / "log.jsonl")
    for kind, key, transcript, row in entries:
        log.write(transcript, kind, key, status=row.status, error=row.error)
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda handle: synced.append(handle))
    text = answering._transcripts(Settings(), entries)  # type: ignore[arg-type]
    assert synced == []  # nothing written and fsynced line by line (~900 fsyncs in a real opening)
    assert text is not None and rows[0].transcript == answering.transcript_id("forecast", "q-1")
    (tmp_path / "built.jsonl").write_bytes(text)
    built, logged = read_transcripts(tmp_path / "built.jsonl"), read_transcripts(tmp_path / "log.jsonl")
    assert list(built) == [row.transcript for row in rows]
    unnamed = [[{**item, "id": None} for item in stored.values()] for stored in (built, logged)]
    assert unnamed[0] == unnamed[1]
    assert answering._transcripts(Settings(), []) is None
