"""A shipped task family is a whole plug-in: its name appears in its own folder and nowhere else in foresci,
but for the one ordered list of shipped families (``BUILTIN_FAMILIES``) and the files of :data:`ALLOWED`,
each with why it still names one (tests and docs are outside ``foresci/`` and not scanned). What differs
by family is a hook of the family (``TaskFamily``: release checks and defect figures, round tasks and round
items, the signal benchmark's family, what a method answers by what families declare), so only a table
of another benchmark's family names is left."""

from __future__ import annotations

import re
from pathlib import Path

from foresci.tasks.families.lookup import BUILTIN_FAMILIES

REPO = Path(__file__).resolve().parents[2]
FAMILIES_DIR = "foresci/tasks/families"
TEXT_SUFFIXES = {".py", ".yaml", ".yml", ".json", ".md", ".html", ".txt", ".toml", ".j2", ".css", ".js"}
ORDERED_LIST = "foresci/tasks/families/lookup.py"
"""The one place that states the shipped families and their order (``BUILTIN_FAMILIES``)."""

ALLOWED: dict[str, str] = {
    # the arXiv-release importer maps another benchmark's family names onto ours: a table of names by nature
    # (its per-family target mappers write our families' hidden targets from ResearchForesight's fields)
    "foresci/tasks/rf_import.py": "maps ResearchForesight's family names onto the shipped ones",
    "foresci/tasks/rf_families.py": "ResearchForesight's per-family target mappers (an importer)",
}


def shipped_names() -> list[str]:
    """The shipped families' names, read from BUILTIN_FAMILIES (``foresci.tasks.families.<name>.family``)."""
    return [module.split(".")[-2] for module in BUILTIN_FAMILIES]


def offenders(root: Path = REPO) -> dict[str, list[str]]:
    """foresci file (relative path) -> the shipped family names it holds outside the family's own folder."""
    names = shipped_names()
    pattern = re.compile("|".join(names))
    found: dict[str, list[str]] = {}
    for path in sorted((root / "foresci").rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(root).as_posix()
        if relative == ORDERED_LIST:
            continue
        own = next((name for name in names if relative.startswith(f"{FAMILIES_DIR}/{name}/")), None)
        held = sorted({match for match in pattern.findall(path.read_text(encoding="utf-8")) if match != own})
        if held:
            found[relative] = held
    return found


def test_no_shipped_family_name_outside_its_folder_but_the_ordered_list_and_the_allowlist() -> None:
    found = offenders()
    unlisted = {path: names for path, names in found.items() if path not in ALLOWED}
    stale = sorted(path for path in ALLOWED if path not in found)
    report = "\n".join(f"  {path}: {', '.join(names)}" for path, names in sorted(found.items()))
    print(f"files naming a shipped family outside its folder ({len(found)}):\n{report}")
    assert not unlisted, f"a shipped family's name outside its folder: {unlisted}"
    assert not stale, f"allowlisted files that no longer name a shipped family (drop them): {stale}"


def test_the_name_check_finds_a_name_outside_its_folder_and_not_inside(tmp_path: Path) -> None:
    name = shipped_names()[0]
    (tmp_path / FAMILIES_DIR / name).mkdir(parents=True)
    (tmp_path / FAMILIES_DIR / name / "family.py").write_text(f"NAME = {name!r}\n", encoding="utf-8")
    (tmp_path / "foresci" / "other.py").write_text(f"if family == {name!r}: pass\n", encoding="utf-8")
    assert offenders(tmp_path) == {"foresci/other.py": [name]}
