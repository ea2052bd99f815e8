"""Reuse of induced taxonomies: T(domain, cutoff) is saved under a fingerprint and loaded next time.

The fingerprint covers everything that shapes the taxonomy: the KB's fingerprint and folder, the domain, the
cutoff, the taxonomy and embedding settings, the declarative ``taxonomy/`` files and the induction
code itself. A folder is written under a temporary name and renamed into place, so a killed build
never leaves a half-written taxonomy to be reused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_json


def _source_digest(folder: Path, pattern: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob(pattern)):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def taxonomy_fingerprint(kb: Any, domain: str, cutoff: date, settings: Any) -> str | None:
    """The reuse key of T(domain, cutoff) over ``kb``; None when the KB has no fingerprint."""
    kb_fingerprint = getattr(kb, "fingerprint", None)
    if not kb_fingerprint:
        return None
    import foresci.taxonomy
    from foresci.core.resources import declarative_dir

    return sha256_json(
        {
            "kb": kb_fingerprint,
            "kb_path": str(Path(str(getattr(kb, "path", ""))).resolve()),
            "domain": domain,
            "cutoff": cutoff.isoformat(),
            "taxonomy_settings": settings.taxonomy.model_dump(mode="json"),
            "embed_model": settings.embed.model,
            "code": _source_digest(Path(foresci.taxonomy.__file__).parent, "*.py"),
            "declarative": _source_digest(declarative_dir("taxonomy"), "*.yaml"),
        }
    )


def reuse_folder(kb: Any, domain: str, cutoff: date, settings: Any) -> Path | None:
    """Where T(domain, cutoff) over ``kb`` is kept in the cache (None when it cannot be keyed)."""
    key = taxonomy_fingerprint(kb, domain, cutoff, settings)
    return Path(settings.cache_dir) / "taxonomies" / key[:32] if key else None


def publish(staging: Path, folder: Path) -> None:
    """Move a fully written ``staging`` folder to ``folder`` (a concurrent winner is kept)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staging, folder)
    except OSError:  # another process published the same key first: identical content
        shutil.rmtree(staging, ignore_errors=True)
