"""A fake arXiv on 127.0.0.1: the query API and the RSS/Atom listings, scriptable to fail.

It answers from the papers it holds, in arXiv's real document formats (see `arxiv_docs`),
and records every request with its arrival time and how many were in flight, so tests can
check the client's politeness by what the server received.

    async with FakeArxiv(papers) as arxiv:
        client = ArxivClient(api_url=arxiv.api_url, rss_url=arxiv.rss_url, ...)
        arxiv.fail("503", times=2)

Failure kinds: "429" (with `retry_after`), "503", "status" (any `status` and `body`),
"truncated" (half a document, or its first `keep` entries and the start of the next), "empty"
(a spurious empty page that still claims its total), "drop" (the connection is closed without
an answer) and "hang" (no answer for `delay` s).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from aiohttp import web

from tests.fakes import arxiv_docs

_CATEGORY = re.compile(r"cat:([\w.\-]+)")
_SUBMITTED = re.compile(r"submittedDate:\[(\d{12}) TO (\d{12})\]")
FAILURE_KINDS = ("429", "503", "status", "truncated", "empty", "drop", "hang")


class VirtualClock:
    """A monotonic clock whose sleeps return at once, advancing virtual time instead."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += max(seconds, 0.0)
        await asyncio.sleep(0)


@dataclass
class RecordedRequest:
    path: str
    query: dict[str, str]
    arrived: float
    in_flight: int  # requests being answered when this one arrived, itself included
    failure: str = ""  # the scripted failure it got, "" for a normal answer

    @property
    def start(self) -> int:
        return int(self.query.get("start", 0))

    @property
    def window(self) -> tuple[str, str] | None:
        found = _SUBMITTED.search(self.query.get("search_query", ""))
        return (found.group(1), found.group(2)) if found else None


@dataclass
class Failure:
    kind: str
    times: int | None  # None: every matching request, forever
    when: Callable[[RecordedRequest], bool] | None
    retry_after: str | None = None
    status: int = 503
    delay: float = 5.0
    body: bytes = b"busy\n"
    keep: int | None = None  # "truncated": whole entries kept before the cut (None: half)


@dataclass
class FakeArxiv:
    """The fake service. `papers` answer API queries; `listing` fills the daily listings."""

    papers: list[dict] = field(default_factory=list)
    listing: list[dict] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    announced: datetime = arxiv_docs.BASE_DAY
    requests: list[RecordedRequest] = field(default_factory=list)
    max_in_flight: int = 0

    def __post_init__(self) -> None:
        self._failures: list[Failure] = []
        self._in_flight = 0
        self._runner: web.AppRunner | None = None
        self._closing = asyncio.Event()
        self.base_url = ""

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> FakeArxiv:
        app = web.Application()
        app.router.add_get("/api/query", self._query)
        app.router.add_get("/rss/{categories}", self._rss)
        app.router.add_get("/atom/{categories}", self._atom)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = f"http://{host}:{port}"
        return self

    async def close(self) -> None:
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeArxiv:
        return await self.start()

    async def __aexit__(self, *exc_info) -> None:
        await self.close()

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/query"

    @property
    def rss_url(self) -> str:
        return f"{self.base_url}/rss"

    # --- scripting -------------------------------------------------------------------------

    def fail(
        self,
        kind: str,
        *,
        times: int | None = 1,
        when: Callable[[RecordedRequest], bool] | None = None,
        retry_after: str | None = None,
        status: int = 503,
        delay: float = 5.0,
        body: bytes = b"busy\n",
        keep: int | None = None,
    ) -> None:
        """Answer the next `times` matching requests (all of them if None) with a failure."""
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}; one of {FAILURE_KINDS}")
        status = {"429": 429, "503": 503}.get(kind, status)
        failure = Failure(kind, times, when, retry_after, status, delay, body, keep)
        self._failures.append(failure)

    def stop_failing(self) -> None:
        self._failures.clear()

    def api_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == "/api/query"]

    def id_lists(self) -> list[list[str]]:
        """The ids of every `id_list` query received, in order."""
        return [r.query["id_list"].split(",") for r in self.api_requests() if "id_list" in r.query]

    def _take_failure(self, recorded: RecordedRequest) -> Failure | None:
        for failure in self._failures:
            if failure.times == 0 or (failure.when and not failure.when(recorded)):
                continue
            if failure.times is not None:
                failure.times -= 1
            return failure
        return None

    # --- handlers --------------------------------------------------------------------------

    async def _answer(
        self, request: web.Request, build: Callable[[bool], bytes], content_type: str
    ) -> web.StreamResponse:
        self._in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self._in_flight)
        recorded = RecordedRequest(request.path, dict(request.query), self.clock(), self._in_flight)
        self.requests.append(recorded)
        try:
            failure = self._take_failure(recorded)
            recorded.failure = failure.kind if failure else ""
            return await self._respond(request, failure, build, content_type)
        finally:
            self._in_flight -= 1

    async def _respond(
        self,
        request: web.Request,
        failure: Failure | None,
        build: Callable[[bool], bytes],
        content_type: str,
    ) -> web.StreamResponse:
        kind = failure.kind if failure else ""
        if kind == "hang":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), failure.delay)
        elif kind == "drop":
            request.transport.close()
            raise web.HTTPServiceUnavailable()  # never sent: the connection is gone
        elif kind in ("429", "503", "status"):
            headers = {"Retry-After": failure.retry_after} if failure.retry_after else {}
            return web.Response(status=failure.status, body=failure.body, headers=headers)
        body = build(kind == "empty")
        if kind == "truncated":
            body = body[: _cut_at(body, failure.keep)]
        return web.Response(body=body, content_type=content_type, charset="utf-8")

    async def _query(self, request: web.Request) -> web.StreamResponse:
        search = request.query.get("search_query", "")
        start = int(request.query.get("start", 0))
        max_results = int(request.query.get("max_results", 10))
        if max_results > 2000:
            error = arxiv_docs.api_error_feed("max_results must not exceed 2000")
            return web.Response(status=400, body=error, content_type="application/atom+xml")
        matches = self.matching(search, request.query.get("id_list", ""))

        def build(empty: bool) -> bytes:
            page = [] if empty else matches[start : start + max_results]
            return arxiv_docs.api_feed(
                page, total=len(matches), start=start, per_page=max_results, query=search
            )

        return await self._answer(request, build, "application/atom+xml")

    def matching(self, search_query: str, id_list: str = "") -> list[dict]:
        """The held papers a `search_query` (and `id_list`) selects, oldest submission first."""
        categories = set(_CATEGORY.findall(search_query))
        window = _SUBMITTED.search(search_query)
        ids = set(filter(None, id_list.split(",")))
        chosen = []
        for paper in self.papers:
            if ids and paper["id"] not in ids:
                continue
            if categories and not categories.intersection(paper["categories"]):
                continue
            stamp = paper["published"].astimezone(UTC).strftime("%Y%m%d%H%M")
            if window and not window.group(1) <= stamp <= window.group(2):
                continue
            chosen.append(paper)
        return sorted(chosen, key=lambda paper: paper["published"])

    def _listed(self, request: web.Request) -> tuple[list[dict], Sequence[str]]:
        categories = request.match_info["categories"].split("+")
        listed = [p for p in self.listing if set(categories).intersection(p["categories"])]
        return listed, categories

    async def _rss(self, request: web.Request) -> web.StreamResponse:
        listed, categories = self._listed(request)

        def build(empty: bool) -> bytes:
            items = [] if empty else listed
            return arxiv_docs.rss_listing(items, categories=categories, announced=self.announced)

        return await self._answer(request, build, "application/rss+xml")

    async def _atom(self, request: web.Request) -> web.StreamResponse:
        listed, categories = self._listed(request)

        def build(empty: bool) -> bytes:
            items = [] if empty else listed
            return arxiv_docs.atom_listing(items, categories=categories, announced=self.announced)

        return await self._answer(request, build, "application/atom+xml")


def _cut_at(body: bytes, keep: int | None) -> int:
    """Half the body, or a few bytes into the entry after the first `keep` ones."""
    if keep is None:
        return len(body) // 2
    starts = [m.start() for m in re.finditer(rb"<(?:entry|item)[\s>]", body)]
    return starts[keep] + 20 if keep < len(starts) else len(body) - 10


@pytest.fixture
async def fake_arxiv() -> AsyncIterator[FakeArxiv]:
    """A running fake arXiv holding no papers yet; fill `papers` / `listing` in the test."""
    async with FakeArxiv() as server:
        yield server
