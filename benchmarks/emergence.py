"""Concept emergence on the real corpus: link prediction at cutoffs 2025-09-30 and 2025-12-31.

For each cutoff and window (3 and 6 months) it fixes the concept vocabulary from papers up to the cutoff
(taxonomy/emergence.yaml), builds the co-occurrence network, takes the unconnected candidate pairs (a
seeded uniform sample above ``targets.max_candidates``) and labels them from the window (positives:
co-occurring in >= k window papers, k = 1 and 3). Every baseline is scored by AUC and precision@100 with
95 % bootstrap intervals over the pairs; the learned baseline is trained on ``cutoff - window``.
Printed per row: candidate pairs (all, scored), positives, each method's AUC and precision@100, the audit
(AUC of degree alone, positive share) and the paired difference learned - preferential attachment.

Sources: the daily files (default ``../shared/corpora/arxiv-daily``: every paper, one network) or a built
KB with ``--kb PATH`` (one network per screened domain; ``--domain`` picks some).

Goals (exit 1 when missed): every row has candidates and positives and no feature reads after its
cutoff; every network baseline's AUC interval at k = 1 lies above 0.5; and the learned baseline beats
preferential attachment: the paired AUC difference's interval lies above 0 (each row where it does not
is named). Time and peak memory are printed.

Run: ``python benchmarks/emergence.py [--kb PATH] [--out results.json]`` (minutes: phrase mining).
``--save-mined PICKLE`` writes the phrase-mined papers, ``--mined PICKLE`` reads them instead of mining
(valid only for the same phrase-mining code and source: the vocabulary settings are applied after it).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from foresci.emergence.build import shift_months
from foresci.emergence.concepts import ConceptPaper, concept_papers, mine_vocabulary
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.evaluate import LEARNED, Evaluation, evaluate_window
from foresci.emergence.features import BASELINES
from foresci.kb.ingest import ingest

CUTOFFS = (date(2025, 9, 30), date(2025, 12, 31))
DEFAULT_CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora" / "arxiv-daily"


def corpus_sources(corpus: Path, end: date) -> dict[str, list[ConceptPaper]]:
    """{"all": concept papers of the daily files announced up to ``end``}."""
    files = [path for path in sorted(corpus.glob("*.jsonl*")) if path.name[:10] <= end.isoformat()]
    settings = load_emergence_settings()
    papers = [paper for paper in ingest(files, 200_000).papers if paper.announced <= end]
    return {"all": concept_papers(papers, settings.vocabulary)}


def kb_sources(path: Path, end: date, domains: Sequence[str]) -> dict[str, list[ConceptPaper]]:
    """Domain -> concept papers of the KB announced up to ``end`` (core and support)."""
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(path)
    settings = load_emergence_settings()
    return {domain: concept_papers(kb.papers(until=end, domain=domain), settings.vocabulary)
            for domain in (domains or kb.domains)}


def _cell(metrics: dict[str, object], name: str) -> str:
    interval = metrics[name]
    return f"{interval.value:.3f} [{interval.low:.3f},{interval.high:.3f}]"  # type: ignore[attr-defined]


def report(source: str, months: int, result: Evaluation) -> list[str]:
    """Printed lines of one row, and the failures of its goals."""
    audit = result.audit
    print(f"\n{source} cutoff {result.cutoff} window {months} months (to {result.window_end}) "
          f"k={result.min_papers}: {result.total_candidates} candidates, {result.scored_candidates} scored, "
          f"{result.positives} positive (share {audit['positive_share']}), degree-alone AUC "
          f"{audit['degree_auc']}, {audit['pre_cutoff_papers']} papers up to t, {audit['window_papers']} "
          f"in the window")
    for method in (*BASELINES, LEARNED):
        metrics = result.scores[method]
        print(f"  {method:<24} AUC {_cell(metrics, 'auc')}  P@100 {_cell(metrics, 'precision@100')}")
    lift = result.audit["learned_minus_preferential_attachment_auc"]
    print(f"  learned - PA AUC {lift['value']} [{lift['low']}, {lift['high']}]; {result.audit['learned']}")
    failures = []
    label = f"{source} {result.cutoff} {months}m k={result.min_papers}"
    if not result.positives or not result.scored_candidates:
        failures.append(f"{label}: no positives or no candidates")
    if result.audit["features_read_after_cutoff"]:
        failures.append(f"{label}: features read {result.audit['features_last_read']}, after the cutoff")
    if result.min_papers == 1:
        for method in BASELINES:
            low = result.scores[method]["auc"].low
            if low is None or low <= 0.5:
                failures.append(f"{label}: {method} AUC interval not above 0.5")
    if lift["low"] is None or lift["low"] <= 0:
        failures.append(f"{label}: the learned baseline does not beat preferential attachment "
                        f"(AUC difference {lift['value']} [{lift['low']}, {lift['high']}])")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder of daily JSONL files")
    parser.add_argument("--kb", type=Path, default=None, help="a built KB: one network per domain")
    parser.add_argument("--domain", action="append", default=[], help="KB domain (repeatable; default all)")
    parser.add_argument("--out", type=Path, default=None, help="write every row as JSON here")
    parser.add_argument("--save-mined", type=Path, default=None, help="write the mined papers (pickle)")
    parser.add_argument("--mined", type=Path, default=None, help="read the mined papers (pickle)")
    args = parser.parse_args()
    settings: EmergenceSettings = load_emergence_settings()
    started = time.perf_counter()
    end = max(shift_months(cutoff, months) for cutoff in CUTOFFS for months in settings.targets.window_months)
    if args.mined:
        import pickle

        with args.mined.open("rb") as handle:
            sources = pickle.load(handle)
    else:
        sources = kb_sources(args.kb, end, args.domain) if args.kb else corpus_sources(args.corpus, end)
    if args.save_mined:
        import pickle

        with args.save_mined.open("wb") as handle:
            pickle.dump(sources, handle)
    print(f"read and phrase-mined {sum(map(len, sources.values()))} papers up to {end} "
          f"in {time.perf_counter() - started:.0f} s")
    failures: list[str] = []
    rows = []
    for source, papers in sources.items():
        for cutoff in CUTOFFS:
            vocabulary = mine_vocabulary(papers, cutoff, settings.vocabulary)
            merged = sum(map(len, vocabulary.aliases))
            print(f"\n{source} vocabulary at {cutoff}: {len(vocabulary)} concepts ({merged} near-synonym "
                  f"keys merged into them)")
            for months in settings.targets.window_months:
                for result in evaluate_window(papers, cutoff, months, settings):
                    failures.extend(report(source, months, result))
                    rows.append({"source": source, "window_months": months, **result.as_dict()})
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
    print(f"\ntime {time.perf_counter() - started:.0f} s, peak memory {peak:.2f} GiB")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    for failure in failures:
        print(f"GOAL MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
