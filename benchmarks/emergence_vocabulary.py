"""How many generic phrases remain in the concept vocabulary of the real corpus at 2025-09-30.

The vocabulary is mined from the daily files up to the cutoff three ways: ``before`` (the settings of
taxonomy/emergence.yaml without the title rule (share and paper minimum) and without the phrase
stoplist added with it: the vocabulary of the first release that carried the family), ``title rule`` (the
title rule alone) and
``now`` (taxonomy/emergence.yaml as it is). For each it counts the phrases of two hand-labelled lists
that remain: :data:`JUNK` (phrases of the ``before`` vocabulary that name no research concept:
boilerplate, evaluation and cost prose, labelled by reading it) and :data:`CONCEPTS` (research concepts
of the same vocabulary, some of them rarely in titles on purpose: "bounding box", "student model").
The stoplist was written from the same vocabulary, so ``now`` is an in-sample figure for the phrases it
lists; ``title rule`` is not. It also prints 40 concepts of ``now`` drawn at random, to read.

Goals (exit 1 when missed): at most 10 % of JUNK remain in ``now`` and at least 85 % of CONCEPTS.

Run: ``python benchmarks/emergence_vocabulary.py [--corpus DIR] [--cutoff 2025-09-30]`` (minutes: phrase
mining of about 30,000 papers).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import date
from pathlib import Path

from foresci.emergence.concepts import concept_papers, mine_vocabulary
from foresci.emergence.config import VocabularySettings, load_emergence_settings
from foresci.kb.ingest import ingest

DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "arxiv-daily"
ADDED_FIRST_WORDS = ("empirical", "qualitative", "quantitative", "comparative", "rigorous")
JUNK = (
    "paper present", "work present", "future research", "source code", "project page", "challenge due",
    "computational cost", "computational efficiency", "computational overhead", "computational complexity",
    "computational resource", "high computational cost", "f1 score", "average accuracy", "percentage point",
    "final answer", "success rate", "fall short", "key innovation", "key component", "real world application",
    "real world scenario", "high accuracy", "inference time", "inference speed", "training strategy",
    "training data", "training process", "training dataset", "model size", "larger model", "base model",
    "baseline model", "public dataset", "performance degradation", "detection accuracy",
    "classification accuracy", "reconstruction quality", "visual quality", "image quality", "input image",
    "contextual information", "semantic information", "generation process", "reasoning process",
    "evaluation metric", "benchmark dataset", "learning model", "ai system", "ground truth",
    "empirical evaluation", "experimental evaluation", "performance gap", "model architecture",
    "model training", "model parameter", "annotated data", "comparative analysis",
)
CONCEPTS = (
    "large language model", "diffusion model", "reinforcement learning", "retrieval augmented generation",
    "gaussian splatting", "knowledge graph", "reward model", "low rank adaptation", "catastrophic forgetting",
    "group relative policy optimization", "direct preference optimization", "supervised fine tuning",
    "knowledge distillation", "contrastive learning", "in context learning", "medical image segmentation",
    "segment anything model", "state space model", "vision transformer", "diffusion transformer",
    "multi agent system", "llm agent", "mathematical reasoning", "domain adaptation", "adversarial attack",
    "point cloud", "view synthesis", "pose estimation", "video generation", "speech recognition",
    "machine translation", "anomaly detection", "depth estimation", "bounding box", "student model",
    "teacher model", "pseudo label", "attention mechanism", "self supervised learning", "prompt engineering",
)


def variants(now: VocabularySettings) -> dict[str, VocabularySettings]:
    """The three vocabularies compared: before, the title rule alone, now."""
    first = [word for word in now.exclude_first_words if word not in ADDED_FIRST_WORDS]
    before = now.model_copy(update={"min_title_share": 0.0, "min_title_papers": 0, "exclude_phrases": [],
                                    "exclude_any_words": [], "exclude_first_words": first})
    title_rule = before.model_copy(update={"min_title_share": now.min_title_share,
                                           "min_title_papers": now.min_title_papers})
    return {"before": before, "title rule": title_rule, "now": now}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of daily JSONL files")
    parser.add_argument("--cutoff", type=date.fromisoformat, default=date(2025, 9, 30))
    args = parser.parse_args()
    started = time.perf_counter()
    now = load_emergence_settings().vocabulary
    last = args.cutoff.isoformat()
    files = [path for path in sorted(args.corpus.glob("*.jsonl*")) if path.name[:10] <= last]
    papers = [paper for paper in ingest(files, 200_000).papers if paper.announced <= args.cutoff]
    concepts = concept_papers(papers, now)
    print(f"{len(papers)} papers up to {args.cutoff} phrase-mined in {time.perf_counter() - started:.0f} s")
    failures = []
    vocabularies = {}
    for name, settings in variants(now).items():
        vocabulary = set(mine_vocabulary(concepts, args.cutoff, settings).keys)
        vocabularies[name] = vocabulary
        junk = sorted(set(JUNK) & vocabulary)
        kept = sorted(set(CONCEPTS) & vocabulary)
        print(f"{name:<11} {len(vocabulary)} concepts; junk remaining {len(junk)}/{len(JUNK)}; research "
              f"concepts kept {len(kept)}/{len(CONCEPTS)}")
        print(f"  junk left: {', '.join(junk) or '-'}")
        print(f"  concepts lost: {', '.join(sorted(set(CONCEPTS) - vocabulary)) or '-'}")
        if name == "now":
            if len(junk) > 0.10 * len(JUNK):
                failures.append(f"{len(junk)} of {len(JUNK)} junk phrases remain (goal <= 10 %)")
            if len(kept) < 0.85 * len(CONCEPTS):
                failures.append(f"only {len(kept)} of {len(CONCEPTS)} research concepts kept (goal >= 85 %)")
    sample = random.Random(31).sample(sorted(vocabularies["now"]), 40)
    print(f"40 concepts of 'now' at random: {' | '.join(sample)}")
    print(f"time {time.perf_counter() - started:.0f} s")
    for failure in failures:
        print(f"GOAL MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
