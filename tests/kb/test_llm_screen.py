"""The optional LLM screen re-judges borderline papers through a real client on the scripted server."""

from __future__ import annotations

from pathlib import Path

from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.store import KnowledgeBase
from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401
from tests.support.openai_server import ScriptedOpenAIServer


def test_llm_screen_relabels_support_papers(
    tmp_path: Path,
    daily_corpus: tuple[Path, dict],
    kb_cache: Path,
    scripted_llm: ScriptedOpenAIServer,  # noqa: F811
    llm_settings: Settings,  # noqa: F811
) -> None:
    scripted_llm.responder = lambda request: {"status": "excluded", "reason": "Off-topic for the domain."}
    settings = llm_settings.model_copy(
        update={
            "cache_dir": kb_cache,
            "kb": llm_settings.kb.model_copy(update={"llm_screen": True, "llm_screen_max": 2}),
        }
    )
    days = sorted(daily_corpus[0].glob("*.jsonl"))[:2]
    plain = build_kb(days, tmp_path / "plain", Settings(cache_dir=kb_cache))
    screened = build_kb(days, tmp_path / "llm", settings)
    kb = KnowledgeBase.open(tmp_path / "llm")
    relabelled = [
        decision
        for paper in kb.papers()
        for domain in kb.domains
        if (decision := kb.screen(paper.paper_id, domain)) and decision.reason.startswith("llm:")
    ]
    expected = sum(min(2, statuses.get("support", 0)) for statuses in plain.screen_counts.values())
    assert len(relabelled) == expected == len(scripted_llm.requests)
    assert all(decision.status == "excluded" for decision in relabelled)
    assert all("Off-topic" in decision.reason and "rules said" in decision.reason for decision in relabelled)
    assert (
        sum(s.get("excluded", 0) for s in screened.screen_counts.values())
        == sum(s.get("excluded", 0) for s in plain.screen_counts.values()) + expected
    )
