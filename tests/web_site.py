"""The topic pages served for a test: a store seeded with agent papers, one hostile title among
them, and the pages' aiohttp application listening on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session

from bot.http_server import start_web_server
from bot.web import Site, web_app
from digests.follows.filters import FollowFilter, parse_filter
from digests.follows.service import store_filter
from digests.pages.topic_pages import TopicPages
from digests.topics.catalog import Catalog
from tests.papers import seed_agent_papers

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
