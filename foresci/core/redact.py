"""Mask credentials in URLs before anything is written: ``mask_url`` and ``mask_urls_in``.

A URL may carry a secret in its userinfo (``https://user:pass@host``) or in its query string or
fragment (``?api-key=...``, ``#access_token=...``). Every file foresci writes through
:mod:`foresci.core.io` (manifests, answer and error rows, scores) and every error line the CLI prints goes
through :func:`mask_urls_in`, so an endpoint set in ``FORESCI_LLM__BASE_URL`` never leaks verbatim.
"""

from __future__ import annotations

import re

MASK = "***"
_SECRET_NAME = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|credential|session|cookie|bearer", re.IGNORECASE
)
# a URL inside any text (JSON-encoded text included: it stops at quotes and backslashes)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s\"'<>\\`]+")


def _mask_pairs(text: str) -> str:
    parts = []
    for pair in text.split("&"):
        name, equals, _value = pair.partition("=")
        parts.append(f"{name}={MASK}" if equals and _SECRET_NAME.search(name) else pair)
    return "&".join(parts)


def mask_url(url: str) -> str:
    """``url`` with its userinfo and secret-looking query/fragment values replaced by ``***``.

    >>> mask_url("https://bob:pw@host/v1?api-key=s3cret&x=1")
    'https://***@host/v1?api-key=***&x=1'
    """
    scheme, separator, rest = url.partition("://")
    if not separator:
        return url
    authority_end = len(rest)
    for mark in "/?#":
        position = rest.find(mark)
        if position != -1:
            authority_end = min(authority_end, position)
    authority, tail = rest[:authority_end], rest[authority_end:]
    if "@" in authority:
        authority = f"{MASK}@{authority.rsplit('@', 1)[1]}"
    path, hash_mark, fragment = tail.partition("#")
    path, question, query = path.partition("?")
    if question:
        query = _mask_pairs(query)
    if hash_mark:
        fragment = _mask_pairs(fragment)
    return f"{scheme}://{authority}{path}{question}{query}{hash_mark}{fragment}"


def mask_urls_in(text: str) -> str:
    """``text`` with every URL in it masked by :func:`mask_url` (unchanged when it holds none)."""
    if "://" not in text:
        return text
    return _URL.sub(lambda match: mask_url(match.group(0)), text)
