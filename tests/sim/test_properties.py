"""Property: any small valid world is well formed and passes the real ingest untouched."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foresci.core.io import iter_jsonl
from foresci.kb.ingest import ingest
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    directions=st.integers(2, 5),
    months=st.integers(6, 14),
    difficulty=st.floats(0.0, 1.0),
    noise=st.floats(0.0, 1.0),
    counterfactual=st.sampled_from([None, "reverse", "shuffle", "null"]),
)
def test_small_worlds_are_well_formed(
    seed: int, directions: int, months: int, difficulty: float, noise: float, counterfactual: str | None
) -> None:
    config = WorldConfig(
        seed=seed,
        n_domains=1,
        directions_per_domain=directions,
        months=months,
        window_months=2,
        papers_per_month=25,
        difficulty=difficulty,
        noise=noise,
        counterfactual=counterfactual,
    )
    with tempfile.TemporaryDirectory() as folder:
        paths = generate_world(config, Path(folder))
        truth = load_ground_truth(paths.root)
        result = ingest([paths.corpus], max_row_bytes=200_000)
        assert result.quarantined == []
        assert len(result.papers) == truth.paper_count
        first_day, last_day = f"{truth.months[0]}-01", f"{truth.months[-1]}-31"
        assert all(first_day <= paper.announced.isoformat() <= last_day for paper in result.papers)
        labels = list(iter_jsonl(paths.paper_labels))
        assert sorted(row["paper_id"] for row in labels) == sorted(paper.paper_id for paper in result.papers)
        assert all(row["paper_id"][:4] <= row["announced"][2:4] + row["announced"][5:7] for row in labels)
        assert {direction.trajectory for direction in truth.directions} <= {
            "accelerating",
            "cooling",
            "steady",
            "fragmenting",
        }
        assert all(set(direction.true_monthly_rates) == set(truth.months) for direction in truth.directions)
