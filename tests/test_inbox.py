"""Nothing acknowledged is lost: an update the webhook answered 200 and the bot had not handled
when it stopped is handled after the restart, in its chat's order; the stop is bounded and says
so in one line; an update the store cannot keep is not acknowledged. On both backends, the real
python-telegram-bot against the fake Bot API."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import aiohttp
import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.app import App
from bot.platforms.telegram import telegram_rate_limiter
from digests.store import channels
from digests.store.models import InboundUpdate
from digests.usecases.chat_updates import UpdateInbox
from tests.fakes.store_faults import read_only
from tests.fakes.telegram_bot import (
    ADMIN,
    GROUP,
    MEMBER,
    PRIVATE,
    WAIT,
    start_bot,
    visible,
    webhook_bot,
)
from tests.fakes.telegram_server import FakeTelegram, FloodLimits
from tests.waiting import wait_until

HOOK_URL = "https://bot.example.org/telegram/hook"
SPEED = 10  # Telegram's limits, ten times faster: 20 messages in a group per 6 s
BACKLOG = 40


def answers(tg: FakeTelegram) -> list[str]:
    """The first word of each answer in the group."""
    return [visible(record).split()[0] for record in tg.sent(GROUP, "sendMessage")]


def inbox_counts(engine: Engine) -> tuple[int, int]:
    """Updates in the inbox handled, and waiting."""
    with Session(engine) as session:
        rows = list(session.exec(select(InboundUpdate)))
    waiting = sum(row.handled_at is None for row in rows)
    return len(rows) - waiting, waiting


def followed(engine: Engine) -> list[str]:
    with Session(engine) as session:
        channel = channels.find_channel(session, "telegram", str(GROUP), "")
        return channels.followed_slugs(session, channel.id) if channel else []


async def test_updates_acknowledged_before_a_stop_are_handled_after_the_restart(
    make_app: Callable[..., App], engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """Tried: 40 /help then a /follow pushed in one group (its answers held to 20 per 6 s),
    the bot stopped as soon as Telegram had its 200s, then started again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = {"telegram_webhook_url": HOOK_URL, "telegram_webhook_listen": f"127.0.0.1:{port}"}
    local = f"http://127.0.0.1:{port}/telegram/hook"
    caplog.set_level(logging.INFO, logger="bot.platforms.telegram")

    async def started(tg: FakeTelegram):
        return await start_bot(
            make_app, tg, engine, settings=settings, rate_limiter=telegram_rate_limiter(SPEED)
        )

    def telegram(flood: FloodLimits | None) -> FakeTelegram:
        tg = FakeTelegram(flood=flood)
        tg.add_chat(GROUP, "supergroup", "A busy group", admins={ADMIN: "administrator"})
        return tg

    async with telegram(FloodLimits().scaled(SPEED)) as tg:
        adapter, _ = await started(tg)
        secret = {"X-Telegram-Bot-Api-Secret-Token": adapter.webhook_secret()}
        async with aiohttp.ClientSession(headers=secret) as http:
            updates = [tg.inject_message(GROUP, MEMBER, "/help") for _ in range(BACKLOG)]
            updates.append(tg.inject_message(GROUP, ADMIN, "/follow rl for llm agents"))
            for update in updates:
                async with http.post(local, json=update) as answer:
                    assert answer.status == 200
        stopping = time.monotonic()
        await asyncio.wait_for(adapter.stop(), 3 * WAIT)
        stopped_in = time.monotonic() - stopping
    handled, waiting = inbox_counts(engine)
    assert followed(engine) == [] and waiting > 0  # the /follow was still waiting its turn
    assert handled + waiting == BACKLOG + 1  # every update acknowledged is in one or the other
    kept = [r.getMessage() for r in caplog.records if "kept for the next start" in r.getMessage()]
    assert kept == [f"telegram: stopped; {waiting} received updates are kept for the next start"]

    async with telegram(None) as tg:  # later: the group's limit no longer matters
        adapter, _ = await started(tg)
        try:
            assert await wait_until(lambda: len(answers(tg)) == waiting, 6 * WAIT), answers(tg)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
    assert followed(engine) == ["rl-for-llm-agents"]
    assert answers(tg)[-1] == "Following"  # in the group's order, after its /help
    assert inbox_counts(engine) == (BACKLOG + 1, 0)
    assert not [r for r in caplog.records if "did not finish cleanly" in r.getMessage()]
    assert stopped_in < 5.0


async def test_an_update_the_store_cannot_keep_is_refused_503_and_handled_when_sent_again(
    make_app: Callable[..., App], engine: Engine
) -> None:
    """Tried: the store refusing writes while Telegram pushes a /follow; Telegram sends it
    again (as it does after an error) once the store is back."""
    async with webhook_bot(make_app, engine) as (tg, adapter, local):
        secret = {"X-Telegram-Bot-Api-Secret-Token": adapter.webhook_secret()}
        update = tg.inject_message(PRIVATE, PRIVATE, "/follow rl for llm agents")
        async with aiohttp.ClientSession(headers=secret) as http:
            with read_only(adapter.services.session_factory().get_bind()):
                async with http.post(local, json=update) as refused:
                    assert refused.status == 503 and refused.headers["Retry-After"]
            async with http.post(local, json=update) as again:
                assert again.status == 200
        (reply,) = await tg.wait_for_sent(PRIVATE, 1, WAIT, "sendMessage")
    assert visible(reply).startswith("Following RL for LLM Agents.")


def test_handled_updates_are_forgotten_after_two_days_and_waiting_ones_kept(engine):
    day = datetime(2026, 9, 28, tzinfo=UTC)
    clock = [day]
    updates = UpdateInbox(lambda: Session(engine), clock=lambda: clock[0], receiver="a")
    assert updates.receive("telegram", "update:1", chat="5", payload={"update_id": 1})
    assert updates.receive("telegram", "update:2", chat="5", payload={"update_id": 2})
    assert not updates.receive("telegram", "update:1")  # received before
    updates.handled("telegram", ["update:1"])
    clock[0] = day + timedelta(days=3)
    assert updates.forget_handled() == 1
    assert [w.key for w in updates.waiting("telegram")] == ["update:2"]
    assert not updates.receive("telegram", "update:2")  # still known while it waits
