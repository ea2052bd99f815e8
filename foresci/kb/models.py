"""The Paper model: one normalised paper, whatever format it came from."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ScreenStatus = Literal["core", "support", "excluded"]

VENUE_FAMILIES: tuple[str, ...] = (
    "ACL/EMNLP/NAACL",
    "ICLR/ICML/NeurIPS",
    "AAAI/IJCAI",
    "SIGIR/KDD",
    "CVPR/ICCV/ECCV",
)


class Paper(BaseModel):
    """A paper as the knowledge base stores it. ``announced`` is the first announcement (v1) date."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper_id: str = Field(description="arXiv id without version, e.g. '2503.11731'")
    title: str
    abstract: str
    authors: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list, description="arXiv categories, primary first")
    comment: str | None = Field(default=None, description="arXiv comment (often the venue)")
    announced: date = Field(description="first announcement date; a cutoff compares against this")
    venue_family: str | None = Field(default=None, description="one of VENUE_FAMILIES, parsed from comment")
    venue_year: int | None = Field(default=None, description="venue year parsed from comment")
    comment_date: date | None = Field(
        default=None,
        description="date the comment (and the venue parsed from it) became known, when later than "
        "`announced` (e.g. written with a later version); None: known at the first announcement",
    )
    source: str = Field(default="arxiv-daily", description="ingest format the paper came from")
    limitations: list[str] = Field(
        default_factory=list, description="explicit limitations (KB layer), if any"
    )
    future_work: list[str] = Field(default_factory=list, description="future-work statements, if any")

    def as_of(self, cutoff: date) -> Paper:
        """The paper as it was known on ``cutoff``: facts that became known later are removed."""
        if self.comment_date is None or self.comment_date <= cutoff:
            return self
        return self.model_copy(
            update={"comment": None, "venue_family": None, "venue_year": None, "comment_date": None}
        )

    @property
    def primary_category(self) -> str | None:
        """The first (primary) arXiv category, if any."""
        return self.categories[0] if self.categories else None

    @property
    def text(self) -> str:
        """Title and abstract, the text that is embedded and indexed."""
        return f"{self.title}. {self.abstract}"


class ScreenDecision(BaseModel):
    """A domain screen verdict for one paper."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper_id: str
    domain: str
    status: ScreenStatus
    reason: str
    similarity: float | None = None


class SearchHit(BaseModel):
    """One retrieval result from a KBView."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paper: Paper
    score: float = Field(description="fused RRF score")
    rank: int = Field(description="1-based rank after fusion")
    bm25_rank: int | None = None
    dense_rank: int | None = None
