"""The embedding label check (#44): an option's name against its node's central papers and the other
options' names, on a generated domain where one label is planted on the wrong node."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from datetime import date
from types import SimpleNamespace

import numpy as np

from foresci.kb.models import Paper
from foresci.tasks.audit import audit_tasks
from foresci.tasks.config import TaskSettings
from foresci.tasks.hidden import make_hidden_target
from foresci.tasks.label_fit import label_fits
from foresci.tasks.models import Candidate, Task
from foresci.tasks.release_checks import (
    audit_checks,
    option_pool,
    record_relabels,
    renamed_pool,
    take_refusals,
)
from foresci.taxonomy.models import NameEvidence, Node
from foresci.taxonomy.naming import display_name

TOPICS = {  # node id -> (its name, what its papers are about)
    "n1": ("flow matching", "flow matching rectified flow velocity field transport"),
    "n2": ("video generation", "video generation temporal frames motion clips"),
    "n3": ("image editing", "image editing instruction edits inpainting masks"),
    "n4": ("super resolution", "super resolution upscaling high resolution details"),
    "n5": ("generative adversarial networks", "flow matching rectified flow velocity transport sampler"),
}
"""n5 is the planted case: named for GANs, its papers are flow-matching papers."""


def _embed(texts: list[str]) -> np.ndarray:
    """A deterministic bag-of-words embedder (hashed words, unit length)."""
    rows = np.zeros((len(texts), 256), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in re.findall(r"[a-z]+", text.lower()):
            rows[row, zlib.crc32(word.encode()) % 256] += 1.0
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


@dataclass(eq=False)
class _Evidence:
    node: Node
    subtree: list[str]
    pre_ids: list[str] = field(default_factory=list)

    @property
    def node_id(self) -> str:
        return self.node.node_id


def _domain(topics: dict[str, tuple[str, str]],
            alternatives: dict[str, list[str]] | None = None) -> SimpleNamespace:
    papers: dict[str, Paper] = {}
    nodes: dict[str, _Evidence] = {}
    for node_id, (name, about) in topics.items():
        ids = [f"{node_id}-p{index}" for index in range(6)]
        for index, paper_id in enumerate(ids):
            papers[paper_id] = Paper(paper_id=paper_id, title=f"{about.split()[index % 3]} study {index}",
                                     abstract=f"We improve {about} in setting {index}.",
                                     announced=date(2025, 6, 1 + index))
        vector = _embed([about])[0].tolist()
        evidence = NameEvidence(method="phrase_mining", alternatives=(alternatives or {}).get(node_id, []))
        node = Node(node_id=node_id, label=name.replace(" ", "_"), name=name, key_terms=name.split(),
                    centroid=vector, representative_ids=ids[:5], paper_ids=ids, name_evidence=evidence)
        nodes[node_id] = _Evidence(node=node, subtree=[node_id], pre_ids=ids)
    snapshot = SimpleNamespace(nodes=[item.node for item in nodes.values()])
    words = frozenset(word for paper in papers.values() for word in re.findall(r"[a-z]+", paper.text.lower()))
    return SimpleNamespace(domain="gen", cutoff=date(2025, 12, 31), snapshot=snapshot, nodes=nodes,
                           papers=papers, embed=_embed, window=SimpleNamespace(horizon="3m"),
                           text_cache=SimpleNamespace(text_index=None), pre_vocabulary=words)


def test_a_label_planted_on_another_topics_node_is_caught_and_good_labels_are_not() -> None:
    domain = _domain(TOPICS)
    pool = list(domain.nodes.values())
    fits = label_fits(domain, pool, [TOPICS[item.node_id][0] for item in pool])
    assert [node for node, fit in fits.items() if not fit.fits] == ["n5"]
    assert fits["n5"].first_nearest == "flow matching" and fits["n5"].votes < 3
    kept = option_pool(domain, pool, "visual generative modelling", "direction_forecasting")
    assert [item.node_id for item in kept] == ["n1", "n2", "n3", "n4"]
    refusals = take_refusals("gen", "3m")
    assert len(refusals) == 1 and refusals[0].startswith("check:label_mismatch:")
    assert "generative adversarial networks" in refusals[0] and "flow matching" in refusals[0]
    # the same names on the right nodes all fit; without an embedder nothing is judged
    fixed = dict(TOPICS, n5=("generative adversarial networks",
                             "generative adversarial networks discriminator generator adversarial"))
    fixed_domain = _domain(fixed)
    assert all(fit.fits for fit in label_fits(fixed_domain, list(fixed_domain.nodes.values()),
                                              [name for name, _ in fixed.values()]).values())
    domain.embed = None
    assert label_fits(domain, pool, [TOPICS[item.node_id][0] for item in pool]) == {}


def test_the_audit_reads_a_recorded_label_fit() -> None:
    task = Task(task_id="df-x", family="direction_forecasting", domain="gen", cutoff=date(2025, 12, 31),
                horizon="3m", window_start=date(2026, 1, 1), window_end=date(2026, 3, 31), title="t",
                question="q", candidates=[Candidate(option_id=letter, name=name) for letter, name in
                                          zip("AB", ["flow matching", "generative adversarial networks"],
                                              strict=True)],
                context={"domain_name": "visual generative modelling"})
    fit = {"A": {"votes": 5, "papers": 5, "first_nearest": "A", "first_gap": -0.1, "centroid_own": 0.9,
                 "centroid_other": 0.2},
           "B": {"votes": 1, "papers": 5, "first_nearest": "flow matching", "first_gap": 0.2,
                 "centroid_own": 0.8, "centroid_other": 0.6}}
    hidden = make_hidden_target(task_id="df-x", family=task.family, primary_direction="A",
                                trajectory="steady", ranking=["A", "B"], stats={"label_fit": fit})
    figures = audit_checks([task], {"df-x": hidden}, TaskSettings())
    assert figures["counts"]["label_mismatch"] == 1
    assert "flow matching" in figures["examples"]["label_mismatch"][0]
    assert audit_tasks([task], {"df-x": hidden}, TaskSettings()) is not None


def test_a_mismatched_node_is_renamed_by_a_mined_name_that_fits_before_it_is_dropped() -> None:
    topics = dict(TOPICS, n5=("generative adversarial networks", "rectified transport sampler velocity flow"))
    # "flow matching" names another option (a synonym is refused); "rectified transport sampler" fits
    domain = _domain(topics, {"n5": ["flow matching", "rectified transport sampler"]})
    pool = list(domain.nodes.values())
    kept = option_pool(domain, pool, "visual generative modelling", "direction_forecasting")
    assert take_refusals("gen", "3m") == []
    renamed = next(item for item in kept if item.node_id == "n5")
    assert renamed.node.name == "rectified transport sampler" and renamed.node.name_evidence.support == 6
    assert domain.nodes["n5"].node.name == "generative adversarial networks"  # the taxonomy is untouched
    hidden = make_hidden_target(task_id="df-y", family="direction_forecasting", primary_direction="A",
                                trajectory="steady", ranking=["A"], stats={"node_ids": {"A": "n5"}})
    record_relabels(Task(task_id="df-y", family="direction_forecasting", domain="gen", cutoff=domain.cutoff,
                         horizon="3m", window_start=date(2026, 1, 1), window_end=date(2026, 3, 31),
                         title="t", question="q"), hidden, domain)
    assert hidden.stats["repaired"] == ["label_mismatch: option A named 'rectified transport sampler' (mined "
                                        "from its papers) for 'generative adversarial networks'"]
    # a family asking about one node at a time renames where it can and keeps the rest as they are
    fixable = list(domain.nodes.values())
    assert renamed_pool(domain, fixable, "visual", fixable)[-1].node.name == "rectified transport sampler"
    unfixable = _domain(topics, {"n5": ["flow matching"]})
    kept = list(unfixable.nodes.values())
    assert renamed_pool(unfixable, kept, "visual", kept)[-1].node.name == "generative adversarial networks"


def test_a_generic_bucket_whose_central_papers_fit_its_name_is_caught() -> None:
    """'low-resource languages' on the real KB: five central papers read as the name, the other papers of the
    node are the domain's generic mix. Read over all the node's papers, the name is a bucket's (#44)."""
    domain = _domain(TOPICS)
    del domain.nodes["n5"]
    about = "low-resource languages translation multilingual corpora"
    central = [Paper(paper_id=f"n6-c{index}", title=f"low-resource languages study {index}",
                     abstract=f"We improve {about} in setting {index}.", announced=date(2025, 6, 1 + index))
               for index in range(5)]
    generic = [Paper(paper_id=f"n6-g{index}", title=f"{topic} study {index}",
                     abstract=f"We improve {topic} in setting {index}.",
                     announced=date(2025, 7, 1 + index % 28))
               for index, topic in enumerate(["flow matching transport", "video generation frames",
                                              "image editing masks", "super resolution details"] * 8)]
    more = [Paper(paper_id=f"n1-x{index}", title=f"flow matching for low-resource languages {index}",
                  abstract="Transport maps.", announced=date(2025, 8, 1 + index)) for index in range(2)]
    for paper in (*central, *generic, *more):
        domain.papers[paper.paper_id] = paper
    ids = [paper.paper_id for paper in (*central, *generic)]
    node = Node(node_id="n6", label="low_resource_languages", name="low-resource languages",
                key_terms=["languages"], centroid=_embed([about])[0].tolist(), representative_ids=ids[:5],
                paper_ids=ids, name_evidence=NameEvidence(method="phrase_mining"))
    domain.nodes["n6"] = _Evidence(node=node, subtree=["n6"], pre_ids=ids)
    domain.nodes["n1"].pre_ids += [paper.paper_id for paper in more]
    domain.snapshot.nodes = [item.node for item in domain.nodes.values()]
    pool = list(domain.nodes.values())
    fits = label_fits(domain, pool, [display_name(item.node) for item in pool])
    assert fits["n6"].fits  # its central papers are nearest its name: the embedding check passes it
    kept = option_pool(domain, pool, "visual generative modelling", "direction_forecasting")
    assert [item.node_id for item in kept] == ["n1", "n2", "n3", "n4"]
    refusals = take_refusals("gen", "3m")
    assert len(refusals) == 1 and "'low-resource languages'" in refusals[0]
    assert "generic bucket" in refusals[0]
    # the same node holding mostly its own topic is no bucket
    domain.nodes["n6"].pre_ids = ids[:5] + ids[5:9]
    assert [item.node_id for item in option_pool(domain, pool, "visual generative modelling",
                                                 "direction_forecasting")] == ["n1", "n2", "n3", "n4", "n6"]
    take_refusals("gen", "3m")
