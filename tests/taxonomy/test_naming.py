"""Node names: noun phrases grounded in the node's papers (offline), and the checked LLM polish."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import Settings
from foresci.kb.ingest import ingest
from foresci.kb.models import Paper
from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.llm_naming import polish_names
from foresci.taxonomy.models import Node, Snapshot
from foresci.taxonomy.naming import name_snapshot
from foresci.taxonomy.phrases import is_noun_phrase, noun_phrases, phrase_key, phrase_support
from tests.conftest import require_shared
from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401
from tests.support.openai_server import ScriptedOpenAIServer


def test_chunker_keeps_noun_phrases_and_breaks_on_verbs() -> None:
    found = {phrase.text for phrase in noun_phrases(
        "LLMs require domain expertise pairs, and we investigate internal dynamics of a novel multi-agent "
        "framework for tool-use reinforcement learning for web agents.", 2)}
    assert "tool-use reinforcement learning for web agents" in found
    assert "internal dynamics" in found and "domain expertise pairs" in found
    assert not any(word in phrase.split() for phrase in found for word in ("require", "investigate", "novel"))
    assert is_noun_phrase("Retrieval-Augmented Generation")
    assert not is_noun_phrase("dynamics investigate internal")
    assert not is_noun_phrase("llm-based / crucial / overall")
    assert not is_noun_phrase("require domain expertise pairs")
    assert phrase_key("Vision-Language Models") == phrase_key("vision language model")


def _real_papers() -> list[Paper]:
    folder = require_shared("corpora/arxiv-daily")
    days = sorted(folder.glob("2025-10-*.jsonl*"))[:8]
    return ingest(days, max_row_bytes=200_000).papers


def test_names_of_real_clusters_are_grounded_noun_phrases() -> None:
    papers = _real_papers()
    groups = {"diffusion": r"\bdiffusion model", "rag": r"retrieval-augmented generation|\brag\b",
              "agents": r"\bllm agents?\b|\bagentic\b"}
    nodes, texts = [], {}
    for node_id, pattern in groups.items():
        members = [paper for paper in papers if re.search(pattern, paper.text.lower())]
        assert len(members) >= 20, node_id
        texts.update({paper.paper_id: paper.text for paper in members})
        nodes.append(Node(node_id=node_id, label=f"{node_id} / keyword / bag",
                          paper_ids=[paper.paper_id for paper in members]))
    snapshot = Snapshot(domain="mixed", cutoff=date(2025, 10, 31), nodes=nodes)
    name_snapshot(snapshot, texts)
    names = [node.name for node in snapshot.nodes]
    assert len(set(names)) == len(names)
    for node in snapshot.nodes:
        assert node.name_evidence is not None and node.name_evidence.method == "phrase_mining"
        assert 2 <= len(node.name.split()) <= 8 and is_noun_phrase(node.name), node.name
        assert "/" not in node.name
        support = phrase_support(phrase_key(node.name), [texts[paper_id] for paper_id in node.paper_ids])
        assert support >= 3 and node.name_evidence.support >= 3, (node.name, support)
        assert set(node.name_evidence.paper_ids) <= set(node.paper_ids)


def test_embedder_reranks_towards_the_centroid() -> None:
    texts = {f"p{index}": text for index, text in enumerate(
        ["Graph neural networks for molecule design. Protein folding with graph neural networks."] * 4
        + ["Protein folding at scale. Graph neural networks for protein folding."] * 4)}
    vocabulary = ["graph neural network", "protein folding", "molecule design"]

    def embed(phrases: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(phrases), 3), dtype=np.float32)
        for row, phrase in enumerate(phrases):
            for column, item in enumerate(vocabulary):
                rows[row, column] = float(item in phrase_key(phrase))
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    def named(centroid: list[float]) -> str:
        node = Node(node_id="n", label="n", paper_ids=list(texts), centroid=centroid)
        name_snapshot(Snapshot(domain="d", cutoff=date(2025, 1, 1), nodes=[node]), texts, embed)
        return node.name

    assert named([0.0, 1.0, 0.0]) == "protein folding"
    assert named([1.0, 0.0, 0.0]) == "graph neural networks"


def test_induced_taxonomy_names_its_final_snapshot(planted_history: TaxonomyHistory) -> None:
    final = planted_history.final
    assert all(node.name for node in final.nodes)
    mined = [node for node in final.nodes
             if node.name_evidence and node.name_evidence.method == "phrase_mining"]
    assert len(mined) >= len(final.nodes) // 2
    assert len({node.name for node in final.nodes}) == len(final.nodes)


def test_llm_polish_keeps_only_checked_proposals(scripted_llm: ScriptedOpenAIServer,  # noqa: F811
                                                 llm_settings: Settings, tmp_path: Path) -> None:  # noqa: F811
    from foresci.llm import LLMClient

    agents = "Tool-use reinforcement learning for web agents trains browsing agents."
    video = "Diffusion models for video editing keep temporal consistency."
    texts = {f"a{index}": agents for index in range(4)} | {f"b{index}": video for index in range(4)}
    nodes = [Node(node_id=node_id, label=node_id, paper_ids=[key for key in texts if key.startswith(node_id)])
             for node_id in ("a", "b")]
    snapshot = Snapshot(domain="d", cutoff=date(2025, 1, 1), nodes=nodes)
    name_snapshot(snapshot, texts)
    offline_b = snapshot.nodes[1].name
    proposals = iter(["reinforcement learning for web agents", "quantum video diffusion"])
    scripted_llm.responder = lambda request: {"name": next(proposals)}
    replaced = polish_names(snapshot, texts, LLMClient(llm_settings, "builder"))
    assert replaced == 1 and len(scripted_llm.requests) == 2
    first, second = snapshot.nodes
    assert first.name == "reinforcement learning for web agents" and first.name_evidence is not None
    assert first.name_evidence.method == "llm" and first.name_evidence.support == 4
    assert second.name == offline_b and second.name_evidence is not None
    assert "leakage lint: quantum" in second.name_evidence.rejected[0]


@pytest.mark.parametrize("name,reason", [("improves results quickly", "noun phrase"),
                                         ("video editing", "not grounded")])
def test_name_checks_refuse_verbs_and_ungrounded_words(name: str, reason: str) -> None:
    from foresci.taxonomy.llm_naming import check_name
    from foresci.taxonomy.naming import NamingSettings
    from foresci.taxonomy.phrases import text_keys

    keys = [set(text_keys("video diffusion models")) for _ in range(3)] + [set(text_keys("editing"))]
    vocabulary = frozenset().union(*keys)
    problem = check_name(name, keys, vocabulary | {"improve", "result", "quickly"}, set(), NamingSettings())
    assert problem is not None and reason in problem


def _clustered_world() -> tuple[Snapshot, dict[str, str], dict[str, np.ndarray]]:
    """Ten top-level nodes of 20 papers, each paper's vector near its node's axis. Node 'a' uses a stock
    phrase ('practical guidance') in 8 papers, one paper of every other node uses it too, and only 3 of
    its papers name its topic ('graph neural networks'); each other node's papers all name its topic."""
    topics = ["protein folding", "molecule design", "speech recognition", "image segmentation",
              "machine translation", "code completion", "music generation", "weather forecasting",
              "robot navigation"]
    generator = np.random.default_rng(3)
    nodes, texts, vectors = [], {}, {}
    for column, node_id in enumerate(["a", *[f"t{index}" for index in range(len(topics))]]):
        paper_ids = [f"{node_id}-{index}" for index in range(20)]
        for index, paper_id in enumerate(paper_ids):
            if node_id == "a":
                text = "Graph neural networks for chemistry. " if index < 3 else "Untitled. "
                text += "It offers practical guidance." if 4 <= index < 12 else ""
            else:
                text = f"Advances in {topics[column - 1]}. "
                text += "It offers practical guidance." if index == 0 else ""
            texts[paper_id] = text
            vector = generator.normal(0.0, 0.05, 16)
            vector[column] += 1.0
            vectors[paper_id] = vector / np.linalg.norm(vector)
        nodes.append(Node(node_id=node_id, label=f"{node_id} / bag", paper_ids=paper_ids))
    return Snapshot(domain="toy", cutoff=date(2025, 10, 31), nodes=nodes), texts, vectors


def test_stock_phrases_learned_from_the_corpus_do_not_name_nodes() -> None:
    """'practical guidance' is over-represented in node a, so contrast alone names a by it; its papers are
    scattered over the domain (topical concentration at the bottom), so with the paper vectors a gets its
    topic instead."""
    from foresci.taxonomy.naming import NamingSettings, PhraseIndex, boilerplate_keys, topical_concentration

    snapshot, texts, vectors = _clustered_world()
    name_snapshot(snapshot, texts)
    assert snapshot.node("a").name == "practical guidance"
    snapshot, texts, vectors = _clustered_world()
    name_snapshot(snapshot, texts, vectors=vectors)
    assert snapshot.node("a").name.startswith("graph neural networks")
    assert snapshot.node("t0").name == "protein folding"
    population = sorted(texts)
    index = PhraseIndex(texts, NamingSettings())
    frequency = index.document_frequency(population)
    stock = boilerplate_keys(index, frequency, population, vectors, NamingSettings())
    assert phrase_key("practical guidance") in stock
    assert phrase_key("protein folding") not in stock
    scattered = [f"t{index}-1" for index in range(9)]
    concentration = topical_concentration({"scattered": scattered, "one node": [f"t0-{i}" for i in range(9)]},
                                          vectors, population)
    assert abs(concentration["scattered"]) < 0.1
    assert concentration["one node"] > 0.8
