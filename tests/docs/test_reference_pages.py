"""The generated reference pages hold what the code holds: every setting with its description, every
registered metric, family, shipped method and CLI command; only the sources module imports foresci."""

from __future__ import annotations

import ast
import re

import pytest

from foresci.cli import COMMANDS
from foresci.core.settings import Settings
from foresci.evaluation.metrics import all_metrics
from foresci.methods import shipped_methods
from foresci.tasks.families import all_families
from tests.docs.reference import HOOKS_DIR, hook_module, settings_leaf_keys


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return hook_module("reference_pages").build_pages(hook_module("reference_sources"))


def _first_cells(markdown: str) -> list[str]:
    """The first cell of every table body row, without its backticks."""
    return [match.group(1) for match in re.finditer(r"^\| `([^`]+)`( \||<br>)", markdown, re.MULTILINE)]


def test_settings_page_has_every_setting_with_its_variable_and_description(pages: dict[str, str]) -> None:
    page = pages["reference/settings.md"]
    assert sorted(_first_cells(page)) == sorted(settings_leaf_keys())
    base_url = Settings.model_fields["llm"].annotation.model_fields["base_url"]  # type: ignore[union-attr]
    row = next(line for line in page.splitlines() if line.startswith("| `llm.base_url`<br>"))
    assert row.startswith("| `llm.base_url`<br>`FORESCI_LLM__BASE_URL` |") and row.rstrip(" |").endswith(
        hook_module("reference_pages").escape(base_url.description or ""))


def test_metrics_page_lists_the_registry(pages: dict[str, str]) -> None:
    page = pages["reference/metrics.md"]
    metrics = all_metrics()
    assert _first_cells(page) == [metric.name for metric in metrics]
    for metric in metrics:
        row = next(line for line in page.splitlines() if line.startswith(f"| `{metric.name}`<br>"))
        assert ("| lower |" in row) == (not metric.higher_is_better)


def test_families_page_has_every_family_and_its_required_fields(pages: dict[str, str]) -> None:
    page = pages["reference/families.md"]
    sections = re.split(r"^## ", page, flags=re.MULTILINE)[1:]
    families = all_families()
    assert [section.split("\n", 1)[0].strip("`") for section in sections] == [f.name for f in families]
    for family, section in zip(families, sections, strict=True):
        fields = family.answer_schema.model_fields
        required = {name for name, info in fields.items() if info.is_required()}
        listed = {line.split("`")[1] for line in section.splitlines()
                  if re.match(r"^\| `\w+` \| yes \|", line)}
        assert listed == required


def test_methods_page_lists_the_shipped_methods(pages: dict[str, str]) -> None:
    assert _first_cells(pages["reference/methods.md"]) == shipped_methods()


def test_cli_page_has_a_section_per_command(pages: dict[str, str]) -> None:
    headings = re.findall(r"^#{2,4} `(foresci[^`]*)`$", pages["reference/cli.md"], re.MULTILINE)
    assert headings[0] == "foresci"
    assert {f"foresci {name}" for name, *_ in COMMANDS} <= set(headings)
    assert {"foresci kb build", "foresci tasks build", "foresci forecast package"} <= set(headings)
    assert len(headings) == len(set(headings))


def test_only_the_sources_module_imports_foresci() -> None:
    importers = []
    for path in sorted(HOOKS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name == "foresci" or name.startswith("foresci.") for name in names):
                importers.append(path.name)
    assert set(importers) == {"reference_sources.py"}
