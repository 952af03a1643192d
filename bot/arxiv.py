"""The polite arXiv client: the daily listings and the query API, through one gate.

arXiv asks for one request every 3 seconds and one connection at a time across the API and
the listings together, so every request of a client passes the same limiter. Failures that
may pass (429, 5xx, timeouts, dropped connections, a document cut short) are retried with
exponential backoff and jitter, honouring Retry-After; anything else fails at once.

Errors: `ArxivUnavailable` (retries exhausted, or arXiv refused the request). Documents that
cannot be read at all surface as `ArxivUnavailable` too, after their retries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import quote_plus

import httpx

from bot.tls import shared_tls_context
from digests.papers.feeds import ArxivApiError, FeedError, ParsedFeed, parse_api_atom, parse_listing
from digests.retry import backoff_delay
from digests.usecases.ingest import SourceUnavailable

API_PAGE_LIMIT = 2000
# Ids per `id_list` request: a URL of about 1.2 kB, well inside what servers accept.
ID_LIST_BATCH = 100
# A longer Retry-After fails the call at once: waiting that long would stall the bot.
MAX_RETRY_AFTER = 600.0
MAX_BACKOFF = 120.0
DEFAULT_USER_AGENT = "digestbot/0.1 (+mailto:digestbot@example.invalid)"

_RETRYABLE_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


class ArxivUnavailable(SourceUnavailable):
    """arXiv could not be used: retries exhausted or a request refused. One-line message."""


def submitted_query(categories: Sequence[str], start: datetime, end: datetime) -> str:
    """An API `search_query` for papers in any of `categories` submitted in [start, end]."""
    if not categories:
        raise ValueError("at least one category is needed")
    terms = " OR ".join(f"cat:{category}" for category in categories)
    if len(categories) > 1:
        terms = f"({terms})"
    return f"{terms} AND submittedDate:[{_minute(start)} TO {_minute(end)}]"


def _minute(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y%m%d%H%M")


def listing_url(rss_url: str, categories: Sequence[str], fmt: str = "rss") -> str:
    """`{rss_url}/cs.LG+cs.AI`; for Atom, a trailing `/rss` of the base becomes `/atom`."""
    if fmt not in ("rss", "atom"):
        raise ValueError(f"listing format must be 'rss' or 'atom', not {fmt!r}")
    if not categories:
        raise ValueError("at least one category is needed")
    base = rss_url.rstrip("/")
    head, _, last = base.rpartition("/")
    service = head if last in ("rss", "atom") else base
    return f"{service}/{fmt}/{'+'.join(categories)}"


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


class ArxivClient:
    """Fetches listings and API pages from arXiv, politely. Use as an async context manager."""

    def __init__(
        self,
        *,
        api_url: str,
        rss_url: str,
        min_interval: float = 3.0,
        timeout: float = 30.0,
        max_retries: int = 5,
        empty_page_retries: int = 3,
        backoff_base: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        user_agent: str = DEFAULT_USER_AGENT,
    ) -> None:
        self.api_url = api_url
        self.rss_url = rss_url
        self.min_interval = min_interval
        self.max_retries = max_retries
        self.empty_page_retries = empty_page_retries
        self.backoff_base = backoff_base
        self._clock = clock
        self._sleep = sleep
        self._http = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            headers={"User-Agent": user_agent},
            follow_redirects=True,
            verify=shared_tls_context(),
        )
        self._gate = asyncio.Lock()
        self._not_before = float("-inf")

    async def __aenter__(self) -> ArxivClient:
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- public calls ----------------------------------------------------------------------

    async def fetch_listing(self, categories: Sequence[str], *, fmt: str = "rss") -> ParsedFeed:
        """Today's announcements for `categories` (an empty listing on days without any)."""
        url = listing_url(self.rss_url, categories, fmt)
        return await self._fetch(url, parse_listing, what=f"listing {'+'.join(categories)}")

    async def query(
        self,
        search_query: str,
        *,
        start: int,
        max_results: int,
        sort_by: str = "submittedDate",
        sort_order: str = "ascending",
    ) -> ParsedFeed:
        """One page of API results; a spuriously empty page is asked for again."""
        if not 1 <= max_results <= API_PAGE_LIMIT:
            raise ValueError(f"max_results must be 1..{API_PAGE_LIMIT}, not {max_results}")
        if start < 0:
            raise ValueError(f"start must not be negative, not {start}")
        url = (
            f"{self.api_url}?search_query={quote_plus(search_query, safe=':[]()')}"
            f"&start={start}&max_results={max_results}&sortBy={sort_by}&sortOrder={sort_order}"
        )
        return await self._api_page(url, start, what=f"API page at {start}")

    async def first_versions(self, arxiv_ids: Sequence[str]) -> dict[str, datetime]:
        """Version 1's date of each paper, asked in batched `id_list` queries; ids arXiv does
        not know are left out."""
        found: dict[str, datetime] = {}
        for first in range(0, len(arxiv_ids), ID_LIST_BATCH):
            batch = arxiv_ids[first : first + ID_LIST_BATCH]
            url = f"{self.api_url}?id_list={','.join(batch)}&start=0&max_results={len(batch)}"
            page = await self._api_page(url, 0, what=f"look-up of {len(batch)} papers")
            found.update({record.arxiv_id: record.published for record in page.records})
        return found

    async def _api_page(self, url: str, start: int, *, what: str) -> ParsedFeed:
        """One API page; a spuriously empty one is asked for again."""
        retries_left = self.empty_page_retries
        while True:
            page = await self._fetch(url, parse_api_atom, what=what)
            spurious = page.read == 0 and (page.total_results or 0) > start
            if not spurious or retries_left == 0:
                return page
            retries_left -= 1

    # --- retries ---------------------------------------------------------------------------

    async def _fetch(
        self, url: str, parse: Callable[[bytes], ParsedFeed], *, what: str
    ) -> ParsedFeed:
        problem = ""
        partial: ParsedFeed | None = None
        for attempt in range(self.max_retries + 1):
            try:
                response = await self._send(url)
            except _RETRYABLE_ERRORS as exc:
                problem = f"{type(exc).__name__}{': ' + str(exc) if str(exc) else ''}"
                self._pause(self._backoff(attempt))
                continue
            status = response.status_code
            if status == 429 or status >= 500:
                problem = f"HTTP {status}"
                asked = retry_after_seconds(response.headers.get("Retry-After"))
                if asked is not None and asked > MAX_RETRY_AFTER:
                    raise ArxivUnavailable(
                        f"arXiv asks to wait {asked:.0f} s before the {what} ({problem}); "
                        "try again later"
                    )
                self._pause(self._backoff(attempt) if asked is None else asked)
                continue
            if not 200 <= status < 300:
                raise ArxivUnavailable(
                    f"arXiv refused the {what}: HTTP {status}{_error_detail(response.content)}"
                )
            try:
                parsed = parse(response.content)
            except ArxivApiError as exc:
                raise ArxivUnavailable(f"arXiv refused the {what}: {exc}") from None
            except FeedError as exc:
                problem = f"unreadable document: {exc}"
                self._pause(self._backoff(attempt))
                continue
            if not parsed.malformed:
                return parsed
            # Most often a body cut short in transit: asking again usually gets all of it.
            partial, problem = parsed, "document not well-formed (cut short?)"
            self._pause(self._backoff(attempt))
        if partial is not None:
            return partial
        attempts = self.max_retries + 1
        raise ArxivUnavailable(f"no answer for the {what} after {attempts} attempts ({problem})")

    def _backoff(self, attempt: int) -> float:
        return backoff_delay(attempt + 1, base=self.backoff_base, cap=MAX_BACKOFF)

    def _pause(self, seconds: float) -> None:
        """Hold every request of this client (not only the caller's) for `seconds`."""
        self._not_before = max(self._not_before, self._clock() + seconds)

    async def _send(self, url: str) -> httpx.Response:
        # One request at a time, start-to-start at least min_interval apart. Pauses are set
        # before the caller next yields, so a queued request always sees them.
        async with self._gate:
            wait = self._not_before - self._clock()
            if wait > 0:
                await self._sleep(wait)
            self._not_before = self._clock() + self.min_interval
            return await self._http.get(url)


def _error_detail(body: bytes) -> str:
    try:
        parse_api_atom(body)
    except ArxivApiError as exc:
        return f": {exc}"
    except FeedError:
        pass
    return ""
