"""The layers of foresci, lowest first, and an AST reader that finds every import that goes up.

A module may import its own layer's package and any lower layer. Packages that share a layer are
independent of each other (``evaluation`` never imports ``agents``, nor ``agents`` ``evaluation``). Every
import counts: module level, inside functions, under ``TYPE_CHECKING``, and
``importlib.import_module("literal")``. Two rules place a module by what it is, not where it lives:

- ``foresci.<package>.config`` (a settings section: plain pydantic fields) is foundation, so the one
  ``Settings`` can hold every section; such a module may import foundation only.
- a ``cli`` module (``foresci/cli.py``, ``foresci/kb/cli.py``, ...) is application.

On top of the order, :data:`NEVER` keeps the cutoff discipline: ``agents`` and ``methods`` (what answers
tasks) never import hidden targets or the scoring, although ``evaluation`` is not above them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# (layer name, its blocks), lowest first. A block is packages/modules that may import each other; the
# blocks of one layer stay independent of each other.
LAYERS: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("foundation", (("foresci", "foresci.core"),)),
    ("llm and embedding", (("foresci.llm",), ("foresci.embedders",))),
    ("kb", (("foresci.kb",),)),
    ("taxonomy and sim", (("foresci.taxonomy",), ("foresci.sim",))),
    ("emergence", (("foresci.emergence",),)),
    ("tasks", (("foresci.tasks", "foresci.contracts"),)),
    ("evaluation and agents", (("foresci.evaluation",), ("foresci.agents",))),
    ("methods", (("foresci.methods",),)),
    ("engines and bridges", (("foresci.engines",), ("foresci.bridges",))),
    ("rounds", (("foresci.rounds",),)),
    ("app", (("foresci.app", "foresci.__main__", "foresci.cli"),)),
)
# the cutoff discipline: what answers tasks never imports hidden targets or the scoring
NEVER: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("foresci.agents", "foresci.methods"), ("foresci.tasks.hidden", "foresci.tasks.hidden_io",
                                             "foresci.evaluation")),
    # the inspect bridge's public side: what builds samples, tools and answer rows
    (("foresci.bridges.inspect_ai.dataset", "foresci.bridges.inspect_ai.tools",
      "foresci.bridges.inspect_ai.answers", "foresci.bridges.inspect_ai.questions"),
     ("foresci.tasks.hidden", "foresci.tasks.hidden_io", "foresci.evaluation")),
)
SETTINGS_SECTION = "config"
APP_MODULE = "cli"


@dataclass(frozen=True)
class Place:
    """Where a module sits: its layer's index and name, and its block within the layer."""

    index: int
    layer: str
    block: int


@dataclass(frozen=True)
class Violation:
    """One import that breaks the layering."""

    path: str
    line: int
    importer: str
    imported: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.importer} imports {self.imported}: {self.why}"


def place(module: str) -> Place | None:
    """The layer of ``module`` (None: in no layer)."""
    parts = module.split(".")
    if parts[-1] == APP_MODULE:
        return Place(len(LAYERS) - 1, LAYERS[-1][0], 0)
    if len(parts) == 3 and parts[0] == "foresci" and parts[2] == SETTINGS_SECTION:
        return Place(0, LAYERS[0][0], 0)
    best: tuple[int, int, int] | None = None  # (prefix length, layer, block): the longest prefix wins
    for index, (_, blocks) in enumerate(LAYERS):
        for block_index, block in enumerate(blocks):
            for member in block:
                root_only = member == "foresci"  # the package itself, not everything under it
                matches = module == member or (not root_only and module.startswith(member + "."))
                if matches and (best is None or len(member) > best[0]):
                    best = (len(member), index, block_index)
    if best is None:
        return None
    return Place(best[1], LAYERS[best[1]][0], best[2])


def module_name(root: Path, path: Path) -> str:
    """The dotted name of ``path`` under ``root`` (the folder holding the ``foresci`` package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def imports_of(root: Path, path: Path) -> Iterator[tuple[int, str]]:
    """``(line, imported module)`` for every import in ``path``: any depth, any branch; ``from X import
    name`` counts as ``X.name`` when that is a module of the tree, else as ``X``."""
    importer = module_name(root, path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(importer, is_package, node.level, node.module)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                as_path = root / Path(*candidate.split("."))
                is_module = as_path.with_suffix(".py").is_file() or (as_path / "__init__.py").is_file()
                yield node.lineno, candidate if is_module else base
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield node.lineno, first.value


def _is_import_module(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return isinstance(func, ast.Name) and func.id == "import_module"


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


SECTION_OK = ("foresci.evaluation.config",)  # a settings section, loaded with foresci.core.settings


def violations(root: Path, package: str = "foresci") -> list[Violation]:
    """Every upward or sideways import in ``root/package``, and every module that is in no layer."""
    found: list[Violation] = []
    for path in sorted((root / package).rglob("*.py")):
        importer = module_name(root, path)
        shown = str(path.relative_to(root))
        source = place(importer)
        if source is None:
            found.append(Violation(shown, 1, importer, "-", "this module is in no layer (add it to LAYERS)"))
            continue
        for line, imported in imports_of(root, path):
            if imported != package and not imported.startswith(package + "."):
                continue
            target = place(imported)
            never = [banned for importers, banned in NEVER if _under(importer, importers)]
            if any(_under(imported, banned) for banned in never) and not _under(imported, SECTION_OK):
                found.append(Violation(shown, line, importer, imported,
                                       "never: what answers tasks does not import hidden targets or scoring"))
            elif target is None:
                found.append(Violation(shown, line, importer, imported, "the imported module is in no layer"))
            elif target.index > source.index:
                why = f"upward: layer '{source.layer}' may not import layer '{target.layer}'"
                found.append(Violation(shown, line, importer, imported, why))
            elif target.index == source.index and target.block != source.block:
                found.append(Violation(shown, line, importer, imported,
                                       f"sideways: the blocks of layer '{source.layer}' stay independent"))
    return list(dict.fromkeys(found))


# Function-level import cycles still present (each a strongly connected set of modules): none since wave 4's
# structure work. The cycle test fails on any cycle not listed here (and on a listed one gone), so a new cycle
# must be broken, not listed.
KNOWN_CYCLES: frozenset[tuple[str, ...]] = frozenset()


def import_graph(root: Path, package: str = "foresci") -> dict[str, set[str]]:
    """Module -> the modules of ``root/package`` it imports (every import counts, as for the layers; an
    imported name that is not a module counts as the module that defines it)."""
    paths = sorted((root / package).rglob("*.py"))
    modules = {module_name(root, path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        importer = module_name(root, path)
        targets = graph.setdefault(importer, set())
        for _, imported in imports_of(root, path):
            while imported not in modules and "." in imported:
                imported = imported.rsplit(".", 1)[0]
            if imported in modules and imported != importer:
                targets.add(imported)
    return graph


def import_cycles(root: Path, package: str = "foresci") -> set[tuple[str, ...]]:
    """The import cycles of ``root/package``: every strongly connected set of two or more modules, sorted
    (Tarjan's algorithm, iterative)."""
    graph = import_graph(root, package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: set[tuple[str, ...]] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.add(tuple(sorted(component)))
    return cycles
