"""A metric from a module outside foresci (a temp folder on PYTHONPATH named in FORESCI_EXTENSIONS) runs
through `tasks build` -> `run` -> `eval --offline` -> `report` as real CLI processes, without editing
foresci, and shows up in scores, summary.json, the leaderboard, the Table-2 pivot, the report and the
low-score diagnostics the heatmaps draw."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from foresci.core.settings import Settings

REPO = Path(__file__).resolve().parents[2]
NOVELTY = '''
"""A third-party metric: the share of the answer's words that its task's question does not use."""
from foresci.evaluation.metrics import Metric, ScoringContext, register_metric
from foresci.evaluation.models import MetricResult


@register_metric
class Novelty(Metric):
    name = "novelty"
    label = "Novelty"
    description = "share of the answer's words absent from the task question"
    headline = True

    def compute(self, context: ScoringContext) -> MetricResult:
        words = set(context.text.lower().split())
        asked = set(context.public_task.question.lower().split())
        view = context.kb_view
        return MetricResult(name=self.name, value=len(words - asked) / len(words) if words else 0.0,
                            details={"kb_papers_at_cutoff": view.size if view is not None else None})
'''


def _foresci(arguments: list[str], env: dict[str, str], cwd: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "foresci", *arguments], env=env, cwd=cwd,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"foresci {' '.join(arguments)}: {result.stderr[-2000:]}"
    return result.stdout


@pytest.mark.slow
def test_a_metric_from_outside_foresci_runs_through_the_cli(tmp_path: Path) -> None:
    from foresci.kb.build import build_kb
    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth

    world = generate_world(WorldConfig(seed=5, n_domains=1, directions_per_domain=6, months=18,
                                       papers_per_month=40.0), tmp_path / "world")
    truth = load_ground_truth(world.root)
    domain = truth.domains[0].slug
    settings = Settings(cache_dir=tmp_path / "cache")
    settings = settings.model_copy(update={"kb": settings.kb.model_copy(update={"domains": [domain]})})
    build_kb([world.corpus], tmp_path / "kb", settings, domains_dirs=[world.domains])
    extension = tmp_path / "extension"
    extension.mkdir()
    (extension / "toy_novelty.py").write_text(NOVELTY, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(extension), str(REPO)]),
        "FORESCI_EXTENSIONS": "toy_novelty",
        "FORESCI_CACHE_DIR": str(tmp_path / "cache"),
        "FORESCI_KB__DOMAINS": json.dumps([domain]),
        "COLUMNS": "100",
    }
    _foresci(["tasks", "build", "kb", "--cutoff", truth.cutoff.isoformat(), "--out", "release",
              "--per-family", "2", "--domain", domain], env, tmp_path)
    _foresci(["run", "release", "--out", "run", "--kb", "kb", "-m", "persistence", "-m", "trend",
              "--no-progress"], env, tmp_path)
    printed = _foresci(["eval", "run", "--offline"], env, tmp_path)
    _foresci(["report", "run", "--out", "report"], env, tmp_path)

    scores = [json.loads(line) for line in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    assert scores and all("novelty" in row["metrics"] for row in scores)  # every family, none edited
    assert all(row["metrics"]["novelty"]["details"]["kb_papers_at_cutoff"] > 0 for row in scores)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["metric_info"]["novelty"]["label"] == "Novelty"
    assert all("novelty" in entry["metrics"] for entry in summary["leaderboard"])
    assert any("novelty" in rates for rates in summary["diagnostics"]["low_score"]["by_family"].values())
    assert any("novelty" in rates for rates in summary["diagnostics"]["low_score"]["by_method"].values())
    assert " Novelty " in printed  # the terminal leaderboard
    html = (tmp_path / "report" / "index.html").read_text()
    pivot = html[html.index('id="backbone-pivot"'):]
    assert "<th>Novelty</th>" in pivot[: pivot.index("</table>")]  # Table 2
    assert "<td class=\"label\">novelty</td>" in html  # the metric legend
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| Novelty |" in markdown.split("## Leaderboard: all", 1)[1].split("\n\n")[1]
    assert "novelty" in json.loads((tmp_path / "report" / "summary.json").read_text())["metric_labels"]
