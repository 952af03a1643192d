"""The Discord adapter, end to end: the real discord.py client against the fake Discord.

Each test starts a fresh fake (REST + gateway on 127.0.0.1), SQLite store and adapter. The fake
runs Discord's rate limits 50 times faster and drops any interaction not answered within 3 s,
as Discord does. Every wait is bounded; every interaction a test sends is checked, when the
test ends, to have received exactly one initial response.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import aiohttp
import pytest
from sqlalchemy import Engine, select
from sqlmodel import Session

from bot.app import App
from bot.platforms.discord import build_discord
from bot.platforms.discord import send_failure as discord_send_failure
from bot.platforms.discord_render import (
    DESCRIPTION_LIMIT,
    MESSAGE_EMBED_CHARS,
    MESSAGE_EMBEDS,
    TITLE_LIMIT,
)
from bot.settings import Settings
from digests.delivery.pacing import RequestPace
from digests.delivery.sending import Address, OutcomeUnknown, Transient
from digests.store import channels, deliveries
from digests.store.models import Delivery, Follow
from digests.topics.catalog import Catalog
from digests.usecases.commands import COMMANDS, Argument, CommandService
from digests.usecases.dispatch import Dispatcher, send_rate_share, withdraw_sender
from tests.fakes.discord_bot import (
    EPHEMERAL,
    NOW,
    RL,
    WAIT,
    Bot,
    is_private,
    seed_papers,
    start_adapter,
)
from tests.fakes.discord_gateway import ATTACH_FILES, MANAGE_CHANNELS, channel_payload, overwrite
from tests.fakes.discord_server import (
    BOT_ROLE_ID,
    DIGESTS_ID,
    GENERAL_ID,
    GUILD_ID,
    MEMBER_ID,
    MOD_ROLE_ID,
    MODERATOR_ID,
    STAFF_ID,
    FakeDiscord,
    RateLimits,
    running_fake_discord,
)
from tests.messages import spike
from tests.waiting import wait_until

DEFAULT_SCHEDULE = (0, "09:00", "UTC")
FIRST_EXTRA_CHANNEL = 1_300_000_000_000_000_000  # Mondays at 09:00 UTC
MINUTE = timedelta(minutes=1)


class SlowCommands(CommandService):
    """The real core behind a slow database."""

    delay = 0.5

    def handle(self, *args: Any, **kwargs: Any):
        time.sleep(self.delay)
        return super().handle(*args, **kwargs)


class BrokenCommands(CommandService):
    def handle(self, *args: Any, **kwargs: Any):
        raise RuntimeError("the database is gone")


@pytest.fixture
def fake(discord_fake: FakeDiscord) -> FakeDiscord:
    return discord_fake


@pytest.fixture
def bot(discord_bot: Bot) -> Bot:
    return discord_bot


def assert_within_discord_limits(message: dict) -> None:
    embeds = message["embeds"]
    assert len(message["content"]) <= 2000 and len(embeds) <= MESSAGE_EMBEDS
    total = 0
    for embed in embeds:
        assert len(embed.get("title") or "") <= TITLE_LIMIT
        assert len(embed.get("description") or "") <= DESCRIPTION_LIMIT
        assert not embed.get("fields") and not embed.get("footer")
        total += len(embed.get("title") or "") + len(embed.get("description") or "")
    assert total <= MESSAGE_EMBED_CHARS


# --- following -------------------------------------------------------------------------------


async def test_follow_offers_matching_topics_then_follows_the_chosen_one(bot: Bot) -> None:
    offered = await bot.choices("follow", "topic", {"topic": "rl for ll"})
    assert 0 < len(offered) <= 25 and offered[0]["name"] == "RL for LLM Agents"

    answer = await bot.follow(offered[0]["value"])
    assert answer["content"].startswith("Following RL for LLM Agents.")
    assert not is_private(answer)  # the channel sees what it now follows
    assert bot.follows(GENERAL_ID) == [RL]


async def test_follow_can_ask_for_papers_daily(bot: Bot) -> None:
    answer = await bot.command("follow", {"topic": RL, "how_often": "daily"})
    assert answer["content"].startswith("Following RL for LLM Agents. New papers come daily")
    with bot.session() as session:
        assert session.execute(select(Follow.mode)).scalar_one() == "daily"


async def test_unfollow_offers_only_what_this_channel_follows(bot: Bot) -> None:
    await bot.follow(RL)
    await bot.follow("agentic-rl")
    await bot.follow("diffusion-models", channel_id=DIGESTS_ID)
    offered = await bot.choices("unfollow", "topic", {"topic": ""})
    assert sorted(choice["value"] for choice in offered) == ["agentic-rl", RL]

    answer = await bot.command("unfollow", {"topic": "agentic-rl"})
    assert answer["content"].startswith("Stopped following Agentic RL")
    assert bot.follows(GENERAL_ID) == [RL]


async def test_a_member_without_manage_channels_is_refused_and_nothing_changes(bot: Bot) -> None:
    answer = await bot.command("follow", {"topic": RL}, user_id=MEMBER_ID)
    assert is_private(answer) and "members who can manage this channel" in answer["content"]
    assert bot.follows(GENERAL_ID) == []

    friday = {"weekday": "friday", "time": "08:00", "timezone": "UTC"}
    changed = await bot.command("schedule", friday, user_id=MEMBER_ID)
    assert is_private(changed) and bot.schedule(GENERAL_ID) == DEFAULT_SCHEDULE

    allowed = await bot.command("follow", {"topic": RL}, user_id=MODERATOR_ID)
    assert allowed["content"].startswith("Following") and bot.follows(GENERAL_ID) == [RL]
    view = await bot.command("following", user_id=MEMBER_ID)  # reading is open to everyone
    assert "RL for LLM Agents" in view["content"] and is_private(view)


@pytest.mark.parametrize(
    "typed", ["zzzz", "x" * 10_000, "🚀🔥🧠", "تعلم معزز للوكلاء", "@everyone"]
)
async def test_anything_typed_gets_a_clear_private_answer_and_changes_nothing(
    bot: Bot, typed: str
) -> None:
    answer = await bot.follow(typed)
    assert is_private(answer) and answer["content"]
    assert "@everyone" not in answer["content"]  # echoed input is defused
    rescheduled = await bot.command(
        "schedule", {"weekday": typed, "time": "08:00", "timezone": typed}
    )
    assert is_private(rescheduled) and rescheduled["content"]
    assert bot.follows(GENERAL_ID) == [] and bot.schedule(GENERAL_ID) == DEFAULT_SCHEDULE


async def test_an_unknown_timezone_is_refused_with_the_closest_names(bot: Bot) -> None:
    offered = await bot.choices("schedule", "timezone", {"weekday": "friday", "timezone": "berl"})
    assert offered[0]["value"] == "Europe/Berlin" and len(offered) <= 25

    typo = {"weekday": "friday", "time": "08:30", "timezone": "Europe/Berlinn"}
    refused = await bot.command("schedule", typo)
    assert is_private(refused) and "Europe/Berlin" in refused["content"]
    assert bot.schedule(GENERAL_ID) == DEFAULT_SCHEDULE

    good = await bot.command("schedule", typo | {"timezone": "europe/berlin"})
    assert not is_private(good) and "Fridays at 08:30 (Europe/Berlin)" in good["content"]


# --- digests ---------------------------------------------------------------------------------


async def test_a_digest_arrives_split_within_every_limit_and_pings_nobody(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog)
    await bot.follow(RL)
    payload = await bot.dispatch(bot.fake.slash_command("digest"))
    first = await bot.fake.wait_for_response(payload["id"], "callback", timeout=WAIT)
    assert first["data"]["flags"] == EPHEMERAL and "Sending" in first["data"]["content"]
    done = await bot.fake.wait_for_response(payload["id"], "followup", timeout=3 * WAIT)
    assert "Posted in" in done["message"]["content"]

    messages = [m for m in bot.fake.messages(GENERAL_ID) if m["type"] == 0]
    assert len(messages) >= 2  # 60 papers do not fit one message
    for message in messages:
        assert_within_discord_limits(message)
        assert message["allowed_mentions"] == {"parse": []}
    text = "\n".join(e["description"] for m in messages for e in m["embeds"])
    assert len(re.findall(r"^\*\*\d+\. \[", text, re.M)) == 60  # every paper, none cut
    assert "(continued)" in messages[1]["embeds"][0]["title"]
    assert "@everyone" not in text and "<@&123>" not in text
    assert "](http://evil)" not in text and "[x]" not in text
    assert "Long Long" in text and "Long " * 200 not in text


async def test_a_second_digest_asked_within_ten_minutes_is_refused_privately(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL)
    payload = await bot.dispatch(bot.fake.slash_command("digest"))
    await bot.fake.wait_for_response(payload["id"], "followup", timeout=3 * WAIT)
    posted = len(bot.fake.messages(GENERAL_ID))

    for _ in range(2):
        again = await bot.command("digest", user_id=MEMBER_ID)
        assert again["flags"] == EPHEMERAL and "works again here in 10 min" in again["content"]
    assert len(bot.fake.messages(GENERAL_ID)) == posted


def weekly_messages(bot: Bot, channel_id: int) -> list[dict]:
    return [m for m in bot.fake.messages(channel_id) if m["type"] == 0]


def deny_attachments(bot: Bot, channel_id: int) -> dict:
    """The server takes Attach Files from the bot in this channel (the REST side sees it)."""
    (guild,) = bot.fake.world.guilds
    (channel,) = [c for c in guild["channels"] if int(c["id"]) == channel_id]
    channel["permission_overwrites"] = [overwrite(BOT_ROLE_ID, deny=ATTACH_FILES)]
    return channel


async def test_a_weekly_digest_shows_its_12_week_chart_in_its_first_embed(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL, channel_id=DIGESTS_ID)
    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.delivered == 1
    first, *rest = weekly_messages(bot, DIGESTS_ID)
    (attachment,) = first["attachments"]
    assert attachment["filename"] == "momentum.png"
    assert bot.fake.rest.uploads[attachment["id"]].startswith(b"\x89PNG\r\n\x1a\n")
    assert first["embeds"][0]["image"]["url"] == "attachment://momentum.png"
    assert all(not message["attachments"] for message in rest)


async def test_where_the_bot_may_not_attach_files_the_digest_comes_without_its_chart(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL, channel_id=DIGESTS_ID)
    await bot.fake.dispatch("CHANNEL_UPDATE", deny_attachments(bot, DIGESTS_ID))
    channel = bot.adapter.client.get_channel(DIGESTS_ID)
    assert await wait_until(
        lambda: not channel.permissions_for(channel.guild.me).attach_files, WAIT
    )

    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.delivered == 1 and bot.channel(DIGESTS_ID).paused_reason is None
    (message,) = weekly_messages(bot, DIGESTS_ID)
    assert message["attachments"] == [] and "image" not in message["embeds"][0]
    assert "Agent study number" in message["embeds"][0]["description"]
    assert bot.fake.stats.forbidden == 0  # known from the cache: no refused upload was tried


async def test_a_refused_upload_the_cache_did_not_foresee_is_sent_again_without_the_chart(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL, channel_id=DIGESTS_ID)
    deny_attachments(bot, DIGESTS_ID)  # no CHANNEL_UPDATE: only the upload's 403 tells

    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.delivered == 1 and bot.channel(DIGESTS_ID).paused_reason is None
    (message,) = weekly_messages(bot, DIGESTS_ID)
    assert message["attachments"] == [] and "image" not in message["embeds"][0]
    assert bot.fake.stats.forbidden == 1


async def test_a_channel_the_bot_cannot_post_in_is_paused_and_the_server_is_told(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL, channel_id=DIGESTS_ID)
    bot.fake.forbid(DIGESTS_ID)
    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.paused == 1
    assert bot.channel(DIGESTS_ID).paused_reason.startswith("missing access")
    assert bot.follows(DIGESTS_ID) == [RL]  # follows are kept for when access returns

    answer = await bot.command("following")  # any command, anywhere in the server
    assert "Digests to #digests are paused: missing access" in answer["content"]


async def test_follow_warns_when_the_bot_cannot_post_there(bot: Bot) -> None:
    answer = await bot.follow(RL, channel_id=STAFF_ID)
    assert answer["content"].startswith("Following")
    assert "I can't post digests here yet: I need View Channel" in answer["content"]


async def test_a_deleted_channel_is_forgotten_with_its_follows(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    await bot.follow(RL, channel_id=DIGESTS_ID)
    bot.fake.delete_channel(DIGESTS_ID)
    report = await bot.deliver_weekly(DIGESTS_ID)
    assert report.removed == 1 and bot.channel(DIGESTS_ID) is None
    with bot.session() as session:
        assert session.execute(select(Follow)).all() == []


@pytest.mark.parametrize("storm", ["on sends", "on everything, global"])
async def test_a_429_storm_delays_the_digest_but_it_arrives_once(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog, storm: str
) -> None:
    seed_papers(sqlite_engine, catalog)
    await bot.follow(RL)
    # More 429s in a row than discord.py retries on its own (5).
    if storm == "on sends":
        bot.fake.fail_next("POST", "/channels/*/messages", 429, {"retry_after": 0.02}, times=12)
    else:
        bot.fake.storm(12, retry_after=0.02, is_global=True)
    report = await bot.deliver_weekly(GENERAL_ID)

    assert report.delivered == 1 and report.failed == report.retried == 0
    parts = bot.adapter.render_digest(
        bot.services.commands.digest_for(bot.session(), bot.channel(GENERAL_ID).id, now=NOW),
        title="Weekly digest",
    )
    assert [m["embeds"][0]["title"] for m in bot.fake.messages(GENERAL_ID)] == [
        p["embeds"][0]["title"] for p in parts
    ]
    with bot.session() as session:
        delivery = session.execute(select(Delivery)).scalar_one()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("sent", 0, None)
    assert bot.fake.stats.rate_limited >= 12


async def test_a_personal_subscription_in_a_dm(
    bot: Bot, sqlite_engine: Engine, catalog: Catalog
) -> None:
    seed_papers(sqlite_engine, catalog, count=5)
    answer = await bot.command("follow", {"topic": RL}, user_id=MEMBER_ID, dm=True)
    assert answer["content"].startswith("Following RL for LLM Agents.")
    dm_id = int(bot.sent[-1]["channel_id"])
    assert bot.channel(dm_id).kind == "dm"

    report = await bot.deliver_weekly(dm_id)
    assert report.delivered == 1 and bot.fake.messages(dm_id)[0]["embeds"]

    role = await bot.command("alerts", {"state": "on", "role": str(MOD_ROLE_ID)}, dm=True)
    assert is_private(role) and "Roles exist only in servers" in role["content"]


async def test_spike_alerts_may_mention_the_chosen_role_and_only_it(bot: Bot) -> None:
    everyone = await bot.command("alerts", {"state": "on", "role": str(GUILD_ID)})
    assert is_private(everyone) and bot.channel(GENERAL_ID) is None

    answer = await bot.command("alerts", {"state": "on", "role": str(MOD_ROLE_ID)})
    assert "mention the chosen role" in answer["content"]
    assert bot.channel(GENERAL_ID).alert_role_id == str(MOD_ROLE_ID)

    [alert] = bot.adapter.render_alert(spike(), mention_role_id=str(MOD_ROLE_ID))
    await bot.adapter.sender.send(Address("discord", str(GENERAL_ID)), alert)
    [sent] = bot.fake.messages(GENERAL_ID)
    assert sent["content"].startswith(f"<@&{MOD_ROLE_ID}> **Spike:** RL for LLM Agents")
    assert sent["allowed_mentions"] == {"parse": [], "roles": [MOD_ROLE_ID]}


async def test_two_replicas_fanning_out_together_stay_under_the_global_limit(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    # The bot's global limit, 10 requests per 0.1 s; each replica alone would pace at 6 per
    # 0.1 s, so two of them stay under the limit only by sharing it. (The headroom is wider
    # than in production, for the jitter of a test loop that also runs the fake server.)
    limits = RateLimits(global_limit=10, global_window=0.1)
    async with running_fake_discord(rate_limits=limits) as fake:
        [guild] = fake.world.guilds
        ids = [FIRST_EXTRA_CHANNEL + n for n in range(60)]
        guild["channels"] += [channel_payload(i, GUILD_ID, f"c{i}") for i in ids]
        adapter, services = await start_adapter(make_app, fake, sqlite_engine)
        replicas = [
            services.dispatcher,
            Dispatcher(services.session_factory, {}, clock=services.clock),
        ]
        for name, replica in zip(("replica-a", "replica-b"), replicas, strict=True):
            replica.worker = name
            replica.senders["discord"] = adapter.sender
            replica.paces["discord"] = RequestPace(60, window=limits.global_window)
        with services.session_factory() as session:
            for chat in ids:
                channel = channels.get_or_create_channel(
                    session, platform="discord", chat_id=str(chat), now=NOW
                )
                deliveries.enqueue(
                    session,
                    channel_id=channel.id,
                    kind="weekly",
                    period_key="2026-09-28",
                    parts=[{"content": "hi"}],
                    now=NOW,
                )
            session.commit()
            for _tick in range(2):  # what each replica's runtime does every tick
                for replica in replicas:
                    share = send_rate_share(session, "discord", replica.worker, now=NOW, ttl=MINUTE)
                    replica.share_send_rate("discord", share)
        assert [replica.paces["discord"].share for replica in replicas] == [0.5, 0.5]
        try:
            await asyncio.sleep(limits.global_window)  # the login's window is over
            reports = await asyncio.wait_for(asyncio.gather(*(r.drain() for r in replicas)), WAIT)
        finally:
            await asyncio.wait_for(adapter.stop(), WAIT)
        assert all(len(fake.messages(i)) == 1 for i in ids)
        assert all(report.parts_sent > 0 for report in reports)  # both replicas sent
        assert fake.stats.rate_limited == 0


def test_a_replica_that_stops_renewing_its_presence_gives_its_share_back(
    sqlite_engine: Engine,
) -> None:
    with Session(sqlite_engine) as session:
        assert send_rate_share(session, "discord", "a", now=NOW, ttl=MINUTE) == 1.0
        assert send_rate_share(session, "discord", "b", now=NOW, ttl=MINUTE) == 0.5
        assert send_rate_share(session, "telegram", "a", now=NOW, ttl=MINUTE) == 1.0
        later = NOW + MINUTE + timedelta(seconds=1)  # "b" died and renewed nothing
        assert send_rate_share(session, "discord", "a", now=later, ttl=MINUTE) == 1.0
        withdraw_sender(session, "telegram", "a", now=later)
        assert send_rate_share(session, "telegram", "c", now=later, ttl=MINUTE) == 1.0


# --- answering in time -----------------------------------------------------------------------


async def test_a_slow_store_defers_and_the_change_is_still_announced(
    make_app: Callable[..., App], fake: FakeDiscord, sqlite_engine: Engine
) -> None:
    adapter, services = await start_adapter(
        make_app, fake, sqlite_engine, commands_class=SlowCommands
    )
    adapter.reply_budget = 0.05
    fake.interaction_deadline = 0.3  # shorter than the store takes: only a deferral is in time
    bot = Bot(fake, adapter, services, sqlite_engine)
    try:
        payload = await bot.dispatch(fake.slash_command("follow", {"topic": RL}))
        callback = await fake.wait_for_response(payload["id"], "callback", timeout=WAIT)
        assert callback["type"] == 5 and callback["data"]["flags"] == EPHEMERAL
        await fake.wait_for(
            lambda e: (
                e.kind == "interaction_response"
                and e.data["kind"] == "followup"
                and not e.data["message"]["flags"] & EPHEMERAL
            ),
            timeout=WAIT,
        )
        public = [
            r["message"]
            for r in fake.interaction_responses(payload["id"])
            if r["kind"] == "followup" and not r["message"]["flags"] & EPHEMERAL
        ]
        assert public[0]["content"].startswith("Following RL for LLM Agents.")
        bot.assert_every_interaction_answered_once()
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)


async def test_a_failure_in_the_core_still_gets_a_private_answer(
    make_app: Callable[..., App], fake: FakeDiscord, sqlite_engine: Engine
) -> None:
    adapter, services = await start_adapter(
        make_app, fake, sqlite_engine, commands_class=BrokenCommands
    )
    bot = Bot(fake, adapter, services, sqlite_engine)
    try:
        answer = await bot.command("following")
        assert is_private(answer) and "went wrong" in answer["content"]
        bot.assert_every_interaction_answered_once()
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)


# --- commands --------------------------------------------------------------------------------


async def test_commands_are_synced_globally_with_permission_hints(bot: Bot) -> None:
    synced = {command["name"]: command for command in bot.fake.commands()}
    assert set(synced) == set(COMMANDS)
    for name in ("follow", "unfollow", "schedule", "alerts"):
        assert synced[name]["default_member_permissions"] == str(MANAGE_CHANNELS)
    for name in ("following", "topics", "trending", "digest", "help"):
        assert synced[name]["default_member_permissions"] is None
    topic, how_often = synced["follow"]["options"]
    assert topic["autocomplete"] is True
    assert [c["value"] for c in how_often["choices"]] == ["weekly", "daily", "instant"]
    weekday = synced["schedule"]["options"][0]
    assert [c["value"] for c in weekday["choices"]][:2] == ["monday", "tuesday"]
    assert bot.fake.commands(GUILD_ID) == []


async def test_the_synced_slash_commands_are_the_command_table(bot: Bot) -> None:
    synced = {command["name"]: command for command in bot.fake.commands()}
    assert set(synced) == set(COMMANDS)
    for name, spec in COMMANDS.items():
        assert synced[name]["description"] == spec.summary
        options = [option_facts(option) for option in synced[name].get("options", [])]
        assert options == [argument_facts(argument) for argument in spec.arguments]


def option_facts(option: dict) -> tuple:
    """What a synced option offers, in the command table's terms."""
    choices = [(c["name"], c["value"]) for c in option.get("choices", [])]
    kind = {3: "text", 8: "role"}[option["type"]]
    suggests = bool(option.get("autocomplete"))
    return option["name"], option["description"], option["required"], choices, kind, suggests


def argument_facts(argument: Argument) -> tuple:
    choices = [(c.label, c.value) for c in argument.choices]
    suggests = argument.suggest is not None
    return argument.name, argument.description, argument.required, choices, argument.kind, suggests


async def test_commands_are_synced_to_the_dev_server_alone_when_set(
    make_app: Callable[..., App], fake: FakeDiscord, sqlite_engine: Engine
) -> None:
    adapter, _ = await start_adapter(make_app, fake, sqlite_engine, discord_dev_guild=GUILD_ID)
    try:
        assert {c["name"] for c in fake.commands(GUILD_ID)} == set(COMMANDS)
        assert fake.commands() == []  # else the dev server lists each command twice
    finally:
        await asyncio.wait_for(adapter.stop(), WAIT)


def test_without_a_token_there_is_no_discord_adapter() -> None:
    assert build_discord(Settings(_env_file=None, discord_token=None), None) is None


@pytest.mark.parametrize(
    ("error", "meaning"),
    [
        (aiohttp.ServerDisconnectedError(), OutcomeUnknown),  # the request went out
        (aiohttp.SocketTimeoutError("read"), OutcomeUnknown),
        (aiohttp.ConnectionTimeoutError("connect"), Transient),  # nothing was sent
        (ConnectionRefusedError(111, "refused"), Transient),
    ],
)
def test_a_send_that_may_have_gone_out_is_told_apart_from_one_that_did_not(error, meaning):
    assert type(discord_send_failure(error)) is meaning
