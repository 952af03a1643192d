"""The Discord bot the adapter tests drive: the real discord.py client against the fake Discord,
and the helpers to seed it, use it and read its answers. Its fixtures are in tests/conftest.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from bot.app import App
from bot.platforms.discord import DiscordAdapter
from digests.store import channels, deliveries
from digests.store.models import Channel
from digests.topics.catalog import Catalog
from digests.usecases.app import UseCases
from digests.usecases.commands import CommandService
from digests.usecases.dispatch import DrainReport
from tests.fakes.discord_server import GENERAL_ID, FakeDiscord, RateLimits
from tests.papers import clock_from, seed_agent_papers

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
WAIT = 5.0  # seconds for any awaited event
EPHEMERAL = 1 << 6
RL = "rl-for-llm-agents"
HOSTILE = "@everyone <@&123> **bold** [x](http://evil)"
FAST = RateLimits().scaled(0.02)


def advancing_clock() -> Callable[[], datetime]:
    return clock_from(NOW)


@dataclass
class Bot:
    fake: FakeDiscord
    adapter: DiscordAdapter
    services: UseCases
    engine: Engine
    sent: list[dict] = field(default_factory=list)  # every interaction this test dispatched

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def channel(self, chat_id: int) -> Channel | None:
        with self.session() as session:
            return channels.find_channel(session, "discord", str(chat_id))

    def schedule(self, chat_id: int) -> tuple[int, str, str]:
        """The channel's digest clock; an unknown channel has the default one."""
        channel = self.channel(chat_id) or Channel(platform="discord", chat_id=str(chat_id))
        return channel.digest_weekday, channel.digest_time, channel.timezone

    def follows(self, chat_id: int) -> list[str]:
        channel = self.channel(chat_id)
        with self.session() as session:
            return channels.followed_slugs(session, channel.id) if channel else []

    async def dispatch(self, payload: dict) -> dict:
        self.sent.append(payload)
        await self.fake.dispatch("INTERACTION_CREATE", payload)
        return payload

    async def command(self, name: str, options: dict | None = None, **where: Any) -> dict:
        """Invoke `/name` and return its first answer: the callback, or the deferred followup."""
        payload = await self.dispatch(self.fake.slash_command(name, options, **where))
        callback = await self.fake.wait_for_response(payload["id"], "callback", timeout=WAIT)
        if callback["type"] == 5:
            followup = await self.fake.wait_for_response(payload["id"], "followup", timeout=WAIT)
            return {"content": followup["message"]["content"], "flags": EPHEMERAL}
        return callback["data"] | {"flags": callback["data"].get("flags") or 0}

    async def follow(self, topic: str = RL, channel_id: int = GENERAL_ID) -> dict:
        return await self.command("follow", {"topic": topic}, channel_id=channel_id)

    async def choices(self, name: str, focused: str, options: dict, **where: Any) -> list[dict]:
        payload = await self.dispatch(self.fake.autocomplete(name, focused, options, **where))
        callback = await self.fake.wait_for_response(payload["id"], "callback", timeout=WAIT)
        assert callback["type"] == 8
        return callback["data"]["choices"]

    async def deliver_weekly(self, chat_id: int) -> DrainReport:
        """What the scheduler does on the channel's weekday: store the digest, then drain."""
        with self.session() as session:
            channel = channels.find_channel(session, "discord", str(chat_id))
            digest = self.services.commands.digest_for(session, channel.id, now=NOW)
            deliveries.enqueue(
                session,
                channel_id=channel.id,
                kind="weekly",
                period_key="2026-W40",
                parts=self.adapter.render_digest(digest, title="Weekly digest"),
                now=self.services.clock(),
            )
            session.commit()
        return await self.services.dispatcher.drain()

    def assert_every_interaction_answered_once(self) -> None:
        for payload in self.sent:
            kinds = [r["kind"] for r in self.fake.interaction_responses(payload["id"])]
            assert kinds.count("callback") == 1, (payload["data"]["name"], kinds)


async def start_adapter(
    make_app: Callable[..., App],
    fake: FakeDiscord,
    engine: Engine,
    *,
    commands_class: type[CommandService] = CommandService,
    **settings: Any,
) -> tuple[DiscordAdapter, UseCases]:
    config = {
        "discord_token": fake.token,
        "discord_api_url": fake.api_url,
        "discord_gateway_url": fake.gateway_url,
        **settings,
    }
    app = make_app(engine, settings=config, clock=advancing_clock())
    services = app.usecases
    # Beyond DIGEST_PAPERS_PER_TOPIC's maximum: every seeded paper in one digest.
    services.commands = commands_class(
        services.session_factory, services.catalog, clock=services.clock, per_topic_cap=60
    )
    adapter = DiscordAdapter(app.settings, services, guild_ready_timeout=0.05)
    services.add_platform(adapter)
    await asyncio.wait_for(adapter.start(), WAIT)
    return adapter, services


@contextlib.asynccontextmanager
async def running_bot(
    make_app: Callable[..., App], fake: FakeDiscord, engine: Engine, *, answered_once: bool = True
) -> AsyncIterator[Bot]:
    """The bot on `fake`; at the end, every interaction it got had been answered (once, unless
    `answered_once` is false) and every request to the fake handled."""
    adapter, services = await start_adapter(make_app, fake, engine)
    bot = Bot(fake, adapter, services, engine)
    try:
        yield bot
        if answered_once:
            bot.assert_every_interaction_answered_once()
        assert fake.unhandled == []
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)


def seed_papers(engine: Engine, catalog: Catalog, count: int = 60) -> None:
    seed_agent_papers(engine, catalog, hostile=HOSTILE, now=NOW, count=count)


def is_private(answer: dict) -> bool:
    return bool(answer["flags"] & EPHEMERAL)


async def digest_messages(bot: Bot, catalog: Catalog, papers: int) -> list[dict]:
    seed_papers(bot.engine, catalog, count=papers)
    await bot.follow(RL)
    payload = await bot.dispatch(bot.fake.slash_command("digest"))
    await bot.fake.wait_for_response(payload["id"], "followup", timeout=3 * WAIT)
    return [m for m in bot.fake.messages(GENERAL_ID) if m["type"] == 0]


async def press(bot: Bot, message: dict, custom_id: str) -> dict:
    """Press a button; the answer the presser alone sees."""
    payload = await bot.dispatch(bot.fake.press_button(message, custom_id))
    callback = await bot.fake.wait_for_response(payload["id"], "callback", timeout=WAIT)
    assert callback["type"] == 4 and callback["data"]["flags"] == EPHEMERAL
    return callback["data"]


def buttons(message: dict) -> list[dict]:
    return [button for row in message["components"] for button in row["components"]]
