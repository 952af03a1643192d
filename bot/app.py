"""One function builds the running app from settings; the CLI and the tests both use it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import httpx
from sqlalchemy import Engine
from sqlmodel import Session

from bot.arxiv import ArxivClient
from bot.settings import Settings
from digests.catalog import Catalog
from digests.ingest import sync_catalog
from digests.retag import RetagStatus
from digests.store.engine import open_engine, upgrade_schema
from digests.tagger import Tagger


def user_agent(contact: str | None) -> str:
    return f"digestbot/0.1 (mailto:{contact})" if contact else "digestbot/0.1"


@dataclass
class App:
    settings: Settings
    engine: Engine
    catalog: Catalog
    tagger: Tagger
    arxiv_transport: httpx.AsyncBaseTransport | None = None

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def arxiv_client(self) -> ArxivClient:
        settings = self.settings
        return ArxivClient(
            api_url=settings.arxiv_api_url,
            rss_url=settings.arxiv_rss_url,
            min_interval=settings.arxiv_request_interval,
            timeout=settings.arxiv_timeout,
            max_retries=settings.arxiv_max_retries,
            transport=self.arxiv_transport,
            user_agent=user_agent(settings.arxiv_contact),
        )

    def sync_catalog(self, *, now: datetime) -> RetagStatus:
        """Store the catalog's topics; when the tagger changed, a re-tag run starts (the
        scheduler works through it, `digestbot retag` finishes it at once)."""
        with self.session() as session:
            status = sync_catalog(session, catalog=self.catalog, tagger=self.tagger, now=now)
            session.commit()
        return status

    def close(self) -> None:
        self.engine.dispose()


def build_app(
    settings: Settings,
    *,
    migrate: bool = True,
    arxiv_transport: httpx.AsyncBaseTransport | None = None,
) -> App:
    """Open the database (applying migrations), load the catalog and the tagger.

    Raises `DatabaseUnavailable`, `CatalogError` or `ModelError` with one-line messages.
    """
    catalog = Catalog.load(settings.topics_file)
    tagger = Tagger(catalog)
    engine = open_engine(settings.database_url)
    if migrate:
        upgrade_schema(engine)
    return App(settings, engine, catalog, tagger, arxiv_transport)
