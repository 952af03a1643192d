"""No chat waits on another: a group flooding the bot with 300 commands (its answers slowed
to Telegram's 20 a minute in a group) delays other chats' answers by 2 s at most, in polling
and in webhook mode; on Discord, one server's flood of interactions against another's. The
real python-telegram-bot and discord.py against the fake servers, with Telegram's real limits."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

import aiohttp
import pytest
from sqlalchemy import Engine

from bot.app import App
from bot.platforms.discord import OOPS
from tests.fakes.discord_bot import FAST, start_adapter
from tests.fakes.discord_server import MEMBER_ID, OWNER_ID, running_fake_discord
from tests.fakes.telegram_bot import GROUP, MEMBER, WAIT, start_bot
from tests.fakes.telegram_server import FakeTelegram, FloodLimits

FLOOD = 300
OTHERS = (1001, 1002, 1003)  # private chats
HOOK_URL = "https://bot.example.org/telegram/hook"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
TELEGRAM_CONNECTIONS = 40  # Telegram pushes a bot's updates over up to 40 connections


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Pusher:
    """Telegram's side of webhook mode: pushes updates, or leaves them to getUpdates."""

    def __init__(self, url: str | None, secret: str) -> None:
        self.url, self.secret = url, secret
        self._connections = asyncio.Semaphore(TELEGRAM_CONNECTIONS)

    async def push(self, http: aiohttp.ClientSession, update: dict) -> None:
        if self.url is None:  # polling: the bot fetches it
            return
        async with (
            self._connections,
            http.post(self.url, json=update, headers={SECRET_HEADER: self.secret}) as answer,
        ):
            assert answer.status == 200


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_a_group_flooding_300_commands_delays_other_chats_by_two_seconds_at_most(
    make_app: Callable[..., App], sqlite_engine: Engine, mode: str
) -> None:
    port = free_port()
    settings = {}
    if mode == "webhook":
        settings = {
            "telegram_webhook_url": HOOK_URL,
            "telegram_webhook_listen": f"127.0.0.1:{port}",
        }
    async with FakeTelegram(flood=FloodLimits()) as tg:
        tg.add_chat(GROUP, "supergroup", "A busy group")
        for chat in OTHERS:
            tg.add_chat(chat)
        adapter, _ = await start_bot(make_app, tg, sqlite_engine, settings=settings)
        local = f"http://127.0.0.1:{port}/telegram/hook" if mode == "webhook" else None
        pusher = Pusher(local, adapter.webhook_secret())
        delays = []
        try:
            async with aiohttp.ClientSession() as http:
                flood = [tg.inject_message(GROUP, MEMBER, "/help") for _ in range(FLOOD)]
                await asyncio.gather(*(pusher.push(http, update) for update in flood))
                for chat in OTHERS:
                    asked = time.monotonic()
                    await pusher.push(http, tg.inject_message(chat, chat, "/help"))
                    await tg.wait_for_sent(chat, 1, WAIT, "sendMessage")
                    delays.append(time.monotonic() - asked)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
    print(f"{mode}: other chats answered after {', '.join(f'{d:.2f}' for d in delays)} s")
    assert max(delays) <= 2.0
    assert len(tg.sent(GROUP)) < FLOOD  # the group's backlog was still waiting its turn


async def test_a_servers_flood_of_300_interactions_delays_another_chat_by_two_seconds_at_most(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    """Tried: 300 /help in a server's channel at once (the channel new to the bot), then /help
    in a direct message."""
    async with running_fake_discord(rate_limits=FAST) as fake:
        adapter, _ = await start_adapter(make_app, fake, sqlite_engine)
        try:
            flood = [fake.slash_command("help", user_id=MEMBER_ID) for _ in range(FLOOD)]
            for payload in flood:
                await fake.dispatch("INTERACTION_CREATE", payload)
            asked = time.monotonic()
            other = fake.slash_command("help", user_id=OWNER_ID, dm=True)
            await fake.dispatch("INTERACTION_CREATE", other)
            await fake.wait_for_response(other["id"], "callback", timeout=WAIT)
            delay = time.monotonic() - asked
            await fake.wait_for_response(flood[-1]["id"], "callback", timeout=6 * WAIT)
        finally:
            await asyncio.wait_for(adapter.stop(), WAIT)
    print(f"discord: another chat answered after {delay:.2f} s")
    assert delay <= 2.0
    answers = [e.data for e in fake.events if e.kind == "interaction_response"]
    assert OOPS not in str(answers)  # none lost racing another to store the new channel
