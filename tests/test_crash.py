"""A crash mid-broadcast loses nothing: `digestbot run` is killed with SIGKILL and restarted.

The real process talks to the fake Telegram server through python-telegram-bot. Every chat must
end up with every part of its digest exactly once; the only repeat allowed is the one part a
chat had in flight at the moment of the kill (the Bot API has no idempotency key).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlmodel import Session

from bot.app import build_app
from bot.settings import load_settings
from digests.papers.ingest import ingest_records
from digests.store import channels, repo
from digests.store.models import Delivery, DeliveryPart
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, sent_text
from tests.papers import paper_record
from tests.waiting import wait_until

CHATS = 500
FIRST_CHAT = 1_000_000


def add_chats(
    database_url: str,
    chats,
    *,
    now: datetime,
    seed_papers: bool = False,
    platform: str = "telegram",
) -> None:
    """Private chats following one topic, each due five minutes ago; optionally a week of
    tagged papers for their digest."""
    app = build_app(load_settings(database_url=database_url), clock=lambda: now)
    app.usecases.sync_catalog()
    due = now - timedelta(minutes=5)
    with app.session() as session:
        if seed_papers:
            # Tagged two days ago: inside the period of a digest due five minutes ago, even
            # when that was before midnight (its period then ended the day before yesterday).
            records = [
                paper_record(
                    n,
                    now - timedelta(days=3),
                    arxiv_id=f"2611.{n:05d}",
                    title=f"Reinforcement learning for LLM agents with tool use, part {n}",
                    abstract="We train language model agents with reinforcement learning on "
                    "web tasks.",
                    authors=("Ada Lovelace", "Alan Turing"),
                )
                for n in range(1, 9)
            ]
            ingest_records(
                session,
                records,
                tagger=app.tagger,
                catalog=app.catalog,
                now=now - timedelta(days=2),
            )
        topic_id = repo.topic_rows(session)["rl-for-llm-agents"].id
        for chat in chats:
            channel = channels.get_or_create_channel(
                session,
                platform=platform,
                chat_id=str(chat),
                kind="private",
                now=now - timedelta(days=8),
            )
            channel.digest_weekday, channel.digest_time = due.weekday(), due.strftime("%H:%M")
            channels.follow(session, channel, topic_id, now=now - timedelta(days=8))
        session.commit()
    app.close()


def bot_env(database_url: str, telegram: FakeTelegram, **settings: str) -> dict:
    """`digestbot run`'s environment: this database, the fake Telegram, arXiv unreachable."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "TELEGRAM_TOKEN": telegram.token,
        "TELEGRAM_API_URL": telegram.api_url.removesuffix("/bot"),
        "ARXIV_API_URL": "http://127.0.0.1:9/api",
        "ARXIV_RSS_URL": "http://127.0.0.1:9",
        "LOG_LEVEL": "WARNING",
        **settings,
    }


def start_bot(env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bot", "run"],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def stored_parts(database_url: str) -> tuple[int, int]:
    app = build_app(load_settings(database_url=database_url), migrate=False)
    with Session(app.engine) as session:
        parts = session.execute(select(func.count()).select_from(DeliveryPart)).scalar_one()
        deliveries = session.execute(select(func.count()).select_from(Delivery)).scalar_one()
    app.close()
    return deliveries, parts


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
