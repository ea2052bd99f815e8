"""Checks a researcher makes when reading a release (#44), each a function of the public task, its hidden
target and, where the check reads text, the domain's pre-cutoff title+abstract (:class:`TextIndex`).

``tasks build`` runs them on every candidate (:func:`screen`: drop or repair, counted in the manifest
with examples) and ``tasks audit`` reports them on a written release (:func:`audit_checks`; the text
checks need ``--kb``). The checks:

- ``false_premise``: a concept pair that some pre-cutoff paper's title or abstract uses together (the task
  says no paper did);
- ``fragment_concept``: a concept key that is a broken phrase: it starts or ends with a function word,
  starts with a generic word ("model agents", "models via reinforcement learning"), or is, in at least
  ``TAIL_SHARE`` of its pre-cutoff uses, the tail of a longer name while ending in a generic word
  ("generation models" in "image generation models", "learning for language model" in "reinforcement
  learning for language model"; a specific phrase always preceded by a word is kept: a vocabulary of
  at most so many words may only have its tail);
- ``synonym_pair`` / ``near_synonym_options``: two names of one concept in a pair or side by side as options
  (:func:`same_concept`): equal content stems after acronyms are spelled out and generic words dropped, one's
  stems inside the other's when the longer adds only an acronym ("LLM reasoning" / "reasoning models") or
  one word ("text-to-image generation" / "image synthesis"), or
  :func:`names_near_duplicate`; "model agents" / "multi-agent collaboration" are two concepts;
- ``nested_pair``: a concept pair one of whose names holds every specific word of the other ("generative
  models + human video generation", "image generation + control for text-to-image generation"): the two
  co-occur by wording, not by research (two options may be nested: a direction and a narrower one);
- ``umbrella_option``: an option whose content stems all lie in the domain's name (the domain itself);
- ``count_mismatch``: an option description's "N papers" differing from the stored ``pre_cutoff_papers``;
- ``trajectory_inconsistent``: a keyed trajectory the target's own share growth contradicts (a winner
  gaining share keyed ``cooling``, ``steady`` for a growth beyond the steady band);
- ``thin_target``: a winner resting on fewer than ``min_window_papers`` window papers, or a lead over the
  runner-up within ``min_count_z`` Poisson standard errors of the two counts;
- ``label_mismatch``: an option whose name does not say what its node's papers are: by the KB's embedder,
  the node's most central paper nearer another option's name and fewer than half its central papers nearer
  its own (:mod:`foresci.tasks.label_fit`, ``stats.label_fit``); without an embedder, the name's words in
  fewer than ``MIN_LABEL_SHARE`` of its node's pre-cutoff papers or less often there than in another
  option's papers (``stats.label_share``). Recorded at build time; the builders leave such nodes and
  umbrella names out of their option pool (:func:`option_pool`) and never put two names of one concept in
  one option set, so a bad option costs a draw, not a task;
- ``node_win_cap``: one node winning more than ``max_node_wins`` tasks of a family (the selection's cap).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.families.lookup import find_family as get_family
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.label_fit import LabelFit, bucket_reason, label_fits
from foresci.tasks.models import Task
from foresci.tasks.option_similarity import names_near_duplicate
from foresci.tasks.task_winner import winner_node
from foresci.tasks.text import content_tokens
from foresci.tasks.text_index import ACRONYMS, GENERIC, STOP, WORD, TextIndex, content_stems, phrase_stems
from foresci.taxonomy.naming import display_name

CHECKS = ("false_premise", "fragment_concept", "synonym_pair", "nested_pair", "umbrella_option",
          "near_synonym_options",
          "count_mismatch", "trajectory_inconsistent", "thin_target", "label_mismatch", "node_win_cap")
TAIL_SHARE = 0.8
MIN_TAIL_USES = 5
MIN_LABEL_SHARE = 0.2
STEADY_BAND = math.log(1.3)
"""Share growth (log) past which a trajectory is not ``steady``: the trajectory rules' accelerating lift."""
COUNT = re.compile(r"(?:^|; )(\d+) papers; most central")
EXAMPLES = 5


def fragment_reason(name: str, index: TextIndex | None = None) -> str | None:
    """Why a concept key is a fragment, None when it reads as a concept."""
    words = [word for word in re.findall(r"[a-z0-9]+", name.lower())]
    if not words:
        return "empty"
    if words[0] in STOP or words[-1] in STOP:
        return f"'{name}' starts or ends with a function word"
    stems = phrase_stems(name)
    if len(stems) >= 2 and stems[0] in GENERIC:
        return f"'{name}' starts with the generic word '{words[0]}'"
    if index is not None and len(stems) >= 2:
        uses, share, top = index.tail_share(name)
        if uses >= MIN_TAIL_USES and share >= TAIL_SHARE and stems[-1] in GENERIC:
            return (f"'{name}' follows another content word in {share:.0%} of its {uses} pre-cutoff uses "
                    f"(one word in {top:.0%})")
    return None


def _specific(name: str) -> frozenset[str]:
    return frozenset(value for value in content_stems(name) if value not in GENERIC)


def _units(name: str) -> list[tuple[frozenset[str], bool]]:
    """The specific content of a name word by word: (stems, from an acronym) per word, function and generic
    words dropped ("LLM reasoning models" -> ({large, langu}, True), ({reaso}, False))."""
    units = []
    for word in WORD.findall(name.lower()):
        if word in STOP:
            continue
        expanded = ACRONYMS.get(word)
        stems = frozenset(value for value in phrase_stems(expanded or word) if value not in GENERIC | STOP)
        if stems:
            units.append((stems, expanded is not None))
    return units


def same_concept(first: str, second: str) -> bool:
    """Whether two names name one concept: :func:`names_near_duplicate`, equal specific stems, or one name's
    specific stems inside the other's where the longer adds no more than an acronym's spelled-out words
    ("LLM reasoning" / "reasoning models") or one more word ("text-to-image generation" / "image
    synthesis", "diffusion models" / "video diffusion models"). A name inside one that adds two specific
    words is a different concept ("model agents" / "multi-agent collaboration", "reinforcement learning"
    / "multi-agent reinforcement learning")."""
    if names_near_duplicate(first, second):
        return True
    one, two = _specific(first), _specific(second)
    if not one or not two:
        return False
    if one == two:
        return True
    small, large = (first, second) if len(one) <= len(two) else (second, first)
    inner = _specific(small)
    if not inner < _specific(large):
        return False
    added = [acronym for stems, acronym in _units(large) if not stems <= inner]
    return all(added) or len(added) <= 1


def nested(first: str, second: str) -> bool:
    """Whether one name's specific stems all lie in the other's (a concept inside another)."""
    one, two = _specific(first), _specific(second)
    return bool(one and two) and (one <= two or two <= one)


def is_umbrella(name: str, domain_name: str) -> bool:
    """Whether an option says no more than its domain's name (every specific stem of it is the domain's)."""
    words, domain = _specific(name), _specific(domain_name)
    return bool(words and domain) and words <= domain


def stated_count(description: str) -> int | None:
    """The "N papers" of an option description ("N papers; most central: ..."), None when absent."""
    found = COUNT.search(description)
    return int(found.group(1)) if found else None


def implied_trajectory(growth: float) -> str:
    """The label a share growth implies on its own: accelerating above the steady band, cooling below it."""
    if growth >= STEADY_BAND:
        return "accelerating"
    if growth <= -STEADY_BAND:
        return "cooling"
    return "steady"


def trajectory_consistent(label: str | None, growth: float) -> bool:
    """Whether a keyed trajectory agrees with the target's own share growth (``fragmenting`` is a shape,
    accepted unless the share falls beyond the band)."""
    if label is None:
        return True
    if label == "fragmenting":
        return growth > -STEADY_BAND
    return label == implied_trajectory(growth)


def count_z(top: float, second: float) -> float:
    """Lead of one count over another in Poisson standard errors: (a - b) / sqrt(a + b)."""
    return (top - second) / math.sqrt(top + second) if top + second > 0 else 0.0


def pair_names(task: Task) -> list[tuple[str, str]]:
    """The (first, second) concept names of a concept-pair task's options ("first + second")."""
    found = [tuple(candidate.name.split(" + ", 1)) for candidate in task.candidates]
    return [(pair[0], pair[1]) for pair in found if len(pair) == 2]


def option_counts(hidden: HiddenTarget, ranking: Sequence[str]) -> tuple[int, int] | None:
    """Window papers of the first two options of ``ranking`` by the target's ``stats.options`` (a family's
    default :meth:`~foresci.tasks.families.TaskFamily.winner_counts`); None when it records none."""
    options = hidden.stats.get("options")
    if not isinstance(options, dict) or not ranking:
        return None
    values = [int(options[option].get("window", 0)) for option in ranking[:2] if option in options]
    return top_two(values)


def top_two(values: Sequence[int]) -> tuple[int, int]:
    """The first two of ``values`` (0 for a missing one)."""
    padded = [*values, 0, 0]
    return padded[0], padded[1]


def winner_counts(task: Task, hidden: HiddenTarget) -> tuple[int, int] | None:
    """Window papers of the keyed winner and the runner-up, from the hidden target (the task's family's
    :meth:`~foresci.tasks.families.TaskFamily.winner_counts`); None when the family records none."""
    return get_family(task.family).winner_counts(task, hidden)


def lead_detail(top: int, second: int, settings: Any) -> str | None:
    """Why a winner's lead over the runner-up is thin (within ``min_count_z`` Poisson standard errors of the
    two counts); None when it is not."""
    if count_z(top, second) < settings.min_count_z:
        return (f"lead {top} vs {second} is {count_z(top, second):.2f} < {settings.min_count_z} Poisson "
                "standard errors")
    return None


def pair_findings(task: Task, index: TextIndex | None) -> list[tuple[str, str]]:
    """The checks of a task whose options pair two concepts: fragment concepts, two names of one concept,
    one name inside the other, and (with the pre-cutoff ``index``) a pair some pre-cutoff paper already
    uses together (a false premise)."""
    found: list[tuple[str, str]] = []
    for first, second in pair_names(task):
        for name in (first, second):
            reason = fragment_reason(name, index)
            if reason:
                found.append(("fragment_concept", reason))
        if same_concept(first, second):
            found.append(("synonym_pair", f"'{first}' / '{second}'"))
        elif nested(first, second):
            found.append(("nested_pair", f"'{first}' / '{second}'"))
        if index is not None and (together := index.together(first, second)):
            found.append(("false_premise", f"'{first} + {second}' together in {len(together)} pre-cutoff "
                          f"papers, e.g. {together[0]}"))
    return found


def option_findings(task: Task) -> list[tuple[str, str]]:
    """The checks of a task whose options are taxonomy nodes: an option that is the domain itself, two
    options naming one concept, and an option description's paper count differing from the stored one."""
    found: list[tuple[str, str]] = []
    domain_name = str(task.context.get("domain_name") or task.domain)
    names = [candidate.name for candidate in task.candidates]
    for name in names:
        if is_umbrella(name, domain_name):
            found.append(("umbrella_option", f"'{name}' in domain '{domain_name}'"))
    for position, first in enumerate(names):
        for second in names[position + 1:]:
            if same_concept(first, second):
                found.append(("near_synonym_options", f"'{first}' / '{second}'"))
    stored = task.context.get("candidates") or task.context.get("options") or {}
    for candidate in task.candidates:
        stated = stated_count(candidate.description)
        known = dict(stored.get(candidate.option_id) or {}).get("pre_cutoff_papers")
        if stated is not None and known is not None and stated != int(known):
            found.append(("count_mismatch", f"'{candidate.name}': {stated} papers stated, {known} stored"))
    return found


def task_findings(task: Task, hidden: HiddenTarget | None, settings: Any,
                  index: TextIndex | None = None) -> list[tuple[str, str]]:
    """(check, detail) for every check one task fails; ``settings``: the tasks settings (min_window_papers,
    min_count_z); ``index``: the domain's pre-cutoff text (premise and fragment-tail checks need it)."""
    found = list(get_family(task.family).release_findings(task, index))
    if hidden is not None:
        found.extend(_target_findings(task, hidden, settings))
    return found


def _target_findings(task: Task, hidden: HiddenTarget, settings: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    stats = hidden.stats
    label = getattr(hidden, "trajectory", None)
    ranking = list(getattr(hidden, "ranking", []) or [])
    options = stats.get("options")
    if label and ranking and isinstance(options, dict) and ranking[0] in options:
        growth = float(options[ranking[0]].get("log_share_growth", 0.0))
        if not trajectory_consistent(str(label), growth):
            found.append(("trajectory_inconsistent", f"winner keyed {label} with share growth {growth:+.2f}"))
    counts = winner_counts(task, hidden)
    if counts is not None:
        top, second = counts
        if top < settings.min_window_papers:
            found.append(("thin_target", f"winner has {top} window papers < {settings.min_window_papers}"))
        elif (thin := get_family(task.family).lead_finding(task, hidden, counts, settings)) is not None:
            found.append(("thin_target", thin))
    for option, fit in dict(stats.get("label_fit") or {}).items():
        if not LabelFit(name=option, **fit).fits:
            found.append(("label_mismatch", f"option {option}: its most central paper is nearer "
                          f"'{fit['first_nearest']}' by {fit['first_gap']:+.2f}; {fit['votes']} of "
                          f"{fit['papers']} central papers vote for its own name"))
    for option, shares in dict(stats.get("label_share") or {}).items():
        own, other = float(shares.get("own", 0.0)), float(shares.get("best_other", 0.0))
        if own < MIN_LABEL_SHARE or other > own:
            found.append(("label_mismatch", f"option {option}: its name's words in {own:.0%} of its node's "
                          f"papers, {other:.0%} of another option's"))
    return found


def node_wins(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> Counter[tuple[str, str, str]]:
    """(family, domain, winning node id) -> tasks it wins."""
    wins: Counter[tuple[str, str, str]] = Counter()
    for task in tasks:
        target = hidden.get(task.task_id)
        node = winner_node(task, target) if target is not None else None
        if node is not None:
            wins[(task.family, task.domain, node)] += 1
    return wins


def audit_checks(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget], settings: Any,
                 indexes: Mapping[str, TextIndex] | None = None) -> dict[str, Any]:
    """Per check: how many tasks fail it, their ids and example details; ``indexes``: domain -> its
    pre-cutoff text (the premise and fragment-tail checks read "not checked" without it)."""
    flagged: dict[str, list[str]] = {check: [] for check in CHECKS}
    examples: dict[str, list[str]] = {check: [] for check in CHECKS}
    for task in tasks:
        index = (indexes or {}).get(task.domain)
        for check, detail in task_findings(task, hidden.get(task.task_id), settings, index):
            if task.task_id not in flagged[check]:
                flagged[check].append(task.task_id)
            if len(examples[check]) < EXAMPLES:
                examples[check].append(f"{task.task_id}: {detail}")
    for (family, domain, node), count in sorted(node_wins(tasks, hidden).items()):
        if count > settings.max_node_wins:
            flagged["node_win_cap"].append(f"{family}:{domain}:{node}")
            if len(examples["node_win_cap"]) < EXAMPLES:
                examples["node_win_cap"].append(f"{family} {domain} node {node} wins {count} tasks")
    text_checked = bool(indexes) or not any(get_family(family).text_checks
                                            for family in {task.family for task in tasks})
    return {"tasks": len(tasks), "text_checked": text_checked,
            "counts": {check: len(ids) for check, ids in flagged.items()},
            "flagged": flagged, "examples": examples}


def render_checks(figures: Mapping[str, Any]) -> list[str]:
    """Plain lines of :func:`audit_checks` figures."""
    lines = [f"release checks (#44) on {figures['tasks']} tasks" + (
        "" if figures["text_checked"] else "; premises not checked against text (pass --kb)")]
    for check in CHECKS:
        count = figures["counts"].get(check, 0)
        shown = "; ".join(figures["examples"].get(check, [])[:2])
        lines.append(f"  {check}: {count}" + (f"  e.g. {shown}" if shown else ""))
    return lines


def domain_index(domain: Any) -> TextIndex:
    """The :class:`TextIndex` of a domain evidence's papers announced up to its cutoff (title + abstract),
    built once per domain and cutoff (kept on the evidence's shared text cache)."""
    cache = domain.text_cache
    if cache.text_index is None:
        cache.text_index = TextIndex((paper_id, paper.text)
                                     for paper_id, paper in sorted(domain.papers.items())
                                     if paper.announced <= domain.cutoff)
    return cache.text_index  # type: ignore[no-any-return]


def record_label_shares(task: Task, hidden: HiddenTarget, domain: Any, index: TextIndex) -> None:
    """Store on a direction or planning target, per option, the share of its node's pre-cutoff papers whose
    text holds every specific word of the option's name (``own``) and the highest such share of the same
    name among the other options' nodes (``best_other``): ``stats.label_share``, read by the audit."""
    node_ids = hidden.stats.get("node_ids")
    if not isinstance(node_ids, dict):
        return
    papers = {option: domain.nodes[node].pre_ids for option, node in node_ids.items() if node in domain.nodes}
    shares: dict[str, dict[str, float]] = {}
    for candidate in task.candidates:
        if candidate.option_id not in papers:
            continue
        own = index.word_share(candidate.name, papers[candidate.option_id])
        other = max((index.word_share(candidate.name, ids) for option, ids in papers.items()
                     if option != candidate.option_id), default=0.0)
        shares[candidate.option_id] = {"own": round(own, 3), "best_other": round(other, 3)}
    hidden.stats["label_share"] = shares


def repair_counts(task: Task, hidden: HiddenTarget) -> None:
    """Make every option description's "N papers" the stored ``pre_cutoff_papers`` (the taxonomy counted the
    node's papers at its own build, the task counts them at the cutoff); each repair is listed in
    ``stats.repaired``."""
    stored = task.context.get("candidates") or task.context.get("options") or {}
    for candidate in task.candidates:
        stated = stated_count(candidate.description)
        known = dict(stored.get(candidate.option_id) or {}).get("pre_cutoff_papers")
        if stated is None or known is None or stated == int(known):
            continue
        found = COUNT.search(candidate.description)
        assert found is not None
        start, end = found.span(1)
        candidate.description = candidate.description[:start] + str(int(known)) + candidate.description[end:]
        hidden.stats.setdefault("repaired", []).append(
            f"count_mismatch: {candidate.option_id} said {stated} papers, stored {int(known)}")


def record_label_fits(task: Task, hidden: HiddenTarget, fits: Mapping[str, LabelFit]) -> None:
    """Store on a direction or planning target, per option, its :class:`LabelFit` record
    (``stats.label_fit``; the option's name stands in for the first nearest name when it is its own)."""
    node_ids = dict(hidden.stats.get("node_ids") or {})
    records = {}
    for candidate in task.candidates:
        fit = fits.get(str(node_ids.get(candidate.option_id, "")))
        if fit is not None:
            record = fit.record()
            if fit.first_nearest == fit.name:
                record["first_nearest"] = candidate.option_id
            records[candidate.option_id] = record
    hidden.stats["label_fit"] = records


def screen(task: Task, hidden: HiddenTarget, domain: Any, settings: Any) -> list[tuple[str, str]]:
    """The checks a candidate task fails at build time (empty: keep it), reading the domain's pre-cutoff
    text; repairs the option counts and records the option labels' fit (embedder) or word shares (no
    embedder) on the target first."""
    index = domain_index(domain)
    repair_counts(task, hidden)
    get_family(task.family).release_screen(task, hidden, domain)
    return task_findings(task, hidden, settings, index)


def record_option_labels(task: Task, hidden: HiddenTarget, domain: Any) -> None:
    """Record on a target whose options are taxonomy nodes how each option's name fits its node: the pool's
    renames (:func:`record_relabels`), then the embedder's label fits (:func:`record_label_fits`) or, without
    an embedder, the name's word shares (:func:`record_label_shares`). A family's
    :meth:`~foresci.tasks.families.TaskFamily.release_screen` for such options."""
    fits = _POOL_FITS.get((domain.domain, domain.cutoff), {})
    record_relabels(task, hidden, domain)
    if fits:
        record_label_fits(task, hidden, fits)
    else:
        record_label_shares(task, hidden, domain, domain_index(domain))


_POOL_FITS: dict[tuple[str, Any], dict[str, LabelFit]] = {}


def option_pool(domain: Any, pool: Sequence[Any], domain_name: str, family: str,
                compare: Sequence[Any] | None = None) -> list[Any]:
    """A direction or planning builder's option pool (NodeEvidence) without the nodes no task should offer:
    names that are the domain itself (``umbrella_option``) and names that do not fit their node's papers
    (``label_mismatch``: :mod:`foresci.tasks.label_fit`; without an embedder, the name's words in fewer than
    ``MIN_LABEL_SHARE`` of the node's papers; with one, also names of a generic bucket:
    :func:`~foresci.tasks.label_fit.bucket_reason`), each name read against the names of ``compare`` (default
    the pool). A mismatched node (not a bucket) is first renamed by one of its own mined names where one fits
    (:func:`relabel`); each node left out is recorded as a refusal of ``family``."""
    where = f"{family} {domain.domain} {domain.window.horizon}"
    refused = [f"check:umbrella_option: {where}: '{display_name(item.node)}' in domain '{domain_name}'"
               for item in pool if is_umbrella(display_name(item.node), domain_name)]
    pool = [item for item in pool if not is_umbrella(display_name(item.node), domain_name)]
    names = [display_name(item.node) for item in pool]
    # a name is read against every name an option could carry (``compare``: the eligible nodes), umbrellas out
    rivals = [item for item in (compare or pool) if not is_umbrella(display_name(item.node), domain_name)]
    fits = label_fits(domain, rivals, [display_name(item.node) for item in rivals],
                      [item.node_id for item in pool])
    _POOL_FITS.setdefault((domain.domain, domain.cutoff), {}).update(fits)
    index = domain_index(domain) if domain.papers else None
    kept = []
    rival_names = [display_name(item.node) for item in rivals]
    for item, name in zip(pool, names, strict=True):
        fit = fits.get(item.node_id)
        words = index if index is not None and any(paper in index.row_of for paper in item.pre_ids) else None
        if fit is not None and not fit.fits:
            renamed = relabel(domain, item, rivals, rival_names, domain_name)
            if renamed is not None:
                kept.append(renamed)
                continue
            refused.append(f"check:label_mismatch: {where}: {fit.detail()}")
        elif not fits and words is not None and \
                (share := words.word_share(name, item.pre_ids)) < MIN_LABEL_SHARE:
            refused.append(f"check:label_mismatch: {where}: '{name}': its words in {share:.0%} of its node's "
                           "papers")
        elif words is not None and (bucket := bucket_reason(name, item.pre_ids, words)) is not None:
            refused.append(f"check:label_mismatch: {where}: {bucket}")
        else:
            kept.append(item)
    record_refusals(domain.domain, domain.window.horizon, refused)
    return kept


def renamed_pool(domain: Any, pool: Sequence[Any], domain_name: str, compare: Sequence[Any]) -> list[Any]:
    """``pool`` (NodeEvidence) with every node whose name does not fit its papers renamed by one of its own
    mined names where one fits (:func:`relabel`), the others kept as they are: for a family that asks about
    one node at a time (venue positioning), where a name is the subject, not one option beside others."""
    rivals = [item for item in compare if not is_umbrella(display_name(item.node), domain_name)]
    names = [display_name(item.node) for item in rivals]
    fits = label_fits(domain, rivals, names, [item.node_id for item in pool])
    return [(relabel(domain, item, rivals, names, domain_name) or item)
            if item.node_id in fits and not fits[item.node_id].fits else item for item in pool]


MAX_ALTERNATIVES = 4
_RELABELLED: dict[tuple[str, Any], dict[str, tuple[str, str]]] = {}


def relabel(domain: Any, item: Any, rivals: Sequence[Any], names: Sequence[str], domain_name: str) -> Any:
    """A copy of the pool node ``item`` (NodeEvidence) named by the first of its mined alternative names
    (``name_evidence.alternatives``, at most :data:`MAX_ALTERNATIVES`) that fits its papers
    (:func:`label_fits` against ``rivals`` named ``names``), is no umbrella, fragment, synonym or nested
    name of another rival and uses only pre-cutoff words; None when none does. The node keeps its id; the
    repair is recorded and reaches the targets of tasks offering it (``stats.repaired``)."""
    from dataclasses import replace

    from foresci.taxonomy.models import NameEvidence

    evidence = item.node.name_evidence
    position = next((index for index, other in enumerate(rivals) if other.node_id == item.node_id), None)
    if evidence is None or position is None:
        return None
    index = domain_index(domain)
    others = [name for at, name in enumerate(names) if at != position]
    for alternative in evidence.alternatives[:MAX_ALTERNATIVES]:
        words = content_tokens(alternative)  # what the eligibility test reads: pre-cutoff words only
        if (not words or any(word not in domain.pre_vocabulary for word in words)
                or is_umbrella(alternative, domain_name) or fragment_reason(alternative, index)
                or any(same_concept(alternative, other) or nested(alternative, other) for other in others)):
            continue
        trial = list(names)
        trial[position] = alternative
        fit = label_fits(domain, rivals, trial, [item.node_id]).get(item.node_id)
        if fit is None or not fit.fits:
            continue
        rows = index.containing(alternative)
        using = [paper for paper in item.pre_ids if index.row_of.get(paper, -1) in rows]
        node = item.node.model_copy(update={"name": alternative, "name_evidence": NameEvidence(
            method="phrase_mining", support=len(using), paper_ids=using[:5])})
        _POOL_FITS.setdefault((domain.domain, domain.cutoff), {})[item.node_id] = fit
        renamed = _RELABELLED.setdefault((domain.domain, domain.cutoff), {})
        renamed[item.node_id] = (names[position], alternative)
        return replace(item, node=node)
    return None


def record_relabels(task: Task, hidden: HiddenTarget, domain: Any) -> None:
    """List on the target (``stats.repaired``) every option (or, for a task about one node, the contribution)
    whose node the pool renamed (:func:`relabel`)."""
    renamed = _RELABELLED.get((domain.domain, domain.cutoff), {})
    nodes = dict(hidden.stats.get("node_ids") or {})
    if isinstance(hidden.stats.get("node_id"), str):  # a task about one node (venue): its contribution
        nodes["the contribution"] = hidden.stats["node_id"]
    for option, node in nodes.items():
        if node in renamed:
            old, new = renamed[node]
            what = option if option == "the contribution" else f"option {option}"
            hidden.stats.setdefault("repaired", []).append(
                f"label_mismatch: {what} named '{new}' (mined from its papers) for '{old}'")


def apart(left: Any, right: Any) -> bool:
    """Whether two pool nodes may stand side by side in one option set: their names are not one concept."""
    return not same_concept(display_name(left.node), display_name(right.node))


def pair_filter(names: Sequence[str], pairs: Any, index: TextIndex,
                refused: list[str]) -> Any:
    """A candidate-row test for concept-pair drawing: both concepts no fragment, not one concept twice nor
    one inside the other, and never together in the pre-cutoff text. Each refusal is appended to
    ``refused`` as "check:NAME: detail"; results are remembered per row and per concept."""
    concept_ok: dict[int, bool] = {}
    rows_of: dict[int, frozenset[int]] = {}
    decided: dict[int, bool] = {}

    reasons: dict[int, str | None] = {}

    def concept(value: int) -> bool:
        if value not in concept_ok:
            reasons[value] = fragment_reason(names[value], index)
            concept_ok[value] = reasons[value] is None
        return concept_ok[value]

    def rows(value: int) -> frozenset[int]:
        if value not in rows_of:
            rows_of[value] = frozenset(index.containing(names[value]))
        return rows_of[value]

    def allowed(row: int) -> bool:
        if row in decided:
            return decided[row]
        first, second = int(pairs[row, 0]), int(pairs[row, 1])
        verdict = concept(first) & concept(second)
        if not verdict:
            refused.append(f"check:fragment_concept: {reasons[first] or reasons[second]}")
        if verdict and same_concept(names[first], names[second]):
            refused.append(f"check:synonym_pair: '{names[first]}' / '{names[second]}'")
            verdict = False
        elif verdict and nested(names[first], names[second]):
            refused.append(f"check:nested_pair: '{names[first]}' / '{names[second]}'")
            verdict = False
        if verdict and (both := rows(first) & rows(second)):
            refused.append(f"check:false_premise: '{names[first]} + {names[second]}' together in {len(both)} "
                           f"pre-cutoff papers, e.g. {index.ids[min(both)]}")
            verdict = False
        decided[row] = verdict
        return verdict

    return allowed


_REFUSALS: dict[tuple[str, str], list[str]] = {}


def record_refusals(domain: str, horizon: str, lines: Sequence[str]) -> None:
    """Keep a builder's "check:NAME: detail" refusals of candidates that never became tasks (concept pairs
    refused while drawing), for :func:`take_refusals` in the same process."""
    _REFUSALS.setdefault((domain, horizon), []).extend(lines)


def take_refusals(domain: str, horizon: str) -> list[str]:
    """The refusals recorded for one domain and window (removed)."""
    return _REFUSALS.pop((domain, horizon), [])


def check_record(refusals: Sequence[str], selected: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """The manifest's record of the checks: per check, candidates dropped (count and examples, from the
    "check:NAME: detail" lines) and, per kind, repairs made on the selected tasks (``stats.repaired``)."""
    dropped: dict[str, dict[str, Any]] = {}
    for line in refusals:
        name, _, detail = line.removeprefix("check:").partition(": ")
        entry = dropped.setdefault(name, {"count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < EXAMPLES:
            entry["examples"].append(detail)
    repaired: dict[str, dict[str, Any]] = {}
    for items in selected.values():
        for item in items:
            for line in item.hidden.stats.get("repaired", []):
                name, _, detail = str(line).partition(": ")
                entry = repaired.setdefault(name, {"count": 0, "examples": []})
                entry["count"] += 1
                if len(entry["examples"]) < EXAMPLES:
                    entry["examples"].append(f"{item.task.task_id}: {detail}")
    return {"dropped": dict(sorted(dropped.items())), "repaired": dict(sorted(repaired.items()))}
