"""Several `digestbot run` replicas on one PostgreSQL database: the leader dies mid-broadcast,
another replica takes over the scheduled jobs, and no digest is lost or doubled."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from datetime import UTC, datetime

import pytest
from sqlmodel import Session

from digests.store.engine import open_engine
from digests.store.lease import holder_of
from tests.fakes.bot_process import add_chats, bot_env, start_bot, stored_parts
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, sent_text
from tests.waiting import wait_until

pytestmark = pytest.mark.postgres

GROUP_ONE = range(2_000_000, 2_000_150)  # due when the replicas start
GROUP_TWO = range(2_100_000, 2_100_050)  # appear only after the leader died


def lease_holder(engine) -> str | None:
    with Session(engine) as session:
        return holder_of(session, "scheduler", now=datetime.now(UTC))


def served(telegram: FakeTelegram, chats, parts_per_chat: int = 1) -> int:
    """Chats that have seen at least `parts_per_chat` different parts."""
    return sum(len({sent_text(r) for r in telegram.sent(chat)}) >= parts_per_chat for chat in chats)


async def test_a_replica_takes_over_when_the_leader_dies(tmp_path, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("replicas share a PostgreSQL database")
    now = datetime.now(UTC)
    # The fake server shares this event loop: keep the test's own database reads short.
    engine = open_engine(database_url)
    add_chats(database_url, GROUP_ONE, now=now, seed_papers=True)
    async with FakeTelegram(flood=FloodLimits()) as telegram:
        for chat in [*GROUP_ONE, *GROUP_TWO]:
            telegram.add_chat(chat, type="private")
        env = bot_env(
            database_url,
            telegram,
            SCHEDULER_LEASE_SECONDS="6",
            SCHEDULER_TICK_SECONDS="1",
            DELIVERY_LEASE_SECONDS="5",
        )
        log = tmp_path / "replicas.log"
        replicas = {
            "replica-a": start_bot({**env, "INSTANCE_NAME": "replica-a"}, log),
            # Only one process may long-poll a bot token; the other only sends.
            "replica-b": start_bot(
                {**env, "INSTANCE_NAME": "replica-b", "TELEGRAM_POLLING": "false"}, log
            ),
        }
        try:
            assert await wait_until(lambda: served(telegram, GROUP_ONE) >= 30, 60), log.read_text()
            deliveries, parts = await asyncio.to_thread(stored_parts, database_url)
            per_chat = parts // deliveries  # every chat's digest has the same parts
            leader = lease_holder(engine)
            (survivor,) = set(replicas) - {leader}
            replicas[leader].send_signal(signal.SIGKILL)
            replicas[leader].wait(10)
            killed_at = datetime.now(UTC)
            # In a thread: the fake server in this loop must keep answering meanwhile.
            await asyncio.to_thread(add_chats, database_url, GROUP_TWO, now=datetime.now(UTC))
            took_over = await wait_until(lambda: lease_holder(engine) == survivor, 60)
            takeover = (datetime.now(UTC) - killed_at).total_seconds()
            assert took_over and takeover < 60
            everyone = [*GROUP_ONE, *GROUP_TWO]
            all_served = await wait_until(
                lambda: served(telegram, everyone, per_chat) == len(everyone), 90
            )
            assert all_served, log.read_text()[-3000:]
            replicas[survivor].send_signal(signal.SIGTERM)
            # Waited for in a thread: the fake server in this loop answers the last calls.
            assert await asyncio.to_thread(replicas[survivor].wait, 10) == 0
        finally:
            for process in replicas.values():
                if process.poll() is None:
                    process.kill()
        sent = {chat: Counter(sent_text(r) for r in telegram.sent(chat)) for chat in everyone}
    repeats = [chat for chat, counts in sent.items() if sum(counts.values()) > len(counts)]
    assert all(len(counts) == per_chat for counts in sent.values())  # every part, none lost
    assert all(sum(sent[c].values()) == per_chat for c in GROUP_TWO)  # planned once, by survivor
    assert len(repeats) <= 32 and all(sum(sent[c].values()) == per_chat + 1 for c in repeats)
    print(f"takeover after {takeover:.1f} s; in-flight parts repeated: {len(repeats)}")
