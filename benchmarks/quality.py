"""Benchmark: do releases read as research questions? Limitations, screening, names, domain purity.

Prints, and exits non-zero when a goal is missed:

1. Limitation extractor (foresci.tasks.limitations) against the LLM-extracted ``problem_statement``,
   ``explicit_limitations`` and ``target_limitations`` of the 521 ResearchForesight KB-layer papers.
   An extracted limitation is correct when its MiniLM cosine to one of the paper's labelled items
   (limitations or problem statement) reaches ``--tau`` (0.5: a labelled item of a *different* paper
   reaches it for about 6 % of extracted limitations, printed as the chance rate); a labelled limitation
   is recalled when an extracted one reaches ``--tau``. The previous cue-sentence extractor
   (taxonomy/signals.yaml) is measured the same way. Goals: precision >= 0.80 and recall above the
   previous extractor's. A sample of extractions is printed for reading.
2. Domain screening (foresci.kb.screen) of the same papers against their ``scope_decision`` labels
   (each paper is ``core_domain`` of the domain it is filed under): precision/recall of "core" per domain.
   KB-layer rows carry no arXiv categories, so each paper gets the domain's categories (rule 1 passes).
   Goal: recall of core-or-support >= 0.8 in every domain.
3. Names (``--kb``): the share of taxonomy node names at ``--cutoff`` that are 2-8-word noun phrases
   found near-verbatim (case, plural, hyphen) in >= 3 of the node's papers. Goal >= 90 %.
4. Domain purity (``--release`` with ``--kb``): the share of candidate-node papers that are core papers
   of the task's domain.
5. Venue parser (foresci.kb.venue_status) on the 200 hand-labelled comments of
   ``tests/kb/venue_comments.py``: the status confusion (true -> predicted), accuracy, acceptances counted
   from non-acceptances, and the family of correctly parsed acceptances. Goals: accuracy >= 95 %, no false
   acceptance, every accepted family right. (The sample was written before the parser: in-sample.)

6. Release defects (``--defects RELEASE ...``, e.g. releases built at 2025-06-30, 2025-09-30 and
   2025-12-31; :mod:`foresci.tasks.release_defects`): near-duplicate option rate (goal 0), concept pairs
   naming one concept twice (goal 0), share of
   bottleneck targets whose addressing share rises (goal 100 %), opportunity specificity, trajectory-label
   distribution, naive recency-rule rate (gate <= 60 %), and three tasks per family quoted from the first
   release that has every family (e.g. 2025-06-30 may have no bottleneck task).
   ``--skip-layer`` skips sections 1, 2 and 5.
7. Release checks (``--checks RELEASE ...`` with ``--kb``, #44; :mod:`foresci.tasks.release_checks`):
   per release, goals 0 false premises (pairs used together in a pre-cutoff title or abstract of the
   domain, read from the KB), 0 synonym, nested or fragment pairs, 0 mismatched counts, 0 umbrella
   options, 0 mismatched option labels, 0 keyed trajectories inconsistent with the target's growth; no
   venue family the answer in more than half the venue tasks; planning and direction winners (node,
   domain, window) shared in at most a third of the planning tasks whose domain and window have
   direction tasks. It prints the families under the release's quota with the candidates that passed
   every check (the shrink #44 asks to explain). ``--quote N`` prints N tasks per family of the last
   release (public side, key, evidence titles), drawn with random.Random(44).sample
   from the family's task ids sorted.

    .venv/bin/python benchmarks/quality.py                                   # 1, 2 and 5 only
    .venv/bin/python benchmarks/quality.py --skip-layer --defects /tmp/r-0630 /tmp/r-0930 /tmp/r-1231
    .venv/bin/python benchmarks/quality.py --kb /work/data/realkb-title --cutoff 2025-12-31 \\
        --taxonomy-dir /tmp/release/taxonomy --release /tmp/release
    .venv/bin/python benchmarks/quality.py --skip-layer --kb /work/kbs/real \\
        --checks /tmp/r-0630 /tmp/r-0930 /tmp/r-1231 --quote 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("FORESCI_SHARED", REPO.parent / "shared"))
LAYER = SHARED / "releases" / "researchforesight-kb-layer" / "domains"


def load_layer() -> list[dict[str, Any]]:
    """KB-layer papers: structure row + abstract + the domain folder they are filed under."""
    rows: list[dict[str, Any]] = []
    for folder in sorted(path for path in LAYER.iterdir() if path.is_dir()):
        with (folder / "content.jsonl").open() as handle:
            content = {row["paper_id"]: row for row in map(json.loads, handle)}
        with (folder / "structures.jsonl").open() as handle:
            for structure in map(json.loads, handle):
                paper = content[structure["paper_id"]]
                rows.append({**structure, "abstract": paper["abstract"], "domain_folder": folder.name})
    return rows


def gold_limitations(row: dict[str, Any]) -> list[str]:
    """Labelled limitations of one paper: explicit ones (name: description) and target limitations."""
    items = [f"{item['name']}: {item['description']}" for item in row["explicit_limitations"]]
    items += sorted({text for idea in row["core_ideas"] for text in idea.get("target_limitations", [])})
    return items


def old_extractor(abstract: str) -> list[str]:
    """Bottleneck statements of the previous cue-sentence extractor (taxonomy/signals.yaml)."""
    from foresci.kb.models import Paper
    from foresci.taxonomy.signals import SignalPatterns, StatementExtractor

    extractor = StatementExtractor(SignalPatterns.load())
    paper = Paper(paper_id="2501.00001", title="", abstract=abstract, announced=date(2025, 1, 1))
    return [statement.text for statement in extractor.extract(paper) if statement.kind == "bottleneck"]


def new_extractor(abstract: str) -> list[str]:
    """Limitations of foresci.tasks.limitations."""
    from foresci.tasks.limitations import extract_limitations

    return [item.text for item in extract_limitations(abstract)]


def measure_extractor(rows: list[dict[str, Any]], extract: Any, embed: Any, tau: float) -> dict[str, Any]:
    """Precision, recall, problem-statement coverage and chance rate of one extractor."""
    correct = extracted = recalled = labelled = covered = chance_hits = 0
    samples: list[tuple[str, str, float]] = []
    for index, row in enumerate(rows):
        found = extract(row["abstract"])
        gold = gold_limitations(row)
        references = gold + [row["problem_statement"]]
        if not found:
            labelled += len(gold)
            continue
        vectors, gold_vectors = embed(found), embed(references)
        similarity = vectors @ gold_vectors.T
        best = similarity.max(axis=1)
        correct += int((best >= tau).sum())
        extracted += len(found)
        if gold:
            labelled += len(gold)
            recalled += int((similarity[:, :len(gold)].max(axis=0) >= tau).sum())
        covered += bool(similarity[:, -1].max() >= tau)
        other = rows[(index + 7) % len(rows)]
        chance_hits += int(((vectors @ embed(gold_limitations(other) + [other["problem_statement"]]).T)
                            .max(axis=1) >= tau).sum())
        position = int(best.argmax())
        closest = references[int(similarity[position].argmax())]
        samples.append((found[position], closest, float(best[position])))
    return {"precision": correct / max(1, extracted), "recall": recalled / max(1, labelled),
            "extracted": extracted, "labelled": labelled, "problem_statement": covered / max(1, len(rows)),
            "chance": chance_hits / max(1, extracted), "samples": samples}


def limitation_section(rows: list[dict[str, Any]], embed: Any, tau: float) -> list[str]:
    """Print the limitation-extractor figures; return missed goals."""
    new = measure_extractor(rows, new_extractor, embed, tau)
    old = measure_extractor(rows, old_extractor, embed, tau)
    print(f"\n== 1. limitation extractor vs {len(rows)} KB-layer papers (cosine >= {tau})")
    for name, result in (("foresci.tasks.limitations", new), ("previous cue sentences", old)):
        print(f"{name:28s} precision {result['precision']:.3f} ({result['extracted']} extracted)  "
              f"recall {result['recall']:.3f} (of {result['labelled']} labelled)  problem statement "
              f"covered {result['problem_statement']:.3f}  chance rate {result['chance']:.3f}")
    print("sample (extracted -> closest labelled item, cosine):")
    for found, gold, score in random.Random(16).sample(new["samples"], min(8, len(new["samples"]))):
        print(f"  - {found[:110]!r}\n      -> {gold[:110]!r} ({score:.2f})")
    missed = []
    if new["precision"] < 0.80:
        missed.append(f"limitation precision {new['precision']:.3f} < 0.80")
    if new["recall"] <= old["recall"]:
        missed.append(f"limitation recall {new['recall']:.3f} <= previous extractor {old['recall']:.3f}")
    return missed


def screening_section(rows: list[dict[str, Any]], embed: Any, field: str) -> list[str]:
    """Screen the KB-layer papers for every domain and score against their labels; return missed goals."""
    from foresci.core.settings import Settings
    from foresci.kb.domains import load_domains
    from foresci.kb.models import Paper
    from foresci.kb.screen import DomainScreener, screen_papers, screening_scores

    settings = Settings()
    specs = [spec for spec in load_domains() if spec.slug in {row["domain_folder"] for row in rows}]
    categories = sorted({category for spec in specs for category in spec.categories})
    unique = {row["paper_id"]: row for row in rows}
    papers = [Paper(paper_id=row["paper_id"], title=row["title"], abstract=row["abstract"],
                    announced=date(2025, 1, 1), categories=categories) for row in unique.values()]
    vectors = embed([paper.title if field == "title" else paper.text for paper in papers])
    screeners = [DomainScreener(spec, embed(spec.seed_descriptions), settings.kb) for spec in specs]
    decisions = screen_papers(papers, vectors, screeners)
    labels: dict[str, set[str]] = {}
    for row in rows:
        if row["scope_decision"] == "core_domain":
            labels.setdefault(row["paper_id"], set()).add(row["domain_folder"])
    scores = screening_scores(decisions, labels, [spec.slug for spec in specs])
    print(f"\n== 2. domain screening vs scope_decision labels (embedding the {field})")
    missed = []
    for domain, score in scores.items():
        print(f"{domain:42s} core precision {score['precision']:.3f}  core recall {score['recall']:.3f}  "
              f"core-or-support recall {score['recall_core_or_support']:.3f}  "
              f"({score['true_core']}/{score['screened_core']} screened core, {score['labelled']} labelled)")
        if float(score["recall_core_or_support"]) < 0.8:
            missed.append(f"screening recall (core or support) {domain} {score['recall_core_or_support']}")
    return missed


def name_section(kb: Any, cutoff: date, taxonomy_dir: Path | None, domains: list[str]) -> list[str]:
    """Share of node names that are grounded 2-8-word noun phrases; return missed goals."""
    from foresci.core.settings import Settings
    from foresci.tasks.domain_inputs import snapshot_for
    from foresci.taxonomy.phrases import is_noun_phrase, phrase_key, phrase_support

    settings = Settings()
    print(f"\n== 3. node names at {cutoff} (2-8-word noun phrase, near-verbatim in >= 3 node papers)")
    good = total = 0
    for domain in domains:
        started = time.perf_counter()
        snapshot = snapshot_for(kb, domain, cutoff, settings, taxonomy_dir)
        texts = {paper.paper_id: paper.text for paper in kb.papers(until=cutoff, domain=domain)}
        passed = []
        for node in snapshot.nodes:
            name = node.name or node.label
            support = phrase_support(phrase_key(name), [texts[paper_id] for paper_id in node.paper_ids
                                                        if paper_id in texts])
            passed.append(is_noun_phrase(name) and support >= 3)
        good += sum(passed)
        total += len(passed)
        print(f"{domain}: {sum(passed)}/{len(passed)} names pass ({time.perf_counter() - started:.0f} s); "
              "e.g. " + "; ".join(node.name or node.label for node in snapshot.nodes[:6]))
        failing = [node.name or node.label for node, ok in zip(snapshot.nodes, passed, strict=True) if not ok]
        if failing:
            print("   failing: " + "; ".join(failing[:8]))
    share = good / max(1, total)
    print(f"names passing: {good}/{total} = {share:.1%} (goal >= 90 %)")
    return [] if share >= 0.9 else [f"names share {share:.1%} < 90 %"]


def option_purity(kb: Any, release: Path, taxonomy_dir: Path | None = None,
                  neighbours: int = 50) -> dict[str, Any]:
    """How far the options of a release's tasks are directions of the task's own domain, two ways:

    - membership: an option is off-domain when under half of its taxonomy node's papers are core papers
      of the task's domain (what the node was induced from);
    - neighbourhood (independent of how the taxonomy was built): the share of core papers of the domain
      among the ``neighbours`` pre-cutoff KB papers (every screen status, every domain) nearest to the
      option's node centroid; an option is off-domain when that share is under half of what a typical core
      paper of the domain has (the median over 300 of its pre-cutoff core papers of the same share among
      their nearest papers).

    Taxonomies are read from ``taxonomy_dir/<domain>`` (default: the release's ``taxonomy`` folder).
    """
    import numpy as np

    from foresci.taxonomy.store import load_taxonomy

    tasks = load_release_tasks(release)
    vectors = np.asarray(kb.vectors, dtype=np.float32)
    rows: list[dict[str, Any]] = []
    nodes: dict[str, dict[str, Any]] = {}
    masks: dict[str, Any] = {}
    for task in tasks:
        folder = (taxonomy_dir or release / "taxonomy") / task.domain
        if task.domain not in nodes:
            nodes[task.domain] = ({node.node_id: node for node in load_taxonomy(folder).final.nodes}
                                  if folder.is_dir() else {})
            masks[task.domain] = kb.domain_mask(task.domain, ("core",))
        visible = kb.prefix(task.cutoff)
        for candidate in task.candidates:
            node = nodes[task.domain].get(str(candidate.node_id))
            if node is None or node.centroid is None:
                continue
            members = [kb.row_of(paper_id) for paper_id in node.paper_ids]
            members = [row for row in members if row is not None]
            similarity = vectors[:visible] @ np.asarray(node.centroid, dtype=np.float32)
            nearest = np.argpartition(-similarity, neighbours)[:neighbours]
            rows.append({"task": task.task_id, "family": task.family, "domain": task.domain,
                         "option": candidate.name,
                         "member_core": float(masks[task.domain][members].mean()) if members else 0.0,
                         "neighbour_core": float(masks[task.domain][nearest].mean())})
    medians: dict[str, float] = {}
    cutoff = max(task.cutoff for task in tasks)
    visible = kb.prefix(cutoff)
    for domain, mask in masks.items():
        core_rows = np.flatnonzero(mask[:visible])
        sample = core_rows[np.linspace(0, len(core_rows) - 1, min(300, len(core_rows))).astype(int)]
        similarity = vectors[sample] @ vectors[:visible].T
        nearest = np.argpartition(-similarity, neighbours + 1, axis=1)[:, :neighbours + 1]
        shares = [(mask[row_nearest[row_nearest != row]][:neighbours]).mean()
                  for row, row_nearest in zip(sample, nearest, strict=True)]
        medians[domain] = float(np.median(shares))
    for row in rows:
        row["off_by_membership"] = row["member_core"] < 0.5
        row["off_by_neighbourhood"] = row["neighbour_core"] < 0.5 * medians[row["domain"]]
    return {"options": rows, "neighbour_medians": medians}


def load_release_tasks(release: Path) -> list[Any]:
    """The public tasks of a release folder."""
    from foresci.tasks.release import load_release

    return list(load_release(release).tasks)


def purity_section(kb: Any, release: Path, taxonomy_dir: Path | None = None) -> list[str]:
    """Share of hidden-target evidence papers that are core papers of the task's domain (goal 100 %), and
    the share of off-domain options (:func:`option_purity`; goal: under 5 % by membership)."""
    from foresci.tasks.hidden_io import load_hidden

    tasks = load_release_tasks(release)
    hidden = load_hidden(release)

    def is_core(paper_id: str, domain: str) -> bool:
        decision = kb.screen(paper_id, domain)
        return decision is not None and decision.status == "core"

    evidence = [is_core(paper_id, task.domain) for task in tasks
                for paper_id in hidden[task.task_id].evidence_ids]
    evidence_share = sum(evidence) / max(1, len(evidence))
    purity = option_purity(kb, release, taxonomy_dir)
    options = purity["options"]
    by_membership = sum(row["off_by_membership"] for row in options)
    by_neighbourhood = sum(row["off_by_neighbourhood"] for row in options)
    member_core = sum(row["member_core"] for row in options) / max(1, len(options))
    neighbour_core = sum(row["neighbour_core"] for row in options) / max(1, len(options))
    print(f"\n== 4. domain purity of {release}")
    print(f"hidden-target evidence papers that are core papers of the task's domain: {sum(evidence)}/"
          f"{len(evidence)} = {evidence_share:.1%} (goal 100 %)")
    print(f"options (task x option, {len(options)}): mean share of core papers among the option node's "
          f"papers {member_core:.1%}; off-domain by membership (< 50 % core): {by_membership}/{len(options)} "
          f"= {by_membership / max(1, len(options)):.1%} (goal < 5 %)")
    medians = ", ".join(f"{name} {value:.2f}" for name, value in sorted(purity["neighbour_medians"].items()))
    print(f"off-domain by neighbourhood (core share of the 50 nearest pre-cutoff KB papers < half that of "
          f"the domain's median core paper; medians {medians}): "
          f"{by_neighbourhood}/{len(options)} = {by_neighbourhood / max(1, len(options)):.1%}; "
          f"mean core share of the options' nearest papers {neighbour_core:.1%}")
    flagged = [row for row in options if row["off_by_membership"] or row["off_by_neighbourhood"]]
    for row in flagged[:8]:
        print(f"   {row['domain']}: {row['option']!r} members core {row['member_core']:.0%}, "
              f"neighbours core {row['neighbour_core']:.0%}")
    missed = [] if evidence_share == 1.0 else [f"evidence purity {evidence_share:.1%} < 100 %"]
    if not options:
        missed.append("no option could be matched to its taxonomy node (give --taxonomy-dir)")
    elif by_membership > 0.05 * len(options):
        missed.append(f"off-domain options {by_membership}/{len(options)} >= 5 %")
    return missed


def venue_section() -> list[str]:
    """Print the venue parser's status confusion on the hand-labelled comments; return missed goals."""
    from foresci.kb.venue_status import STATUSES, confusion, parse_venue_status

    sys.path.insert(0, str(REPO))
    from tests.kb.venue_comments import LABELLED

    table = confusion(LABELLED)
    print(f"\n== 5. venue parser vs {len(LABELLED)} hand-labelled comments (rows: true, columns: predicted)")
    print(f"{'':14s}" + "".join(f"{label:>13s}" for label in STATUSES))
    for truth in STATUSES:
        print(f"{truth:14s}" + "".join(f"{table[truth][label]:13d}" for label in STATUSES))
    correct = sum(table[label][label] for label in STATUSES)
    false_accepted = sum(table[label]["accepted"] for label in STATUSES if label != "accepted")
    accepted = [(family, parse_venue_status(comment)) for comment, status, family in LABELLED
                if status == "accepted"]
    parsed = [(family, found) for family, found in accepted if found.status == "accepted"]
    family_right = sum(found.family == family for family, found in parsed)
    accuracy = correct / len(LABELLED)
    print(f"status accuracy {correct}/{len(LABELLED)} = {accuracy:.1%}; non-acceptances counted as "
          f"acceptances: {false_accepted}; family right on {family_right}/{len(parsed)} parsed acceptances")
    missed = []
    if accuracy < 0.95:
        missed.append(f"venue status accuracy {accuracy:.1%} < 95 %")
    if false_accepted:
        missed.append(f"{false_accepted} non-acceptances parsed as acceptances")
    if family_right < len(parsed):
        missed.append(f"venue family wrong on {len(parsed) - family_right} acceptances")
    return missed


def defects_section(releases: list[Path]) -> list[str]:
    """Print the release-defect figures of every release, and three tasks per family of the first release
    that has every family any of them has (the first release when none does); return missed goals."""
    from foresci.tasks.hidden_io import load_hidden
    from foresci.tasks.release_defects import release_defects, render_defects

    missed: list[str] = []
    loaded = [(release, load_release_tasks(release), load_hidden(release)) for release in releases]
    every_family = {task.family for _, tasks, _ in loaded for task in tasks}
    quoted = next((release for release, tasks, _ in loaded
                   if {task.family for task in tasks} == every_family), releases[0] if releases else None)
    for release, tasks, hidden in loaded:
        figures = release_defects(tasks, hidden)
        print(f"\n== 6. release defects of {release} ({figures['tasks']} tasks)")
        for line in render_defects(figures):
            print(f"  {line}")
        if figures["near_duplicate_option_tasks"]:
            twins = len(figures["near_duplicate_option_tasks"])
            missed.append(f"{release}: {twins} tasks offer near-duplicate options")
        if figures["one_concept_twice_tasks"]:
            twice = len(figures["one_concept_twice_tasks"])
            missed.append(f"{release}: {twice} concept-emergence tasks pair two names of one concept")
        if figures["bottleneck_rising"] < figures["bottleneck_tested"]:
            flat = figures["bottleneck_tested"] - figures["bottleneck_rising"]
            missed.append(f"{release}: {flat} bottleneck targets without a rise")
        for family, (matches, evaluable) in figures["recency"].items():
            if evaluable >= 5 and matches > 0.6 * evaluable:
                missed.append(f"{release}: recency rule {matches}/{evaluable} on {family}")
        if release == quoted:
            _quote_tasks(tasks, hidden)
    return missed


QUOTED = ("primary_direction", "trajectory", "ranking", "bottleneck", "opportunity", "mechanism")


def _quote_tasks(tasks: list[Any], hidden: dict[str, Any], per_family: int = 3) -> None:
    """Print ``per_family`` tasks of each family: question, options, hidden answer."""
    by_family: dict[str, list[Any]] = {}
    for task in tasks:
        by_family.setdefault(task.family, []).append(task)
    for family, members in sorted(by_family.items()):
        print(f"  -- {family}: {per_family} of {len(members)} tasks")
        for task in members[:per_family]:
            target = hidden.get(task.task_id)
            options = "; ".join(f"{candidate.option_id}={candidate.name}" for candidate in task.candidates)
            print(f"     {task.task_id}: {task.question}")
            if options:
                print(f"       options: {options}")
            if target is not None:
                answer = {key: value for key, value in target.model_dump().items()
                          if key in QUOTED and value}
                print(f"       hidden: {json.dumps(answer, ensure_ascii=False)[:400]}")


def winner_share(tasks: list[Any], hidden: dict[str, Any]) -> tuple[int, int]:
    """(planning tasks whose top node is a direction winner of the same domain and window, planning tasks
    whose domain and window have direction tasks)."""
    from foresci.tasks.release_checks import winner_node

    direction: dict[tuple[str, str], set[str]] = {}
    for task in tasks:
        if task.family == "direction_forecasting" and task.task_id in hidden:
            node = winner_node(task, hidden[task.task_id])
            direction.setdefault((task.domain, task.horizon), set()).update([node] if node else [])
    shared = matching = 0
    for task in tasks:
        if task.family != "strategic_planning" or task.task_id not in hidden:
            continue
        if (task.domain, task.horizon) in direction:
            matching += 1
            shared += winner_node(task, hidden[task.task_id]) in direction[(task.domain, task.horizon)]
    return shared, matching


def checks_section(releases: list[Path], kb: Any, quote: int) -> list[str]:
    """Section 7: the release checks' goals per release (see the module text); return missed goals."""
    from collections import Counter

    from foresci.core.settings import Settings
    from foresci.tasks.hidden_io import load_hidden
    from foresci.tasks.release_checks import audit_checks, render_checks
    from foresci.tasks.text_index import TextIndex

    missed: list[str] = []
    last: tuple[list[Any], dict[str, Any]] | None = None
    for release in releases:
        tasks, hidden = load_release_tasks(release), load_hidden(release)
        indexes = None
        if kb is not None:
            cutoffs: dict[str, Any] = {}
            for task in tasks:
                cutoffs[task.domain] = max(cutoffs.get(task.domain, task.cutoff), task.cutoff)
            started = time.perf_counter()
            indexes = {domain: TextIndex((paper.paper_id, paper.text)
                                         for paper in kb.papers(until=cutoff, domain=domain))
                       for domain, cutoff in cutoffs.items()}
            print(f"\n(text of {len(indexes)} domains indexed in {time.perf_counter() - started:.0f} s)")
        figures = audit_checks(tasks, hidden, Settings().tasks, indexes)
        families = sorted(Counter(task.family for task in tasks).items())
        print(f"\n== 7. release checks of {release}: by family "
              + ", ".join(f"{family}={count}" for family, count in families))
        manifest = json.loads((release / "manifest.json").read_text())
        counts_in = manifest.get("counts", {})
        quota = int(manifest.get("inputs", {}).get("per_family", 25))
        short = {family: (count, counts_in.get("candidates_by_family", {}).get(family))
                 for family, count in counts_in.get("by_family", {}).items() if count < quota}
        print(f"  families under the quota of {quota} (tasks, candidates that passed every check): "
              + (", ".join(f"{family} {count} ({pool})" for family, (count, pool) in sorted(short.items()))
                 or "none"))
        for line in render_checks(figures):
            print(f"  {line}")
        counts = figures["counts"]
        for check in ("false_premise", "synonym_pair", "nested_pair", "fragment_concept", "count_mismatch",
                      "umbrella_option", "trajectory_inconsistent", "label_mismatch"):
            if counts[check]:
                missed.append(f"{release}: {check} in {counts[check]} tasks (goal 0)")
        if indexes is None:
            missed.append(f"{release}: premises not checked (pass --kb)")
        names = {task.task_id: {c.option_id: c.name for c in task.candidates} for task in tasks}
        venue = [names[task.task_id][hidden[task.task_id].ranking[0]] for task in tasks
                 if task.family == "venue_positioning" and getattr(hidden.get(task.task_id), "ranking", None)]
        if venue:
            family, top = Counter(venue).most_common(1)[0]
            print(f"  venue answers: {dict(Counter(venue).most_common())} (goal: none above half)")
            if top > len(venue) / 2:
                missed.append(f"{release}: {family} is the venue answer in {top} of {len(venue)} tasks")
        shared, matching = winner_share(tasks, hidden)
        print(f"  planning winners that are direction winners of the same domain and window: {shared} of "
              f"{matching} (goal <= 1/3)")
        if matching and shared > matching / 3:
            missed.append(f"{release}: planning and direction winners shared in {shared} of {matching}")
        last = (tasks, hidden)
    if quote and last is not None:
        quote_sampled(*last, kb, quote)
    return missed


def quote_sampled(tasks: list[Any], hidden: dict[str, Any], kb: Any, per_family: int) -> None:
    """Print ``per_family`` tasks per family drawn with random.Random(44).sample from sorted ids: public
    side, key (review.key_text) and the evidence papers' titles."""
    from foresci.tasks.review import key_text

    by_family: dict[str, list[Any]] = {}
    for task in sorted(tasks, key=lambda item: item.task_id):
        by_family.setdefault(task.family, []).append(task)
    for family, members in sorted(by_family.items()):
        chosen = random.Random(44).sample(members, min(per_family, len(members)))
        print(f"\n  -- {family}: {len(chosen)} of {len(members)} (random.Random(44).sample of sorted ids)")
        for task in chosen:
            target = hidden.get(task.task_id)
            print(f"   {task.task_id}: {task.question}")
            for candidate in task.candidates:
                print(f"     {candidate.option_id}. {candidate.name}" + (f" — {candidate.description[:160]}"
                                                                        if candidate.description else ""))
            print(f"     key: {key_text(task, target)[:300]}")
            ids = list(getattr(target, "evidence_ids", []) or [])[:3]
            for paper_id in ids:
                row = kb.row_of(paper_id) if kb is not None else None
                title = kb.paper_at(row).title if row is not None else ""
                print(f"     evidence {paper_id}: {title}")


def main() -> int:
    """Run the sections asked for; exit 1 when a goal is missed."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tau", type=float, default=0.5, help="cosine for an embedding match")
    parser.add_argument("--cache-dir", type=Path, default=Path(os.environ.get("FORESCI_CACHE_DIR",
                                                                              "/work/cache")))
    parser.add_argument("--kb", type=Path, help="a built KB for the name and purity sections")
    parser.add_argument("--cutoff", type=date.fromisoformat, default=date(2025, 12, 31))
    parser.add_argument("--taxonomy-dir", type=Path, help="saved taxonomies (<dir>/<domain>) to reuse")
    parser.add_argument("--release", type=Path, help="a release folder for the purity section")
    parser.add_argument("--domains", nargs="*", help="domains of the name section (default: all)")
    parser.add_argument("--defects", type=Path, nargs="+", default=[], metavar="RELEASE",
                        help="release folders for the release-defect section (6)")
    parser.add_argument("--skip-layer", action="store_true", help="skip sections 1, 2 and 5")
    parser.add_argument("--checks", type=Path, nargs="+", default=[], metavar="RELEASE",
                        help="release folders for the release-check goals (section 7; premises need --kb)")
    parser.add_argument("--quote", type=int, default=0, help="tasks per family to quote in section 7")
    args = parser.parse_args()
    if args.skip_layer:
        missed = defects_section(args.defects)
        if args.checks:
            from foresci.kb.store import KnowledgeBase

            store = KnowledgeBase.open(args.kb) if args.kb else None
            missed += checks_section(args.checks, store, args.quote)
        print("\nmissed goals: " + ("; ".join(missed) if missed else "none"))
        return 1 if missed else 0
    from foresci.embedders.embedder import Embedder

    embedder = Embedder(cache_dir=args.cache_dir)
    rows = load_layer()
    missed = limitation_section(rows, embedder.encode, args.tau)
    missed += screening_section(rows, embedder.encode, "text")
    screening_section(rows, embedder.encode, "title")
    missed += venue_section()
    if args.kb is not None:
        from foresci.kb.store import KnowledgeBase

        kb = KnowledgeBase.open(args.kb)
        missed += name_section(kb, args.cutoff, args.taxonomy_dir, args.domains or kb.domains)
        if args.release is not None:
            missed += purity_section(kb, args.release, args.taxonomy_dir)
    missed += defects_section(args.defects)
    print("\nmissed goals: " + ("; ".join(missed) if missed else "none"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
