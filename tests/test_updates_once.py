"""Each update handled once: a Telegram update pushed to the webhook again (same update id,
same callback id) is acknowledged and ignored, so a replayed vote does not flip; a Discord
interaction delivered again is not run again. On both backends, with the real
python-telegram-bot and discord.py against the fake servers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import aiohttp
from sqlalchemy import Engine, select
from sqlmodel import Session

from bot.app import App
from digests.store.models import Vote
from digests.topics.catalog import Catalog
from tests.fakes.discord_bot import FAST, start_adapter
from tests.fakes.discord_bot import WAIT as DISCORD_WAIT
from tests.fakes.discord_bot import Bot as DiscordBot
from tests.fakes.discord_bot import buttons as discord_buttons
from tests.fakes.discord_bot import digest_messages as discord_digest
from tests.fakes.discord_bot import press as discord_press
from tests.fakes.discord_server import running_fake_discord
from tests.fakes.telegram_bot import PRIVATE, WAIT, seed_papers, webhook_bot
from tests.fakes.telegram_server import FakeTelegram

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


async def push(http: aiohttp.ClientSession, url: str, update: dict) -> int:
    async with http.post(url, json=update) as answer:
        return answer.status


async def say(tg: FakeTelegram, http, url: str, text: str, answers: int) -> list[dict]:
    """Push a command through the webhook and wait until the chat has `answers` messages."""
    assert await push(http, url, tg.inject_message(PRIVATE, PRIVATE, text)) == 200
    return await tg.wait_for_sent(PRIVATE, answers, WAIT, "sendMessage")


def votes(engine: Engine) -> list[int]:
    with Session(engine) as session:
        return [vote.value for vote in session.exec(select(Vote)).scalars()]


async def test_a_vote_pushed_twice_is_counted_once_and_not_withdrawn(
    make_app: Callable[..., App], engine: Engine, catalog: Catalog
) -> None:
    seed_papers(engine, catalog, count=12)
    async with webhook_bot(make_app, engine) as (tg, adapter, url):
        secret = {SECRET_HEADER: adapter.webhook_secret()}
        async with aiohttp.ClientSession(headers=secret) as http:
            await say(tg, http, url, "/follow rl for llm agents", 1)
            sent = await say(tg, http, url, "/digest", 3)
            (part,) = [message for message in sent if message.get("reply_markup")]
            up, _ = part["reply_markup"]["inline_keyboard"][0]
            press = tg.inject_callback_query(
                PRIVATE, PRIVATE, up["callback_data"], part["message_id"]
            )
            assert await push(http, url, press) == 200
            assert await push(http, url, press) == 200  # Telegram, or anyone, sends it again
            await say(tg, http, url, "/help", len(sent) + 1)  # every update before it is done
            after_twice = votes(engine)
            replayed = {**press, "update_id": press["update_id"] + 1000}  # same callback id
            assert await push(http, url, replayed) == 200
            await say(tg, http, url, "/help", len(sent) + 2)
    assert after_twice == [1] and votes(engine) == [1]
    answers = [answer["text"] for answer in tg.callback_answers]
    assert len(answers) == 1 and answers[0].startswith("👍 counted")


async def test_a_discord_press_delivered_twice_is_counted_once(
    make_app: Callable[..., App], engine: Engine, catalog: Catalog
) -> None:
    """Tried: the same INTERACTION_CREATE (same interaction id) dispatched a second time, as a
    gateway replay would; then another press, whose answer shows both were taken in."""
    async with running_fake_discord(rate_limits=FAST) as fake:
        adapter, services = await start_adapter(make_app, fake, engine)
        bot = DiscordBot(fake, adapter, services, engine)
        try:
            (first, *_) = await discord_digest(bot, catalog, papers=3)
            counted = await discord_press(bot, first, discord_buttons(first)[0]["custom_id"])
            replayed = bot.sent[-1]
            await bot.dispatch(replayed)
            other = discord_buttons(first)[2]["custom_id"]  # the second paper's 👍
            assert (await discord_press(bot, first, other))["content"].startswith("👍 counted")
        finally:
            await asyncio.wait_for(adapter.stop(), DISCORD_WAIT)
    assert counted["content"].startswith("👍 counted")
    assert sorted(votes(engine)) == [1, 1]  # the replay withdrew nothing
