"""The bot removed from a chat or server, or blocked, and added back: the channel pauses, its
deliveries wait (marked with why), and re-adding resumes it with a short welcome. Through the
real python-telegram-bot and discord.py against the fakes, and the use cases on both databases.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from bot.app import App
from digests.delivery.sending import Address, ChatUnavailable
from digests.store import channels, deliveries
from digests.store.models import Delivery
from digests.usecases.commands import Caller
from tests.fakes.discord_bot import Bot as DiscordBot
from tests.fakes.discord_server import DIGESTS_ID, GENERAL_ID, GUILD_ID, STAFF_ID
from tests.fakes.senders import RecordingSender
from tests.fakes.telegram_bot import ADMIN, GROUP, PRIVATE, RL, WAIT, Bot, enqueue_digest, visible
from tests.waiting import wait_until

pytestmark = pytest.mark.usefixtures("ptb_timedelta")  # for the Telegram bot
NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
DIGEST = [{"text": "weekly digest", "parse_mode": "HTML"}]


def pending(engine: Engine, platform: str, chat_id: int) -> list[Delivery]:
    with Session(engine) as session:
        channel = channels.find_channel(session, platform, str(chat_id))
        rows = session.exec(
            select(Delivery).where(Delivery.channel_id == channel.id, Delivery.status == "pending")
        ).scalars()
        return list(rows)


# --- Telegram ---------------------------------------------------------------------------------


async def removed_from(bot: Bot, chat_id: int, by: int, status: str = "left") -> None:
    bot.tg.inject_my_chat_member(chat_id, by, "administrator", status)
    assert await wait_until(lambda: bot.channel(chat_id).paused_reason is not None, WAIT)


async def test_removing_the_bot_from_a_group_pauses_it_and_holds_its_digest(
    telegram_bot: Bot,
) -> None:
    bot = telegram_bot
    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    enqueue_digest(bot, GROUP, DIGEST)
    await removed_from(bot, GROUP, ADMIN)

    assert bot.channel(GROUP).paused_reason == "the bot was removed from this chat"
    assert bot.follows(GROUP) == [RL]  # kept for when it comes back
    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.parts_sent == 0 and visible(bot.tg.sent(GROUP)[-1]) != "weekly digest"
    (held,) = pending(bot.engine, "telegram", GROUP)
    assert held.last_error == "held while paused: the bot was removed from this chat"
    lines = bot.services.status().lines()
    assert "channels: 1 (1 paused; 1 deliveries held for them)" in lines
    assert f"  paused telegram {GROUP}: the bot was removed from this chat" in lines


async def test_adding_the_bot_back_welcomes_the_group_and_sends_what_waited(
    telegram_bot: Bot,
) -> None:
    bot = telegram_bot
    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    enqueue_digest(bot, GROUP, DIGEST)
    await removed_from(bot, GROUP, ADMIN, status="kicked")
    before = len(bot.tg.sent(GROUP))

    bot.tg.inject_my_chat_member(GROUP, ADMIN, "kicked", "member")
    (welcome,) = (await bot.tg.wait_for_sent(GROUP, before + 1, WAIT))[before:]
    assert (
        visible(welcome) == "Hello again! Digests here resume: this chat follows RL for LLM Agents."
    )
    assert bot.channel(GROUP).paused_reason is None
    await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert visible(bot.tg.sent(GROUP)[-1]) == "weekly digest"


async def test_a_user_blocking_the_bot_pauses_their_chat_until_they_unblock(
    telegram_bot: Bot,
) -> None:
    bot = telegram_bot
    await bot.say(PRIVATE, PRIVATE, "/follow rl for llm agents")
    await removed_from(bot, PRIVATE, PRIVATE, status="kicked")
    assert bot.channel(PRIVATE).paused_reason == "the user blocked the bot"
    before = len(bot.tg.sent(PRIVATE))
    bot.tg.inject_my_chat_member(PRIVATE, PRIVATE, "kicked", "member")
    (welcome,) = (await bot.tg.wait_for_sent(PRIVATE, before + 1, WAIT))[before:]
    assert "this chat follows RL for LLM Agents" in visible(welcome)


async def test_a_bot_promoted_to_admin_is_not_welcomed_again(telegram_bot: Bot) -> None:
    bot = telegram_bot
    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    before = len(bot.tg.sent(GROUP))
    bot.tg.inject_my_chat_member(GROUP, ADMIN, "member", "administrator")
    await bot.handled_all(GROUP)  # updates of a chat are handled in order
    assert [visible(r) for r in bot.tg.sent(GROUP)[before:]][:-1] == []
    assert bot.channel(GROUP).paused_reason is None


# --- Discord ----------------------------------------------------------------------------------


async def test_a_server_removing_the_bot_pauses_its_channels_and_adding_it_back_welcomes(
    discord_bot: DiscordBot,
) -> None:
    bot = discord_bot
    await bot.follow(RL, channel_id=DIGESTS_ID)
    await bot.command("follow", {"topic": "diffusion models"}, channel_id=GENERAL_ID)
    await bot.fake.remove_bot(GUILD_ID)
    paused = lambda: all(bot.channel(c).paused_reason for c in (DIGESTS_ID, GENERAL_ID))  # noqa: E731
    assert await wait_until(paused, WAIT)
    assert bot.channel(DIGESTS_ID).paused_reason == "the bot was removed from this server"
    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.parts_sent == 0 and bot.fake.stats.forbidden == 0  # nothing was even tried

    await bot.fake.add_bot_back(GUILD_ID)
    welcome = await bot.fake.wait_for_message(DIGESTS_ID, timeout=WAIT)
    assert welcome["content"] == (
        "Hello again! Digests here resume: this chat follows RL for LLM Agents."
    )
    general = await bot.fake.wait_for_message(GENERAL_ID, timeout=WAIT)
    assert "Diffusion Models" in general["content"]
    assert bot.channel(DIGESTS_ID).paused_reason is None
    await bot.services.dispatcher.drain()
    assert len(bot.fake.messages(DIGESTS_ID)) > 1  # the held digest went out after the welcome


async def test_a_channel_paused_by_missing_access_stays_paused_when_the_server_reappears(
    discord_bot: DiscordBot,
) -> None:
    bot = discord_bot
    await bot.follow(RL, channel_id=STAFF_ID)  # the bot cannot see #staff
    await bot.deliver_weekly(STAFF_ID)
    assert bot.channel(STAFF_ID).paused_reason.startswith("missing access")
    await bot.adapter.back_in_server(GUILD_ID)  # what each start's GUILD_CREATE leads to
    assert bot.channel(STAFF_ID).paused_reason.startswith("missing access")
    assert bot.fake.messages(STAFF_ID) == []


# --- the use cases, on both databases -----------------------------------------------------------


class Platform:
    platform = "telegram"

    def __init__(self) -> None:
        self.sender = RecordingSender()


def setup(make_app: Callable[..., App], engine: Engine, now: list[datetime]):
    app = make_app(engine, clock=lambda: now[0])
    services = app.usecases
    platform = Platform()
    services.add_platform(platform)
    services.sync_catalog()
    with Session(engine) as session:
        channel = channels.get_or_create_channel(
            session, platform="telegram", chat_id=str(GROUP), now=now[0]
        )
        services.commands._follow(session, _caller(), channel, RL)
        deliveries.enqueue(
            session,
            channel_id=channel.id,
            kind="weekly",
            period_key="2026-W40",
            parts=DIGEST,
            now=now[0],
            stale_at=now[0] + timedelta(hours=24),
        )
        session.commit()
    return services, platform.sender


def _caller() -> Caller:
    return Caller(platform="telegram", chat_id=str(GROUP), chat_kind="group", can_manage=True)


async def test_a_digest_gone_stale_while_removed_fails_with_the_reason_and_status_says_it(
    make_app: Callable[..., App], engine: Engine
) -> None:
    now = [NOW]
    services, sender = setup(make_app, engine, now)
    assert services.chat_left("telegram", chat_id=str(GROUP), reason="removed from the chat") == 1
    now[0] += timedelta(days=2)
    (welcome,) = services.chat_returned("telegram", chat_id=str(GROUP))
    assert welcome[0] == Address("telegram", str(GROUP))
    report = await services.dispatcher.drain()
    assert report.failed == 1 and sender.sent == []
    (failure,) = services.status().failures
    assert failure[4].endswith("held while paused: removed from the chat")


async def test_returning_to_a_server_resumes_only_what_its_removal_paused(
    make_app: Callable[..., App], engine: Engine
) -> None:
    now = [NOW]
    services, _ = setup(make_app, engine, now)
    with Session(engine) as session:
        for chat in ("1", "2"):
            channels.get_or_create_channel(
                session, platform="discord", chat_id=chat, guild_id="9", now=NOW
            )
        session.commit()
    assert services.chat_left("discord", guild_id="9", reason="removed from the server") == 2
    with Session(engine) as session:  # meanwhile one channel refuses a send for its own reason
        one = channels.find_channel(session, "discord", "1")
        channels.pause(session, one.id, str(ChatUnavailable("missing access")), now=NOW)
        session.commit()
    welcomes = services.chat_returned("discord", guild_id="9")
    assert [address.chat_id for address, _ in welcomes] == ["2"]
    assert "follows no topics yet" in welcomes[0][1].text
    assert services.chat_returned("discord", guild_id="9") == []  # a second start: nothing


async def test_the_welcome_back_names_followed_searches_too(
    make_app: Callable[..., App], engine: Engine
) -> None:
    now = [NOW]
    services, _ = setup(make_app, engine, now)
    followed = services.commands.handle(_caller(), "follow", 'query: "world model" AND agents')
    assert followed.ok, followed.text
    services.chat_left("telegram", chat_id=str(GROUP), reason="removed from the chat")
    ((_, welcome),) = services.chat_returned("telegram", chat_id=str(GROUP))
    assert welcome.text.startswith("Hello again! Digests here resume: this chat follows ")
    assert "RL for LLM Agents" in welcome.text
    assert 'Search: "world model" AND agents' in welcome.text
