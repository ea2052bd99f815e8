"""One-way layering: no module imports a higher layer (every import counts, function-level and
``TYPE_CHECKING`` ones included), the checker catches one added on purpose, and the answer contracts are
importable one way only."""

from __future__ import annotations

import ast
import shutil
from functools import cache
from pathlib import Path

from tests.support.layering import KNOWN_CYCLES, LAYERS, import_cycles, place, violations

REPO = Path(__file__).resolve().parents[2]


def _write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_no_module_imports_a_higher_layer() -> None:
    found = violations(REPO)
    assert not found, "\n".join(str(violation) for violation in found)


def test_layers_place_modules_by_what_they_are() -> None:
    names = [name for name, _ in LAYERS]
    assert names[0] == "foundation" and names[-1] == "app"
    assert place("foresci.kb.config").layer == "foundation"  # type: ignore[union-attr]
    assert place("foresci.kb.cli").layer == "app"  # type: ignore[union-attr]
    assert place("foresci.kb.build").layer == "kb"  # type: ignore[union-attr]
    assert place("foresci.methods.shipped.native").layer == "methods"  # type: ignore[union-attr]
    assert place("foresci.unheard_of") is None


def test_the_checker_flags_upward_sideways_and_unplaced_imports(tmp_path: Path) -> None:
    for package in ("foresci", "foresci/kb", "foresci/tasks", "foresci/agents", "foresci/evaluation",
                    "foresci/methods", "foresci/engines"):
        _write(tmp_path, f"{package}/__init__.py", "")
    _write(tmp_path, "foresci/tasks/hidden.py", "")
    _write(tmp_path, "foresci/methods/runner.py", "from foresci.tasks import hidden\n")  # down, but never
    _write(tmp_path, "foresci/agents/tools.py", "from foresci.kb import store\n")  # downward: fine
    _write(tmp_path, "foresci/kb/store.py", "\n".join([
        "from __future__ import annotations",
        "import importlib",
        "from typing import TYPE_CHECKING",
        "if TYPE_CHECKING:",
        "    from foresci.agents.tools import KBTools",  # line 5: upward, type-only
        "def helper():",
        "    from foresci.agents import tools",  # line 7: upward, in a function
        "    return importlib.import_module('foresci.engines')",  # line 8: upward, by name
        "",
    ]))
    _write(tmp_path, "foresci/evaluation/scoring.py", "import foresci.agents.tools\n")  # sideways
    _write(tmp_path, "foresci/kb/config.py", "from foresci.kb.store import helper\n")  # section -> kb
    _write(tmp_path, "foresci/unplaced.py", "")
    found = {(violation.path, violation.line, violation.why.split(":")[0])
             for violation in violations(tmp_path)}
    assert found == {
        ("foresci/kb/store.py", 5, "upward"),
        ("foresci/kb/store.py", 7, "upward"),
        ("foresci/kb/store.py", 8, "upward"),
        ("foresci/evaluation/scoring.py", 1, "sideways"),
        ("foresci/kb/config.py", 1, "upward"),
        ("foresci/unplaced.py", 1, "this module is in no layer (add it to LAYERS)"),
        ("foresci/methods/runner.py", 1, "never"),
    }


def test_an_upward_import_added_to_the_real_tree_fails_the_check(tmp_path: Path) -> None:
    shutil.copytree(REPO / "foresci", tmp_path / "foresci", ignore=shutil.ignore_patterns("__pycache__"))
    build = tmp_path / "foresci" / "kb" / "build.py"
    lines = build.read_text().splitlines()
    build.write_text("\n".join([*lines, "", "", "def _engine_names():",
                                "    from foresci.methods.registry import registered",
                                "    return list(registered())", ""]))
    [violation] = violations(tmp_path)
    assert (violation.path, violation.line) == ("foresci/kb/build.py", len(lines) + 4)
    assert violation.why == "upward: layer 'kb' may not import layer 'methods'"


@cache
def _top_level_names(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return frozenset(names)


def test_answer_contracts_are_importable_from_foresci_contracts_only() -> None:
    contracts = _top_level_names(REPO / "foresci" / "contracts.py")
    found = []
    for root in ("foresci", "tests", "benchmarks", "examples"):
        for path in sorted((REPO / root).rglob("*.py")):
            text = path.read_text()
            if "from foresci" not in text:
                continue
            for node in ast.walk(ast.parse(text)):
                if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                        and node.module.startswith("foresci") and node.module != "foresci.contracts"):
                    continue
                source = REPO / Path(*node.module.split("."))
                source = source / "__init__.py" if source.is_dir() else source.with_suffix(".py")
                own = _top_level_names(source) if source.is_file() else frozenset()
                found += [f"{path.relative_to(REPO)}:{node.lineno}: {alias.name} from {node.module}"
                          for alias in node.names if alias.name in contracts and alias.name not in own]
    assert not found, "import these from foresci.contracts:\n" + "\n".join(found)


def test_no_import_cycle_among_foresci_modules_but_the_listed_ones() -> None:
    found = import_cycles(REPO)
    new = sorted(found - KNOWN_CYCLES)
    gone = sorted(KNOWN_CYCLES - found)
    assert not new, "import cycles (function-level imports included): break them\n" + "\n".join(
        " <-> ".join(cycle) for cycle in new)
    assert not gone, "no longer cycles (or changed): update KNOWN_CYCLES in tests/support/layering.py\n" + \
        "\n".join(" <-> ".join(cycle) for cycle in gone)


def test_the_cycle_checker_finds_a_function_level_cycle_and_only_it(tmp_path: Path) -> None:
    _write(tmp_path, "foresci/__init__.py", "")
    _write(tmp_path, "foresci/kb/__init__.py", "")
    _write(tmp_path, "foresci/kb/store.py", "from foresci.kb.segments import SCHEMA\n")
    _write(tmp_path, "foresci/kb/segments.py", "def merge():\n    from foresci.kb.store import open_it\n")
    _write(tmp_path, "foresci/kb/models.py", "from foresci.kb import store\n")
    assert import_cycles(tmp_path) == {("foresci.kb.segments", "foresci.kb.store")}
    _write(tmp_path, "foresci/kb/segments.py", "SCHEMA = ''\n")
    assert import_cycles(tmp_path) == set()
