"""``eval --engine ray``: the judge calls of an evaluation, spread over Ray workers.

Judging (claim extraction, Fact verdicts, Trace, Pers) is the slow, independent part of scoring one
answer. Each worker builds its own judge client from the run's settings (sharing the persistent response
cache, so a re-evaluation still makes no model call) and returns the judged parts; the driver computes
the embedding metrics and writes ``scores.jsonl`` alone, exactly as with the local engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from foresci.contracts import Answer
from foresci.core.cluster import RemoteFailure, imap_unordered
from foresci.core.settings import Settings
from foresci.core.transcripts import Transcript
from foresci.evaluation.loading import ReleaseData
from foresci.evaluation.metrics import JudgedParts, judge_failed, judge_metric_names
from foresci.evaluation.scoring import judge_recorded
from foresci.evaluation.session import row_context
from foresci.evaluation.trace import PaperDates


@dataclass(frozen=True)
class JudgeSpec:
    """What a worker needs to judge answers of one evaluation."""

    settings: Settings
    release: ReleaseData
    kb_dates: PaperDates | None
    token: str


_CLIENTS: dict[str, Any] = {}


def judge_on_worker(spec: JudgeSpec, answer: Answer) -> tuple[JudgedParts, dict[str, int], Transcript]:
    """The judged parts of one answer, the calls/tokens they cost and the transcript of its judge calls,
    computed in a Ray worker."""
    from foresci.llm import LLMClient
    from foresci.llm.cache import Usage

    client = _CLIENTS.get(spec.token)
    if client is None:
        client = _CLIENTS[spec.token] = LLMClient(spec.settings, role="judge")
    child = client.child()
    context = row_context(answer, spec.release, spec.settings.evaluation, judge=child, kb_dates=spec.kb_dates)
    parts, transcript = judge_recorded(context)
    usage = child.usage.as_dict() if isinstance(child.usage, Usage) else {}
    return parts, usage, transcript


def judge_on_ray(
    answers: list[Answer], release: ReleaseData, settings: Settings, kb_dates: PaperDates | None
) -> Iterator[tuple[int, JudgedParts, dict[str, int], Transcript]]:
    """Yield ``(index, judged parts, usage, transcript)`` per answer as Ray workers finish judging them.

    An answer whose worker was lost for good gets transport failures for every judged metric (it is
    judged again by the next evaluation, like any transport failure).
    """
    import uuid

    spec = JudgeSpec(settings, release, kb_dates, uuid.uuid4().hex)
    for index, result in imap_unordered(judge_on_worker, spec, answers, settings.runtime):
        if isinstance(result, RemoteFailure):
            parts = JudgedParts(claims_error=result.error, claims_error_kind="transport")
            for name in judge_metric_names():
                parts.metrics[name] = judge_failed(name, result.error, "transport")
            yield index, parts, {}, Transcript()
            continue
        parts, usage, transcript = result
        yield index, parts, usage, transcript
