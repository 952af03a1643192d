"""One function builds the running app from settings: the command line, `digestbot run` and
the tests all use it, the tests with a fake clock, sleep or arXiv transport."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import Engine
from sqlmodel import Session

from bot.arxiv import ArxivClient
from bot.ask_llm import ask_writer
from bot.memory import return_freed_memory
from bot.settings import Settings
from bot.tagger_on_demand import TaggerOnDemand
from bot.version import installed_version
from digests.store.engine import open_engine, upgrade_schema
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.app import UseCases
from digests.usecases.dispatch import Dispatcher


def user_agent(contact: str | None) -> str:
    version = installed_version()
    product = f"digestbot/{version}" if version else "digestbot"
    return f"{product} (mailto:{contact})" if contact else product


def instance_name(settings: Settings) -> str:
    return settings.instance_name or socket.gethostname()


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class App:
    settings: Settings
    engine: Engine
    usecases: UseCases
    clock: Callable[[], datetime] = utc_now
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    arxiv_transport: httpx.AsyncBaseTransport | None = None

    @property
    def catalog(self) -> Catalog:
        return self.usecases.catalog

    @property
    def tagger(self) -> Tagger:
        return self.usecases.tagger

    def release_tagger(self) -> None:
        """After a job that tagged: an on-demand tagger lets its model go."""
        if isinstance(self.usecases.tagger, TaggerOnDemand):
            self.usecases.tagger.release()

    def session(self) -> Session:
        return self.usecases.session_factory()

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

    def close(self) -> None:
        self.engine.dispose()


def build_app(
    settings: Settings,
    *,
    migrate: bool = True,
    create: bool = True,
    clock: Callable[[], datetime] = utc_now,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    arxiv_transport: httpx.AsyncBaseTransport | None = None,
    tagger_on_demand: bool = False,
) -> App:
    """Open the database (applying migrations), load the catalog and the tagger, and wire the
    use cases. Chat platforms are added by `digestbot run` (or a test) with `add_platform`.

    Raises `DatabaseUnavailable`, `CatalogError` or `ModelError` with one-line messages.
    """
    catalog = Catalog.load(settings.topics_file)
    # `digestbot run` holds the model only while it tags (`TaggerOnDemand`, which hands the
    # freed heap back itself); commands keep it.
    if tagger_on_demand:
        tagger = TaggerOnDemand(catalog)
    else:
        tagger = Tagger(catalog)
        return_freed_memory()  # what loading the model parsed and dropped
    engine = open_engine(settings.database_url, create=create)
    if migrate:
        upgrade_schema(engine)

    def sessions() -> Session:
        return Session(engine, expire_on_commit=False)

    dispatcher = Dispatcher(
        sessions,
        {},
        clock=clock,
        sleep=sleep,
        worker=instance_name(settings),
        lease=timedelta(seconds=settings.delivery_lease_seconds),
    )
    usecases = UseCases(
        sessions,
        catalog,
        tagger,
        clock=clock,
        dispatcher=dispatcher,
        per_topic_cap=settings.digest_papers_per_topic,
        grace=timedelta(hours=settings.digest_grace_hours),
        spike_settings=settings.spike,
        public_url=settings.public_url,
        answer_writer=ask_writer(settings),
    )
    return App(settings, engine, usecases, clock, sleep, arxiv_transport)
