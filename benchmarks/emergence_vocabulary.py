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

``filters`` is ``now`` with the generic-phrase filter and synonym merging off (the settings before
they were added). The neighbour information (foresci/emergence/genericity.py) of each JUNK and CONCEPTS
phrase is printed, to read the generic filter's threshold against (in-sample for these lists).

``--kb PATH`` adds the per-domain measurement of the minimum document frequency: for each domain of the KB
(core and support papers, as releases read them) and each cutoff (2025-09-30, 2025-12-31), the vocabulary
size for every pair of ``min_document_frequency`` in {5, 4, 3} and ``min_title_papers`` in {3, 2, 1}
(the rest as ``now``), and the pair the rule of taxonomy/emergence.yaml picks: the strictest (document
frequency first, then titles) with which every domain has at least MIN_DOMAIN_CONCEPTS concepts at both
cutoffs.

Goals (exit 1 when missed): at most 10 % of JUNK remain in ``now`` and at least 85 % of CONCEPTS.

Run: ``python benchmarks/emergence_vocabulary.py [--corpus DIR] [--cutoff 2025-09-30] [--kb PATH]
[--mined PICKLE]`` (minutes: phrase mining of about 30,000 papers; ``--mined``: the phrase-mined papers
``benchmarks/emergence.py --save-mined`` wrote, same phrase-mining code only).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import date
from pathlib import Path

from foresci.emergence.concepts import ConceptPaper, concept_papers, mine_vocabulary
from foresci.emergence.config import VocabularySettings, load_emergence_settings
from foresci.kb.ingest import ingest

MIN_DOMAIN_CONCEPTS = 200
KB_CUTOFFS = (date(2025, 9, 30), date(2025, 12, 31))
GRID_DOCUMENT_FREQUENCY = (5, 4, 3)
GRID_TITLE_PAPERS = (3, 2, 1)
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
    filters = now.model_copy(update={"merge_synonyms": False, "min_neighbour_information": 0.0})
    return {"before": before, "title rule": title_rule, "filters": filters, "now": now}


def information_table(concepts: list[ConceptPaper], cutoff: date, now: VocabularySettings) -> None:
    """Print the neighbour information of the JUNK and CONCEPTS phrases among the phrases that pass every
    rule of ``now`` but the generic filter."""
    import numpy as np
    import scipy.sparse as sp

    from foresci.emergence.genericity import neighbour_information

    open_settings = now.model_copy(update={"min_neighbour_information": 0.0, "vocabulary_size": 100_000})
    vocabulary = mine_vocabulary(concepts, cutoff, open_settings)
    index = vocabulary.index()
    rows = [sorted({index[key] for key in paper.phrases if key in index}) for paper in concepts
            if paper.announced <= cutoff]
    matrix = sp.csr_matrix((np.ones(sum(map(len, rows))), [column for row in rows for column in row],
                            np.cumsum([0, *map(len, rows)])), shape=(len(rows), len(vocabulary)))
    information = neighbour_information(matrix)
    value = {key: float(information[index[key]]) for key in vocabulary.keys}
    print(f"neighbour information (nats) among {len(vocabulary)} phrases; quantiles 1/5/10/25/50 %: "
          + " ".join(f"{np.quantile(information[np.isfinite(information)], q):.3f}"
                     for q in (0.01, 0.05, 0.1, 0.25, 0.5)))
    for label, phrases in (("junk", JUNK), ("concepts", CONCEPTS)):
        known = sorted((value[key], key) for key in phrases if key in value)
        print(f"  {label}: " + ", ".join(f"{key} {number:.2f}" for number, key in known))
    lowest = sorted(value.items(), key=lambda item: item[1])[:40]
    print("  40 lowest: " + ", ".join(f"{key} {number:.2f}" for key, number in lowest))


def domain_papers(kb_path: Path, now: VocabularySettings) -> dict[str, list[ConceptPaper]]:
    """Domain -> phrase-mined core and support papers of the KB up to the last cutoff."""
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_path)
    last = max(KB_CUTOFFS)
    return {domain: concept_papers(kb.papers(until=last, domain=domain, statuses=("core", "support")), now)
            for domain in kb.domains}


def domain_grid(domains: dict[str, list[ConceptPaper]], now: VocabularySettings) -> tuple[int, int] | None:
    """Print each domain's vocabulary size per (document frequency, title papers) minimum and cutoff;
    return the strictest pair giving every domain at least MIN_DOMAIN_CONCEPTS concepts (None: none)."""
    sizes: dict[tuple[int, int], list[int]] = {}
    for domain, papers in domains.items():
        print(f"{domain}: {len(papers)} papers up to {max(KB_CUTOFFS)}")
        for cutoff in KB_CUTOFFS:
            line = []
            for document in GRID_DOCUMENT_FREQUENCY:
                for titles in GRID_TITLE_PAPERS:
                    settings = now.model_copy(update={"min_document_frequency": document,
                                                      "min_title_papers": titles})
                    size = len(mine_vocabulary(papers, cutoff, settings))
                    sizes.setdefault((document, titles), []).append(size)
                    line.append(f"df{document}/t{titles} {size}")
            before = variants(now)["filters"]
            plain = len(mine_vocabulary(papers, cutoff, before))
            print(f"  {cutoff}: {' | '.join(line)} | yaml without the new filters {plain}")
    for pair in ((document, titles) for document in GRID_DOCUMENT_FREQUENCY for titles in GRID_TITLE_PAPERS):
        if min(sizes[pair]) >= MIN_DOMAIN_CONCEPTS:
            print(f"rule: strictest minimum with every domain >= {MIN_DOMAIN_CONCEPTS} concepts at both "
                  f"cutoffs: min_document_frequency {pair[0]}, min_title_papers {pair[1]} "
                  f"(smallest domain {min(sizes[pair])})")
            return pair
    print(f"rule: no pair of the grid gives every domain {MIN_DOMAIN_CONCEPTS} concepts")
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of daily JSONL files")
    parser.add_argument("--cutoff", type=date.fromisoformat, default=date(2025, 9, 30))
    parser.add_argument("--kb", type=Path, default=None, help="a built KB: the per-domain minimum grid")
    parser.add_argument("--mined", type=Path, default=None, help="pickle of emergence.py --save-mined")
    parser.add_argument("--kb-mined", type=Path, default=None, help="pickle of {domain: mined papers}")
    parser.add_argument("--skip-corpus", action="store_true", help="only the per-domain grid")
    args = parser.parse_args()
    started = time.perf_counter()
    now = load_emergence_settings().vocabulary
    if args.kb or args.kb_mined:
        import pickle

        if args.kb_mined:
            with args.kb_mined.open("rb") as handle:
                domains = pickle.load(handle)
        else:
            domains = domain_papers(args.kb, now)
        domain_grid(domains, now)
        for domain, papers in domains.items():
            print(f"{domain} at {max(KB_CUTOFFS)}:")
            information_table(papers, max(KB_CUTOFFS), now)
    if args.skip_corpus:
        return 0
    if args.mined:
        import pickle

        with args.mined.open("rb") as handle:
            concepts = [paper for paper in pickle.load(handle)["all"] if paper.announced <= args.cutoff]
    else:
        last = args.cutoff.isoformat()
        files = [path for path in sorted(args.corpus.glob("*.jsonl*")) if path.name[:10] <= last]
        papers = [paper for paper in ingest(files, 200_000).papers if paper.announced <= args.cutoff]
        concepts = concept_papers(papers, now)
    print(f"{len(concepts)} papers up to {args.cutoff} phrase-mined in {time.perf_counter() - started:.0f} s")
    information_table(concepts, args.cutoff, now)
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
