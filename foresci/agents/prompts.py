"""Prompt templates of the LLM methods, read from ``agents/*.yaml`` and validated at load.

Each YAML file has ``templates: {key: {variables: [...], text: "... {variable} ..."}}``. Loading fails,
naming the file and key, when a template's placeholders differ from its declared variables or from the
variables the code passes (``expected``: file -> template key -> variables, which the caller derives from
the code that renders them; the shipped methods declare theirs, see
:func:`foresci.methods.shipped.prompts.prompt_book`); rendering fails when a value is missing or extra.
``agents/families.yaml`` holds the per-family answer contract and reviewer rubric (plain text).

Values that carry retrieved or model-written text (:data:`DATA_VARIABLES`) are fenced as data when
rendered (:mod:`foresci.core.fencing`), and the shared system message gets the clause saying fenced text is
evidence, never instructions.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from foresci.core.errors import UserError
from foresci.core.fencing import fence_values, with_system_clause
from foresci.core.resources import declarative_dir
from foresci.core.yamlio import read_yaml_mapping

PromptVariables = Mapping[str, Mapping[str, frozenset[str]]]
_FrozenVariables = tuple[tuple[str, tuple[tuple[str, frozenset[str]], ...]], ...]
FAMILY_KEYS = frozenset({"contract", "rubric", "evidence_focus"})
# variables whose values are retrieved papers or model-written text: always fenced as data
DATA_VARIABLES = frozenset({"evidence", "chains", "trend_reading", "draft", "reviews", "claims", "signals",
                            "findings"})
SYSTEM_TEMPLATES = frozenset({("common", "system")})


class PromptError(UserError):
    """A prompt file or template that does not match what the code expects."""


@dataclass(frozen=True)
class Template:
    """One prompt template and the variables it declares."""

    source: str
    text: str
    variables: frozenset[str]

    def render(self, **values: Any) -> str:
        """The text with ``values`` substituted; missing or unknown values are an error."""
        given = frozenset(values)
        if given != self.variables:
            raise PromptError(f"{self.source}: missing {sorted(self.variables - given)}, "
                              f"unknown {sorted(given - self.variables)}")
        fenced = fence_values({name: str(value) for name, value in values.items()}, DATA_VARIABLES)
        return self.text.format(**fenced)


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` fields of a format string (``{{`` and ``}}`` are literal braces)."""
    names = set()
    for _, field, spec, _ in string.Formatter().parse(text):
        if field is None:
            continue
        if not field.isidentifier() or spec:
            raise PromptError(f"placeholder {{{field}}} must be a plain name")
        names.add(field)
    return frozenset(names)


class PromptBook:
    """All method templates and family texts of one ``agents/`` folder."""

    def __init__(self, templates: dict[tuple[str, str], Template],
                 families: dict[str, dict[str, str]]) -> None:
        self.templates = templates
        self.families = families

    def render(self, file: str, key: str, **values: Any) -> str:
        """Render template ``key`` of ``agents/<file>.yaml``."""
        try:
            template = self.templates[(file, key)]
        except KeyError as error:
            raise PromptError(f"agents/{file}.yaml: no template {key!r}") from error
        text = template.render(**values)
        return with_system_clause(text) if (file, key) in SYSTEM_TEMPLATES else text

    def family(self, family: str, key: str) -> str:
        """A family text (``contract``, ``rubric`` or ``evidence_focus``) from ``agents/families.yaml``."""
        try:
            return self.families[family][key]
        except KeyError as error:
            raise PromptError(f"agents/families.yaml: no {key!r} for family {family!r}") from error


def _read_yaml(path: Path) -> dict[str, Any]:
    return read_yaml_mapping(path, error=PromptError)


def _load_templates(path: Path, expected: Mapping[str, frozenset[str]]) -> dict[str, Template]:
    data = _read_yaml(path)
    entries = data.get("templates")
    if not isinstance(entries, dict):
        raise PromptError(f"{path}: expected 'templates:' mapping")
    missing = sorted(set(expected) - set(entries))
    if missing:
        raise PromptError(f"{path}: missing template(s) {missing}")
    loaded: dict[str, Template] = {}
    for key, entry in entries.items():
        where = f"{path}: templates.{key}"
        if key not in expected:
            raise PromptError(f"{where}: unknown template (expected one of {sorted(expected)})")
        if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
            raise PromptError(f"{where}: expected {{variables: [...], text: ...}}")
        declared = frozenset(entry.get("variables") or [])
        try:
            used = placeholders(entry["text"])
        except PromptError as error:
            raise PromptError(f"{where}: {error}") from error
        if used != declared:
            raise PromptError(f"{where}: text uses {sorted(used)} but declares {sorted(declared)}")
        if declared != expected[key]:
            raise PromptError(f"{where}: declares {sorted(declared)}; "
                              f"the code passes {sorted(expected[key])}")
        loaded[key] = Template(source=where, text=entry["text"], variables=declared)
    return loaded


def _load_families(path: Path) -> dict[str, dict[str, str]]:
    """Every registered family's texts: its entry in ``families.yaml`` (the shipped families'), else the
    texts the family object carries (``TaskFamily.contract``/``rubric``/``evidence_focus``)."""
    from foresci.tasks.families import all_families, family_names

    data = _read_yaml(path).get("families")
    if not isinstance(data, dict):
        raise PromptError(f"{path}: expected 'families:' mapping")
    families: dict[str, dict[str, str]] = {}
    for registered in all_families():
        family = registered.name
        entry = data.get(family)
        own = {key: getattr(registered, key, "") for key in FAMILY_KEYS}
        if entry is None and all(str(text).strip() for text in own.values()):
            entry = own
        if not isinstance(entry, dict):
            raise PromptError(f"{path}: families.{family}: missing (and the family object carries no "
                              f"{'/'.join(sorted(FAMILY_KEYS))} texts)")
        if set(entry) != FAMILY_KEYS:
            raise PromptError(f"{path}: families.{family}: keys {sorted(entry)} != {sorted(FAMILY_KEYS)}")
        for key, text in entry.items():
            if placeholders(str(text)):
                raise PromptError(f"{path}: families.{family}.{key}: family texts take no variables")
        families[family] = {key: str(text).strip() for key, text in entry.items()}
    unknown = sorted(set(data) - set(family_names()))
    if unknown:
        raise PromptError(f"{path}: unknown families {unknown}; known: {list(family_names())}")
    return families


def load_prompts(expected: PromptVariables, folder: Path | None = None) -> PromptBook:
    """Load and validate the templates ``expected`` names (file -> key -> variables the code passes) from
    ``folder`` (default: the shipped ``agents/``), with the family texts of its ``families.yaml``."""
    frozen = tuple((file, tuple(keys.items())) for file, keys in expected.items())
    return _load_prompts_cached(str(folder or declarative_dir("agents")), frozen)


@lru_cache(maxsize=4)
def _load_prompts_cached(folder_text: str, expected: _FrozenVariables) -> PromptBook:
    folder = Path(folder_text)
    templates: dict[tuple[str, str], Template] = {}
    for file, keys in expected:
        path = folder / f"{file}.yaml"
        if not path.is_file():
            raise PromptError(f"{path}: prompt file missing")
        for key, template in _load_templates(path, dict(keys)).items():
            templates[(file, key)] = template
    return PromptBook(templates, _load_families(folder / "families.yaml"))
