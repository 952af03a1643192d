"""The topic pages served for a test: a store seeded with agent papers, one hostile title among
them, and the pages' aiohttp application listening on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import aiohttp
from multidict import CIMultiDict
from sqlalchemy import Engine
from sqlmodel import Session

from bot.http_server import start_web_server
from bot.web import Site, web_app
from digests.follows.filters import FollowFilter, parse_filter
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.follows import store_filter
from digests.usecases.ingest import ingest_records, sync_catalog
from digests.usecases.topic_pages import TopicPages
from tests.papers import paper_record, seed_agent_papers

NOW = datetime(2026, 9, 25, 12, tzinfo=UTC)
HOSTILE = "<script>alert(1)</script> & <b>bold</b> @everyone"


def seed(engine: Engine, catalog: Catalog, *, now: datetime = NOW, count: int = 30) -> None:
    seed_agent_papers(engine, catalog, hostile=HOSTILE, now=now, count=count)


def store_follow(engine: Engine, typed: str, *, now: datetime = NOW) -> FollowFilter:
    """The filter `typed` (`query: …`) stored as /follow stores it, its papers tagged."""
    follow = parse_filter(typed)
    with Session(engine) as session:
        store_filter(session, follow, now=now)
        session.commit()
    return follow


@asynccontextmanager
async def serving(
    engine: Engine, catalog: Catalog, port: int, *, site: Site | None = None, per_page: int = 20
) -> AsyncIterator[str]:
    """The pages on 127.0.0.1:`port`, as of NOW; yields their base URL."""

    def sessions() -> Session:
        return Session(engine, expire_on_commit=False)

    pages = TopicPages(sessions, catalog, per_page=per_page)
    runner = await start_web_server(
        web_app(pages, clock=lambda: NOW, site=site or Site()), "127.0.0.1", port
    )
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


# Papers in the four weeks before those and in the four weeks before NOW: a large, certain rise
# and two small noisy ones, with higher percentages on too few papers to judge.
CERTAIN, NOISY = "World Model Learning", ("Sequential Decision Making", "Automated Negotiation")
TRENDING = {CERTAIN: (20, 60), NOISY[0]: (1, 9), NOISY[1]: (2, 10)}
BACKGROUND = 400  # papers in each window that no topic claims


def seed_trending(engine: Engine, catalog: Catalog, *, now: datetime = NOW) -> None:
    """The rises of `TRENDING` over a steady volume of all papers, as of `now`."""
    records, n = [], 0
    spread = [(topic, before, after) for topic, (before, after) in TRENDING.items()]
    spread.append(("", BACKGROUND, BACKGROUND))
    for topic, before, after in spread:
        for window, count in ((1, after), (29, before)):
            for i in range(count):
                n += 1
                records.append(
                    paper_record(
                        n,
                        now - timedelta(days=window + i % 27),
                        title=f"Observations number {n}",
                        abstract="We report measurements of a quantity.",
                        categories=("cs.AI",) if topic else ("astro-ph.GA",),
                        upstream_topics=(topic,) if topic else (),
                    )
                )
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=now)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=now)
        session.commit()


RL = "rl-for-llm-agents"


ATOM = "{http://www.w3.org/2005/Atom}"


async def fetch(url: str, **headers: str) -> tuple[int, CIMultiDict, str]:
    async with (
        aiohttp.ClientSession() as client,
        client.get(url, headers=headers, allow_redirects=False) as response,
    ):
        return response.status, response.headers.copy(), await response.text()
