"""Versions of one method across the runs of a report: a shipped method answered at two versions in two
run folders is shown as two entries, never merged.

Each run's evaluation names a shipped method without its version when the run holds one version of it
(:func:`foresci.evaluation.loading.qualify_methods`). Across runs that is not enough: ``report A B`` of
``trend`` at ``foresci 0.1.0 prompts aaaa`` in A and ``prompts bbbb`` in B would count their rows of the
same task once. :func:`split_versions` renames such a method in every run to ``method@version`` (so its
rows are kept apart and paired); a method at the same version in every run keeps its name, and identical
rows in two folders still count once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from foresci.contracts import Answer
from foresci.evaluation.loading import answer_key, short_version
from foresci.evaluation.models import Score

VERSION_MARK = "@"


def versions_by_method(answers: Sequence[Answer]) -> dict[str, set[str]]:
    """The versions each (qualified) method name of one run's rows was answered at."""
    found: dict[str, set[str]] = {}
    for answer in answers:
        if answer.version:
            found.setdefault(answer.method, set()).add(answer.version)
    return found


def renames(runs: Sequence[dict[str, set[str]]]) -> list[dict[str, str]]:
    """Per run, the new name of each unversioned method name whose version differs between runs."""
    every: dict[str, set[str]] = {}
    for versions in runs:
        for name, seen in versions.items():
            if VERSION_MARK not in name.rsplit("/", 1)[-1]:
                every.setdefault(name, set()).update(seen)
    split = {name for name, seen in every.items() if len(seen) > 1}
    return [{name: f"{name}{VERSION_MARK}{short_version(next(iter(seen)))}"
             for name, seen in versions.items() if name in split and len(seen) == 1}
            for versions in runs]


def renamed_scores(scores: Sequence[Score], names: dict[str, str]) -> list[Score]:
    """``scores`` with the methods of ``names`` renamed (their row keys too)."""
    if not names:
        return list(scores)
    return [score.model_copy(update={"method": names[score.method],
                                     "key": answer_key(score.task_id, names[score.method], score.model,
                                                       score.mode)})
            if score.method in names else score for score in scores]


def renamed_answers(answers: Sequence[Answer], names: dict[str, str]) -> list[Answer]:
    """``answers`` with the methods of ``names`` renamed."""
    return [answer.model_copy(update={"method": names[answer.method]}) if answer.method in names else answer
            for answer in answers]


def split_note(run_dirs: Sequence[Path], names: Sequence[dict[str, str]]) -> str | None:
    """The report's note naming the methods shown apart because their versions differ between runs."""
    shown = sorted({f"{old} -> {new} ({run})" for run, renamed in zip(run_dirs, names, strict=True)
                    for old, new in renamed.items()})
    if not shown:
        return None
    return ("methods answered at different versions in different runs are shown apart, never merged: "
            + "; ".join(shown))
