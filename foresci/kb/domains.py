"""Domain definitions: the YAML files in ``kb/domains`` (and any extra folders), validated with pydantic."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

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
    """Load and validate one domain YAML file; errors name the file and the field."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: invalid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping with name, slug, description, seed_descriptions, ...")
    try:
        spec = DomainSpec.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"field '{'.'.join(str(p) for p in item['loc'])}': {item['msg']}" for item in error.errors()
        )
        raise ValueError(f"{path}: {problems}") from error
    if spec.slug != path.stem:
        raise ValueError(f"{path}: field 'slug' is {spec.slug!r} but the file is named {path.name}")
    return spec


def load_domains(extra_dirs: list[Path] | None = None, only: list[str] | None = None) -> list[DomainSpec]:
    """Load the shipped domains plus those in ``extra_dirs`` (later folders override same slugs).

    ``only`` keeps just the named slugs (empty or None keeps all); an unknown slug raises.
    """
    folders = [declarative_dir("kb") / "domains", *(Path(folder) for folder in extra_dirs or [])]
    specs: dict[str, DomainSpec] = {}
    for folder in folders:
        if not folder.is_dir():
            raise FileNotFoundError(f"domain folder not found: {folder}")
        for path in sorted(folder.glob("*.yaml")):
            spec = load_domain_file(path)
            specs[spec.slug] = spec
    if only:
        unknown = [slug for slug in only if slug not in specs]
        if unknown:
            raise ValueError(f"unknown domain(s) {unknown}; known: {sorted(specs)}")
        return [specs[slug] for slug in only]
    return [specs[slug] for slug in sorted(specs)]
