"""Domain definitions: the YAML files in ``kb/domains`` (and any extra folders), validated with pydantic."""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from foresci.core.errors import UserError
from foresci.core.resources import declarative_dir


class DomainSpec(BaseModel):
    """One research domain the KB screens papers for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="human-readable name, e.g. 'LLM agents'")
    slug: str = Field(description="identifier used everywhere else, e.g. 'llm_agent'")
    description: str = Field(description="one paragraph: what belongs to the domain")
    seed_descriptions: list[str] = Field(
        min_length=1, description="typical paper descriptions; embedding similarity to them screens papers"
    )
    include_keywords: list[str] = Field(
        default_factory=list, description="phrases marking a paper as in scope"
    )
    exclude_keywords: list[str] = Field(default_factory=list, description="phrases marking it out of scope")
    categories: list[str] = Field(default_factory=list, description="arXiv categories allowed (empty = any)")
    queries: list[str] = Field(default_factory=list, description="search queries for online harvesting")
    core_similarity: float | None = Field(default=None, description="override of settings.kb.core_threshold")
    support_similarity: float | None = Field(
        default=None, description="override of settings.kb.screen_threshold"
    )

    @field_validator("slug")
    @classmethod
    def _slug_is_identifier(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", value):
            raise ValueError("slug must be lower-case letters, digits and underscores")
        return value

    @field_validator("include_keywords", "exclude_keywords")
    @classmethod
    def _lowercase(cls, values: list[str]) -> list[str]:
        return [" ".join(value.lower().split()) for value in values if value.strip()]


def load_domain_file(path: Path) -> DomainSpec:
    """Load and validate one domain YAML file; errors (:class:`UserError`) name the file, line and field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        raise UserError(f"invalid YAML: {problem}", path=path,
                        line=mark.line + 1 if mark is not None else None) from error
    if not isinstance(data, dict):
        raise UserError("expected a mapping with name, slug, description, seed_descriptions, ...", path=path)
    try:
        spec = DomainSpec.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        more = f" (and {len(error.errors()) - 1} more problem(s))" if len(error.errors()) > 1 else ""
        raise UserError(f"{first['msg']}{more}", path=path,
                        field=".".join(str(part) for part in first["loc"]) or None) from error
    if spec.slug != path.stem:
        raise UserError(f"is {spec.slug!r} but the file is named {path.name}", path=path, field="slug")
    return spec


def load_domains(extra_dirs: list[Path] | None = None, only: list[str] | None = None) -> list[DomainSpec]:
    """Load the shipped domains plus those in ``extra_dirs`` (later folders override same slugs).

    ``only`` keeps just the named slugs (empty or None keeps all); an unknown slug raises.
    """
    folders = [declarative_dir("kb") / "domains", *(Path(folder) for folder in extra_dirs or [])]
    specs: dict[str, DomainSpec] = {}
    for folder in folders:
        if not folder.is_dir():
            raise UserError("domain folder not found", path=folder)
        for path in sorted(folder.glob("*.yaml")):
            spec = load_domain_file(path)
            specs[spec.slug] = spec
    if only:
        unknown = [slug for slug in only if slug not in specs]
        if unknown:
            variable = next((name for name in os.environ if name.upper() == "FORESCI_KB__DOMAINS"), None)
            raise UserError(f"unknown domain(s) {unknown}: no {unknown[0]}.yaml in "
                            f"{', '.join(str(folder) for folder in folders)}; known: {sorted(specs)}",
                            path=f"environment variable {variable}" if variable else None, field="kb.domains")
        return [specs[slug] for slug in only]
    return [specs[slug] for slug in sorted(specs)]
