"""The arXiv client against the fake arXiv, through real httpx over 127.0.0.1.

Most tests share a virtual clock between client and server: the client's waits advance it
instantly, and the server stamps arrivals with it, so spacing is checked exactly and fast.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from itertools import pairwise

import pytest

from bot.arxiv import (
    ArxivClient,
    ArxivUnavailable,
    listing_url,
    retry_after_seconds,
    submitted_query,
)
from tests.fakes.arxiv_docs import BASE_DAY, api_error_feed, paper
from tests.fakes.arxiv_server import FakeArxiv, VirtualClock

DAY_ONE = submitted_query(["cs.LG"], BASE_DAY, BASE_DAY + timedelta(hours=23, minutes=59))


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
async def arxiv(clock: VirtualClock):
    papers = [paper(n) for n in range(1, 31)]
    async with FakeArxiv(papers, listing=papers[:3], clock=clock) as server:
        yield server


def client_for(server: FakeArxiv, clock=None, **options) -> ArxivClient:
    settings = {"min_interval": 3.0, "timeout": 2.0, "max_retries": 3, "backoff_base": 2.0}
    if clock is not None:
        settings |= {"clock": clock, "sleep": clock.sleep}
    return ArxivClient(api_url=server.api_url, rss_url=server.rss_url, **settings | options)


def gaps(server: FakeArxiv) -> list[float]:
    return [later.arrived - earlier.arrived for earlier, later in pairwise(server.requests)]


async def test_requests_are_spaced_and_one_at_a_time_across_listing_and_api(arxiv, clock):
    async with client_for(arxiv, clock) as client:
        calls = [client.fetch_listing(["cs.LG"]) for _ in range(3)]
        calls += [client.query(DAY_ONE, start=n * 10, max_results=10) for n in range(3)]
        await asyncio.gather(*calls)

    assert {r.path for r in arxiv.requests} == {"/rss/cs.LG", "/api/query"}
    assert len(arxiv.requests) == 6
    assert min(gaps(arxiv)) >= 3.0
    assert arxiv.max_in_flight == 1


async def test_spacing_holds_in_real_time():
    async with FakeArxiv([paper(1)]) as server, client_for(server, min_interval=0.05) as client:
        began = time.monotonic()
        await asyncio.gather(*(client.query(DAY_ONE, start=0, max_results=5) for _ in range(4)))

    assert server.requests[-1].arrived - began >= 3 * 0.05
    assert server.max_in_flight == 1


async def test_429_with_retry_after_seconds_is_honoured(arxiv, clock):
    arxiv.fail("429", retry_after="30")

    async with client_for(arxiv, clock, min_interval=1.0) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert len(page.records) == 5
    assert [r.failure for r in arxiv.requests] == ["429", ""]
    assert gaps(arxiv)[0] >= 30.0


async def test_429_with_retry_after_http_date_is_honoured(arxiv, clock):
    later = datetime.now(UTC) + timedelta(seconds=45)
    arxiv.fail("429", retry_after=format_datetime(later, usegmt=True))

    async with client_for(arxiv, clock, min_interval=1.0) as client:
        await client.query(DAY_ONE, start=0, max_results=5)

    assert gaps(arxiv)[0] >= 43.0


async def test_retry_after_beyond_ten_minutes_fails_at_once_instead_of_stalling(arxiv, clock):
    arxiv.fail("429", retry_after="3600")

    async with client_for(arxiv, clock) as client:
        with pytest.raises(ArxivUnavailable, match="asks to wait 3600 s"):
            await client.query(DAY_ONE, start=0, max_results=5)

    assert len(arxiv.requests) == 1


async def test_503_is_retried_with_growing_backoff_then_succeeds(arxiv, clock):
    arxiv.fail("503", times=2)

    async with client_for(arxiv, clock, min_interval=0.5) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert [r.failure for r in arxiv.requests] == ["503", "503", ""]
    assert len(page.records) == 5
    first, second = gaps(arxiv)
    assert 1.0 <= first <= 2.0 <= second <= 4.0


async def test_dropped_connection_is_retried(arxiv, clock):
    arxiv.fail("drop")

    async with client_for(arxiv, clock) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert [r.failure for r in arxiv.requests] == ["drop", ""]
    assert len(page.records) == 5


async def test_timeout_is_retried(arxiv, clock):
    arxiv.fail("hang", delay=10.0)

    async with client_for(arxiv, clock, timeout=0.2) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert [r.failure for r in arxiv.requests] == ["hang", ""]
    assert len(page.records) == 5


async def test_document_cut_short_is_fetched_again(arxiv, clock):
    arxiv.fail("truncated")

    async with client_for(arxiv, clock) as client:
        page = await client.query(DAY_ONE, start=0, max_results=10)

    assert [r.failure for r in arxiv.requests] == ["truncated", ""]
    assert [r.arxiv_id for r in page.records] == [f"2605.{n:05d}" for n in range(1, 11)]
    assert not page.skipped


async def test_retries_exhausted_is_arxiv_unavailable_with_the_last_status(arxiv, clock):
    arxiv.fail("503", times=None)

    async with client_for(arxiv, clock, max_retries=2) as client:
        with pytest.raises(ArxivUnavailable) as raised:
            await client.fetch_listing(["cs.LG", "cs.AI"])

    assert str(raised.value) == "no answer for the listing cs.LG+cs.AI after 3 attempts (HTTP 503)"
    assert len(arxiv.requests) == 3


async def test_refusal_is_not_retried_and_carries_arxivs_message(arxiv, clock):
    error = api_error_feed("malformed search query: cat:cs.LG AND (")
    arxiv.fail("status", status=400, body=error)

    async with client_for(arxiv, clock) as client:
        with pytest.raises(ArxivUnavailable, match=r"HTTP 400.*malformed search query"):
            await client.query(DAY_ONE, start=0, max_results=5)

    assert len(arxiv.requests) == 1


async def test_spurious_empty_page_is_asked_for_again(arxiv, clock):
    arxiv.fail("empty", times=2)

    async with client_for(arxiv, clock, empty_page_retries=3) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert [r.failure for r in arxiv.requests] == ["empty", "empty", ""]
    assert len(page.records) == 5


async def test_empty_page_is_accepted_once_its_retries_are_spent(arxiv, clock):
    arxiv.fail("empty", times=None)

    async with client_for(arxiv, clock, empty_page_retries=2) as client:
        page = await client.query(DAY_ONE, start=0, max_results=5)

    assert len(arxiv.requests) == 3
    assert (page.records, page.total_results) == ([], 30)


async def test_page_beyond_the_total_is_not_retried(arxiv, clock):
    async with client_for(arxiv, clock) as client:
        page = await client.query(DAY_ONE, start=30, max_results=5)

    assert (page.records, len(arxiv.requests)) == ([], 1)


async def test_paging_over_two_day_windows_returns_every_paper_once(clock):
    day_two = BASE_DAY + timedelta(days=1)
    wanted = [paper(n, published=BASE_DAY + timedelta(minutes=30 * n)) for n in range(1, 24)]
    wanted += [paper(n, published=day_two + timedelta(minutes=30 * n)) for n in range(30, 48)]
    other = [paper(n, categories=["math.AG"]) for n in range(90, 95)]
    windows = [(BASE_DAY, day_two - timedelta(minutes=1)), (day_two, day_two + timedelta(days=1))]

    seen: list[str] = []
    async with (
        FakeArxiv(wanted + other, clock=clock) as server,
        client_for(server, clock) as client,
    ):
        for start, end in windows:
            query = submitted_query(["cs.AI", "cs.LG"], start, end)
            offset, total = 0, None
            while total is None or offset < total:
                page = await client.query(query, start=offset, max_results=10)
                seen += [r.arxiv_id for r in page.records]
                offset, total = offset + page.read, page.total_results

    assert sorted(seen) == sorted(p["id"] for p in wanted)
    assert len(seen) == len(set(seen))
    assert [(r.window[0][:8], r.start) for r in server.requests] == [
        ("20260504", 0), ("20260504", 10), ("20260504", 20),
        ("20260505", 0), ("20260505", 10),
    ]  # fmt: skip


async def test_more_than_2000_results_per_page_is_refused_before_asking(arxiv, clock):
    async with client_for(arxiv, clock) as client:
        with pytest.raises(ValueError, match="max_results"):
            await client.query(DAY_ONE, start=0, max_results=2001)

    assert arxiv.requests == []


async def test_atom_listing_is_fetched_from_the_atom_path(arxiv, clock):
    async with client_for(arxiv, clock) as client:
        feed = await client.fetch_listing(["cs.LG", "cs.AI"], fmt="atom")

    assert arxiv.requests[0].path == "/atom/cs.LG+cs.AI"
    assert (feed.kind, len(feed.records)) == ("atom-listing", 3)


def test_submitted_query_ors_the_categories_within_the_window() -> None:
    start = datetime(2026, 5, 4, 0, 0, tzinfo=UTC)
    end = datetime(2026, 5, 4, 23, 59, tzinfo=UTC)

    assert submitted_query(["cs.AI", "cs.LG"], start, end) == (
        "(cat:cs.AI OR cat:cs.LG) AND submittedDate:[202605040000 TO 202605042359]"
    )
    assert submitted_query(["cs.LG"], start, end) == (
        "cat:cs.LG AND submittedDate:[202605040000 TO 202605042359]"
    )


@pytest.mark.parametrize(
    ("base", "fmt", "url"),
    [
        ("https://rss.arxiv.org/rss", "rss", "https://rss.arxiv.org/rss/cs.LG+cs.AI"),
        ("https://rss.arxiv.org/rss/", "atom", "https://rss.arxiv.org/atom/cs.LG+cs.AI"),
        ("http://127.0.0.1:8080", "rss", "http://127.0.0.1:8080/rss/cs.LG+cs.AI"),
    ],
)
def test_listing_url(base: str, fmt: str, url: str) -> None:
    assert listing_url(base, ["cs.LG", "cs.AI"], fmt) == url


@pytest.mark.parametrize(
    ("header", "seconds"),
    [("120", 120.0), ("  7 ", 7.0), ("Mon, 04 May 2026 12:01:30 GMT", 90.0), ("soon", None)],
)
def test_retry_after_header_forms(header: str, seconds: float | None) -> None:
    now = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)

    assert retry_after_seconds(header, now=now) == seconds
