"""Probability-per-option answers to a round's family tasks and their proper multi-class score.

**What an answer states.** A task answer (``task_answers.jsonl``, an :class:`~foresci.contracts.Answer`
row) may give a probability per option in its payload: ``"probabilities": {"A": 0.5, "B": 0.3, ...}``
(option ids of the task, the "none of these" option included where the task has one; negative values
count as 0, the rest is normalised to sum 1; options left out get 0; all zero or none readable: uniform).
An answer without probabilities keeps being accepted and maps to a stated distribution
(:func:`answer_distribution`):

- a **ranking** (the ranked families: ``payload.ranking``, or the text's ranking) gets
  Borda weights: with N options, the option ranked i-th (from 0) weighs N - i; options the ranking leaves
  out share the weights left equally (a tie); weights are normalised. Four options ranked A > B > C > D give
  0.4, 0.3, 0.2, 0.1.
- a **single choice** (the field its family's ``choice_key`` names, e.g. direction's ``direction``) is the
  ranking with that
  option first and the others tied: 2 / (N + 1) on it, 1 / (N + 1) on each other option (four options:
  0.4 and 0.2 each).
- no readable choice: uniform (what an unanswered task is imputed with).

**The score.** The multi-class Brier score ``sum_k (p_k - o_k)^2`` (0 best, 2 worst), where ``o`` is the
resolved outcome as a distribution over the options: 1 on the option that in fact grew most (or emerged,
or rose; "none of these" where none did), split equally over options tied in the outcome. Multi-class
Brier rather than the ranked probability score: RPS needs ordered categories (its cumulative sums reward
being near the outcome on a scale), and a task's options are unordered names, so RPS would credit an answer
for the option that happens to be listed next to the winner. The Brier score is strictly proper for
unordered outcomes: an answer's expected score is best when it states its own probabilities. With a split
(tied) outcome it is the squared distance to the outcome vector, still minimised in expectation by the
honest forecast of ``E[o]``.

**Top-1 on every task.** ``top_mass``: the outcome mass on the answer's top option (the options tied at
its highest probability share it): 1 for the winner, 1/m for one of m tied winners, 0 otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.families import TaskFamily, UnknownFamilyError, get_family
from foresci.tasks.families.round_outcome import NONE_OF_THESE, Resolved, split_outcome, with_none_option
from foresci.tasks.models import Task
from foresci.tasks.options import parse_answer_ranking, resolve_option

__all__ = ["NONE_OF_THESE", "PROBABILITIES", "Resolved", "answer_distribution", "multiclass_brier",
           "option_ids", "ranking_distribution", "split_outcome", "top_mass", "uniform", "with_none_option"]
PROBABILITIES = "probabilities"
"""The payload key of a probability-per-option answer."""


def option_ids(task: Task) -> list[str]:
    """The task's option ids, in the task's order."""
    return [candidate.option_id for candidate in task.candidates]


def uniform(task: Task) -> dict[str, float]:
    """Equal probability on every option."""
    ids = option_ids(task)
    return {option: 1.0 / len(ids) for option in ids} if ids else {}


def _normalised(weights: Mapping[str, float], ids: Sequence[str]) -> dict[str, float]:
    clean = {option: max(0.0, float(weights.get(option, 0.0))) for option in ids}
    total = sum(clean.values())
    if total <= 0:
        return {option: 1.0 / len(ids) for option in ids}
    return {option: value / total for option, value in clean.items()}


def ranking_distribution(ranking: Sequence[str], ids: Sequence[str]) -> dict[str, float]:
    """Borda weights of a ranking of option ids (unknown ids ignored; options left out tied last)."""
    known = [option for index, option in enumerate(ranking)
             if option in ids and option not in ranking[:index]]
    n = len(ids)
    weights = {option: float(n - index) for index, option in enumerate(known)}
    rest = [option for option in ids if option not in weights]
    if rest:
        left = [float(n - index) for index in range(len(known), n)]
        for option in rest:
            weights[option] = sum(left) / len(rest)
    return _normalised(weights, ids)


def _single_choice(task: Task) -> TaskFamily | None:
    """The task's family when its answers name one option (``TaskFamily.choice_key``), else None."""
    try:
        family = get_family(task.family)
    except UnknownFamilyError:
        return None
    return family if family.choice_key else None


def answer_distribution(task: Task, answer: Any) -> tuple[dict[str, float], str]:
    """(probability per option id, how it was read: ``probabilities``, ``ranking``, ``choice`` or
    ``uniform``) of one answer (None or an error row: uniform)."""
    ids = option_ids(task)
    if answer is None or getattr(answer, "status", "ok") != "ok":
        return uniform(task), "uniform"
    payload = answer.payload or {}
    stated = payload.get(PROBABILITIES)
    if isinstance(stated, Mapping):
        weights: dict[str, float] = {}
        for label, value in stated.items():
            option = label if label in ids else resolve_option(label, task.candidates)
            if option is not None and isinstance(value, int | float) and not isinstance(value, bool):
                weights[option] = weights.get(option, 0.0) + float(value)
        return _normalised(weights, ids), PROBABILITIES
    single = _single_choice(task)
    if single is not None:
        chosen = single.read_choice(task, payload, answer.text or "")
        if chosen is None:
            return uniform(task), "uniform"
        return ranking_distribution([chosen], ids), "choice"
    ranked, _ = parse_answer_ranking(payload, answer.text or "", task.candidates)
    known = [option for option in ranked if option in ids]
    if not known:
        return uniform(task), "uniform"
    return ranking_distribution(known, ids), "ranking"


def multiclass_brier(probabilities: Mapping[str, float], outcome: Mapping[str, float]) -> float:
    """sum over options of (p - o)^2 (0 best, 2 worst; module docstring)."""
    options = set(probabilities) | set(outcome)
    return float(sum((probabilities.get(option, 0.0) - outcome.get(option, 0.0)) ** 2 for option in options))


def top_mass(probabilities: Mapping[str, float], outcome: Mapping[str, float]) -> float:
    """Outcome mass on the answer's top option(s), shared among options tied at its highest probability."""
    if not probabilities:
        return 0.0
    best = max(probabilities.values())
    top = [option for option, value in probabilities.items() if value >= best - 1e-12]
    return float(sum(outcome.get(option, 0.0) for option in top) / len(top))
