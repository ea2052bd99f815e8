"""The response cache and capability records are keyed on the endpoint, never on its credentials."""

from __future__ import annotations

from pathlib import Path

from foresci.core.settings import Settings
from foresci.llm.client import LLMClient


def _key(tmp_path: Path, base_url: str) -> str:
    client = LLMClient(Settings(cache_dir=tmp_path, llm={"base_url": base_url, "model": "m"}), "agent")
    return client._cache_key("text", [{"role": "user", "content": "hi"}], None)


def test_cache_keys_follow_the_endpoint_not_its_credentials(tmp_path: Path) -> None:
    secret = "https://bob:SECRET@api.example.org/v1?api-key=CANARY"
    identity = Settings(llm={"base_url": secret}).llm.endpoint_identity or ""
    assert "SECRET" not in identity and "CANARY" not in identity and "api.example.org" in identity
    assert _key(tmp_path, secret) == _key(tmp_path, "https://eve:OTHER@api.example.org/v1?api-key=X")
    assert _key(tmp_path, secret) != _key(tmp_path, "https://api.elsewhere.org/v1")


def test_a_local_server_on_another_port_does_not_answer_from_the_cache(tmp_path: Path) -> None:
    """Issue #27: the same model name against a dead port was answered from the cache (0 calls)."""
    assert _key(tmp_path, "http://127.0.0.1:8000/v1") != _key(tmp_path, "http://127.0.0.1:8001/v1")
