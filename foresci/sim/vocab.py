"""Invented technical vocabulary: pseudo-words from syllables, unique within a world.

No generated word is a real technical term, so no real-world memory carries the answer; the few
plain English words used around them ("drift", "module") are generic and shared by every direction.
"""

from __future__ import annotations

import hashlib
import random

from pydantic import BaseModel, ConfigDict, Field

ONSETS = (
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "dr",
    "gl",
    "kr",
    "pl",
    "tr",
    "th",
    "vr",
    "zh",
    "qu",
    "sk",
    "fl",
)
VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ae", "ou", "y")
CODAS = ("", "", "", "n", "r", "l", "s", "x", "rn", "nd", "m")
ADJECTIVE_SUFFIXES = ("ic", "al", "ive", "ant", "ous", "ene", "oid")
NOUN_SUFFIXES = ("ation", "ing", "ment", "ance", "ism", "ory", "ure", "ell")
FAILURE_WORDS = ("drift", "collapse", "leakage", "saturation", "instability", "overhead", "bias", "sparsity")
OPPORTUNITY_WORDS = ("synthesis", "transfer", "composition", "scaling", "tracking", "planning", "auditing")
COMPONENT_WORDS = ("module", "objective", "scheduler", "cache", "estimator", "encoder", "router", "prior")
TASK_WORDS = ("prediction", "matching", "reconstruction", "ranking", "control", "alignment", "search")


def seeded_random(*parts: object) -> random.Random:
    """A random generator seeded from the given parts (stable across runs, machines and hash seeds)."""
    key = ":".join(str(part) for part in parts)
    return random.Random(int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big"))


class WordMint:
    """Makes pseudo-words and never returns the same root twice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def root(self, syllables: int | None = None) -> str:
        """A new pronounceable root of 2–3 syllables, unique within this mint."""
        for _ in range(1000):
            count = syllables or self.rng.choice((2, 2, 3))
            word = "".join(self.rng.choice(ONSETS) + self.rng.choice(VOWELS) for _ in range(count))
            word += self.rng.choice(CODAS)
            if len(word) >= 5 and word not in self.used:
                self.used.add(word)
                return word
        raise RuntimeError("word mint exhausted: too many words requested for one world")

    def adjective(self) -> str:
        """A pseudo-adjective, e.g. 'vrelic'."""
        return self.root(2) + self.rng.choice(ADJECTIVE_SUFFIXES)

    def noun(self) -> str:
        """A pseudo-noun, e.g. 'thornation'."""
        return self.root(2) + self.rng.choice(NOUN_SUFFIXES)

    def proper(self) -> str:
        """A capitalised coined system name, e.g. 'Zhaelrix'."""
        return self.root().capitalize()

    def dataset(self) -> str:
        """A benchmark name, e.g. 'Kravel-12'."""
        return f"{self.root(2).capitalize()}-{self.rng.choice((4, 8, 12, 16, 24, 32, 64))}"


class Vocabulary(BaseModel):
    """The invented terms of one research direction (or sub-direction)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the direction's name, e.g. 'plavic trenment'")
    method: str = Field(description="its flagship method, a coined name")
    components: list[str] = Field(description="method components, e.g. 'zoric gloument cache'")
    task: str = Field(description="the task it addresses")
    datasets: list[str] = Field(description="benchmarks it reports on")
    key_terms: list[str] = Field(description="distinctive words a topic model should find")


def direction_vocabulary(mint: WordMint) -> Vocabulary:
    """Draw a fresh vocabulary for one direction."""
    rng = mint.rng
    name = f"{mint.adjective()} {mint.noun()}"
    method = mint.proper()
    components = [f"{mint.adjective()} {mint.noun()} {rng.choice(COMPONENT_WORDS)}" for _ in range(3)]
    task = f"{mint.noun()} {rng.choice(TASK_WORDS)}"
    datasets = [mint.dataset() for _ in range(2)]
    key_terms = [
        *name.split(),
        method.lower(),
        task.split()[0],
        *(component.split()[1] for component in components),
    ]
    return Vocabulary(
        name=name, method=method, components=components, task=task, datasets=datasets, key_terms=key_terms
    )


def bottleneck_phrase(mint: WordMint) -> tuple[str, list[str]]:
    """A bottleneck phrase and its variants, e.g. ('skeric lomment drift', ['lomment drift', ...])."""
    adjective, noun, failure = mint.adjective(), mint.noun(), mint.rng.choice(FAILURE_WORDS)
    phrase = f"{adjective} {noun} {failure}"
    return phrase, [f"{noun} {failure}", f"{failure} of {adjective} {noun}s"]


def opportunity_phrase(mint: WordMint) -> tuple[str, list[str]]:
    """An opportunity phrase and its variants, e.g. ('brelant quoring synthesis', [...])."""
    adjective, noun, goal = mint.adjective(), mint.noun(), mint.rng.choice(OPPORTUNITY_WORDS)
    phrase = f"{adjective} {noun} {goal}"
    return phrase, [f"{noun} {goal}", f"{goal} of {adjective} {noun}s"]


def person_name(mint: WordMint) -> str:
    """An invented author name, e.g. 'Vela Tharnos'."""
    return f"{mint.root(2).capitalize()} {mint.root().capitalize()}"
