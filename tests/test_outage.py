"""A platform outage across a scheduled digest loses nothing: `digestbot run`'s runtime, with
the real python-telegram-bot and discord.py, against fakes that go down for ten minutes.

The runtime's clock is injected and moves 15 s per scheduler tick, so ten minutes of outage and
the retries across it take a few seconds; the fakes are down or up by that clock. Discord's
outage answers 503: discord.py gives up on a 503 at once (it waits out 500, 502 and 504 itself,
in real time), so the retries are the Dispatcher's, as in production.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from bot.app import build_app
from bot.runner import Runtime
from bot.settings import load_settings
from digests.store.models import Channel, Delivery, DeliveryPart
from tests.fakes.clock import MONDAY_9, Clock  # every channel's digest is due at MONDAY_9
from tests.fakes.discord_server import (
    DIGESTS_ID,
    GENERAL_ID,
    FakeDiscord,
    pointing_discord_py,
)
from tests.fakes.telegram_server import FakeTelegram, sent_text
from tests.papers import seed_followed_week

OUTAGE = (MONDAY_9 - timedelta(minutes=1), MONDAY_9 + timedelta(minutes=9))
TELEGRAM_CHATS = [4_000_000 + n for n in range(5)]
DISCORD_CHANNELS = [DIGESTS_ID, GENERAL_ID]
CHATS = [("telegram", str(c)) for c in TELEGRAM_CHATS]
CHATS += [("discord", str(c)) for c in DISCORD_CHANNELS]
TICK = timedelta(seconds=15)


async def no_wait(seconds: float) -> None:
    await asyncio.sleep(0)  # the clock moves by ticks alone


async def set_down(telegram: FakeTelegram, discord: FakeDiscord, kind: str, down: bool) -> None:
    discord.traffic.outage = 503 if down else None
    if kind == "errors":
        telegram.set_outage(502 if down else None)
    elif down:
        await telegram.go_offline()
    else:
        await telegram.go_online()


def received(telegram: FakeTelegram, discord: FakeDiscord) -> dict[str, Counter]:
    """Per chat, how often each distinct part arrived."""
    got = {str(c): Counter(sent_text(r) for r in telegram.sent(c)) for c in TELEGRAM_CHATS}
    for channel in DISCORD_CHANNELS:
        messages = discord.messages(channel)
        got[str(channel)] = Counter(repr((m["content"], m["embeds"])) for m in messages)
    return got


def all_sent(engine) -> bool:
    with Session(engine) as session:
        statuses = session.execute(
            select(Delivery.status).where(Delivery.period_key == MONDAY_9.date().isoformat())
        ).scalars()
        return set(statuses) == {"sent"}


def stored(engine) -> dict[str, tuple[str, int, int]]:
    """Per chat: its digest's status, parts and attempts."""
    with Session(engine) as session:
        rows = session.execute(
            select(Channel.chat_id, Delivery.status, Delivery.attempts, Delivery.id)
            .join(Channel, Channel.id == Delivery.channel_id)
            .where(Delivery.period_key == MONDAY_9.date().isoformat())
        ).all()
        parts = Counter(session.execute(select(DeliveryPart.delivery_id)).scalars())
    return {chat: (status, parts[delivery], attempts) for chat, status, attempts, delivery in rows}


@pytest.mark.parametrize("kind", ["errors", "refused"])
async def test_a_ten_minute_outage_across_a_scheduled_digest_loses_nothing(database_url, kind):
    clock = Clock(OUTAGE[0] - TICK)
    async with FakeTelegram(flood=None) as telegram, FakeDiscord() as discord:
        for chat in TELEGRAM_CHATS:
            telegram.add_chat(chat, type="private")
        settings = load_settings(
            database_url=database_url,
            telegram_token=telegram.token,
            telegram_api_url=telegram.base_url,
            telegram_polling=False,
            discord_token=discord.token,
            discord_api_url=discord.api_url,
            discord_gateway_url=discord.gateway_url,
        )
        app = build_app(settings, clock=clock, sleep=no_wait)
        app.usecases.sync_catalog()
        seed_followed_week(app, MONDAY_9 - timedelta(days=3), CHATS)
        with pointing_discord_py(discord.api_url, discord.gateway_url):
            runtime = Runtime(app)
            await runtime.start()
            try:
                while clock.now < OUTAGE[1] or not all_sent(app.engine):
                    await set_down(telegram, discord, kind, OUTAGE[0] <= clock.now < OUTAGE[1])
                    await runtime.lead()
                    await runtime.drain()
                    clock.now += TICK
                    assert clock.now < OUTAGE[1] + timedelta(minutes=10), "still not sent"
            finally:
                await runtime.stop()
                app.close()
        got = received(telegram, discord)
    digests = stored(app.engine)
    assert set(digests) == set(got)  # every chat had its digest planned
    for chat, (status, parts, attempts) in digests.items():
        assert status == "sent" and attempts >= 6, (chat, status, attempts)
        assert len(got[chat]) == parts and set(got[chat].values()) == {1}, chat  # once each
