"""Build, update, reuse, atomicity and domain validation of a KB folder."""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from foresci.core.errors import UserError
from foresci.core.settings import Settings
from foresci.kb import build as build_module
from foresci.kb.build import build_kb, update_kb
from foresci.kb.domains import load_domain_file, load_domains
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase


def _days(corpus: Path) -> list[Path]:
    return sorted(corpus.glob("*.jsonl"))


def test_build_summary_and_manifest(built_kb: KnowledgeBase, daily_corpus: tuple[Path, dict]) -> None:
    _, first = daily_corpus
    summary = built_kb.summary()
    assert summary["papers"] == built_kb.size == len(first)
    assert summary["duplicates"] == 7  # one repeated row per day after the first
    assert summary["quarantined"] == 0
    assert set(built_kb.domains) == {spec.slug for spec in load_domains()}
    for paper in built_kb.papers():
        assert paper.announced == first[paper.paper_id]
    manifest = json.loads((built_kb.path / "manifest.json").read_text())
    assert manifest["kind"] == "kb" and manifest["fingerprint"] == built_kb.fingerprint
    assert set(manifest["hashes"]) >= {"papers.sqlite", "vectors.npy", "bm25_counts.npz"}
    counts = built_kb.screen_counts()
    assert all(sum(statuses.values()) == built_kb.size for statuses in counts.values())


def test_screen_reasons_follow_the_topics(built_kb: KnowledgeBase) -> None:
    for paper in built_kb.papers():
        decision = built_kb.screen(paper.paper_id, "visual_generative_modeling_and_diffusion")
        assert decision is not None and decision.reason
        if "diffusion model" in paper.title.lower():
            assert decision.status == "core"
        if "molecules" in paper.title.lower():
            assert decision.status == "excluded"
    assert built_kb.screen("9999.99999", "llm_agent") is None


def test_rebuild_with_same_inputs_is_reused(
    built_kb: KnowledgeBase, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    summary = build_kb([daily_corpus[0]], built_kb.path, kb_settings)
    assert summary.reused and summary.fingerprint == built_kb.fingerprint


def test_update_appends_without_recomputing(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    days = _days(daily_corpus[0])
    out = tmp_path / "kb"
    build_kb(days[:-1], out, kb_settings)
    before = KnowledgeBase.open(out, kb_settings)
    old_vectors = before.vectors.copy()
    old_ids = [paper.paper_id for paper in before.papers()]
    fresh_cache = kb_settings.model_copy(update={"cache_dir": tmp_path / "empty-cache"})
    summary = update_kb(out, [days[-1]], fresh_cache)
    assert summary.mode == "append"
    assert summary.added == 12  # only the new day's papers hit the model
    assert summary.embedded == len({paper.text for paper in KnowledgeBase.open(out).papers()[-12:]})
    after = KnowledgeBase.open(out, kb_settings)
    assert [paper.paper_id for paper in after.papers()][: len(old_ids)] == old_ids
    np.testing.assert_array_equal(after.vectors[: len(old_ids)], old_vectors)
    assert after.size == len(old_ids) + 12
    assert after.max_date > before.max_date
    assert after.fingerprint != before.fingerprint
    # the appended papers are searchable, and only at a cutoff that includes them
    newest = after.papers()[-1]
    assert KBView(after, after.max_date).get(newest.paper_id) == newest
    assert KBView(after, before.max_date).get(newest.paper_id) is None
    assert {path.name for path in out.iterdir() if path.name.startswith("gen-")} == {
        before.generation.name,
        after.generation.name,
    }  # the replaced generation stays for open readers
    again = update_kb(out, [days[-1]], kb_settings)
    assert again.added == 0 and again.embedded == 0


def test_backfill_reorders_and_reuses_vectors(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    days = _days(daily_corpus[0])
    out = tmp_path / "kb"
    build_kb([days[0], days[2]], out, kb_settings)
    stored_texts = {paper.text for paper in KnowledgeBase.open(out).papers()}
    empty = kb_settings.model_copy(update={"cache_dir": tmp_path / "empty-cache"})
    summary = update_kb(out, [days[1]], empty)
    assert summary.mode == "reorder"
    kb = KnowledgeBase.open(out, kb_settings)
    dates = [paper.announced for paper in kb.papers()]
    assert dates == sorted(dates) and len(set(dates)) == 3
    first = daily_corpus[1]
    assert all(paper.announced == first[paper.paper_id] for paper in kb.papers())  # earliest date won
    middle = {paper.text for paper in kb.papers() if paper.announced == dates[len(dates) // 2]}
    assert summary.embedded == len(middle - stored_texts)  # every stored vector was reused


def test_killed_build_leaves_previous_kb_usable(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    days = _days(daily_corpus[0])
    out = tmp_path / "kb"
    build_kb(days[:3], out, kb_settings)
    before = KnowledgeBase.open(out, kb_settings)
    expected = [hit.paper.paper_id for hit in KBView(before, before.max_date).search("diffusion", k=5)]
    before.close()

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed while writing the index")

    monkeypatch.setattr(build_module.BM25Index, "save", crash)
    with pytest.raises(KeyboardInterrupt):
        build_kb(days, out, kb_settings)
    monkeypatch.undo()
    survivor = KnowledgeBase.open(out, kb_settings)
    assert survivor.size == before.size
    assert [
        hit.paper.paper_id for hit in KBView(survivor, survivor.max_date).search("diffusion", k=5)
    ] == expected
    summary = build_kb(days, out, kb_settings)  # the rerun finishes and cleans the half-written generation
    assert summary.papers == 8 * 12 and not summary.reused
    generations = {path.name for path in out.iterdir() if path.name.startswith("gen-")}
    assert generations == {summary.generation, survivor.generation.name}


def test_sources_with_bad_rows_still_build(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(daily_corpus[0], corpus)
    day = _days(corpus)[0]
    day.write_text(day.read_text() + '{"id": "2503.99999", "title": \n{"title": "no id"}\n')
    summary = build_kb([corpus], tmp_path / "kb", kb_settings)
    assert summary.quarantined == 2
    kb = KnowledgeBase.open(tmp_path / "kb", kb_settings)
    rows = [json.loads(line) for line in kb.quarantine_path().read_text().splitlines()]
    assert {(Path(row["file"]).name, row["line"]) for row in rows} == {(day.name, 13), (day.name, 14)}
    assert kb.size == 8 * 12


def test_domain_yaml_errors_name_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: Broken\nslug: broken\ndescription: x\nseed_descriptions: []\n")
    with pytest.raises(UserError, match=r"broken\.yaml.*seed_descriptions"):
        load_domain_file(path)
    path.write_text("name: X\nslug: other\ndescription: x\nseed_descriptions: [a]\n")
    with pytest.raises(UserError, match=r"broken\.yaml.*slug"):
        load_domain_file(path)
    path.write_text("name: X\nslug: broken\ndescription: x\nseed_descriptions: [a]\ntypo_field: 1\n")
    with pytest.raises(UserError, match="typo_field"):
        load_domain_file(path)


def test_extra_domain_folder_is_screened(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    extra = tmp_path / "domains"
    extra.mkdir()
    (extra / "molecules.yaml").write_text(
        "name: Molecules\nslug: molecules\ndescription: chemistry\n"
        "seed_descriptions: [Graph neural networks predict molecular properties.]\n"
        "include_keywords: [molecules, molecular]\n"
    )
    settings = kb_settings.model_copy(
        update={"kb": kb_settings.kb.model_copy(update={"domains": ["molecules"]})}
    )
    build_kb(_days(daily_corpus[0])[:2], tmp_path / "kb", settings, domains_dirs=[extra])
    kb = KnowledgeBase.open(tmp_path / "kb", settings)
    assert kb.domains == ["molecules"]
    core = kb.papers(domain="molecules", statuses=("core",))
    assert core and all("molecules" in paper.title.lower() for paper in core)
    view = KBView(kb, date(2025, 3, 18) + timedelta(days=1))
    assert all(hit.paper in core for hit in view.search("molecular property", k=3, domain="molecules"))
