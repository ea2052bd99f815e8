"""Import the docs site's reference generator (``docs/hooks``) the way the mkdocs hook does."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from tests.docs.blocks import DOCS_DIR

HOOKS_DIR = DOCS_DIR / "hooks"


def hook_module(name: str) -> ModuleType:
    """``docs/hooks/<name>.py`` as a module (its folder on ``sys.path``, as mkdocs puts it there)."""
    if str(HOOKS_DIR) not in sys.path:
        sys.path.insert(0, str(HOOKS_DIR))
    return importlib.import_module(name)


def settings_leaf_keys() -> set[str]:
    """Dotted keys of every leaf setting, read from ``Settings``' JSON schema (independently of the way
    the generator walks the pydantic fields)."""
    from foresci.core.settings import Settings

    schema = Settings.model_json_schema()

    def leaves(node: dict[str, Any], prefix: str) -> set[str]:
        found: set[str] = set()
        for name, prop in node.get("properties", {}).items():
            target = schema["$defs"][prop["$ref"].rsplit("/", 1)[1]] if "$ref" in prop else prop
            if target.get("type") == "object" and "properties" in target:
                found |= leaves(target, f"{prefix}{name}.")
            else:
                found.add(prefix + name)
        return found

    return leaves(schema, "")
