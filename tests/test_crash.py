"""A crash mid-broadcast loses nothing: `digestbot run` is killed with SIGKILL and restarted.

The real process talks to the fake Telegram server through python-telegram-bot. Every chat must
end up with every part of its digest exactly once; the only repeat allowed is the one part a
chat had in flight at the moment of the kill (the Bot API has no idempotency key).
"""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from datetime import UTC, datetime

from tests.fakes.bot_process import add_chats, bot_env, start_bot, stored_parts
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, sent_text
from tests.waiting import wait_until

CHATS = 500
FIRST_CHAT = 1_000_000


def chats_served(telegram: FakeTelegram, parts_per_chat: int) -> int:
    return sum(
        len({sent_text(record) for record in telegram.sent(FIRST_CHAT + n)}) >= parts_per_chat
        for n in range(CHATS)
    )


def all_sent(telegram: FakeTelegram) -> int:
    return sum(len(telegram.sent(FIRST_CHAT + n)) for n in range(CHATS))


async def test_a_killed_broadcast_resumes_with_every_part_exactly_once(tmp_path, database_url):
    now = datetime.now(UTC)
    add_chats(database_url, range(FIRST_CHAT, FIRST_CHAT + CHATS), now=now, seed_papers=True)
    async with FakeTelegram(flood=FloodLimits()) as telegram:
        for n in range(CHATS):
            telegram.add_chat(FIRST_CHAT + n, type="private")
        env = bot_env(database_url, telegram)
        log = tmp_path / "bot.log"
        first = start_bot(env, log)
        try:
            assert await wait_until(lambda: all_sent(telegram) >= 120, 60), log.read_text()
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(10)
        at_kill = all_sent(telegram)
        second = start_bot(env, log)
        try:
            # In a thread: the fake server in this loop must keep answering meanwhile.
            deliveries, parts = await asyncio.to_thread(stored_parts, database_url)
            assert deliveries == CHATS
            per_chat = parts // CHATS
            finished = await wait_until(lambda: chats_served(telegram, per_chat) == CHATS, 120)
            assert finished, log.read_text()[-3000:]
            second.send_signal(signal.SIGTERM)
            # Waited for in a thread: the fake server in this loop answers the last calls.
            assert await asyncio.to_thread(second.wait, 10) == 0  # a clean exit within 10 s
        finally:
            if second.poll() is None:
                second.kill()
        received = [telegram.sent(FIRST_CHAT + n) for n in range(CHATS)]
    repeats = {}
    for n, records in enumerate(received):
        counts = Counter(sent_text(record) for record in records)
        assert len(counts) == per_chat, f"chat {n} misses a part"
        extra = sum(count - 1 for count in counts.values())
        assert extra <= 1, f"chat {n} received a part {extra + 1} times"
        if extra:
            repeats[FIRST_CHAT + n] = extra
    print(f"killed after {at_kill} of {parts} parts; in-flight parts repeated: {len(repeats)}")
    assert len(repeats) <= 32  # at most one per delivery worker in flight at the kill
