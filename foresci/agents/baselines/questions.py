"""trend and persistence answers to resolvable forecast questions (numeric: p10/p50/p90; binary: p).

The question's subject is matched by the content words of the name it quotes ('...'), within its domain,
on papers up to the cutoff. Numeric counts: persistence repeats the baseline period's count; trend
scales it by the fitted monthly growth of the subject's papers over the window's offset. Intervals are
log-normal with a spread that shrinks as counts grow. Binary growth: persistence gives the question's
naive base rate; trend a logistic of the projected share growth against the threshold (mirrored for a
share-decline question, ``params.direction == "decline"``). Binary venue:
whether the venue leads the subject's (recency-weighted, for trend) venue counts.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from foresci.agents.baselines.measure import months_before
from foresci.agents.baselines.subject_index import subject_index
from foresci.agents.config import AgentSettings
from foresci.agents.tools import KBViewLike, month_of
from foresci.contracts import ForecastAnswer
from foresci.core.transcripts import record
from foresci.kb.models import Paper
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.text import content_tokens

QUOTED = re.compile(r"'([^']{3,})'")
Z90 = 1.2816
PROBABILITY_CAP = 0.95


def subject_papers(view: KBViewLike, question: ForecastQuestion) -> list[Paper]:
    """Pre-cutoff papers of the question's domain that hold most content words of its quoted subject (read
    from the view's per-domain word index, :mod:`foresci.agents.baselines.subject_index`)."""
    quoted = QUOTED.findall(question.text)
    words = set(content_tokens(quoted[0])) if quoted else set(content_tokens(question.text)[:4])
    if not words:
        return []
    needed = max(1, math.ceil(0.6 * len(words)))
    return subject_index(view, question.domain).holding(words, needed)


def _bounded(probability: float) -> float:
    """A model-made probability kept within [0.05, 0.95]: small counts never justify near-certainty."""
    return round(min(PROBABILITY_CAP, max(1 - PROBABILITY_CAP, probability)), 4)


def _window_months(question: ForecastQuestion) -> float:
    return max(1.0, (question.window_end.toordinal() - question.window_start.toordinal() + 1) / 30.4)


def _log_slope(counts: list[float]) -> float:
    if len(counts) < 3:
        return 0.0
    logs = np.log(np.asarray(counts, dtype=float) + 0.5)
    return float(np.polyfit(np.arange(len(counts), dtype=float), logs, 1)[0])


def _about_node(family: str) -> bool:
    """Whether the family's questions are about a taxonomy node (its share trend can be read)."""
    from foresci.tasks.families import UnknownFamilyError, get_family

    try:
        return get_family(family).routed_questions
    except UnknownFamilyError:
        return True


def forecast_question(
    kind: str, view: KBViewLike, question: ForecastQuestion, settings: AgentSettings
) -> ForecastAnswer:
    """The ``kind`` ('trend' or 'persistence') forecast for one question."""
    papers = subject_papers(view, question)
    months = months_before(view.cutoff, settings.trend_months)
    domain_counts = view.monthly_counts(question.domain)
    months = [month for month in months if domain_counts.get(month)] or months[-1:]
    by_month = Counter(month_of(paper.announced) for paper in papers)
    counts = [float(by_month.get(month, 0)) for month in months]
    shares = [
        count / domain_counts[month] if domain_counts.get(month) else 0.0
        for count, month in zip(counts, months, strict=True)
    ]
    window = _window_months(question)
    record("baseline_read", method=kind, question_id=question.question_id, cutoff=view.cutoff.isoformat(),
           months=months, subject_papers=len(papers), counts=counts,
           domain_totals=[domain_counts.get(month, 0) for month in months],
           normaliser=f"the {question.domain} domain's monthly paper totals")
    notes = [
        f"{kind}: {len(papers)} pre-cutoff papers match the question's subject; read {len(months)} months"
    ]
    family = str(question.params.get("family", ""))
    answer = ForecastAnswer(question_id=question.question_id, method=kind, notes=notes)
    if question.kind == "numeric":
        base = float(question.params.get("baseline_count", question.baseline or sum(counts[-int(window) :])))
        if kind == "persistence":
            median = base
        else:
            median = base * math.exp(max(-1.0, min(1.0, _log_slope(counts))) * window)
            notes.append(f"count slope {_log_slope(counts):+.3f}/month applied over {window:.1f} months")
        spread = 0.35 + 1.0 / math.sqrt(median + 1.0)
        answer.p50 = round(median, 3)
        answer.p10 = round(median * math.exp(-Z90 * spread), 3)
        answer.p90 = round(median * math.exp(Z90 * spread), 3)
        return answer
    if "venue_family" in question.params:  # will this venue family lead the node's venue-tagged papers?
        venue = str(question.params.get("venue_family"))
        weights: dict[str, float] = {}
        for paper in papers:
            if paper.venue_family:
                age = (view.cutoff - paper.announced).days / 30.4
                weight = 1.0 if kind == "persistence" else 0.5 ** (age / 6.0)
                weights[paper.venue_family] = weights.get(paper.venue_family, 0.0) + weight
        total = sum(weights.values())
        if not total:
            answer.probability = round(float(question.baseline or 0.5), 4)
            return answer
        leader = max(sorted(weights), key=lambda name: weights[name])
        lead = weights[leader]
        margin = weights.get(venue, 0.0) - max(
            (value for name, value in weights.items() if name != venue), default=0.0
        )
        answer.probability = _bounded(1 / (1 + math.exp(-3.0 * margin / max(1.0, math.sqrt(total)))))
        notes.append(f"venue weights {dict(weights)}; leader {leader} ({lead:.1f})")
        return answer
    about_node = _about_node(family)
    if kind == "persistence" or not about_node:
        if not about_node:
            notes.append("no share trend for a concept pair: the question's base rate")
        answer.probability = round(float(question.baseline if question.baseline is not None else 0.5), 4)
        return answer
    threshold = float(question.params.get("threshold", 1.1))
    slope = _log_slope([share * 1000 for share in shares]) if any(shares) else 0.0
    projected = math.exp(slope * window)
    margin = math.log(projected) - math.log(threshold)
    if question.params.get("direction") == "decline":  # will the share fall to threshold x or below?
        margin = -margin
    answer.probability = _bounded(1 / (1 + math.exp(-margin / 0.15)))
    notes.append(f"share slope {slope:+.3f}/month projects x{projected:.2f} against x{threshold:.2f}")
    return answer
