"""The Telegram bot the adapter tests drive: the real python-telegram-bot against the fake Bot
API, its chats and the helpers to seed and read it. Its fixtures are in tests/conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

from bot.app import App
from bot.platforms.telegram import TelegramAdapter
from digests.store import channels, deliveries
from digests.topics.catalog import Catalog
from digests.usecases.app import UseCases
from tests.fakes.telegram_server import FakeTelegram, FloodLimits
from tests.papers import clock_from, seed_agent_papers

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
WAIT = 5.0  # seconds for any awaited event
PRIVATE, GROUP, FORUM, CHANNEL = 42, -1001300, -1001400, -1001500
ADMIN, MEMBER = 7, 8
RL = "rl-for-llm-agents"
HOSTILE = "<b>bold</b> & <script>x</script> @channel /start@digest_test_bot"


def advancing_clock() -> Callable[[], datetime]:
    return clock_from(NOW)


@dataclass
class Bot:
    tg: FakeTelegram
    adapter: TelegramAdapter
    services: UseCases
    engine: Engine

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def follows(self, chat_id: int, thread_id: str = "") -> list[str]:
        with self.session() as session:
            channel = channels.find_channel(session, "telegram", str(chat_id), thread_id)
            return channels.followed_slugs(session, channel.id) if channel else []

    def channel(self, chat_id: int | str, thread_id: str = ""):
        with self.session() as session:
            return channels.find_channel(session, "telegram", str(chat_id), thread_id)

    def digest(self, chat_id: int):
        """The digest /digest sends the chat now (asked of the core directly: /digest itself
        may be typed once per ten minutes)."""
        with self.session() as session:
            channel = channels.find_channel(session, "telegram", str(chat_id))
            return self.services.commands.digest_for(session, channel.id, now=self.services.clock())

    async def handled_all(self, chat_id: int) -> None:
        """Wait until every update sent so far is handled: updates are handled in order, so
        once a later command is answered, all before it are done."""
        await self.say(chat_id, ADMIN if chat_id < 0 else chat_id, "/help")

    async def say(self, chat_id: int, user_id: int, text: str, thread: int | None = None) -> dict:
        """Type a command and wait for the bot's answer in that chat."""
        before = len(self.tg.sent(chat_id, "sendMessage"))
        self.tg.inject_message(chat_id, user_id, text, thread)
        return (await self.tg.wait_for_sent(chat_id, before + 1, WAIT, "sendMessage"))[before]


async def start_bot(
    make_app: Callable[..., App], tg: FakeTelegram, engine: Engine, **adapter_options
) -> tuple[TelegramAdapter, UseCases]:
    settings = {
        "telegram_token": tg.token,
        "telegram_api_url": tg.base_url,
        **adapter_options.pop("settings", {}),
    }
    app = make_app(engine, settings=settings, clock=advancing_clock())
    app.usecases.commands.per_topic_cap = 60  # beyond the setting's maximum: every seeded paper
    adapter = TelegramAdapter(app.settings, app.usecases, **adapter_options)
    app.usecases.add_platform(adapter)
    await asyncio.wait_for(adapter.start(), WAIT)
    return adapter, app.usecases


@contextlib.asynccontextmanager
async def running_bot(make_app: Callable[..., App], engine: Engine) -> AsyncIterator[Bot]:
    """The bot in long polling, in a private chat, a group, a forum and a channel."""
    async with FakeTelegram(flood=FloodLimits().scaled(50)) as tg:
        tg.add_chat(PRIVATE)
        tg.add_chat(GROUP, "supergroup", "ML reading group", admins={ADMIN: "administrator"})
        tg.add_chat(FORUM, "supergroup", "Agents forum", is_forum=True, admins={ADMIN: "creator"})
        tg.add_chat(CHANNEL, "channel", "Paper channel")
        adapter, services = await start_bot(make_app, tg, engine)
        try:
            yield Bot(tg, adapter, services, engine)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)


def seed_papers(engine: Engine, catalog: Catalog, count: int = 60) -> None:
    seed_agent_papers(engine, catalog, hostile=HOSTILE, now=NOW, count=count)


def visible(record: dict) -> str:
    return record["message"]["text"]


def enqueue_digest(bot: Bot, chat_id: int, parts: list[dict], period: str = "2026-W40") -> None:
    with bot.session() as session:
        channel = channels.find_channel(session, "telegram", str(chat_id))
        deliveries.enqueue(
            session, channel_id=channel.id, kind="weekly", period_key=period, parts=parts, now=NOW
        )
        session.commit()


LONG_SLUG = "very-long-topic-" + "-".join(["segment"] * 8)  # 79 characters


@contextlib.asynccontextmanager
async def long_slug_bot(
    make_app: Callable[..., App], engine: Engine, tmp_path: Path
) -> AsyncIterator[Bot]:
    """A bot whose catalog is one topic, Zebrafish Locomotion Models, slug `LONG_SLUG`."""
    topics = tmp_path / "topics.toml"
    topics.write_text(
        f'[[topic]]\nslug = "{LONG_SLUG}"\nname = "Zebrafish Locomotion Models"\n'
        'description = "Models of how zebrafish swim."\nphrases = ["zebrafish"]\n'
    )
    async with FakeTelegram(flood=None) as tg:
        tg.add_chat(PRIVATE)
        adapter, services = await start_bot(make_app, tg, engine, settings={"topics_file": topics})
        try:
            yield Bot(tg, adapter, services, engine)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)


HOOK_URL = "https://bot.example.org/telegram/hook"


@contextlib.asynccontextmanager
async def webhook_bot(
    make_app: Callable[..., App], engine: Engine
) -> AsyncIterator[tuple[FakeTelegram, TelegramAdapter, str]]:
    """A bot in webhook mode, its fake Telegram, and the local URL Telegram would push to."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with FakeTelegram(flood=None) as tg:
        tg.add_chat(PRIVATE)
        webhook = {"telegram_webhook_url": HOOK_URL, "telegram_webhook_listen": f"127.0.0.1:{port}"}
        adapter, _ = await start_bot(make_app, tg, engine, settings=webhook)
        try:
            yield tg, adapter, f"http://127.0.0.1:{port}/telegram/hook"
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
