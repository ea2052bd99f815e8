"""Online harvesters for the arXiv API and OpenAlex, behind a rate limit that honours Retry-After.

Harvested papers are written as foresci paper JSONL (one ``Paper`` per line), which ``kb build``
and ``kb update`` ingest like any other source. Nothing here runs in tests against the network:
tests serve recorded responses through ``httpx.MockTransport``.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from foresci.kb.formats import later_known
from foresci.kb.models import Paper
from foresci.kb.normalize import FieldError, clean_text, normalize_arxiv_id, venue_from_comment

ARXIV_API = "https://export.arxiv.org/api/query"
OPENALEX_API = "https://api.openalex.org/works"
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class RateLimiter:
    """At most one request per ``min_interval`` seconds (clock and sleep injectable for tests)."""

    def __init__(
        self,
        min_interval: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.min_interval = min_interval
        self.clock = clock
        self.sleep = sleep
        self._next_allowed = 0.0

    def wait(self) -> None:
        """Block until the next request is allowed."""
        now = self.clock()
        if now < self._next_allowed:
            self.sleep(self._next_allowed - now)
        self._next_allowed = max(now, self._next_allowed) + self.min_interval

    def defer(self, seconds: float) -> None:
        """Allow no request for ``seconds`` from now (a server's Retry-After)."""
        self._next_allowed = max(self._next_allowed, self.clock() + seconds)


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); None if absent/invalid."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class PoliteClient:
    """GET with a rate limit, retries on 429/5xx, and Retry-After honoured."""

    def __init__(
        self,
        min_interval: float,
        max_retries: int = 4,
        client: httpx.Client | None = None,
        limiter: RateLimiter | None = None,
        user_agent: str = "foresci (research foresight)",
    ) -> None:
        self.client = client or httpx.Client(timeout=30.0, headers={"User-Agent": user_agent})
        self.limiter = limiter or RateLimiter(min_interval)
        self.max_retries = max_retries

    def get(self, url: str, params: dict[str, Any]) -> httpx.Response:
        """The response of a successful GET; raises httpx.HTTPStatusError after the last retry."""
        for attempt in range(self.max_retries + 1):
            self.limiter.wait()
            response = self.client.get(url, params=params)
            if response.status_code not in RETRY_STATUSES or attempt == self.max_retries:
                response.raise_for_status()
                return response
            delay = retry_after_seconds(response.headers.get("Retry-After"))
            self.limiter.defer(delay if delay is not None else 2.0**attempt)
        raise AssertionError("unreachable")


def _entry_text(entry: ElementTree.Element, tag: str) -> str | None:
    found = entry.find(tag)
    return found.text if found is not None and found.text else None


def parse_arxiv_feed(xml_text: str) -> list[Paper]:
    """Papers of an arXiv API Atom feed; the v1 ``published`` date is the announcement date.

    The feed's comment belongs to the latest version, so it is dated by ``updated`` (``comment_date``).
    """
    root = ElementTree.fromstring(xml_text)
    papers = []
    for entry in root.iter(f"{_ATOM}entry"):
        raw_id = (_entry_text(entry, f"{_ATOM}id") or "").rsplit("/abs/", 1)[-1]
        published = _entry_text(entry, f"{_ATOM}published") or ""
        announced = date.fromisoformat(published[:10])
        comment = _entry_text(entry, f"{_ARXIV}comment")
        family, year = venue_from_comment(comment)
        updated = _entry_text(entry, f"{_ATOM}updated")
        # the comment is the latest version's: known from `updated` on (unknown date: dropped)
        comment_date = date.fromisoformat(updated[:10]) if updated else None
        if comment and comment_date is None:
            comment, family, year = None, None, None
        categories = [
            node.attrib["term"] for node in entry.findall(f"{_ATOM}category") if "term" in node.attrib
        ]
        primary = entry.find(f"{_ARXIV}primary_category")
        if primary is not None and primary.attrib.get("term") in categories:
            categories.remove(primary.attrib["term"])
            categories.insert(0, primary.attrib["term"])
        papers.append(
            Paper(
                paper_id=normalize_arxiv_id(raw_id),
                title=clean_text(_entry_text(entry, f"{_ATOM}title"), "title"),
                abstract=clean_text(_entry_text(entry, f"{_ATOM}summary"), "summary", required=False),
                authors=[
                    clean_text(_entry_text(author, f"{_ATOM}name"), "author")
                    for author in entry.findall(f"{_ATOM}author")
                ],
                categories=categories,
                comment=" ".join(comment.split()) if comment else None,
                announced=announced,
                venue_family=family,
                venue_year=year,
                comment_date=later_known(announced, comment_date) if comment else None,
                source="arxiv-api",
            )
        )
    return papers


class ArxivClient:
    """The arXiv API (Atom); arXiv asks for at most one request every 3 seconds."""

    def __init__(self, http: PoliteClient | None = None, base_url: str = ARXIV_API) -> None:
        self.http = http or PoliteClient(min_interval=3.0)
        self.base_url = base_url

    def search(self, query: str, max_results: int = 200, page_size: int = 100) -> Iterator[Paper]:
        """Papers matching an arXiv search query (e.g. 'all:"retrieval augmented"'), newest first."""
        start = 0
        while start < max_results:
            size = min(page_size, max_results - start)
            response = self.http.get(
                self.base_url,
                {
                    "search_query": query,
                    "start": start,
                    "max_results": size,
                    "sortBy": "submittedDate",
                    "sortOrder": "descending",
                },
            )
            papers = parse_arxiv_feed(response.text)
            yield from papers
            if len(papers) < size:
                return
            start += size


def abstract_from_inverted_index(index: dict[str, list[int]] | None) -> str:
    """Rebuild an abstract from OpenAlex's ``abstract_inverted_index``."""
    if not index:
        return ""
    positions = sorted((position, word) for word, places in index.items() for position in places)
    return " ".join(word for _, word in positions)


def arxiv_id_of_work(work: dict[str, Any]) -> str | None:
    """The arXiv id of an OpenAlex work (from its DOI or an arxiv.org location), if it has one."""
    candidates = [str(work.get("doi") or "")]
    for location in work.get("locations") or []:
        if isinstance(location, dict):
            candidates += [str(location.get("landing_page_url") or ""), str(location.get("pdf_url") or "")]
    for candidate in candidates:
        lowered = candidate.lower()
        for marker in ("10.48550/arxiv.", "arxiv.org/abs/", "arxiv.org/pdf/"):
            if marker in lowered:
                try:
                    return normalize_arxiv_id(candidate[lowered.index(marker) + len(marker) :])
                except FieldError:
                    continue
    return None


def paper_from_openalex(work: dict[str, Any]) -> Paper | None:
    """A Paper from an OpenAlex work with an arXiv id (None for works outside arXiv)."""
    paper_id = arxiv_id_of_work(work)
    if paper_id is None or not work.get("title") or not work.get("publication_date"):
        return None
    authors = [
        str(item["author"]["display_name"])
        for item in work.get("authorships") or []
        if isinstance(item, dict)
        and isinstance(item.get("author"), dict)
        and item["author"].get("display_name")
    ]
    return Paper(
        paper_id=paper_id,
        title=clean_text(work["title"], "title"),
        abstract=clean_text(
            abstract_from_inverted_index(work.get("abstract_inverted_index")), "abstract", required=False
        ),
        authors=authors,
        announced=date.fromisoformat(str(work["publication_date"])[:10]),
        source="openalex",
    )


class OpenAlexClient:
    """OpenAlex works search with cursor paging (polite pool: pass a mailto address)."""

    def __init__(
        self, http: PoliteClient | None = None, base_url: str = OPENALEX_API, mailto: str | None = None
    ) -> None:
        self.http = http or PoliteClient(min_interval=0.2)
        self.base_url = base_url
        self.mailto = mailto

    def search(
        self,
        query: str,
        since: date | None = None,
        until: date | None = None,
        max_results: int = 200,
        per_page: int = 100,
    ) -> Iterator[Paper]:
        """arXiv papers among the works matching ``query`` published in [since, until]."""
        filters = []
        if since:
            filters.append(f"from_publication_date:{since.isoformat()}")
        if until:
            filters.append(f"to_publication_date:{until.isoformat()}")
        cursor: str | None = "*"
        seen = 0
        while cursor and seen < max_results:
            params: dict[str, Any] = {"search": query, "per-page": per_page, "cursor": cursor}
            if filters:
                params["filter"] = ",".join(filters)
            if self.mailto:
                params["mailto"] = self.mailto
            payload = self.http.get(self.base_url, params).json()
            results = payload.get("results") or []
            for work in results:
                seen += 1
                paper = paper_from_openalex(work)
                if paper is not None:
                    yield paper
                if seen >= max_results:
                    return
            cursor = (payload.get("meta") or {}).get("next_cursor") if results else None
