"""Titles and abstracts composed from a direction's invented vocabulary.

Abstracts carry the sentences the offline pipeline mines: limitations ("However, X remains limited
by B."), future work ("Future work should reduce B."), resolutions ("... reduces B, which opens the
way to O."), and method-evolution cues ("We extend X ...", "replacing the C of X with ...").
"""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field

from foresci.sim.vocab import Vocabulary

WRAP_WIDTH = 80
SMALL_WORDS = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to", "with"})


@dataclass
class PaperContext:
    """What one paper says, decided by the world writer before any wording is drawn."""

    domain_name: str
    vocabulary: Vocabulary
    coined: str
    parent: Vocabulary | None = None
    limitation: str | None = None
    future_bottleneck: str | None = None
    future_opportunity: str | None = None
    resolution: tuple[str, str, str] | None = None
    opportunity_followup: tuple[str, str] | None = None
    relation_cue: str | None = None
    extra: list[str] = field(default_factory=list)


def title_case(phrase: str) -> str:
    """Capitalise a phrase's words except inner small words ('drift of caches' -> 'Drift of Caches')."""
    return " ".join(
        word if index and word in SMALL_WORDS else word[:1].upper() + word[1:]
        for index, word in enumerate(phrase.split())
    )


def compose_title(rng: random.Random, context: PaperContext) -> str:
    """A paper title in the style of the direction."""
    vocab = context.vocabulary
    if context.resolution is not None:
        bottleneck, resolver, _ = context.resolution
        return f"{context.coined}: Reducing {title_case(bottleneck)} with a {title_case(resolver)}"
    if context.opportunity_followup is not None:
        opportunity, _ = context.opportunity_followup
        return f"{context.coined}: {title_case(opportunity)} for {title_case(vocab.name)}"
    component = title_case(rng.choice(vocab.components))
    templates = (
        f"{context.coined}: {component} for {title_case(vocab.task)}",
        f"Towards Robust {title_case(vocab.name)} for {title_case(vocab.task)}",
        f"{context.coined}: Scalable {title_case(vocab.name)} via {component}s",
        f"Revisiting {vocab.method} for {title_case(vocab.task)}",
        f"{context.coined}: {title_case(vocab.name)} Beyond {rng.choice(vocab.datasets)}",
    )
    return rng.choice(templates)


def _opening(rng: random.Random, context: PaperContext) -> str:
    vocab = context.vocabulary
    if context.parent is not None:
        return (
            f"{vocab.name.capitalize()} has recently emerged as a specialised branch of "
            f"{context.parent.name} for {vocab.task} in {context.domain_name}."
        )
    return rng.choice(
        (
            f"{vocab.task.capitalize()} is a core problem in {context.domain_name}, where {vocab.method} and "
            f"related {vocab.name} methods are widely used.",
            f"Recent work on {vocab.name} has made {vocab.task} practical for {context.domain_name} systems.",
            f"In {context.domain_name}, {vocab.name} methods for {vocab.task} depend on how well a model "
            f"handles its {rng.choice(vocab.components)}.",
        )
    )


def _proposal(rng: random.Random, context: PaperContext) -> str:
    vocab = context.vocabulary
    first, second = rng.sample(vocab.components, 2)
    return rng.choice(
        (
            f"We introduce {context.coined}, a {vocab.name} approach that couples a {first} with a {second}.",
            f"This paper presents {context.coined}, which learns a {first} for {vocab.task}.",
            f"We propose {context.coined}, a {vocab.name} method built around a {first} and a {second}.",
        )
    )


def _results(rng: random.Random, context: PaperContext) -> str:
    vocab = context.vocabulary
    first, second = vocab.datasets
    gain = rng.randint(2, 19)
    return rng.choice(
        (
            f"Experiments on {first} and {second} show that {context.coined} improves {vocab.task} "
            f"by {gain}% over {vocab.method}.",
            f"On {first}, {context.coined} outperforms strong {vocab.name} baselines by {gain} points.",
            f"Across {first} and {second}, {context.coined} matches {vocab.method} at {gain}% lower cost.",
        )
    )


def compose_abstract(rng: random.Random, context: PaperContext) -> str:
    """An abstract, hard-wrapped at 80 columns like arXiv's listing."""
    vocab = context.vocabulary
    sentences = [_opening(rng, context), _proposal(rng, context)]
    if context.relation_cue:
        sentences.append(context.relation_cue)
    if context.resolution is not None:
        bottleneck, resolver, opportunity = context.resolution
        sentences.append(
            f"Our key finding is that a {resolver} reduces {bottleneck}, which opens the way to "
            f"{opportunity}."
        )
    if context.opportunity_followup is not None:
        opportunity, bottleneck = context.opportunity_followup
        sentences.append(
            f"Now that {bottleneck} has been reduced, we pursue {opportunity} with {context.coined}."
        )
    sentences.append(_results(rng, context))
    sentences.extend(context.extra)
    if context.limitation:
        sentences.append(
            rng.choice(
                (
                    f"However, {vocab.method} remains limited by {context.limitation}.",
                    f"However, {context.coined} remains limited by {context.limitation}.",
                )
            )
        )
    if context.future_bottleneck:
        sentences.append(f"Future work should reduce {context.future_bottleneck}.")
    if context.future_opportunity:
        sentences.append(f"A promising direction for future work is {context.future_opportunity}.")
    return textwrap.fill(" ".join(sentences), width=WRAP_WIDTH)


def relation_cue(
    relation: str, source: Vocabulary, target: Vocabulary, source_component: str, target_component: str
) -> str:
    """The sentence a target direction's papers use to state its relation to a source method."""
    if relation == "extension":
        return f"We extend {source.method} with a {target_component} for {target.task}."
    if relation == "replacement":
        return (
            f"Instead of {source.method}, we follow {target.method}, replacing the {source_component} of "
            f"{source.method} with a {target_component}."
        )
    if relation == "component_reuse":
        return f"We reuse the {source_component} of {source.method} inside {target.method}."
    raise ValueError(f"relation: unknown value {relation!r}")
