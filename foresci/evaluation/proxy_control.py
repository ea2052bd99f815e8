"""Zero-evidence control for offline metric proxies: can a proxy tell evidence-based from blind answers?

``blind_copy`` writes a copy of a release whose every cutoff lies before the KB, so any method run on it
answers with zero papers. ``proxy_separation`` pairs the scores of the normal run and of the blind run
(same task and method) and, per metric, tests whether evidence-based answers score higher: mean of each,
mean paired difference and a one-sided paired-bootstrap p-value. A metric whose difference is not
significant (p >= 0.05) or smaller than ``MIN_GAP`` is reported as unable to separate them. The checks
are recorded in the release audit as :class:`foresci.tasks.proxy_checks.ProxyCheck`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from foresci.core.artifacts import write_manifest
from foresci.core.io import iter_jsonl
from foresci.evaluation.stats import paired_bootstrap_pvalue
from foresci.tasks.hidden_io import load_hidden, write_hidden
from foresci.tasks.proxy_checks import ProxyCheck
from foresci.tasks.release import load_release, write_public

MIN_GAP = 0.02
ALPHA = 0.05


def blind_copy(release: Path | str, out: Path | str, cutoff: date = date(1990, 1, 1)) -> Path:
    """Copy a release (public and hidden) with every task's cutoff moved to ``cutoff`` (before any KB)."""
    source = load_release(release)
    tasks = [task.model_copy(update={"cutoff": cutoff}) for task in source.tasks]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = write_public(out, tasks)
    files.append(write_hidden(out, list(load_hidden(release).values())))
    write_manifest(
        out,
        "release",
        inputs={"blind_copy_of": str(release), "cutoff": cutoff.isoformat()},
        config={"control": "zero-evidence"},
        files=files,
        counts={"tasks": len(tasks)},
    )
    return out


def _values(scores: Path) -> dict[tuple[str, str, str], float]:
    """(task id, method, metric) -> value of the ok rows of a run's ``scores.jsonl``."""
    values: dict[tuple[str, str, str], float] = {}
    for row in iter_jsonl(scores / "scores.jsonl" if scores.is_dir() else scores):
        if row.get("status") != "ok":
            continue
        for name, result in (row.get("metrics") or {}).items():
            if isinstance(result, dict) and isinstance(result.get("value"), int | float):
                values[(row["task_id"], row["method"], name)] = float(result["value"])
    return values


def proxy_separation(evidence: Path | str, blind: Path | str) -> list[ProxyCheck]:
    """Per metric, whether evidence-based answers outscore the blind control on the same tasks."""
    with_evidence, without = _values(Path(evidence)), _values(Path(blind))
    checks: list[ProxyCheck] = []
    for metric in sorted({key[2] for key in with_evidence}):
        keys = sorted(key for key in with_evidence if key[2] == metric and key in without)
        if not keys:
            continue
        first = [with_evidence[key] for key in keys]
        second = [without[key] for key in keys]
        difference = sum(first) / len(first) - sum(second) / len(second)
        p_value = paired_bootstrap_pvalue(first, second)
        separates = p_value < ALPHA and difference >= MIN_GAP
        verdict = (
            "separates evidence-based from blind answers"
            if separates
            else "cannot separate evidence-based from blind answers"
        )
        checks.append(
            ProxyCheck(
                metric=metric,
                pairs=len(keys),
                evidence_mean=round(sum(first) / len(first), 4),
                blind_mean=round(sum(second) / len(second), 4),
                difference=round(difference, 4),
                p_value=round(p_value, 4),
                separates=separates,
                verdict=verdict,
            )
        )
    return checks
