"""👍/👎 on Discord: the real discord.py against the fake Discord (message components,
component interactions, ephemeral answers), also after the bot restarts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from bot.app import App
from digests.store.models import Vote
from digests.topics.catalog import Catalog
from tests.fakes.discord_bot import (
    WAIT,
    Bot,
    buttons,
    digest_messages,
    press,
    running_bot,
    start_adapter,
)
from tests.fakes.discord_server import FakeDiscord


@pytest.fixture
async def bot(
    make_app: Callable[..., App], discord_fake: FakeDiscord, sqlite_engine: Engine
) -> AsyncIterator[Bot]:
    async with running_bot(make_app, discord_fake, sqlite_engine, answered_once=False) as bot:
        yield bot


def stored_votes(engine: Engine) -> list[Vote]:
    with Session(engine) as session:
        return list(session.exec(select(Vote)).scalars())


async def test_each_message_carries_the_buttons_of_its_own_papers_within_discords_limits(
    bot: Bot, catalog: Catalog
) -> None:
    messages = await digest_messages(bot, catalog, papers=24)
    assert len(messages) >= 3  # 24 papers, at most ten to a message with buttons
    labels = [b["label"] for m in messages for b in buttons(m)]
    assert labels == [f"{thumb} {n}" for n in range(1, 25) for thumb in ("👍", "👎")]
    for message in messages:
        assert len(message["components"]) <= 5
        assert all(len(row["components"]) <= 5 for row in message["components"])
        numbers = {b["label"].split()[1] for b in buttons(message)}
        text = "\n".join(e["description"] for e in message["embeds"])
        assert all(f"**{n}. [" in text for n in numbers)  # a button's paper is in its message


async def test_a_press_is_counted_privately_and_a_second_press_withdraws_it(
    bot: Bot, catalog: Catalog
) -> None:
    (first, *_) = await digest_messages(bot, catalog, papers=6)
    up, down = buttons(first)[:2]

    counted = await press(bot, first, up["custom_id"])
    assert counted["content"].startswith("👍 counted")
    assert [v.value for v in stored_votes(bot.engine)] == [1]
    changed = await press(bot, first, down["custom_id"])
    assert changed["content"].startswith("Changed to 👎")
    withdrawn = await press(bot, first, down["custom_id"])
    assert withdrawn["content"].startswith("Your 👎 is withdrawn")
    assert stored_votes(bot.engine) == []


async def test_forged_buttons_count_nothing(bot: Bot, catalog: Catalog) -> None:
    (first, *_) = await digest_messages(bot, catalog, papers=3)
    forged = await press(bot, first, "v:AAAAAAAAAAAA:+")
    malformed = await press(bot, first, "v:" + "@everyone" * 5)
    assert "not sent to this chat" in forged["content"]
    assert "not one of mine" in malformed["content"]
    assert "@everyone" not in malformed["content"]
    assert stored_votes(bot.engine) == []


async def test_buttons_keep_working_after_the_bot_restarts(
    make_app: Callable[..., App], discord_fake: FakeDiscord, sqlite_engine: Engine, catalog: Catalog
) -> None:
    fake = discord_fake
    adapter, services = await start_adapter(make_app, fake, sqlite_engine)
    try:
        (first, *_) = await digest_messages(
            Bot(fake, adapter, services, sqlite_engine), catalog, papers=3
        )
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)

    adapter, services = await start_adapter(make_app, fake, sqlite_engine)
    try:
        restarted = Bot(fake, adapter, services, sqlite_engine)
        answer = await press(restarted, first, buttons(first)[0]["custom_id"])
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)
    assert answer["content"].startswith("👍 counted")
    assert [v.value for v in stored_votes(sqlite_engine)] == [1]
