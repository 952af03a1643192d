"""A member flooding a group with /digest costs that group a few messages and nobody else any
time: the real python-telegram-bot against the fake Bot API with Telegram's real flood limits."""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import Engine

from digests.topics.catalog import Catalog
from tests.fakes.telegram_bot import (
    ADMIN,
    GROUP,
    MEMBER,
    PRIVATE,
    WAIT,
    Bot,
    seed_papers,
    start_bot,
)
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, sent_text

SPAM = 15


async def test_fifteen_digests_asked_in_a_group_delay_another_chats_help_by_two_seconds_at_most(
    make_app, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    async with FakeTelegram(flood=FloodLimits()) as tg:
        tg.add_chat(PRIVATE)
        tg.add_chat(GROUP, "supergroup", "ML reading group", admins={ADMIN: "administrator"})
        adapter, services = await start_bot(make_app, tg, sqlite_engine)
        bot = Bot(tg, adapter, services, sqlite_engine)
        try:
            await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
            for _ in range(SPAM):
                tg.inject_message(GROUP, MEMBER, "/digest")
            asked = time.monotonic()
            help_answer = await bot.say(PRIVATE, PRIVATE, "/help")
            waited = time.monotonic() - asked
            digest_parts = len(adapter.render_digest(bot.digest(GROUP), title="Your digest"))
            expected = 1 + 1 + digest_parts + 1  # follow, "Your digest", its parts, one notice
            await tg.wait_for_sent(GROUP, expected, WAIT)
            await bot.handled_all(GROUP)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
    print(f"/help answered {waited:.2f} s after {SPAM} /digest in a group")
    assert help_answer["text"].startswith("I bring arXiv research topics")
    assert waited <= 2.0
    group = [sent_text(record) for record in tg.sent(GROUP)]
    assert len(group) == expected + 1  # and the /help typed by handled_all
    assert sum("works again here in" in text for text in group) == 1
    assert tg.flood_count == 0  # the group never ran into Telegram's limit
