"""Which structured-output method an endpoint accepts, detected once per (endpoint, model) and kept.

No probe calls: the first real structured request tries the preferred method; a method the server
refuses as an invalid request is recorded as refused and the next one is tried, and the first method
accepted is recorded as the endpoint's. The record lives in the response cache folder, so a later run
(and a re-run) starts from it, and :func:`capability_record` puts it in the run manifest.
"""

from __future__ import annotations

import threading
from typing import Any

from foresci.core.artifacts import sha256_json
from foresci.llm.cache import ResponseCache
from foresci.llm.structured import METHOD_ORDER

_LOCK = threading.Lock()


def _key(base_url: str | None, model: str) -> str:
    return "capability:" + sha256_json({"base_url": base_url, "model": model})


class Capabilities:
    """The structured-output record of one (endpoint, model), shared by every client of it."""

    def __init__(self, cache: ResponseCache | None, base_url: str | None, model: str) -> None:
        self.cache = cache
        self.key = _key(base_url, model)
        self.model = model
        self.base_url = base_url
        self._memory: dict[str, Any] = {}
        self.detecting = threading.Lock()

    def record(self) -> dict[str, Any]:
        """``{"method": str | None, "refused": {method: reason}}`` as known now."""
        with _LOCK:
            if not self._memory and self.cache is not None:
                self._memory = dict(self.cache.get(self.key) or {})
            return {"method": self._memory.get("method"), "refused": dict(self._memory.get("refused", {}))}

    @property
    def known(self) -> bool:
        """True once a method has been accepted by the endpoint."""
        return self.record()["method"] is not None

    def order(self, setting: str) -> list[str]:
        """Methods to try, best first: a named setting, then the recorded working method, then the rest
        (``auto`` starts from the recorded one); refused ones left out."""
        record = self.record()
        preferred = [record["method"], *METHOD_ORDER] if record["method"] else list(METHOD_ORDER)
        if setting != "auto":
            preferred.insert(0, setting)
        return [method for method in dict.fromkeys(preferred) if method not in record["refused"]]

    def accepted(self, method: str) -> None:
        """Record that the endpoint answered a request made with ``method``."""
        self._update(method=method)

    def refused(self, method: str, reason: str) -> None:
        """Record that the endpoint refused ``method`` as an invalid request."""
        self._update(refused={method: reason[:300]})

    def _update(self, method: str | None = None, refused: dict[str, str] | None = None) -> None:
        current = self.record()
        with _LOCK:
            if method is not None:
                if current["method"] == method:
                    return
                current["method"] = method
            if refused:
                current["refused"].update(refused)
            self._memory = current
            if self.cache is not None:
                self.cache.put(self.key, self.model, current)


_SHARED: dict[tuple[str, str | None, str], Capabilities] = {}


def capabilities_for(cache: ResponseCache | None, base_url: str | None, model: str) -> Capabilities:
    """The process-wide Capabilities of (cache file, endpoint, model)."""
    token = (str(cache.path) if cache is not None else "", base_url, model)
    with _LOCK:
        if token not in _SHARED:
            _SHARED[token] = Capabilities(cache, base_url, model)
        return _SHARED[token]


def capability_record(cache: ResponseCache | None, base_url: str | None, models: list[str]) -> dict[str, Any]:
    """What is known of each model's endpoint (for the run manifest)."""
    return {model: capabilities_for(cache, base_url, model).record() for model in models}


def llm_capabilities(settings: Any, rows: list[Any]) -> dict[str, Any]:
    """The structured-output record of every model that answered ``rows`` (for the run manifest)."""
    from foresci.llm.cache import response_cache

    models = sorted({row.model for row in rows if getattr(row, "model", None)})
    if not models or not settings.llm.configured:
        return {}
    return capability_record(response_cache(settings.cache_dir), settings.llm.endpoint_identity, models)
