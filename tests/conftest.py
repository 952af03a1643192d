"""Shared fixtures: a fresh database on every backend the storage tests run against, the app,
the chat bots against their fakes and a browser. Each fixture imports what it needs when a
test asks for it, so that the core's tests (tests/core) load no database or chat library."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from bot.app import App
    from digests.topics.catalog import Catalog
    from tests.fakes.discord_bot import Bot as DiscordBot
    from tests.fakes.discord_server import FakeDiscord
    from tests.fakes.telegram_bot import Bot as TelegramBot

POSTGRES_URL = os.environ.get("DIGESTBOT_TEST_POSTGRES_URL", "")
# CI sets this so that a missing PostgreSQL server fails the run instead of skipping.
REQUIRE_POSTGRES = os.environ.get("DIGESTBOT_REQUIRE_POSTGRES") == "1"


def _reset_postgres(url: str) -> None:
    from sqlalchemy import text

    from digests.store.engine import open_engine

    engine = open_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL to an empty database: a SQLite file, then the real PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'digestbot.db'}"
    if not POSTGRES_URL:
        if REQUIRE_POSTGRES:
            pytest.fail("DIGESTBOT_TEST_POSTGRES_URL is not set but PostgreSQL is required")
        pytest.skip("no PostgreSQL server (set DIGESTBOT_TEST_POSTGRES_URL)")
    _reset_postgres(POSTGRES_URL)
    return POSTGRES_URL


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    from digests.store.engine import open_engine, upgrade_schema

    engine = open_engine(database_url)
    upgrade_schema(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'digestbot.db'}"


@pytest.fixture
def sqlite_engine(sqlite_url: str) -> Iterator[Engine]:
    """A migrated SQLite database, for tests that need one backend only."""
    from digests.store.engine import open_engine, upgrade_schema

    engine = open_engine(sqlite_url)
    upgrade_schema(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path) -> str:
    """A command line's surroundings: DATABASE_URL set, a scratch working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database_url)
    return database_url


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The shipped topic catalog (loaded once per module)."""
    from digests.topics.catalog import Catalog

    return Catalog.load()


@pytest.fixture
def make_app() -> Iterator[Callable[..., App]]:
    """Builds the app as `digestbot run` does (`bot.app.build_app`), on a test's database and
    with its fakes (a clock, a sleep, ...); `settings` are Settings fields. Closed after the
    test."""
    from bot.app import build_app
    from bot.settings import Settings

    built: list[App] = []

    def make(engine: Engine, *, settings: dict | None = None, **fakes) -> App:
        url = engine.url.render_as_string(hide_password=False)
        config = Settings(_env_file=None, database_url=url, **(settings or {}))
        built.append(build_app(config, migrate=False, **fakes))
        return built[-1]

    yield make
    for app in built:
        app.close()


@pytest.fixture
def ptb_timedelta(monkeypatch: pytest.MonkeyPatch) -> None:
    # PTB 22 warns on its int retry_after; this opts into the timedelta it will return in 23.
    monkeypatch.setenv("PTB_TIMEDELTA", "true")


@pytest.fixture
async def telegram_bot(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> AsyncIterator[TelegramBot]:
    """The Telegram adapter against the fake Bot API (tests/fakes/telegram_bot.py)."""
    from tests.fakes.telegram_bot import running_bot

    async with running_bot(make_app, sqlite_engine) as bot:
        yield bot


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    """The fake Discord (REST and gateway), its rate limits 50 times faster."""
    from tests.fakes.discord_bot import FAST
    from tests.fakes.discord_server import running_fake_discord

    async with running_fake_discord(rate_limits=FAST) as fake:
        yield fake


@pytest.fixture
async def discord_bot(
    make_app: Callable[..., App], discord_fake: FakeDiscord, sqlite_engine: Engine
) -> AsyncIterator[DiscordBot]:
    """The Discord adapter on `discord_fake` (tests/fakes/discord_bot.py)."""
    from tests.fakes.discord_bot import running_bot

    async with running_bot(make_app, discord_fake, sqlite_engine) as bot:
        yield bot


@pytest.fixture(scope="module")
def browser(site) -> Iterator:
    """Headless Chromium, once the module's `site` serves its pages (tests/web_browser.py)."""
    from tests.web_browser import chromium  # imported here: it skips without Playwright

    with chromium() as browser:
        yield browser
