"""The bulk link-prediction set: public pairs with pre-cutoff measures, hidden window papers, scoring."""

from __future__ import annotations

from pathlib import Path

from foresci.core.io import iter_jsonl
from foresci.emergence.build import emergence_set
from foresci.emergence.bulk import HIDDEN_FILE, baseline_scores, bulk_rows, score_bulk, write_bulk
from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.evaluate import evaluate
from foresci.emergence.learned import LearnedModel
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world

SETTINGS = load_emergence_settings()


def test_bulk_set_scores_like_the_in_memory_evaluation(tmp_path: Path) -> None:
    config = EmergenceWorldConfig(seed=8, difficulty=0.0)
    world = generate_emergence_world(config)
    target = emergence_set(concept_papers(world.papers, SETTINGS.vocabulary), config.cutoff,
                           config.window_end, SETTINGS)
    public, hidden = bulk_rows(target, "synthetic", "3m")
    assert write_bulk(tmp_path, [(public, hidden)]) == ["emergence_pairs.jsonl", HIDDEN_FILE]
    assert all("window_papers" not in row for row in public)
    stored = [row["window_papers"] for row in iter_jsonl(tmp_path / HIDDEN_FILE)]
    assert sum(count > 0 for count in stored) == int(target.labels(1).sum())
    scoring = SETTINGS.scoring.model_copy(update={"bootstrap_resamples": 20})
    settings = SETTINGS.model_copy(update={"scoring": scoring})
    expected = evaluate(target, LearnedModel(None, 0, 0, "none"), 1, settings).scores
    for method in ("preferential_attachment", "adamic_adar"):
        found = score_bulk(tmp_path, baseline_scores(public, method), 1, scoring)["synthetic:3m"]
        assert abs(found["auc"].value - expected[method]["auc"].value) < 1e-6
        assert found["precision@100"].value == expected[method]["precision@100"].value
    unscored = score_bulk(tmp_path, {}, 1, scoring)["synthetic:3m"]
    assert unscored["auc"].value == 0.5  # every pair tied
