"""No secret in any log line: a whole `digestbot run` at DEBUG, against both fake platforms.

httpx logs every request URL, and a Telegram bot's URL carries its token; python-telegram-bot
quotes a rejected token in its error. The run below sends digests on both platforms, answers a
command and meets failed sends, all at LOG_LEVEL=DEBUG; then a run with a refused token stops.
Neither log may hold a token.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
from datetime import UTC, datetime

from tests.fakes.bot_process import add_chats, bot_env, start_bot
from tests.fakes.discord_server import DIGESTS_ID, running_fake_discord
from tests.fakes.telegram_server import FakeTelegram
from tests.waiting import wait_until

TELEGRAM_TOKEN = "7123456789:AAHk3vQx-realistic_Secret_Part_0123456"
DISCORD_TOKEN = "MTEwMDAwMDAwMDAwMDAwMDAx.GhJkLm.realistic-discord-secret-0123456789ab"
CHATS = range(3_000_000, 3_000_005)
USER = 3_000_000


async def test_a_run_at_debug_logs_no_token(tmp_path, database_url):
    now = datetime.now(UTC)
    add_chats(database_url, CHATS, now=now, seed_papers=True)
    add_chats(database_url, [DIGESTS_ID], now=now, platform="discord")
    log = tmp_path / "run.log"
    async with (
        FakeTelegram(TELEGRAM_TOKEN, flood=None) as telegram,
        running_fake_discord(token=DISCORD_TOKEN) as discord,
    ):
        for chat in CHATS:
            telegram.add_chat(chat, type="private")
        telegram.fail_next("sendMessage", 502, "Bad Gateway", times=2)
        telegram.inject_message(USER, USER, "/help")
        env = bot_env(
            database_url,
            telegram,
            LOG_LEVEL="DEBUG",
            DISCORD_TOKEN=DISCORD_TOKEN,
            DISCORD_API_URL=discord.api_url,
            DISCORD_GATEWAY_URL=discord.gateway_url,
        )
        bot = start_bot(env, log)
        try:

            def served() -> bool:
                return all(len(telegram.sent(c)) >= 2 for c in CHATS) and bool(
                    discord.messages(DIGESTS_ID)
                )

            assert await wait_until(served, 60), log.read_text()[-3000:]
            bot.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(bot.wait, 10) == 0
        finally:
            if bot.poll() is None:
                bot.kill()
        refused = {**env, "TELEGRAM_TOKEN": TELEGRAM_TOKEN.replace("Secret", "Wrong0")}
        result = await asyncio.to_thread(
            subprocess.run, bot.args, env=refused, capture_output=True, text=True, timeout=60
        )
    text = log.read_text()
    assert "HTTP Request: POST" in text and "/bot[redacted]/sendMessage" in text  # redacted
    assert "Bad Gateway" in text  # the failed sends were logged too
    assert TELEGRAM_TOKEN not in text and DISCORD_TOKEN not in text
    assert TELEGRAM_TOKEN.split(":")[1] not in text and DISCORD_TOKEN.split(".")[2] not in text
    assert result.returncode == 2
    assert result.stderr.endswith("configuration: TELEGRAM_TOKEN was refused by the Bot API\n")
    assert "Wrong0" not in result.stderr + result.stdout
