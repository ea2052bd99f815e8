"""Small generated corpora for the KB tests (no shared data needed)."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

TOPICS = {
    "agent": (
        "LLM agent with tool use and planning",
        "An autonomous language agent calls tools, plans multi-step "
        "actions and keeps a memory of past episodes.",
    ),
    "rag": (
        "Retrieval-augmented generation with a graph index",
        "We retrieve passages with a dense retriever and a "
        "knowledge graph, then generate grounded answers for multi-hop question answering.",
    ),
    "diffusion": (
        "Text-to-image diffusion model",
        "A latent diffusion model generates images from prompts; we distil it for fast few-step sampling.",
    ),
    "finetune": (
        "Preference optimization for LLM post-training",
        "Direct preference optimization and supervised "
        "fine-tuning align a large language model with human feedback.",
    ),
    "other": (
        "Graph neural networks for molecules",
        "A message passing network predicts molecular properties on chemistry benchmarks.",
    ),
}
CATEGORIES = {
    "agent": ["cs.AI", "cs.CL"],
    "rag": ["cs.CL", "cs.IR"],
    "diffusion": ["cs.CV"],
    "finetune": ["cs.CL", "cs.LG"],
    "other": ["cs.LG", "q-bio.QM"],
}
WORDS = [
    "novel",
    "robust",
    "scalable",
    "efficient",
    "adaptive",
    "sparse",
    "hierarchical",
    "contrastive",
    "causal",
    "modular",
]


def daily_rows(day_index: int, count: int, rng: random.Random) -> list[dict[str, object]]:
    """Rows of one generated daily file: ids encode the day so they are unique and sortable."""
    rows = []
    for number in range(count):
        topic = rng.choice(sorted(TOPICS))
        title, abstract = TOPICS[topic]
        extra = " ".join(rng.sample(WORDS, 3))
        authors: object = [f"Author {rng.randint(1, 50)}", f"Author {rng.randint(51, 99)}"]
        if rng.random() < 0.3:
            authors = str(authors)  # the real corpus sometimes stringifies lists
        rows.append(
            {
                "id": f"2503.{day_index:02d}{number:03d}",
                "title": f"{title} ({extra})",
                "summary": f"{abstract} Our {extra} method improves results.",
                "authors": authors,
                "categories": CATEGORIES[topic],
                "comment": rng.choice([None, "Accepted to CVPR 2026", "8 pages", "ACL 2025 Findings"]),
                "pdf": "",
                "abs": "",
            }
        )
    return rows


def write_daily_corpus(
    folder: Path, days: int = 6, per_day: int = 12, seed: int = 7, start: date = date(2025, 3, 18)
) -> dict[str, date]:
    """Write ``days`` gzip-free daily files (with a repeated row per day); return id -> first date."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    first: dict[str, date] = {}
    previous: list[dict[str, object]] = []
    for day_index in range(days):
        day = start + timedelta(days=day_index)
        rows = daily_rows(day_index, per_day, rng)
        for row in rows:
            first.setdefault(str(row["id"]), day)
        repeated = [dict(previous[0], id=str(previous[0]["id"]) + "v2")] if previous else []
        with (folder / f"{day.isoformat()}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows + repeated:
                handle.write(json.dumps(row) + "\n")
        previous = rows
    return first
