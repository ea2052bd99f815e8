"""Known-skill ladder: does every metric rise with an answerer's real foresight on the same tasks?

A benchmark-only answerer (never a shipped method) with planted skill p answers each task *from its hidden
target* with probability p and otherwise makes a uniform guess: a random order of the options (the
direction's trajectory at random), for a bottleneck task a limitation the task lists publicly. The skilled
answer ranks the target's ranking first, names its trajectory, bottleneck and opportunity, and writes the
target's claims as its rationale; a skilled plan (strategic planning) carries the target's own milestones
and go/no-go criterion, a guessed one the same sentences written for its guessed top option
(:func:`plan`). A forecast question (:func:`forecast_payload`): binary, 0.98 / 0.02 on the resolved
outcome when skilled, else 0.5; numeric, p10-p50-p90 at 0.9x, 1x, 1.1x of the resolved value when
skilled, else of the question's naive (persistence) answer. Draws are common across p (one uniform per
task: skilled at p when it is below p, the same guess otherwise), so a task skilled at p = 0.1 is skilled
at every higher p.

Each release's answers are scored offline by the evaluation code (``score_answers``: strict top-1, FTA and
the offline Fact / Trace / Pers stand-ins, CRPS and Brier on forecast questions), and the bulk
link-prediction set, when the release carries one, by AUC (pair score: its label when skilled, else
uniform). Printed: metric x p, mean with a 95 % bootstrap interval (resampling tasks; with several
releases first resampling releases, each counting once, then tasks pooled over them), and per metric
whether it separates p = 0.1 from p = 0 (paired difference's interval above 0 in the metric's good
direction); a metric whose paired p = 0.4 - p = 0 difference's interval holds 0 is named FLAT, one whose
means are not monotone in p NON-MONOTONE (the exit code reads the release-resampled table). Beside each
p = 0.1 - p = 0 difference: ``need``, the clusters (tasks, or releases) at which it would separate,
n = (2.8 SD / mean)^2 from the paired differences' SD (80 % power at two-sided 5 %), and when clusters
are tasks the same figure expected from the p = 0.4 - p = 0 differences (a task's p = 0.1 step is its
p = 0.4 step when its draw is under 0.1: a quarter of them; :func:`clusters_needed`), which does not
hang on the few tasks one draw makes skilled at 0.1.

Run: ``python benchmarks/ladder.py --release DIR [--release DIR ...] [--seed 5] [--save FILE]
[--first N] [--load FILE ...]`` (``--load`` pools earlier runs' saved values; a run after one over N
releases takes ``--first N``, so the pooled draws are those of one run over all); synthetic worlds are the
releases of ``foresci demo`` or of ``benchmarks/foresight_signal.py --keep`` (``KEEP/d0.6-s*/release``).
Exit 1 when a metric is flat or non-monotone (a finding to read, not a failure of the code).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foresci.contracts import Answer  # noqa: E402
from foresci.evaluation.loading import ReleaseData, load_release  # noqa: E402
from foresci.evaluation.stats import MeanWithInterval, cluster_bootstrap_mean  # noqa: E402
from foresci.tasks.hidden import HiddenTarget  # noqa: E402
from foresci.tasks.models import ForecastQuestion, Task  # noqa: E402

LEVELS = (0.0, 0.1, 0.2, 0.4)
LOWER_IS_BETTER = frozenset({"crps", "brier", "log_loss"})
"""Metric names (after the family) where lower is better; every other metric reads higher as better."""
TRAJECTORIES = ("accelerating", "fragmenting", "steady", "cooling")
RANKING_FAMILIES = ("strategic_planning", "venue_positioning", "concept_emergence")


@dataclass
class Draws:
    """One task's common random numbers: the skill uniform and the guess's generator seed."""

    skill: float
    seed: int


def _order(task: Task, first: Sequence[str], rng: np.random.Generator) -> list[str]:
    options = [candidate.option_id for candidate in task.candidates]
    head = [option for option in first if option in options]
    rest = [option for option in options if option not in head]
    return head + [rest[index] for index in rng.permutation(len(rest))]


def _claims(target: HiddenTarget) -> str:
    return " ".join(claim.text.rstrip(".") + "." for claim in target.claims)


def _public_limitations(task: Task) -> list[str]:
    found: list[str] = []
    for key, value in task.context.items():
        if "limitation" in key and isinstance(value, list):
            found.extend(str(item.get("text", item.get("name", item))) if isinstance(item, dict)
                         else str(item) for item in value)
    return found or [task.title]


def plan(task: Task, target: HiddenTarget, top: str, skilled: bool) -> dict[str, Any]:
    """The planted plan's milestones and go/no-go criterion (scored by ``plan_outcome``).

    Skilled: the hidden target's own plan (``stats.milestones`` and ``stats.go_no_go``, the builder's plan
    for the hidden top option). Otherwise, and for a target without one: the same sentences written from
    the public task for the answer's top option (its name, the horizon, the window's end), so the guess
    differs from the skilled plan only in the option it names.
    """
    stats = target.stats or {}
    if skilled and stats.get("milestones") and stats.get("go_no_go"):
        return {"milestones": [str(item) for item in stats["milestones"]], "go_no_go": str(stats["go_no_go"])}
    name = next((candidate.name for candidate in task.candidates if candidate.option_id == top), top)
    months = int(task.horizon.rstrip("m")) if task.horizon.rstrip("m").isdigit() else 2
    return {"milestones": [f"a first result in {name} within {months // 2 or 1} month(s)",
                           f"a comparison against the strongest pre-cutoff work in {name} by "
                           f"{task.window_end.isoformat()}"],
            "go_no_go": (f"continue if newcomers keep publishing in {name}; stop if its papers come back to "
                         "the teams already in it")}


def task_payload(task: Task, target: HiddenTarget, skilled: bool, rng: np.random.Generator) -> dict[str, Any]:
    """The family answer of the planted answerer (skilled: from the hidden target; else a uniform guess)."""
    ranking = list(getattr(target, "ranking", []) or [])
    top = target.top_option()
    family = task.family
    if family == "direction_forecasting":
        order = _order(task, ([top] if top else []) + ranking if skilled else [], rng)
        trajectory = getattr(target, "trajectory", None) if skilled else None
        return {"direction": order[0], "trajectory": trajectory or TRAJECTORIES[int(rng.integers(4))],
                "rationale": _claims(target) if skilled else f"{order[0]} looks likely to grow."}
    if family in RANKING_FAMILIES:
        order = _order(task, ranking if skilled else [], rng)
        rationale = _claims(target) if skilled else ""
        ranked = [{"option_id": option} for option in order]
        if family == "venue_positioning":
            return {"ranking": ranked, "framing": rationale}
        if family == "strategic_planning":  # the rationale goes with the top option: go_no_go holds the
            ranked[0]["reason"] = rationale  # plan's criterion, which plan_outcome reads
            return {"ranking": ranked, **plan(task, target, order[0], skilled)}
        return {"ranking": ranked, "rationale": rationale}
    if family == "bottleneck_opportunity":
        bottlenecks = list(getattr(target, "bottleneck", []))
        opportunities = list(getattr(target, "opportunity", []))
        if skilled and bottlenecks and opportunities:
            return {"bottleneck": bottlenecks[0], "opportunity": opportunities[0],
                    "mechanism": getattr(target, "mechanism", None) or _claims(target),
                    "evidence_summary": _claims(target)}
        limits = _public_limitations(task)
        return {"bottleneck": limits[int(rng.integers(len(limits)))], "opportunity": task.title,
                "mechanism": "", "evidence_summary": ""}
    raise ValueError(f"the ladder has no answer for family {family}")


def forecast_payload(question: ForecastQuestion, outcome: float, skilled: bool, observed: Sequence[float],
                     rng: np.random.Generator) -> dict[str, float]:
    """The planted forecast. Binary: 0.98 / 0.02 on the resolved outcome when skilled, else 0.5. Numeric:
    p10 / p50 / p90 at 0.9x / 1x / 1.1x of a centre, the resolved value when skilled, else the question's
    naive (persistence) answer, ``baseline`` (a question without one: the resolved value of a random
    question of the release, ``observed``)."""
    if question.kind == "binary":
        return {"probability": (0.98 if outcome >= 0.5 else 0.02) if skilled else 0.5}
    if skilled:
        value = outcome
    elif question.baseline is not None:
        value = float(question.baseline)
    else:
        value = float(observed[int(rng.integers(len(observed)))])
    return {"p10": 0.9 * value, "p50": value, "p90": 1.1 * value + 1e-6}


def answers_of(release: ReleaseData, level: float, draws: dict[str, Draws]) -> list[Answer]:
    """Every task and forecast answer of the planted answerer at skill ``level``."""
    from foresci.agents.render import render_text
    from foresci.tasks.families import get_family

    method = f"ladder_p{level:g}"
    answers = []
    for task_id, task in sorted(release.tasks.items()):
        target = release.hidden.get(task_id)
        if target is None or not task.candidates and task.family != "bottleneck_opportunity":
            continue
        draw = draws[task_id]
        payload = task_payload(task, target, draw.skill < level, np.random.default_rng(draw.seed))
        model = get_family(task.family).answer_schema.model_validate(payload)
        answers.append(Answer(task_id=task_id, family=task.family, method=method, payload=payload,
                              text=render_text(task, model)))
    observed = [resolution.outcome for resolution in release.resolutions.values()]
    for question_id, question in sorted(release.questions.items()):
        resolution = release.resolutions.get(question_id)
        if resolution is None:
            continue
        draw = draws[question_id]
        forecast = {"question_id": question_id, "method": method,
                    **forecast_payload(question, resolution.outcome, draw.skill < level, observed,
                                       np.random.default_rng(draw.seed))}
        answers.append(Answer(task_id=question_id, family="forecast", method=method, payload=forecast))
    return answers


def bulk_aucs(folder: Path, level: float, seed: int) -> dict[str, float]:
    """AUC of the planted pair scores on each bulk set of ``folder`` (empty without one; a set with one
    class only, whose AUC is undefined, left out)."""
    from foresci.emergence.bulk import HIDDEN_FILE, hidden_groups
    from foresci.emergence.scoring import score_pairs

    if not (folder / HIDDEN_FILE).is_file():
        return {}
    found = {}
    for group, (ids, counts) in sorted(hidden_groups(folder).items()):
        rng = np.random.default_rng(seed)
        skill, guess = rng.uniform(size=len(ids)), rng.uniform(size=len(ids))
        labels = counts >= 1
        scores = np.where(skill < level, labels.astype(float), guess)
        auc = score_pairs(scores, labels, [], 0, 0)["auc"].value
        if auc is not None and np.isfinite(auc):
            found[f"emergence:{group}"] = auc
    return found


@dataclass
class Ladder:
    """metric -> level -> cluster -> values (a cluster: a task, ``release|task``, or a whole release)."""

    values: dict[str, dict[float, dict[str, list[float]]]] = field(default_factory=dict)
    tasks_as_clusters: bool = True

    def add(self, metric: str, level: float, cluster: str, value: float) -> None:
        self.values.setdefault(metric, {}).setdefault(level, {}).setdefault(cluster, []).append(value)

    def save(self, path: Path) -> None:
        """Write the values as JSON (``--save``), to be pooled with other runs (``--load``)."""
        path.write_text(json.dumps({metric: {str(level): clusters for level, clusters in levels.items()}
                                    for metric, levels in self.values.items()}))

    def load(self, path: Path) -> None:
        """Add the values a ``save`` wrote."""
        for metric, levels in json.loads(path.read_text()).items():
            for level, clusters in levels.items():
                for cluster, values in clusters.items():
                    for value in values:
                        self.add(metric, float(level), cluster, float(value))

    def by_release(self) -> Ladder:
        """The same values with each release one cluster (its tasks' values together)."""
        merged = Ladder(tasks_as_clusters=False)
        for metric, levels in self.values.items():
            for level, clusters in levels.items():
                for cluster, values in sorted(clusters.items()):
                    for value in values:
                        merged.add(metric, level, cluster.split("|", 1)[0], value)
        return merged


def collect(releases: Sequence[Path], seed: int, first: int = 0) -> Ladder:
    """Score the planted answerer at every level on every release (clusters: tasks, ``<folder>|<task>``; a
    bulk set counts as one task). Release k's draws are seeded by (``seed``, ``first`` + k)."""
    from foresci.core.settings import Settings
    from foresci.embedders.embedder import embedder_from_settings
    from foresci.evaluation.runner import score_answers
    from foresci.evaluation.session import EvaluationSession

    settings = Settings()
    encoder = embedder_from_settings(settings)
    ladder = Ladder()
    for number, folder in enumerate(releases, start=first):
        release = load_release(folder)
        rng = np.random.default_rng([seed, number])
        keys = sorted(release.tasks) + sorted(release.questions)
        draws = {key: Draws(float(rng.uniform()), int(rng.integers(2 ** 31))) for key in keys}
        session = EvaluationSession(release=release, settings=settings, encoder=encoder)
        for level in LEVELS:
            for score in score_answers(answers_of(release, level, draws), session):
                cluster = f"{folder}|{score.task_id}"
                for name, metric in score.metrics.items():
                    if metric.value is not None and np.isfinite(metric.value):
                        ladder.add(f"{score.family}:{name}", level, cluster, float(metric.value))
            for name, value in bulk_aucs(folder, level, seed + number).items():
                ladder.add(f"{name}:auc", level, f"{folder}|{name}", value)
                ladder.add("emergence:every_set:auc", level, f"{folder}|{name}", value)  # the sets pooled
        print(f"  {folder}: {len(release.tasks)} tasks, {len(release.questions)} forecast questions",
              flush=True)
    return ladder


def _interval(clusters: dict[str, list[float]], samples: int, seed: int) -> MeanWithInterval:
    """Mean with a bootstrap interval resampling clusters, each counting once (with tasks as clusters:
    the plain bootstrap over tasks)."""
    return cluster_bootstrap_mean([clusters[name] for name in sorted(clusters)], samples, seed,
                                  equal_weights=True)


def _difference(high: dict[str, list[float]], low: dict[str, list[float]], samples: int,
                seed: int) -> MeanWithInterval | None:
    shared = sorted(set(high) & set(low))
    pairs = {name: [np.mean(high[name]) - np.mean(low[name])] for name in shared}
    return _interval(pairs, samples, seed) if pairs else None


def clusters_needed(high: dict[str, list[float]], low: dict[str, list[float]],
                    share: float = 1.0) -> float | None:
    """Clusters at which a paired step would separate from 0: (2.8 SD / mean)^2 of its differences (80 %
    power, two-sided 5 %). ``share`` 1: the step is ``high`` - ``low`` itself (sample SD). ``share`` < 1:
    the step of a lower level, whose difference on a task is the ``high`` - ``low`` one when its common
    draw falls under that level (probability ``share``, e.g. 0.1 / 0.4) and 0 otherwise, so its mean is
    ``share`` E[d] and its variance ``share`` E[d^2] - mean^2 (valid when clusters are tasks). None with
    fewer than two clusters or a zero mean."""
    shared = sorted(set(high) & set(low))
    differences = np.array([np.mean(high[name]) - np.mean(low[name]) for name in shared])
    if len(differences) < 2:
        return None
    mean = share * float(differences.mean())
    if abs(mean) < 1e-12:
        return None
    spread = float(differences.std(ddof=1)) if share == 1.0 else \
        float(np.sqrt(max(share * float(np.mean(differences ** 2)) - mean ** 2, 0.0)))
    return (2.8 * spread / mean) ** 2


def report(ladder: Ladder, samples: int = 2000, seed: int = 11) -> list[str]:
    """Print the table and return the metrics found flat or non-monotone."""
    findings = []
    print(f"\n{'metric':<56} " + "  ".join(f"p={level:<4g} mean [95 % CI]     " for level in LEVELS)
          + " p0.1-p0 separates")
    for metric in sorted(ladder.values):
        by_level = ladder.values[metric]
        if any(level not in by_level for level in LEVELS):
            continue
        sign = -1.0 if metric.rsplit(":", 1)[-1] in LOWER_IS_BETTER else 1.0
        cells = {level: _interval(by_level[level], samples, seed) for level in LEVELS}
        step = _difference(by_level[0.1], by_level[0.0], samples, seed)
        separates = step is not None and (step.low > 0 if sign > 0 else step.high < 0)
        means = [sign * cells[level].mean for level in LEVELS]
        tolerance = 1e-6 * max(1.0, max(abs(mean) for mean in means))
        monotone = all(later >= earlier - tolerance for earlier, later in zip(means, means[1:], strict=False))
        span = _difference(by_level[LEVELS[-1]], by_level[0.0], samples, seed)
        flat = span is None or not (span.low > 0 if sign > 0 else span.high < 0)
        marks = ([] if monotone else ["NON-MONOTONE"]) + (["FLAT"] if flat else [])
        count = sum(len(values) for values in by_level[0.0].values())
        need = clusters_needed(by_level[0.1], by_level[0.0])
        expected = clusters_needed(by_level[LEVELS[-1]], by_level[0.0], LEVELS[1] / LEVELS[-1]) \
            if ladder.tasks_as_clusters else None
        line = (f"{metric[:56]:<56} " + "  ".join(f"{cells[level].mean:.3f} [{cells[level].low:.3f},"
                                                  f"{cells[level].high:.3f}]" for level in LEVELS)
                + f"  {'yes' if separates else 'no'}"
                + (f" ({step.mean:+.3f} [{step.low:+.3f}, {step.high:+.3f}])" if step else "")
                + f"  n={count} need={'-' if need is None else f'{need:.0f}'}"
                + (f" (from p{LEVELS[-1]:g}: {expected:.0f})" if expected is not None else "")
                + (f"  {' '.join(marks)}" if marks else ""))
        print(line)
        if marks:
            findings.append(f"{metric}: {' and '.join(marks).lower()}")
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, action="append", default=[], help="release folder")
    parser.add_argument("--first", type=int, default=0,
                        help="number of the first release in the draws' seed (a run pooled after one over N "
                             "releases: N, so the draws are those of one run over all)")
    parser.add_argument("--save", type=Path, default=None, help="write the scored values here (JSON)")
    parser.add_argument("--load", type=Path, action="append", default=[],
                        help="add the values of an earlier --save (pooling runs over different releases)")
    parser.add_argument("--seed", type=int, default=5, help="seed of the skill draws and guesses")
    parser.add_argument("--samples", type=int, default=2000, help="bootstrap resamples")
    args = parser.parse_args()
    print(f"ladder on {len(args.release)} release(s) and {len(args.load)} saved run(s), p in "
          f"{', '.join(f'{level:g}' for level in LEVELS)}")
    ladder = collect(args.release, args.seed, args.first) if args.release else Ladder()
    for path in args.load:
        ladder.load(path)
    if args.save:
        ladder.save(args.save)
    releases = {cluster.split("|", 1)[0] for levels in ladder.values.values() for clusters in levels.values()
                for cluster in clusters}
    if len(releases) > 1:
        print("\nreleases resampled (each counts once):")
        findings = report(ladder.by_release(), args.samples)
        print("\ntasks resampled, pooled over the releases (need: in tasks):")
        report(ladder, args.samples)
    else:
        findings = report(ladder, args.samples)
    for finding in findings:
        print(f"NAMED: {finding}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
