"""Context-window budgeting: a prompt that would overflow the served window loses its lowest-ranked
evidence first, and says so in the prompt itself (the transcript keeps the record).

Evidence lines are the ones :func:`foresci.agents.briefs.evidence_block` writes, best first:
``[paper-id] (YYYY-MM-DD) title — excerpt``. Tokens are estimated at 3 characters each (a safe
over-estimate for English with ids and dates under the small models' tokenizers).
"""

from __future__ import annotations

import re

CHARS_PER_TOKEN = 3.0
MESSAGE_OVERHEAD_TOKENS = 8
_EVIDENCE_LINE = re.compile(r"^\[[^\]\s]+\] \(\d{4}-\d{2}-\d{2}\)")


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """A conservative token count of ``messages`` (characters / 3 plus a per-message overhead)."""
    return sum(int(len(message["content"]) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
               for message in messages)


def fit_to_window(messages: list[dict[str, str]], window: int, reserve: int,
                  extra_tokens: int = 0) -> tuple[list[dict[str, str]], int]:
    """``messages`` trimmed to fit ``window`` tokens with ``reserve`` left for the answer (and
    ``extra_tokens`` of schema or tools sent beside them); returns (messages, evidence lines dropped).

    Lines are dropped from the end of the evidence (lowest-ranked first), latest message first, and a
    note saying how many were left out replaces them. Nothing is dropped when the prompt fits; when it
    still does not fit with no evidence left, it goes as it is and the server decides.
    """
    budget = window - reserve - extra_tokens
    if estimate_tokens(messages) <= budget:
        return messages, 0
    trimmed = [dict(message) for message in messages]
    dropped = 0
    for index in range(len(trimmed) - 1, -1, -1):
        lines = trimmed[index]["content"].split("\n")
        evidence = [number for number, line in enumerate(lines) if _EVIDENCE_LINE.match(line)]
        removed: list[int] = []
        while evidence and estimate_tokens(trimmed) > budget:
            removed.append(evidence.pop())
            kept = [line for number, line in enumerate(lines) if number not in removed]
            kept.insert(min(removed), _note(len(removed), window))
            trimmed[index]["content"] = "\n".join(kept)
        dropped += len(removed)
        if estimate_tokens(trimmed) <= budget:
            break
    return trimmed, dropped


def _note(count: int, window: int) -> str:
    return (f"({count} lower-ranked paper(s) left out to fit the model's context window of {window} tokens)")
