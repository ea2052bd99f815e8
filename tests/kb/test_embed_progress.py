"""The embed stage's progress bar: every paper counted, as it is encoded, with its rate in papers/s."""

from __future__ import annotations

from pathlib import Path

from foresci.core.settings import Settings
from foresci.kb.build import _Progress, _rate_column, embed_papers
from foresci.kb.ingest import ingest
from tests.kb.corpus import write_daily_corpus


def test_the_embed_bar_counts_every_paper_per_batch_and_shows_papers_per_second(tmp_path: Path) -> None:
    write_daily_corpus(tmp_path / "corpus", days=2, per_day=12)
    papers = ingest([tmp_path / "corpus"], 200_000).papers
    settings = Settings(cache_dir=tmp_path / "cache", kb={"embed_chunk": 10},
                        runtime={"embed_workers": 2, "encoder_batch_size": 4})
    with _Progress(True) as bars:
        vectors, computed, reused = embed_papers(papers, settings, bars)
        task = bars._progress.tasks[0]
        rate = str(_rate_column().render(task))
    assert vectors.shape[0] == len(papers) == computed + reused
    assert task.description == "embed (2 cores)"
    assert task.completed == task.total == len(papers)
    assert rate.endswith(" papers/s") and float(rate.split()[0]) > 0  # several batches: a rate is known
