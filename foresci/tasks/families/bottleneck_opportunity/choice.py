"""Which option of a round's bottleneck task a stated bottleneck names (by letter, by phrase, or by most of
its content words): shared by the bottleneck tasks' scoring and the option-probability scores."""

from __future__ import annotations

import re

from foresci.tasks.models import Task
from foresci.tasks.text import content_tokens
from foresci.taxonomy.phrases import phrase_key

MATCH_SHARE = 0.6  # the builder's MATCH_THRESHOLD: most of a phrase's content words name it
_LETTER = re.compile(r"^\s*(?i:option\s+)?\(?([A-Z])\)?(?:\s*[:.)\-]|\s*$)")


def chosen_option(task: Task, text: str) -> str | None:
    """The option a stated bottleneck names: its letter ("B", "Option B: ..."), its phrase (same phrase
    key), or the one option whose content words it holds at least ``MATCH_SHARE`` of, most covered first
    (None: none, or a tie)."""
    ids = {option.option_id for option in task.candidates}
    letter = _LETTER.match(text)
    if letter is not None and letter.group(1) in ids:
        return letter.group(1)
    key = phrase_key(text)
    for option in task.candidates:
        if phrase_key(option.name) == key:
            return option.option_id
    words = set(content_tokens(text))
    cover = []
    for option in task.candidates:
        wanted = set(content_tokens(option.name))
        if wanted:
            cover.append((len(wanted & words) / len(wanted), option.option_id))
    cover.sort(reverse=True)
    if not cover or cover[0][0] < MATCH_SHARE or (len(cover) > 1 and cover[1][0] == cover[0][0]):
        return None
    return cover[0][1]
