"""One leader per database: a second `digestbot run` on the same SQLite file, or under the same
INSTANCE_NAME on PostgreSQL, refuses to start in one line, and the first one goes on alone."""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine

from digests.store.instance import InstanceInUse, hold_instance
from tests.fakes.bot_process import add_chats, bot_env, start_bot
from tests.fakes.telegram_server import FakeTelegram, sent_text
from tests.waiting import wait_until

CHATS = range(7_000_000, 7_000_020)


async def test_a_second_run_on_the_same_database_and_name_refuses_and_the_first_sends_once(
    tmp_path, database_url
):
    add_chats(database_url, CHATS, now=datetime.now(UTC), seed_papers=True)
    log = tmp_path / "first.log"
    async with FakeTelegram(flood=None) as telegram:
        for chat in CHATS:
            telegram.add_chat(chat, type="private")
        # The same name both times, as two runs on one host get by default.
        env = bot_env(database_url, telegram, INSTANCE_NAME="lab-server")
        first, second = start_bot(env, log), None
        try:
            assert await wait_until(lambda: len(telegram.sent(CHATS[0])) > 0, 30), log.read_text()
            second = await asyncio.create_subprocess_exec(
                *first.args,
                env={**env, "TELEGRAM_POLLING": "false"},
                stderr=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
            )
            _, err = await asyncio.wait_for(second.communicate(), 30)
            assert await wait_until(lambda: all(telegram.sent(c) for c in CHATS), 30)
            await asyncio.sleep(1)  # what a second leader would have doubled, it has by now
            first.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(first.wait, 10) == 0
        finally:
            if first.poll() is None:
                first.kill()
            if second is not None and second.returncode is None:
                second.kill()  # it should have refused to start
                await second.wait()
    refusal = err.decode().strip().splitlines()[-1]
    assert second.returncode == 2, err.decode()[-2000:]
    if database_url.startswith("sqlite"):
        assert refusal.startswith("digestbot: another digestbot run (pid ")
        assert "SQLite serves one process" in refusal
    else:
        assert refusal.startswith("digestbot: INSTANCE_NAME 'lab-server' is in use")
    copies = [Counter(sent_text(r) for r in telegram.sent(chat)) for chat in CHATS]
    assert all(set(counts.values()) == {1} for counts in copies)  # every part once


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_a_second_run_through_a_link_to_the_sqlite_file_refuses(tmp_path, link):
    real = tmp_path / "data" / "digestbot.db"
    real.parent.mkdir()
    other = tmp_path / "elsewhere" / "bot.db"
    other.parent.mkdir()
    first, second = create_engine(f"sqlite:///{real}"), create_engine(f"sqlite:///{other}")
    with first.connect():  # the file exists, as after the start-up migration
        pass
    if link == "symlink":
        other.symlink_to(real)
    else:
        os.link(real, other)
    refused = pytest.raises(InstanceInUse, match=r"SQLite serves one process")
    with hold_instance(first, "lab"), refused, hold_instance(second, "lab", patience=0):
        pass
    with hold_instance(second, "lab", patience=0):  # free again once the first stopped
        pass
