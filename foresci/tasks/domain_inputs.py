"""What a release is built from, per domain: the domains with papers at the cutoff, the taxonomy T(d, t)
(loaded, reused or induced) and the evidence its nodes collect in each window. Shared by the task builder
(:mod:`foresci.tasks.build`) and the forecast questions (:mod:`foresci.tasks.forecast`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foresci.core.errors import UserError
from foresci.kb.models import Paper
from foresci.tasks.evidence import Classifier, DomainEvidence, collect_windows
from foresci.tasks.text import content_tokens
from foresci.tasks.windows import Window
from foresci.taxonomy.models import Snapshot

if TYPE_CHECKING:
    import numpy as np

    from foresci.core.settings import Settings
    from foresci.taxonomy.rules import TaxonomyRules
    from foresci.taxonomy.trajectory import TrajectoryRules

DOMAIN_NAMES = {"llm_agent": "LLM agents", "llm_finetuning_post_training": "LLM fine-tuning and "
                "post-training",
                "rag_and_retrieval_structuring": "RAG and retrieval structuring",
                "visual_generative_modeling_and_diffusion": "visual generative modelling and diffusion"}


def snapshot_vocabulary(snapshot: Snapshot) -> frozenset[str]:
    """Words of T(t) itself (labels, descriptions, key terms, signals): induced from papers <= t only."""
    texts: list[str] = []
    for node in snapshot.nodes:
        texts += [node.label, node.name, node.description, *node.key_terms]
        texts += [text for signal in node.signals for text in (signal.text, *signal.variants)]
    return frozenset(content_tokens(" ".join(texts)))


def snapshot_for(kb: Any, domain: str, cutoff: date, settings: Settings,
                 taxonomy_dir: Path | None = None, rules: TaxonomyRules | None = None) -> Snapshot:
    """T(domain, cutoff): loaded from ``taxonomy_dir/<domain>`` when saved there, else reused from the cache
    when one was induced for the same KB, cutoff and settings (fingerprint), else induced (and saved) with
    ``rules`` (the taxonomy's rule files as the command loaded them; None: read from the settings)."""
    import os

    from foresci.taxonomy.build import build_taxonomy
    from foresci.taxonomy.reuse import publish
    from foresci.taxonomy.store import load_taxonomy, save_taxonomy

    folder = taxonomy_folder(kb, domain, cutoff, settings, taxonomy_dir)
    if folder is not None and (folder / "manifest.json").is_file():
        snapshot = load_taxonomy(folder).final
        if snapshot.cutoff != cutoff:
            raise ValueError(f"{folder}: taxonomy is at {snapshot.cutoff}, not at the cutoff {cutoff}")
        return snapshot
    history = build_taxonomy(kb, domain, cutoff, settings, rules=rules)
    if folder is not None:
        inputs = {"kb": str(getattr(kb, "path", "")), "domain": domain, "cutoff": cutoff.isoformat()}
        staging = folder.with_name(f".{folder.name}.{os.getpid()}")
        save_taxonomy(history, staging, inputs=inputs)
        publish(staging, folder)
    return history.final


def taxonomy_folder(kb: Any, domain: str, cutoff: date, settings: Settings,
                    taxonomy_dir: Path | None = None) -> Path | None:
    """Where :func:`snapshot_for` keeps T(domain, cutoff): ``taxonomy_dir/<domain>``, else the reuse cache's
    folder for this KB, cutoff and settings (None when it cannot be keyed)."""
    from foresci.taxonomy.reuse import reuse_folder

    return taxonomy_dir / domain if taxonomy_dir is not None else reuse_folder(kb, domain, cutoff, settings)


def saved_taxonomy_folder(kb: Any, domain: str, cutoff: date, settings: Settings,
                          taxonomy_dir: Path | None = None) -> Path | None:
    """:func:`taxonomy_folder` when a taxonomy is saved there (:func:`snapshot_for` loads it), else None."""
    folder = taxonomy_folder(kb, domain, cutoff, settings, taxonomy_dir)
    return folder if folder is not None and (folder / "manifest.json").is_file() else None


def domains_with_papers(kb: Any, domains: Sequence[str], cutoff: date,
                        statuses: Sequence[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """The domains with at least one paper on or before ``cutoff``, and the skipped ones with the reason.

    A domain with no paper at the cutoff (an empty domain, or a cutoff on or before the KB's first paper)
    has no taxonomy to build tasks from; it is skipped. With ``statuses`` (the taxonomy's member screen
    statuses) a domain whose papers all have other statuses is skipped too: its taxonomy would be empty
    (a generated world's KB screens foresci's shipped domains, which catch a few peripheral papers).
    A UserError when no domain is left.
    """
    kept: list[str] = []
    skipped: dict[str, str] = {}
    for domain in domains:
        papers = kb.papers(until=cutoff, domain=domain)
        if papers and (statuses is None or kb.papers(until=cutoff, domain=domain, statuses=tuple(statuses))):
            kept.append(domain)
            continue
        if papers:
            skipped[domain] = (f"none of its {len(papers)} papers on or before the cutoff {cutoff} has a "
                               f"taxonomy member status ({', '.join(statuses or ())})")
            continue
        first = getattr(kb, "min_date", None)
        starts = f" (the KB starts on {first})" if isinstance(first, date) and cutoff < first else ""
        skipped[domain] = f"0 papers on or before the cutoff {cutoff}{starts}"
    if not kept:
        reasons = "; ".join(f"{domain}: {reason}" for domain, reason in skipped.items()) or "no domains"
        raise UserError(f"no domain has papers on or before the cutoff ({reasons})", field="cutoff")
    return kept, skipped


def domain_name(slug: str) -> str:
    """Readable name of a domain slug."""
    return DOMAIN_NAMES.get(slug, slug.replace("_", " "))


def evidence_for_windows(snapshot: Snapshot, papers: Sequence[Paper], embeddings: np.ndarray,
                         windows: Sequence[Window], trajectories: bool = True,
                         rules: TrajectoryRules | None = None) -> list[DomainEvidence]:
    """Route pre- and post-cutoff papers to T(t) once, then collect evidence for each window.

    ``trajectories``: label each node's window trajectory (needs papers in the window) by ``rules`` (the
    trajectory thresholds as the command loaded them; None: the shipped taxonomy/trajectory.yaml, read
    here once).
    """
    from foresci.taxonomy.assign import assign_papers
    from foresci.taxonomy.trajectory import TrajectoryRules, classify_trajectory

    if not papers or not snapshot.nodes:
        return []
    assignment = assign_papers(snapshot, papers, embeddings)
    classify: Classifier | None = None
    if trajectories:
        thresholds = rules or TrajectoryRules.load()

        def classify(node: Any, reference: Any, window: Any, baseline: Any, _rules: Any = None,
                     children: Any = None) -> Any:
            return classify_trajectory(node, reference, window, baseline, thresholds, children)
    return collect_windows(snapshot, papers, assignment, windows, classify)
