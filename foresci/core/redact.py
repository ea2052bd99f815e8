"""Mask credentials in URLs before anything is written: ``mask_url`` and ``mask_urls_in``.

A URL may carry a secret in its userinfo (``https://user:pass@host``) or in its query string or
fragment (``?api-key=...``, ``#access_token=...``), and a server may echo such a query back without the
scheme (``/v1/chat?api-key=...`` in an error body). Every file foresci writes through
:mod:`foresci.core.io` (manifests, answer and error rows, scores) and every error line the CLI prints goes
through :func:`mask_urls_in`, so an endpoint set in ``FORESCI_LLM__BASE_URL`` never leaks verbatim.
"""

from __future__ import annotations

import re

MASK = "***"
_SECRET_NAME = re.compile(
    r"key|token|secret|passw|pwd|auth|sig|credential|session|cookie|bearer", re.IGNORECASE
)
# a URL inside any text (JSON-encoded text included: it stops at quotes and backslashes). Found from
# each "://" outwards (scheme backwards, body forwards), so the cost is linear in the text: a regex
# search starting at every letter of a long word rescanned the word from each start (quadratic). Each
# letter is read at most twice: the backward scan stops at the previous "://", and the forward scan for
# a body runs only from a "://" with a scheme, after which the scan resumes past the URL it found
# (benchmarks/redact.py measures it).
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
_URL_BODY_END = re.compile(r"[\s\"'<>\\`]")


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


# a secret-looking query pair outside a full URL: a server's error body echoing "/v1/chat?api-key=..."
_LOOSE_PAIR = re.compile(r"([?&#;])([A-Za-z0-9_.\-]{1,64})=([^\s&#;\"'<>\\`]+)")


def _mask_loose_pairs(text: str) -> str:
    if "=" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        mark, name, value = match.groups()
        return f"{mark}{name}={MASK}" if _SECRET_NAME.search(name) and value != MASK else match.group(0)

    return _LOOSE_PAIR.sub(replace, text)


def mask_urls_in(text: str) -> str:
    """``text`` with every URL in it masked by :func:`mask_url`, and secret-looking query pairs
    (``?api-key=...``, ``&token=...``) masked where they stand without a scheme (a path echoed back in
    an error body); unchanged when it holds neither."""
    text = _mask_loose_pairs(text)
    if "://" not in text:
        return text
    pieces: list[str] = []
    copied = 0  # text[:copied] is already in pieces
    search_from = 0
    while (separator := text.find("://", search_from)) != -1:
        start = separator
        while start > copied and text[start - 1] in _SCHEME_CHARS:
            start -= 1
        while start < separator and not text[start].isalpha():
            start += 1  # a scheme starts with a letter (the scheme characters are ASCII)
        if start == separator:  # no scheme: skipped before the body is looked for, so a text of
            search_from = separator + 3  # repeated "://" is not rescanned to its end from each one
            continue
        body_end = _URL_BODY_END.search(text, separator + 3)
        end = body_end.start() if body_end else len(text)
        if end == separator + 3:
            search_from = separator + 3
            continue
        pieces.append(text[copied:start])
        pieces.append(mask_url(text[start:end]))
        copied = search_from = end
    pieces.append(text[copied:])
    return "".join(pieces)
