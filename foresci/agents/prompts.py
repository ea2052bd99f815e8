"""Prompt templates of the LLM methods, read from ``agents/*.yaml`` and validated at load.

Each YAML file has ``templates: {key: {variables: [...], text: "... {variable} ..."}}``. Loading fails,
naming the file and key, when a template's placeholders differ from its declared variables or from the
variables the code passes (``expected``: file -> template key -> variables, which the caller derives from
the code that renders them; the shipped methods declare theirs, see
:func:`foresci.methods.shipped.prompts.prompt_book`); rendering fails when a value is missing or extra.
Each task family's answer contract, reviewer rubric and evidence focus (plain text) are its own: the
``prompts.yaml`` in its folder (:meth:`foresci.tasks.families.TaskFamily.prompts_path`), else the texts the
family object carries. A family without either answers no LLM method (one line naming the file expected).

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
    """All method templates of one ``agents/`` folder and every registered family's texts."""

    def __init__(self, templates: dict[tuple[str, str], Template],
                 families: dict[str, dict[str, str]], expected: Mapping[str, Path] | None = None) -> None:
        self.templates = templates
        self.families = families
        self.expected = dict(expected or {})  # family without texts -> the file it would have them in

    def render(self, file: str, key: str, **values: Any) -> str:
        """Render template ``key`` of ``agents/<file>.yaml``."""
        try:
            template = self.templates[(file, key)]
        except KeyError as error:
            raise PromptError(f"agents/{file}.yaml: no template {key!r}") from error
        text = template.render(**values)
        return with_system_clause(text) if (file, key) in SYSTEM_TEMPLATES else text

    def family(self, family: str, key: str) -> str:
        """A family text (``contract``, ``rubric`` or ``evidence_focus``): its ``prompts.yaml``'s, else the
        family object's; a PromptError naming the family and the file expected when it has none."""
        if key not in FAMILY_KEYS:
            raise PromptError(f"no family text {key!r} (one of {sorted(FAMILY_KEYS)})")
        texts = self.families.get(family)
        if texts is None:
            where = self.expected.get(family)
            expected = f"expected {where}" if where is not None else "it is not a registered family"
            raise PromptError(f"family {family!r} has no prompt texts for the LLM methods: {expected} "
                              f"(keys {', '.join(sorted(FAMILY_KEYS))})")
        return texts[key]


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


def family_texts(family: Any) -> dict[str, str] | None:
    """One family's texts: its ``prompts.yaml`` (:meth:`~foresci.tasks.families.TaskFamily.prompts_path`,
    checked: exactly the keys of :data:`FAMILY_KEYS`, no variables), else the texts the family object
    carries (``contract``/``rubric``/``evidence_focus``), else None."""
    path = family.prompts_path()
    if path.is_file():
        entry: dict[str, Any] = _read_yaml(path)
        source = str(path)
    else:
        entry = {key: getattr(family, key, "") for key in FAMILY_KEYS}
        if not all(str(text).strip() for text in entry.values()):
            return None
        source = f"family {family.name!r}"
    if set(entry) != FAMILY_KEYS:
        raise PromptError(f"{source}: keys {sorted(entry)} != {sorted(FAMILY_KEYS)}")
    for key, text in entry.items():
        if not isinstance(text, str) or not text.strip():
            raise PromptError(f"{source}: {key}: expected a non-empty text")
        if placeholders(text):
            raise PromptError(f"{source}: {key}: family texts take no variables")
    return {key: text.strip() for key, text in entry.items()}


def _load_families() -> tuple[dict[str, dict[str, str]], dict[str, Path]]:
    """Every registered family's texts (:func:`family_texts`), and for each family without any the file
    it would have them in."""
    from foresci.tasks.families import all_families

    families: dict[str, dict[str, str]] = {}
    expected: dict[str, Path] = {}
    for registered in all_families():
        texts = family_texts(registered)
        if texts is None:
            expected[registered.name] = registered.prompts_path()
        else:
            families[registered.name] = texts
    return families, expected


def shipped_family_prompt_files() -> list[Path]:
    """The shipped families' prompt files (``foresci/tasks/families/*/prompts.yaml``), sorted: what a
    shipped method's version and a run's fingerprint hash beside the ``agents/`` files."""
    folder = Path(__file__).resolve().parents[1] / "tasks" / "families"
    return sorted(folder.glob("*/prompts.yaml"))


def load_prompts(expected: PromptVariables, folder: Path | None = None) -> PromptBook:
    """Load and validate the templates ``expected`` names (file -> key -> variables the code passes) from
    ``folder`` (default: the shipped ``agents/``), with every registered family's texts."""
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
    return PromptBook(templates, *_load_families())
