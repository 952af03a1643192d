"""Telegram accepts a message but answers late: at most one extra copy of a part, ever.

The fake records each send at once and answers after `answer_delay`; python-telegram-bot waits
for the answer up to the adapter's send timeout. Time is scaled 40 times down (a 12 s answer
takes 0.3 s, the 30 s send timeout 0.75 s), so the ratio the product meets is the one tested.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from sqlalchemy import Engine, select
from sqlmodel import Session

from digests.store.models import DeliveryPart
from digests.usecases.dispatch import SEND_TIMEOUT, DrainReport
from tests.fakes.telegram_bot import NOW, WAIT, start_bot
from tests.fakes.telegram_server import FakeTelegram, sent_text
from tests.queued import queue_digests

SCALE = 1 / 40
CHATS = [5_000_000 + n for n in range(20)]
PARTS = [{"text": f"digest part {n}"} for n in range(3)]


async def broadcast(make_app, engine: Engine, answer_after: float):
    """Every chat's three-part digest, sent while each answer takes `answer_after` seconds
    (unscaled); returns the copies each chat received of each part, and the drain's report."""
    async with FakeTelegram(flood=None) as telegram:
        for chat in CHATS:
            telegram.add_chat(chat, type="private")
        telegram.answer_delay = answer_after * SCALE
        adapter, services = await start_bot(
            make_app, telegram, engine, send_timeout=SEND_TIMEOUT * SCALE
        )
        services.dispatcher.backoff_base = SCALE
        queue_digests(engine, CHATS, PARTS, now=NOW)
        try:
            report = await asyncio.wait_for(services.dispatcher.drain(), 30)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
    copies = {chat: Counter(sent_text(record) for record in telegram.sent(chat)) for chat in CHATS}
    return copies, report


def unknown_outcomes(engine: Engine) -> Counter:
    with Session(engine) as session:
        return Counter(session.execute(select(DeliveryPart.unknown_outcomes)).scalars())


async def test_answers_after_12_seconds_bring_no_duplicate(make_app, sqlite_engine):
    copies, report = await broadcast(make_app, sqlite_engine, answer_after=12)

    extra = sum(n - 1 for counts in copies.values() for n in counts.values())
    print(f"12 s answers: {extra} extra copies of {len(CHATS) * len(PARTS)} parts")
    assert all(counts == Counter(p["text"] for p in PARTS) for counts in copies.values())
    assert (report.delivered, report.unconfirmed) == (len(CHATS), 0)


async def test_answers_slower_than_the_timeout_bring_one_extra_copy_at_most_recorded_as_such(
    make_app, sqlite_engine
):
    copies, report = await broadcast(make_app, sqlite_engine, answer_after=2 * SEND_TIMEOUT)

    parts = len(CHATS) * len(PARTS)
    assert all(set(counts.values()) == {2} for counts in copies.values())  # sent twice, not 3×
    assert report == DrainReport(delivered=len(CHATS), unconfirmed=parts)
    # Each recorded as unanswered twice.
    assert unknown_outcomes(sqlite_engine) == Counter({2: parts})
