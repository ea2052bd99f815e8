"""Offline-proxy validation: does ``fact_offline`` give credit to an answer that only restates the candidates?

Usage: ``.venv/bin/python benchmarks/offline_proxy.py RELEASE [--goal 0.2]`` where RELEASE is a release
folder with candidates and claim banks (e.g. ``foresci demo --out demo-output`` writes
``demo-output/release``). For every ranking task it renders the answer that lists the candidates in task
order with nothing else (what a small model returned) and scores it with the packaged MiniLM, with and
without the restatement check; the claim bank itself, restated, is the control. Prints the figures and
exits non-zero when the names-only mean is above ``--goal`` or the control falls below 0.9.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foresci.agents.render import render_text  # noqa: E402
from foresci.contracts import RankedOption  # noqa: E402
from foresci.core.io import read_models  # noqa: E402  # noqa: E402
from foresci.core.settings import Settings  # noqa: E402  # noqa: E402
from foresci.embedders.embedder import embedder_from_settings  # noqa: E402
from foresci.evaluation.fact import offline_fact, public_texts  # noqa: E402
from foresci.tasks.families.strategic_planning.family import PlanningAnswer  # noqa: E402
from foresci.tasks.families.venue_positioning.family import VenueAnswer  # noqa: E402
from foresci.tasks.hidden_io import read_hidden  # noqa: E402
from foresci.tasks.models import Task  # noqa: E402

ANSWERS = {"strategic_planning": PlanningAnswer, "venue_positioning": VenueAnswer}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path, help="release folder (tasks.jsonl, hidden.jsonl)")
    parser.add_argument("--goal", type=float, default=0.2, help="highest mean fact_offline of names-only")
    args = parser.parse_args()
    tasks = {task.task_id: task for task in read_models(args.release / "tasks.jsonl", Task)}
    hidden = {row.task_id: row for row in read_hidden(args.release / "hidden.jsonl")}
    settings = Settings()
    encoder = embedder_from_settings(settings)
    before, after, control = [], [], []
    for task_id, task in tasks.items():
        target = hidden.get(task_id)
        if task.family not in ANSWERS or not task.candidates or target is None or not target.claims:
            continue
        listed = ANSWERS[task.family](ranking=[RankedOption(option_id=c.option_id) for c in task.candidates])
        text = render_text(task, listed)
        knobs = settings.evaluation
        thresholds = (knobs.offline_supported_threshold, knobs.offline_partial_threshold)
        limit = knobs.max_claims
        before.append(offline_fact(text, target.claims, encoder, limit, *thresholds).value)
        after.append(offline_fact(text, target.claims, encoder, limit, *thresholds, public_texts(task)).value)
        restated = " ".join(claim.text for claim in target.claims)
        control.append(
            offline_fact(restated, target.claims, encoder, limit, *thresholds, public_texts(task)).value
        )
    if not before:
        print(f"{args.release}: no ranking task with candidates and a claim bank")
        return 1
    print(f"{len(before)} ranking tasks; names-only fact_offline without the restatement check "
          f"{np.mean(before):.3f}, with it {np.mean(after):.3f} (goal <= {args.goal}); "
          f"restated claim bank {np.mean(control):.3f} (goal >= 0.9)")
    return 0 if np.mean(after) <= args.goal and np.mean(control) >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
