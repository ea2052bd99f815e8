"""A tiny research world for the agents tests: a daily-arXiv corpus, a domain, four tasks.

Direction A ("graph memory") grows, B ("tool routing") is big and steady, C ("reward shaping") cools.
Papers announced after the cutoff carry the marker ``POSTCUTOFF`` in their titles (leakage checks).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.settings import Settings
from foresci.tasks.models import Candidate, Task

CUTOFF = date(2025, 6, 30)
DOMAIN = "toy_agents"
POST_MARKER = "POSTCUTOFF"
MONTHS = ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05", "2025-06", "2025-07", "2025-08"]
PLAN = {  # direction -> papers per month (the last two months are after the cutoff)
    "A": [1, 1, 2, 3, 5, 7, 8, 8],
    "B": [5, 5, 5, 5, 5, 5, 5, 5],
    "C": [6, 5, 4, 3, 2, 1, 1, 1],
}
TEXT = {
    "A": (
        "graph memory for language agents",
        "We store agent experience in a graph memory and retrieve "
        "subgraphs for planning. However, context window limits remain a bottleneck for long tasks.",
        "Accepted to ACL 2025",
    ),
    "B": (
        "tool routing for language agents",
        "A tool routing policy selects which API a language agent "
        "calls next. Tool routing improves success on benchmarks.",
        "Accepted at NeurIPS 2025",
    ),
    "C": (
        "reward shaping for language agents",
        "Reward shaping guides agent reinforcement learning with "
        "dense signals. However, reward hacking remains a bottleneck.",
        None,
    ),
}
DOMAIN_YAML = """name: Toy agents
slug: toy_agents
description: Language agents with memory, tools and rewards.
seed_descriptions:
  - A language agent uses memory, tools and rewards to solve tasks.
include_keywords: [language agent, agent]
exclude_keywords: []
categories: []
queries: []
"""


def write_corpus(folder: Path) -> dict[str, list[str]]:
    """Write daily JSONL files under ``folder/corpus`` and the domain under ``folder/domains``.

    Returns {"pre": ids on or before the cutoff, "post": ids after it}.
    """
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    (folder / "domains").mkdir(exist_ok=True)
    (folder / "domains" / f"{DOMAIN}.yaml").write_text(DOMAIN_YAML, encoding="utf-8")
    ids: dict[str, list[str]] = {"pre": [], "post": []}
    for month_index, month in enumerate(MONTHS):
        year, month_number = int(month[:4]), int(month[5:])
        rows_by_day: dict[str, list[dict[str, object]]] = {}
        serial = 0
        for direction, counts in PLAN.items():
            title, abstract, comment = TEXT[direction]
            for number in range(counts[month_index]):
                serial += 1
                day = date(year, month_number, 1 + (serial * 3) % 27)
                paper_id = f"{year % 100:02d}{month_number:02d}.{serial:05d}"
                after = day > CUTOFF
                marker = f"{POST_MARKER} " if after else ""
                rows_by_day.setdefault(day.isoformat(), []).append(
                    {
                        "id": paper_id,
                        "title": f"{marker}{title.capitalize()} study {month}-{number}",
                        "summary": f"{abstract} Variant {number} of {month}.",
                        "authors": ["A. Author"],
                        "categories": ["cs.CL"],
                        "comment": comment,
                        "pdf": "",
                        "abs": "",
                    }
                )
                ids["post" if after else "pre"].append(paper_id)
        for day, rows in rows_by_day.items():
            with (corpus / f"{day}.jsonl").open("w", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(json.dumps(row) + "\n")
    return ids


def _task(family: str, **fields: object) -> Task:
    base: dict[str, object] = {
        "task_id": f"toy-{family}",
        "family": family,
        "domain": DOMAIN,
        "cutoff": CUTOFF,
        "horizon": "3m",
        "window_start": date(2025, 7, 1),
        "window_end": date(2025, 9, 30),
    }
    base.update(fields)
    return Task.model_validate(base)


DIRECTIONS = [
    Candidate(option_id="A", name="graph memory", description="agent memory stored as graphs"),
    Candidate(option_id="B", name="tool routing", description="choosing which tool to call"),
    Candidate(option_id="C", name="reward shaping", description="dense rewards for agent RL"),
]
TERMS = {
    "candidates": {
        "A": {"key_terms": ["graph memory"]},
        "B": {"key_terms": ["tool routing"]},
        "C": {"key_terms": ["reward shaping"]},
    }
}


def toy_tasks() -> list[Task]:
    """One task per family over the toy world."""
    return [
        _task(
            "direction_forecasting",
            title="Which agent direction gains momentum?",
            question="Which of the candidate directions gains the most momentum next quarter?",
            candidates=DIRECTIONS,
            context=TERMS,
        ),
        _task(
            "bottleneck_opportunity",
            title="Bottleneck of graph memory agents",
            question="What is the root bottleneck of graph memory agents and what does reducing it open?",
            context={"subdirection": "graph memory for language agents", "key_terms": ["graph memory"]},
        ),
        _task(
            "strategic_planning",
            title="Plan for an agents team",
            question="Rank the options for a team planning the next quarter.",
            candidates=DIRECTIONS,
            context={"options": TERMS["candidates"]},
        ),
        _task(
            "venue_positioning",
            title="Venue for a graph memory paper",
            question="Rank the venue families for a paper on graph memory for language agents.",
            candidates=[
                Candidate(option_id="V1", name="ICLR/ICML/NeurIPS"),
                Candidate(option_id="V2", name="ACL/EMNLP/NAACL"),
                Candidate(option_id="V3", name="CVPR/ICCV/ECCV"),
            ],
            context={"contribution": "graph memory for language agents", "key_terms": ["graph memory"]},
        ),
    ]


def build_toy_kb(root: Path, base_url: str) -> tuple[Settings, Callable[[date], Any]]:
    """The toy world built into a real KB under ``root`` (for benchmarks): settings whose LLM points at
    ``base_url`` (model 'scripted-model') and a view factory returning the KB at the toy cutoff."""
    from foresci.kb.build import build_kb
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    write_corpus(root)
    kb_settings = Settings(cache_dir=root / "cache", kb={"domains": [DOMAIN]})
    build_kb([root / "corpus"], root / "kb", kb_settings, domains_dirs=[root / "domains"])
    view = KBView(KnowledgeBase.open(root / "kb", kb_settings), CUTOFF)
    llm = kb_settings.llm.model_copy(update={"base_url": base_url, "model": "scripted-model"})
    return kb_settings.model_copy(update={"llm": llm}), lambda cutoff: view
