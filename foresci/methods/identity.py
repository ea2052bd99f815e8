"""A method's version, recorded on every row it answers and in the run fingerprint.

- a plug-in: the ``version`` it declares (``@method("x", version="1.2")`` or a class attribute), else a
  hash of its source (the module file it is loaded from, or every ``.py`` file of its package);
- an HTTP agent: what its optional ``GET <url>/info`` says (``{"version": ...}``), else its URL without
  credentials (:func:`foresci.core.redact.mask_url`);
- a shipped method: foresci's version and a hash of the prompt files.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from typing import Any

SOURCE_PREFIX = "src:"
INFO_TIMEOUT_S = 2.0
INFO_MAX_BYTES = 64 * 1024


def source_files(module: str) -> list[Path]:
    """The source files of ``module``'s top-level module: its package's ``.py`` files, or its one file."""
    top = module.split(".", 1)[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        return []
    folders = [Path(folder) for folder in spec.submodule_search_locations or ()]
    if folders:
        return sorted(path for folder in folders for path in folder.rglob("*.py")
                      if "__pycache__" not in path.parts)
    return [Path(spec.origin)] if spec.origin and Path(spec.origin).is_file() else []


def source_version(module: str) -> str:
    """``src:`` and 12 hex digits of the hash of ``module``'s source files (names and contents)."""
    digest = hashlib.sha256()
    files = source_files(module)
    base = files[0].parent if files else Path(".")
    for path in files:
        name = path.relative_to(base) if base in path.parents or path.parent == base else path.name
        digest.update(str(name).encode() + b"\0" + path.read_bytes() + b"\0")
    return SOURCE_PREFIX + digest.hexdigest()[:12]


def plugin_version(declared: Any, reference: str) -> str:
    """A plug-in's declared version, else the hash of the source of ``reference``'s module."""
    if declared:
        return str(declared)
    return source_version(reference.partition(":")[0])


def http_version(url: str) -> str:
    """What the agent's ``GET /info`` says (its ``version``, else the whole reply), else its public URL."""
    import httpx

    from foresci.llm.bounded_http import bounded_client

    info_url = url.rstrip("/") + "/info"
    try:  # bounded in time and size: a costly agent must not stall or bloat the run before it starts
        with bounded_client(INFO_TIMEOUT_S, INFO_MAX_BYTES, INFO_TIMEOUT_S) as client:
            response = client.get(info_url, headers={"user-agent": "foresci"})
            info = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, OSError):
        info = None
    if isinstance(info, dict) and info.get("version") is not None:
        return str(info["version"])[:200]
    if isinstance(info, dict) and info:
        import json

        return "info:" + hashlib.sha256(json.dumps(info, sort_keys=True).encode()).hexdigest()[:12]
    from foresci.core.redact import mask_url

    return mask_url(url)


def shipped_version() -> str:
    """foresci's version and a hash of the agents' prompt files and the shipped families' prompt texts."""
    from foresci import __version__
    from foresci.agents.prompts import shipped_family_prompt_files
    from foresci.core.artifacts import sha256_file
    from foresci.core.resources import declarative_dir

    digest = hashlib.sha256()
    for path in sorted(Path(declarative_dir("agents")).glob("*.yaml")):
        digest.update(path.name.encode() + sha256_file(path).encode())
    for path in shipped_family_prompt_files():
        digest.update(f"{path.parent.name}/{path.name}".encode() + sha256_file(path).encode())
    return f"foresci {__version__} prompts {digest.hexdigest()[:8]}"
