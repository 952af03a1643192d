"""Duplicates when Telegram accepts messages but answers late, by how late.

    .venv/bin/python bench/bench_slow_answers.py [--delays 5 12 25 45] [--chats 20] [--scale 1]

A three-part digest goes to each of `--chats` private chats through the real adapter
(python-telegram-bot) and Dispatcher; the fake Bot API records every send at once and answers
after the delay. Prints, per delay, the extra copies that reached the chats (the send was
retried though it went out), the parts taken as sent after two sends without an answer, and the
time the broadcast took. It runs with digestbot's send timeout and with python-telegram-bot's
default (5 s), which digestbot used before. `--scale 0.1` runs ten times faster (every delay
and timeout scaled alike). Each delay is one run: with a fixed delay the outcome does not vary.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import SecretStr

from bot.app import build_app
from bot.platforms.telegram import TelegramAdapter
from bot.settings import Settings
from digests.store.engine import open_engine, upgrade_schema
from digests.usecases.dispatch import SEND_TIMEOUT
from tests.fakes.telegram_server import FakeTelegram, sent_text
from tests.queued import queue_digests

logging.disable(logging.WARNING)  # the parts taken as sent are counted, not logged

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)
PTB_DEFAULT_TIMEOUT = 5.0
PARTS = [{"text": f"digest part {n}"} for n in range(3)]


async def broadcast(chats: int, delay: float, timeout: float, scale: float) -> tuple:
    with tempfile.TemporaryDirectory() as folder:
        engine = open_engine(f"sqlite:///{folder}/bench.db")
        upgrade_schema(engine)

        chat_ids = [6_000_000 + n for n in range(chats)]
        queue_digests(engine, chat_ids, PARTS, now=NOW)
        async with FakeTelegram(flood=None) as tg:
            for chat in chat_ids:
                tg.add_chat(chat, type="private")
            tg.answer_delay = delay * scale
            settings = Settings(
                database_url=engine.url.render_as_string(hide_password=False),
                telegram_token=SecretStr(tg.token),
                telegram_api_url=tg.base_url,
                telegram_polling=False,
            )
            app = build_app(settings, migrate=False, clock=lambda: NOW)
            dispatcher = app.usecases.dispatcher
            dispatcher.backoff_base = 1.0 * scale
            adapter = TelegramAdapter(settings, app.usecases, send_timeout=timeout * scale)
            app.usecases.add_platform(adapter)
            await adapter.start()
            try:
                started = time.monotonic()
                report = await dispatcher.drain()
                seconds = (time.monotonic() - started) / scale
            finally:
                await adapter.stop()
                app.close()
            copies = [Counter(sent_text(r) for r in tg.sent(chat)) for chat in chat_ids]
        engine.dispose()
    extra = sum(n - 1 for counts in copies for n in counts.values())
    most = max(n for counts in copies for n in counts.values())
    return extra, most, report.unconfirmed, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", type=float, nargs="+", default=[5, 12, 25, 45])
    parser.add_argument("--chats", type=int, default=20)
    parser.add_argument("--scale", type=float, default=1.0, help="run N times as fast (< 1)")
    args = parser.parse_args()
    parts = args.chats * len(PARTS)
    print(f"{args.chats} chats, {parts} parts; times in unscaled seconds")
    print(
        "| send timeout | answer after | extra copies | most copies of a part | "
        "taken as sent | broadcast took |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for timeout in (PTB_DEFAULT_TIMEOUT, SEND_TIMEOUT):
        for delay in args.delays:
            extra, most, unconfirmed, seconds = asyncio.run(
                broadcast(args.chats, delay, timeout, args.scale)
            )
            print(
                f"| {timeout:.0f} s | {delay:.0f} s | {extra} | {most} | {unconfirmed} | "
                f"{seconds:.0f} s |",
                flush=True,
            )


if __name__ == "__main__":
    main()
