"""Hidden targets G>t(q): derived from literature after the cutoff, visible to evaluation only.

Agents must never import this module (a test enforces it).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, ClassVar, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
    model_validator,
)


class Claim(BaseModel):
    """An atomic claim of the hidden claim bank (for Fact recall)."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str
    text: str
    variants: list[str] = Field(default_factory=list)


class Slot(BaseModel):
    """An FTA slot g_j with its acceptable variants V_j (reference-guided FTA)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    variants: list[str] = Field(min_length=1)


LEGACY_FIELDS: dict[str, Any] = {
    "primary_direction": None, "acceptable_directions": [], "trajectory": None,
    "bottleneck": [], "opportunity": [], "mechanism": None, "ranking": [], "rationale": [],
}
"""The fields of the flat hidden target every row of the four shipped families carried, each family's
own set or empty. Their targets still write the ones they lack, empty, so hidden.jsonl stays byte-identical
(``writes_legacy_fields``); reading drops them when empty. A new family writes only its own fields."""


class HiddenTarget(BaseModel):
    """What the hidden target of every family holds; each family's target subclasses it with a Literal
    ``family`` and its own fields (the tagged union :func:`hidden_target_union`)."""

    model_config = ConfigDict(extra="forbid")

    writes_legacy_fields: ClassVar[bool] = False

    task_id: str
    family: str
    slots: list[Slot] = Field(default_factory=list, description="FTA slots with acceptable variants")
    claims: list[Claim] = Field(default_factory=list, description="claim bank for Fact")
    evidence_ids: list[str] = Field(default_factory=list, description="post-cutoff papers behind the target")
    stats: dict[str, Any] = Field(default_factory=dict, description="window counts/shares used")
    unmapped: list[str] = Field(default_factory=list, description="imported fields with no faithful mapping")

    def top_option(self) -> str | None:
        """The option id that is the right first pick (None: the family's target names no option)."""
        return None

    def named_options(self) -> list[str]:
        """Every option id the target names (checked against the task's options)."""
        return []

    @model_validator(mode="before")
    @classmethod
    def _drop_empty_legacy_fields(cls, data: Any) -> Any:
        if cls.writes_legacy_fields and isinstance(data, dict):
            return {key: value for key, value in data.items()
                    if key in cls.model_fields or key not in LEGACY_FIELDS or LEGACY_FIELDS[key] != value}
        return data

    @model_serializer(mode="wrap")
    def _with_legacy_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.writes_legacy_fields:
            for key, default in LEGACY_FIELDS.items():
                data.setdefault(key, default)
        return data


def hidden_target_union() -> Any:
    """The tagged union of every registered family's hidden target, discriminated on ``family``."""
    from foresci.tasks.families.lookup import registered

    models = tuple(family.hidden_model() for family in registered())
    if len(models) == 1:
        return models[0]
    return Annotated[Union[models], Field(discriminator="family")]  # noqa: UP007 (a runtime tuple)


@lru_cache(maxsize=8)
def _adapter(names: tuple[str, ...]) -> TypeAdapter[HiddenTarget]:
    return TypeAdapter(hidden_target_union())


def parse_hidden_target(row: Any) -> HiddenTarget:
    """One hidden row as its family's target (UnknownFamilyError naming the known families; a pydantic
    ValidationError naming the field otherwise)."""
    from foresci.tasks.families.lookup import find_family, registered_names

    if isinstance(row, dict) and "family" in row:
        find_family(str(row["family"]))
    return _adapter(registered_names()).validate_python(row)


def make_hidden_target(**fields: Any) -> HiddenTarget:
    """A hidden target of the family named in ``fields`` (``family=...``)."""
    return parse_hidden_target(fields)


class Resolution(BaseModel):
    """The outcome of a forecast question, computed from newer literature."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    outcome: float = Field(description="numeric value, or 0/1 for binary")
    resolved_with: str = Field(description="KB fingerprint or path used")
    details: dict[str, Any] = Field(default_factory=dict)
