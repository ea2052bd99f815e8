"""Settings of concept emergence, read from the declarative file ``taxonomy/emergence.yaml``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VocabularySettings(_Section):
    """How the concept vocabulary at a cutoff is mined."""

    min_words: int = Field(default=2, ge=1, description="fewest words in a concept phrase")
    max_words: int = Field(default=4, ge=1, description="most words in a concept phrase")
    min_document_frequency: int = Field(default=5, ge=1, description="papers up to t using a phrase")
    vocabulary_size: int = Field(default=2000, ge=2, description="most used phrases kept")
    exclude_first_words: list[str] = Field(default_factory=list,
                                           description="a phrase starting with one of these is no concept")
    exclude_last_words: list[str] = Field(default_factory=list,
                                          description="a phrase ending with one of these is no concept")
    exclude_any_words: list[str] = Field(default_factory=list,
                                         description="a phrase holding one of these words is no concept")
    exclude_phrases: list[str] = Field(default_factory=list, description="phrase keys that are no concept")
    min_title_share: float = Field(default=0.0, ge=0.0, le=1.0, description="share of a phrase's papers "
                                   "up to t that must use it in their title")
    min_title_papers: int = Field(default=0, ge=0, description="papers up to t that must use a phrase in "
                                  "their title")
    drop_subsumed: bool = Field(default=True,
                                description="drop phrases inside a longer concept used as often")
    merge_synonyms: bool = Field(default=False, description="merge near-synonym keys into one concept "
                                 "(acronyms expanded, generic heads folded; foresci/emergence/synonyms.py)")
    synonym_heads: list[str] = Field(default_factory=list, description="head nouns that name one thing "
                                     "after the same modifier (\"text to image model\" / \"... system\")")
    min_neighbour_information: float = Field(
        default=0.0, ge=0.0, description="nats of information a concept's co-occurring phrases carry "
        "beyond the corpus's (foresci/emergence/genericity.py); below it the phrase is generic (0: off)")


class TargetSettings(_Section):
    """Candidate pairs and positives of a window."""

    positive_min_papers: list[int] = Field(default_factory=lambda: [1, 3],
                                           description="window papers a positive pair co-occurs in (k)")
    window_months: list[int] = Field(default_factory=lambda: [3, 6], description="window lengths")
    max_candidates: int = Field(default=200_000, ge=1, description="uniform sample above this many pairs")
    sample_seed: int = Field(default=31, description="seed of the candidate sample")
    question_candidates: int = Field(default=2_000_000, ge=1,
                                     description="candidates LLM questions are drawn from (sample above)")


class LearnedSettings(_Section):
    """The learned baseline."""

    model: Literal["logistic", "gradient_boosting", "poisson"] = Field(
        default="logistic", description="logistic or gradient_boosting: a classifier of 'co-occurs in at "
        "least train_min_papers window papers'; poisson: a Poisson regression of the pair's window papers, "
        "scored as P(at least one) = 1 - exp(-expected papers)")
    inputs: Literal["percentiles", "normal_scores"] = Field(
        default="percentiles", description="what the model reads of each feature: its percentile among the "
        "cutoff's candidates, or that percentile's normal score (the same order, the tails kept apart)")
    seed: int = Field(default=7, description="random seed of the classifier and its training sample")
    max_training_pairs: int = Field(default=100_000, ge=10, description="training pairs sampled at most")
    train_min_papers: int | None = Field(
        default=1, ge=1, description="training positives co-occur in at least this many papers, whatever the "
        "k evaluated (None: the evaluated k)")
    train_window_months: int = Field(
        default=3, ge=1, description="the training window: pairs at cutoff - this many months, labelled from "
        "the papers up to the cutoff (the latest window of this length closed at the cutoff, whatever the "
        "task's window)")
    min_history_months: int = Field(
        default=3, ge=0, description="calendar months holding papers the KB must have up to the training "
        "snapshot (its own month included); with fewer the model is not trainable (named, never scored)")
    min_training_positives: int = Field(default=10, ge=1, description="fewest positive training pairs (and "
                                        "as many negatives) a trainable model needs")
    features: list[str] | None = Field(default=None, description="the pair features the model reads "
                                       "(foresci.emergence.features.FEATURE_NAMES; None: all)")


class ScoringSettings(_Section):
    """AUC / precision@k and their bootstrap intervals."""

    precision_at: list[int] = Field(default_factory=lambda: [100], description="k of precision@k")
    bootstrap_resamples: int = Field(default=200, ge=0, description="bootstrap resamples")
    bootstrap_seed: int = Field(default=11, description="bootstrap seed")
    degree_strata: int = Field(default=5, ge=1, description="quantile strata of the preferential-attachment "
                               "score the degree-stratified AUC is read within")
    bootstrap_unit: Literal["concepts", "pairs"] = Field(
        default="concepts", description="what a resample draws with replacement: concepts (a pair weighs "
        "the product of its concepts' draws; pairs sharing a concept are not independent) or pairs")


class ReleaseSettings(_Section):
    """What a release carries of concept emergence beside its ranking tasks."""

    bulk_pairs: int = Field(default=5000, ge=0, description="candidate pairs per domain and window in the "
                            "release's bulk link-prediction set (a seeded uniform sample; 0: no bulk set)")
    forecast_questions_per_set: int = Field(default=2, ge=0, description="binary forecast questions per "
                                            "domain and window when the release asks forecast questions")
    forecast_min_papers: int = Field(default=1, ge=1, description="window papers a binary question's pair "
                                     "must co-occur in to resolve 1")


class EmergenceSettings(_Section):
    """Everything that shapes an emergence set (see taxonomy/emergence.yaml)."""

    vocabulary: VocabularySettings = Field(default_factory=VocabularySettings)
    targets: TargetSettings = Field(default_factory=TargetSettings)
    learned: LearnedSettings = Field(default_factory=LearnedSettings)
    scoring: ScoringSettings = Field(default_factory=ScoringSettings)
    release: ReleaseSettings = Field(default_factory=ReleaseSettings)


def load_emergence_settings(path: Path | str | None = None) -> EmergenceSettings:
    """The emergence settings of ``path`` (default ``taxonomy/emergence.yaml``)."""
    chosen = Path(path) if path is not None else declarative_file("taxonomy", "emergence.yaml")
    return load_yaml_model(chosen, EmergenceSettings, "emergence settings")
