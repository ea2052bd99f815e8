"""A generated world passes the real KB ingest unchanged, and its domain files pass the KB's schema."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from foresci.core.io import iter_jsonl
from foresci.kb.domains import load_domain_file
from foresci.kb.ingest import ingest
from foresci.kb.models import VENUE_FAMILIES
from foresci.sim.truth import PAPER_LABELS_NAME, PaperLabel
from foresci.sim.world import load_ground_truth


def _labels(world: Path) -> dict[str, PaperLabel]:
    return {row["paper_id"]: PaperLabel.model_validate(row) for row in iter_jsonl(world / PAPER_LABELS_NAME)}


def test_noisy_world_ingests_with_zero_quarantined_rows(noisy_world: Path) -> None:
    truth = load_ground_truth(noisy_world)
    labels = _labels(noisy_world)
    result = ingest([noisy_world / "corpus"], max_row_bytes=200_000)
    assert result.quarantined == []
    assert result.rows == truth.row_count > truth.paper_count  # noise repeated some announcements
    assert result.duplicates == truth.row_count - truth.paper_count
    assert len(result.papers) == truth.paper_count == len(labels)
    for paper in result.papers:
        label = labels[paper.paper_id]
        assert paper.announced == label.announced  # the first announcement, not a repeat
        assert paper.authors and paper.categories  # stringified lists were parsed back
    assert sum(label.delayed_days > 0 for label in labels.values()) == truth.noise_counts["delayed"] > 0
    assert (
        sum("mislabelled" in label.roles for label in labels.values())
        == truth.noise_counts["mislabelled"]
        > 0
    )
    assert truth.noise_counts["dropped"] > 0 and truth.noise_counts["stringified"] > 0


def test_ids_are_sequential_within_each_month(clean_world: Path) -> None:
    by_month: dict[str, list[int]] = {}
    for paper_id in _labels(clean_world):
        prefix, number = paper_id.split(".")
        by_month.setdefault(prefix, []).append(int(number))
    for numbers in by_month.values():
        assert sorted(numbers) == list(range(1, len(numbers) + 1))


def test_domain_files_validate_against_the_kb_schema(clean_world: Path) -> None:
    truth = load_ground_truth(clean_world)
    for domain in truth.domains:
        spec = load_domain_file(clean_world / "domains" / f"{domain.slug}.yaml")
        assert spec.categories == [domain.category]
        for direction_id in domain.direction_ids:
            assert truth.direction(direction_id).name in spec.include_keywords


def test_venue_comments_follow_each_directions_preference(clean_world: Path) -> None:
    truth = load_ground_truth(clean_world)
    labels = _labels(clean_world)
    rank_counts: Counter[int] = Counter()
    for paper in ingest([clean_world / "corpus"], max_row_bytes=200_000).papers:
        written_as = labels[paper.paper_id].written_as
        if paper.venue_family is None or written_as is None:
            continue
        assert paper.venue_family in VENUE_FAMILIES
        direction = truth.direction(written_as.rsplit("/", 1)[0] if written_as.count("/") > 1 else written_as)
        rank_counts[direction.venue_ranking.index(paper.venue_family)] += 1
    shares = [rank_counts[rank] for rank in range(len(VENUE_FAMILIES))]
    assert sum(shares) > 200
    assert shares == sorted(shares, reverse=True)  # preferred families really receive more papers
