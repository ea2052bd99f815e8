"""LLM naming mode: the ``builder`` model polishes each node's offline name, and every proposal is checked.

The model sees the node's offline name, its key phrases and the titles of its most central papers (all
announced on or before the snapshot's cutoff; phrases and titles fenced as data, with the system clause
saying so) and proposes one noun phrase. A proposal replaces the offline
name only when it passes every check; otherwise the offline name stays and the refusal is recorded in the
node's name evidence:

- a noun phrase of 2-8 words (:func:`foresci.taxonomy.phrases.is_noun_phrase`);
- grounded: every content word occurs in at least ``min_support`` of the node's papers;
- leakage lint: no word outside the pre-cutoff text of the snapshot's papers;
- unique among the snapshot's names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.fencing import escape, fence, with_system_clause
from foresci.taxonomy.models import NameEvidence, Node, Snapshot
from foresci.taxonomy.naming import NamingSettings
from foresci.taxonomy.phrases import CLOSED, contains_phrase, is_noun_phrase, phrase_key, text_keys

SYSTEM_PROMPT = (
    "You name research sub-directions of a taxonomy of papers. Reply with one noun phrase of 2 to 8 words "
    "that a researcher would write as the sub-direction's name (e.g. 'tool-use reinforcement learning for "
    "web agents'). Use only words that appear in the given titles and phrases; no verbs, no lists, no "
    "slashes, no quotation marks.")
SYSTEM_PROMPT = with_system_clause(SYSTEM_PROMPT)


class NameProposal(BaseModel):
    """The builder model's proposed name for one node."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="a 2-8 word noun phrase naming the sub-direction")


def _prompt(node: Node, titles: Sequence[str]) -> str:
    evidence = node.name_evidence
    phrases = [node.name, *(evidence.alternatives if evidence else [])]
    listed = "\n".join(f"- {title}" for title in titles)
    return (f"Current name: {escape(node.name)}\n"
            f"Key phrases:\n{fence('key_phrases', '; '.join(phrases))}\n"
            f"Titles of its most central papers:\n{fence('paper_titles', listed)}\nPropose the name.")


def check_name(name: str, node_keys: Sequence[set[str]], vocabulary: frozenset[str],
               taken: set[str], settings: NamingSettings) -> str | None:
    """Why a proposed name is refused (None: accepted). ``node_keys``: word keys of each node paper."""
    if not is_noun_phrase(name, settings.min_words, settings.max_words):
        return "not a 2-8 word noun phrase"
    key = phrase_key(name)
    if key in taken:
        return "already the name of another node"
    words = [word for word in key.split() if word not in CLOSED]
    unseen = [word for word in words if word not in vocabulary]
    if unseen:
        return f"leakage lint: {', '.join(unseen)} not in pre-cutoff text"
    weak = [word for word in words if sum(word in keys for keys in node_keys) < settings.min_support]
    if weak:
        return f"not grounded: {', '.join(weak)} in fewer than {settings.min_support} node papers"
    return None


def polish_names(snapshot: Snapshot, texts: Mapping[str, str], client: Any,
                 settings: NamingSettings | None = None, titles: Mapping[str, str] | None = None) -> int:
    """Ask ``client`` (an :class:`foresci.llm.LLMClient` with the builder role) to polish every node name.

    ``texts``: paper id -> title and abstract of the snapshot's papers; ``titles``: paper id -> title
    (defaults to the first 200 characters of the text). Returns how many names were replaced.
    """
    settings = settings or NamingSettings()
    vocabulary = frozenset(word for text in texts.values() for word in text_keys(text))
    taken = {phrase_key(node.name) for node in snapshot.nodes if node.name}
    replaced = 0
    for node in snapshot.nodes:
        if not node.name:
            continue
        ids = [paper_id for paper_id in node.paper_ids if paper_id in texts]
        central = [paper_id for paper_id in node.representative_ids if paper_id in texts] or ids[:5]
        shown = [(titles or {}).get(paper_id) or texts[paper_id][:200] for paper_id in central]
        messages = [("system", SYSTEM_PROMPT), ("user", _prompt(node, shown))]
        proposal = client.invoke_structured(messages, NameProposal)
        name = " ".join(proposal.name.strip().strip("'\".").split())
        node_keys = [set(text_keys(texts[paper_id])) for paper_id in ids]
        current = phrase_key(node.name)
        problem = check_name(name, node_keys, vocabulary, taken - {current}, settings)
        evidence = node.name_evidence or NameEvidence(method="label")
        if problem is not None:
            evidence.rejected.append(f"{name}: {problem}")
            node.name_evidence = evidence
            continue
        key = phrase_key(name)
        support = [paper_id for paper_id in ids if contains_phrase(text_keys(texts[paper_id]), key)]
        taken.discard(current)
        taken.add(key)
        previous = node.name
        node.name = name
        node.name_evidence = evidence.model_copy(update={
            "method": "llm", "support": len(support), "paper_ids": support[:5],
            "alternatives": [previous, *[text for text in evidence.alternatives if text != name]]})
        replaced += 1
    return replaced
