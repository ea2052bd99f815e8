"""Online harvesters against recorded responses (httpx.MockTransport): parsing, paging, rate limits."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from foresci.core.io import write_jsonl
from foresci.kb.ingest import ingest
from foresci.kb.online import (
    ArxivClient,
    OpenAlexClient,
    PoliteClient,
    RateLimiter,
    abstract_from_inverted_index,
    retry_after_seconds,
)

ATOM_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query</title>
  <entry>
    <id>http://arxiv.org/abs/2503.01234v2</id>
    <published>2025-03-03T17:59:01Z</published>
    <updated>2025-04-10T10:00:00Z</updated>
    <title>Graph-Structured Retrieval
      for Multi-Hop QA</title>
    <summary>  We structure a corpus as a graph.  </summary>
    <author><name>Ada Lovelace</name></author>
    <author><name>Alan Turing</name></author>
    <arxiv:comment>Accepted to SIGIR 2025</arxiv:comment>
    <arxiv:primary_category term="cs.IR"/>
    <category term="cs.CL"/>
    <category term="cs.IR"/>
  </entry>
  <entry>
    <id>http://arxiv.org/abs/2503.05678v1</id>
    <published>2025-03-07T09:00:00Z</published>
    <title>Second paper</title>
    <summary>Short.</summary>
    <author><name>Grace Hopper</name></author>
    <category term="cs.CL"/>
  </entry>
</feed>"""

OPENALEX_PAGE = {
    "meta": {"next_cursor": None},
    "results": [
        {
            "title": "Diffusion Distillation",
            "publication_date": "2025-02-11",
            "doi": "https://doi.org/10.48550/arxiv.2502.07777",
            "abstract_inverted_index": {"We": [0], "distil": [1], "diffusion": [2], "models": [3]},
            "authorships": [{"author": {"display_name": "Yann Example"}}],
            "locations": [],
        },
        {
            "title": "A journal paper",
            "publication_date": "2025-02-12",
            "doi": "https://doi.org/10.1000/xyz",
            "locations": [{"landing_page_url": "https://journal.example/1"}],
        },
        {
            "title": "Located on arXiv",
            "publication_date": "2025-02-13",
            "doi": None,
            "locations": [{"landing_page_url": "https://arxiv.org/abs/2502.08888v3"}],
        },
    ],
}


class FakeClock:
    """A clock that only moves when slept on."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def _polite(handler, clock: FakeClock, interval: float = 3.0) -> PoliteClient:
    return PoliteClient(
        min_interval=interval,
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        limiter=RateLimiter(interval, clock=clock, sleep=clock.sleep),
    )


def test_arxiv_feed_is_parsed_and_paged_with_the_rate_limit() -> None:
    clock = FakeClock()
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(
            200,
            text=ATOM_FEED
            if request.url.params["start"] == "0"
            else ATOM_FEED.split("<entry>")[0] + "</feed>",
        )

    papers = list(
        ArxivClient(_polite(handler, clock)).search('all:"graph retrieval"', max_results=10, page_size=2)
    )
    assert [paper.paper_id for paper in papers] == ["2503.01234", "2503.05678"]
    first = papers[0]
    assert first.title == "Graph-Structured Retrieval for Multi-Hop QA"
    assert first.announced == date(2025, 3, 3)
    assert first.categories == ["cs.IR", "cs.CL"]
    assert (first.venue_family, first.venue_year) == ("SIGIR/KDD", 2025)
    assert first.authors == ["Ada Lovelace", "Alan Turing"]
    assert [request.url.params["start"] for request in requests] == ["0", "2"]
    assert clock.sleeps == [3.0]  # the second request waited for the 3-second interval


def test_retry_after_is_honoured_on_429_and_503() -> None:
    clock = FakeClock()
    statuses = iter([(429, {"Retry-After": "7"}), (503, {}), (200, {})])

    def handler(request: httpx.Request) -> httpx.Response:
        status, headers = next(statuses)
        return httpx.Response(status, headers=headers, text=ATOM_FEED)

    client = _polite(handler, clock, interval=1.0)
    response = client.get("https://export.arxiv.org/api/query", {"search_query": "x"})
    assert response.status_code == 200
    assert clock.sleeps == [7.0, 2.0]  # Retry-After 7 s, then exponential back-off 2**1 s


def test_gives_up_after_max_retries() -> None:
    clock = FakeClock()
    client = _polite(lambda request: httpx.Response(429, headers={"Retry-After": "1"}), clock, interval=0.0)
    client.max_retries = 2
    with pytest.raises(httpx.HTTPStatusError):
        client.get("https://api.openalex.org/works", {})
    assert clock.sleeps == [1.0, 1.0]


def test_retry_after_http_date() -> None:
    now = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Sat, 01 Mar 2025 12:00:30 GMT", now=now) == 30.0
    assert retry_after_seconds("120") == 120.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


def test_openalex_keeps_arxiv_works_and_rebuilds_abstracts(tmp_path: Path) -> None:
    clock = FakeClock()
    seen: list[dict[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.url.params))
        return httpx.Response(200, json=OPENALEX_PAGE)

    client = OpenAlexClient(_polite(handler, clock, interval=0.2), mailto="team@example.org")
    papers = list(client.search("diffusion", since=date(2025, 2, 1), until=date(2025, 2, 28)))
    assert [paper.paper_id for paper in papers] == ["2502.07777", "2502.08888"]
    assert papers[0].abstract == "We distil diffusion models"
    assert papers[0].authors == ["Yann Example"]
    assert seen[0]["filter"] == "from_publication_date:2025-02-01,to_publication_date:2025-02-28"
    assert seen[0]["mailto"] == "team@example.org"
    # harvested papers round-trip through the KB's ingest
    write_jsonl(tmp_path / "harvest.jsonl", papers)
    result = ingest([tmp_path / "harvest.jsonl"], max_row_bytes=10_000)
    assert result.papers == sorted(papers, key=lambda paper: (paper.announced, paper.paper_id))
    assert not result.quarantined


def test_inverted_index() -> None:
    assert abstract_from_inverted_index({"b": [1, 3], "a": [0], "c": [2]}) == "a b c b"
    assert abstract_from_inverted_index(None) == ""
    assert json.dumps(OPENALEX_PAGE)  # the recorded page is plain JSON
