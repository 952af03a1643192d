"""Starting while a chat platform cannot be reached: the bot says so, keeps trying with backoff
and serves once the platform answers; it does not exit. (A refused token, which no retry
mends, stops it in one line: see test_secrets.)"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
from datetime import timedelta

import pytest

from bot.app import build_app
from bot.runner import Runtime
from bot.settings import load_settings
from tests.fakes.clock import MONDAY_9, Clock
from tests.fakes.discord_server import DIGESTS_ID, GENERAL_ID, FakeDiscord, pointing_discord_py
from tests.fakes.telegram_server import FakeTelegram
from tests.papers import seed_followed_week
from tests.waiting import wait_until

CHAT = 4_000_000
# The chats of tests/test_outage.py, CHAT among them, follow a topic.
CHATS = [("telegram", str(4_000_000 + n)) for n in range(5)]
CHATS += [("discord", str(c)) for c in (DIGESTS_ID, GENERAL_ID)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def brief(seconds: float) -> None:
    await asyncio.sleep(min(seconds, 0.05))  # backoff waits, shortened


def platform_settings(platform: str, port: int) -> dict:
    if platform == "telegram":
        url = f"http://127.0.0.1:{port}"
        return {"telegram_token": "123456:TEST-token", "telegram_api_url": url}
    return {
        "discord_token": "fake-bot-token",
        "discord_api_url": f"http://127.0.0.1:{port}/api/v10",
        "discord_gateway_url": f"ws://127.0.0.1:{port}/gateway",
    }


async def serve_platform(platform: str, port: int):
    fake = FakeTelegram(flood=None) if platform == "telegram" else FakeDiscord(port=port)
    if platform == "telegram":
        await fake.start(port)
        fake.add_chat(CHAT, type="private")
    else:
        await fake.start()
    return fake


def ours(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "digestbot"]


def received(platform: str, fake) -> int:
    return len(fake.sent(CHAT) if platform == "telegram" else fake.messages(DIGESTS_ID))


@pytest.mark.parametrize("platform", ["telegram", "discord"])
async def test_a_platform_unreachable_at_start_is_retried_until_it_answers(
    sqlite_url, platform, caplog
):
    port = free_port()
    settings = load_settings(
        database_url=sqlite_url, telegram_polling=False, **platform_settings(platform, port)
    )
    clock = Clock(MONDAY_9 + timedelta(minutes=1))
    app = build_app(settings, clock=clock, sleep=brief)
    app.usecases.sync_catalog()
    seed_followed_week(app, MONDAY_9 - timedelta(days=3), CHATS)
    with pointing_discord_py(settings.discord_api_url, settings.discord_gateway_url):
        runtime = Runtime(app)
        try:
            with caplog.at_level(logging.WARNING, logger="digestbot"):
                await asyncio.wait_for(runtime.start(), 10)  # returns: nothing to connect to
                await runtime.lead()  # plans the digest, which cannot go out yet
                await runtime.drain()
                assert await wait_until(lambda: len(ours(caplog)) >= 2, 5)
            assert platform not in runtime.dispatcher.senders
            fake = await serve_platform(platform, port)
            try:
                assert await wait_until(lambda: platform in runtime.dispatcher.senders, 15)
                await runtime.lead()
                await runtime.drain()
                assert received(platform, fake) >= 1
            finally:
                await runtime.stop()
                await fake.stop()
        finally:
            app.close()
    said = ours(caplog)
    assert said[0].startswith(f"{platform}: cannot connect (") and "retrying" in said[0]
    assert any(line.startswith(f"{platform}: still cannot connect") for line in said[1:])


def test_a_health_port_already_in_use_stops_the_run_in_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            **os.environ,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'digestbot.db'}",
            "ARXIV_API_URL": "http://127.0.0.1:9/api",
            "ARXIV_RSS_URL": "http://127.0.0.1:9",
            "HEALTH_HOST": "127.0.0.1",
            "HEALTH_PORT": str(port),
        }
        finished = subprocess.run(
            [sys.executable, "-m", "bot", "run"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert finished.returncode == 2, finished.stderr[-2000:]
    last = finished.stderr.splitlines()[-1]
    assert last.startswith(f"digestbot: cannot listen on 127.0.0.1:{port}: ")
    assert "Traceback" not in finished.stderr
