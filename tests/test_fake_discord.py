"""The fake Discord is faithful enough that the REAL discord.py client works against it."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import TypeVar

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.fakes.discord_server import (
    DIGESTS_ID,
    GENERAL_ID,
    GUILD_ID,
    OWNER_ID,
    STAFF_ID,
    FakeDiscord,
    RateLimits,
    running_fake_discord,
)

# 5 messages per 0.1 s per channel, 50 requests per 20 ms: Discord's shape, 50× faster.
FAST = RateLimits().scaled(0.02)
TOPICS = [f"transformers part {n}" for n in range(40)] + ["diffusion", "graph networks"]
WAIT = 5.0
T = TypeVar("T")


class StubBot(discord.Client):
    """Just enough of a bot to exercise what digestbot's Discord adapter will use."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.ready = asyncio.Event()
        self.followed: asyncio.Queue[tuple[discord.Interaction, str]] = asyncio.Queue()
        self.errors: asyncio.Queue[Exception] = asyncio.Queue()
        self.tree.on_error = self._on_tree_error
        self._add_commands()

    async def on_ready(self) -> None:
        self.ready.set()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        pass  # discord.py waits 5 s before a re-IDENTIFY, for Discord's sake, not the fake's

    async def _on_tree_error(self, interaction: discord.Interaction, error: Exception) -> None:
        await self.errors.put(error)

    def _add_commands(self) -> None:
        @self.tree.command(description="Follow a research topic")
        async def follow(interaction: discord.Interaction, topic: str) -> None:
            await self.followed.put((interaction, topic))
            await interaction.response.send_message("ok", ephemeral=True)

        @follow.autocomplete("topic")
        async def follow_topics(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            found = [t for t in TOPICS if current.lower() in t]
            return [app_commands.Choice(name=t, value=t) for t in found][:25]

        @self.tree.command(description="Build this week's digest")
        async def digest(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send("digest ready", ephemeral=True)
            await interaction.followup.send("page 2", ephemeral=True)
            await interaction.edit_original_response(content="digest ready (3 papers)")

        @self.tree.command(description="Answers too late")
        async def slow(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.15)
            await interaction.response.send_message("late")


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with running_fake_discord(rate_limits=FAST) as fake:
        yield fake


@asynccontextmanager
async def connected_bot(fake: FakeDiscord) -> AsyncIterator[StubBot]:
    client = StubBot()
    task = asyncio.create_task(client.start(fake.token))
    try:
        await asyncio.wait_for(client.ready.wait(), WAIT)
        yield client
    finally:
        await client.close()
        await asyncio.wait_for(task, WAIT)


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[StubBot]:
    async with connected_bot(fake) as client:
        yield client


async def bounded(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, WAIT)


async def invoke(fake: FakeDiscord, payload: dict) -> dict:
    await fake.dispatch("INTERACTION_CREATE", payload)
    return payload


async def test_client_logs_in_and_caches_the_guild(fake: FakeDiscord, bot: StubBot) -> None:
    guild = bot.get_guild(GUILD_ID)
    assert guild is not None and guild.name == "Research Lab"
    assert [c.name for c in guild.text_channels] == ["general", "digests", "staff"]
    assert bot.application_id == fake.application_id
    assert guild.me is not None and guild.me.id == bot.user.id
    assert guild.get_channel(GENERAL_ID).permissions_for(guild.me).send_messages
    assert not guild.get_channel(STAFF_ID).permissions_for(guild.me).view_channel
    connect = await fake.wait_for("connect")
    assert connect.data["query"]["v"] == "10" and connect.data["path"] == "/gateway"
    identify = await fake.wait_for("identify")
    assert identify.data["intents"] == discord.Intents.default().value


async def test_commands_sync_globally_and_to_a_guild(fake: FakeDiscord, bot: StubBot) -> None:
    synced = await bounded(bot.tree.sync())
    stored = {c["name"]: c for c in fake.commands()}
    assert set(stored) == {"follow", "digest", "slow"}
    follow = stored["follow"]
    assert follow["options"][0] | {"autocomplete": True} == follow["options"][0]
    assert follow["application_id"] == str(fake.application_id)
    assert {c.id for c in synced} == {int(c["id"]) for c in stored.values()}

    bot.tree.copy_global_to(guild=discord.Object(GUILD_ID))
    await bounded(bot.tree.sync(guild=discord.Object(GUILD_ID)))
    assert {c["guild_id"] for c in fake.commands(GUILD_ID)} == {str(GUILD_ID)}
    fetched = await bounded(bot.tree.fetch_commands())
    assert {c.id for c in fetched} == {c.id for c in synced}
    resynced = await bounded(bot.tree.sync())
    assert {c.id for c in resynced} == {c.id for c in synced}


async def test_slash_command_reaches_its_callback_and_answers_ephemerally(
    fake: FakeDiscord, bot: StubBot
) -> None:
    await bounded(bot.tree.sync())
    payload = await invoke(fake, fake.slash_command("follow", {"topic": "diffusion"}))
    interaction, topic = await asyncio.wait_for(bot.followed.get(), WAIT)
    assert topic == "diffusion"
    assert isinstance(interaction.user, discord.Member) and interaction.user.id == OWNER_ID
    assert interaction.permissions.administrator  # the owner resolves to every permission
    callback = await fake.wait_for_response(payload["id"], "callback")
    assert callback["type"] == 4
    assert callback["data"]["content"] == "ok" and callback["data"]["flags"] == 64


async def test_defer_then_followup(fake: FakeDiscord, bot: StubBot) -> None:
    await bounded(bot.tree.sync())
    payload = await invoke(fake, fake.slash_command("digest"))
    edit = await fake.wait_for_response(payload["id"], "edit_original")
    callback, first, second, _ = fake.interaction_responses(payload["id"])
    assert callback["type"] == 5 and callback["data"]["flags"] == 64
    # As on Discord, the first followup after a deferral becomes the deferred answer.
    assert first["message"]["content"] == "digest ready"
    assert first["message"]["flags"] == 64  # ephemeral, no longer loading (128)
    assert second["message"]["id"] != first["message"]["id"] == edit["message"]["id"]
    assert edit["message"]["content"] == "digest ready (3 papers)"


async def test_autocomplete_gets_at_most_25_choices(fake: FakeDiscord, bot: StubBot) -> None:
    await bounded(bot.tree.sync())
    payload = await invoke(fake, fake.autocomplete("follow", "topic", {"topic": "trans"}))
    callback = await fake.wait_for_response(payload["id"], "callback")
    choices = callback["data"]["choices"]
    assert callback["type"] == 8 and 0 < len(choices) <= 25
    assert all("trans" in choice["name"] for choice in choices)
    assert bot.followed.empty()


async def test_slash_command_in_a_dm(fake: FakeDiscord, bot: StubBot) -> None:
    await bounded(bot.tree.sync())
    payload = await invoke(fake, fake.slash_command("follow", {"topic": "graphs"}, dm=True))
    interaction, _ = await asyncio.wait_for(bot.followed.get(), WAIT)
    assert interaction.guild is None and isinstance(interaction.user, discord.User)
    assert isinstance(interaction.channel, discord.DMChannel)
    assert (await fake.wait_for_response(payload["id"]))["type"] == 4
    await bounded(interaction.user.send("your weekly digest"))
    [sent] = fake.messages(int(payload["channel_id"]))
    assert sent["content"] == "your weekly digest"


async def test_an_answer_after_the_deadline_is_unknown(fake: FakeDiscord, bot: StubBot) -> None:
    fake.interaction_deadline = 0.05
    await bounded(bot.tree.sync())
    await invoke(fake, fake.slash_command("slow"))
    error = await asyncio.wait_for(bot.errors.get(), WAIT)
    assert isinstance(error.__cause__, discord.NotFound) and error.__cause__.code == 10062


async def test_channel_send_records_embed_mentions_and_files(
    fake: FakeDiscord, bot: StubBot
) -> None:
    channel = bot.get_channel(DIGESTS_ID)
    echoed = asyncio.create_task(bot.wait_for("message", timeout=WAIT))
    embed = discord.Embed(title="Weekly digest", description="3 new papers")
    embed.add_field(name="Top paper", value="Sparse attention, again")
    sent = await bounded(channel.send(embed=embed, allowed_mentions=discord.AllowedMentions.none()))
    assert (await echoed).id == sent.id  # MESSAGE_CREATE came back over the gateway
    [recorded] = fake.messages(DIGESTS_ID)
    assert int(recorded["id"]) == sent.id and sent.embeds[0].title == "Weekly digest"
    assert recorded["embeds"][0]["fields"][0]["name"] == "Top paper"
    assert recorded["allowed_mentions"] == {"parse": []}
    await bounded(sent.edit(content="now with a summary"))
    assert fake.messages(DIGESTS_ID)[0]["content"] == "now with a summary"

    report = discord.File(io.BytesIO(b"# digest\n"), filename="digest.md")
    with_file = await bounded(channel.send("full digest", file=report))
    assert with_file.attachments[0].filename == "digest.md"
    assert fake.messages(DIGESTS_ID)[1]["files"][0]["data"] == b"# digest\n"
    assert [r.channel_id for r in fake.send_timeline] == [DIGESTS_ID, DIGESTS_ID]


async def test_access_errors_map_to_discord_exceptions(fake: FakeDiscord, bot: StubBot) -> None:
    fake.forbid(GENERAL_ID)
    with pytest.raises(discord.Forbidden) as forbidden:
        await bounded(bot.get_channel(GENERAL_ID).send("hello"))
    assert forbidden.value.status == 403 and forbidden.value.code == 50001
    with pytest.raises(discord.Forbidden) as hidden:
        await bounded(bot.get_channel(STAFF_ID).send("the overwrite hides this channel"))
    assert hidden.value.code == 50001
    fake.delete_channel(DIGESTS_ID)
    with pytest.raises(discord.NotFound) as missing:
        await bounded(bot.get_channel(DIGESTS_ID).send("hello"))
    assert missing.value.status == 404 and missing.value.code == 10003
    assert fake.messages(GENERAL_ID) == fake.messages(DIGESTS_ID) == []


async def test_discord_limits_are_enforced(fake: FakeDiscord, bot: StubBot) -> None:
    channel = bot.get_channel(GENERAL_ID)
    with pytest.raises(discord.HTTPException) as too_long:
        await bounded(channel.send("x" * 2001))
    assert too_long.value.status == 400 and too_long.value.code == 50035
    huge = discord.Embed(description="y" * 4000)
    with pytest.raises(discord.HTTPException) as too_big:
        await bounded(channel.send(embeds=[huge, huge]))
    assert "6000" in str(too_big.value)
    fake.fail_next("POST", "/channels/*/messages", 400, {"message": "Nope", "code": 50035})
    with pytest.raises(discord.HTTPException):
        await bounded(channel.send("scripted failure"))
    assert fake.messages(GENERAL_ID) == []


@pytest.mark.parametrize("is_global", [False, True])
async def test_a_short_429_storm_is_absorbed(
    fake: FakeDiscord, bot: StubBot, is_global: bool
) -> None:
    fake.storm(3, retry_after=0.05, is_global=is_global)
    await asyncio.wait_for(bot.get_channel(GENERAL_ID).send("after the storm"), WAIT)
    assert [m["content"] for m in fake.messages(GENERAL_ID)] == ["after the storm"]
    assert fake.stats.stormed == fake.stats.rate_limited == 3


async def test_bucket_headers_make_discord_py_pace_itself(fake: FakeDiscord, bot: StubBot) -> None:
    channel = bot.get_channel(GENERAL_ID)
    sends = [channel.send(f"item {n}") for n in range(12)]
    await asyncio.wait_for(asyncio.gather(*sends), WAIT)
    contents = sorted(m["content"] for m in fake.messages(GENERAL_ID))
    assert contents == sorted(f"item {n}" for n in range(12))
    timeline = fake.send_timeline
    assert timeline[-1].at - timeline[0].at >= 2 * FAST.message_window * 0.99
    assert fake.stats.route_limited == 0


async def test_the_global_limit_pauses_every_route() -> None:
    limits = RateLimits(global_limit=5, global_window=0.1, message_window=0.1)
    async with running_fake_discord(rate_limits=limits) as fake, connected_bot(fake) as bot:
        channels = [bot.get_channel(GENERAL_ID), bot.get_channel(DIGESTS_ID)]
        sends = [channel.send(f"{channel.name} {n}") for channel in channels for n in range(5)]
        await asyncio.wait_for(asyncio.gather(*sends), WAIT)
        for channel in channels:
            contents = sorted(m["content"] for m in fake.messages(channel.id))
            assert contents == [f"{channel.name} {n}" for n in range(5)]
        assert fake.stats.global_limited > 0
        assert fake.stats.rate_limited == fake.stats.global_limited


@pytest.mark.parametrize("how", ["reconnect", "drop", "invalidate"])
async def test_the_client_comes_back_when_the_gateway_breaks(
    fake: FakeDiscord, bot: StubBot, how: str
) -> None:
    await bounded(bot.tree.sync())
    back = asyncio.create_task(
        bot.wait_for("ready" if how == "invalidate" else "resumed", timeout=WAIT)
    )
    if how == "reconnect":
        await fake.request_reconnect()
    elif how == "drop":
        await fake.drop_connections()
    else:
        await fake.invalidate_session()
    await back
    if how == "invalidate":
        identify = await fake.wait_for("identify", count=2, timeout=WAIT)
        assert identify.data["path"] == "/gateway"
    else:
        resume = await fake.wait_for("resume", timeout=WAIT)
        assert resume.data["path"] == "/gateway/resume"
    await invoke(fake, fake.slash_command("follow", {"topic": "after " + how}))
    _, topic = await asyncio.wait_for(bot.followed.get(), WAIT)
    assert topic == "after " + how


async def test_wrong_token_fails_login(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.default())
    with pytest.raises(discord.LoginFailure):
        await bounded(client.login("not-the-token"))
    await client.close()


async def test_answers_carry_discords_headers(fake: FakeDiscord) -> None:
    auth = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{fake.api_url}/users/@me", headers=auth) as ok:
            assert ok.headers["Content-Type"] == "application/json"
            assert {"X-RateLimit-Bucket", "X-RateLimit-Reset-After"} <= set(ok.headers)
        fake.storm(1, retry_after=0.25, is_global=True)
        async with session.get(f"{fake.api_url}/users/@me", headers=auth) as limited:
            assert limited.status == 429 and limited.headers["Via"] == "1.1 google"
            assert limited.headers["X-RateLimit-Global"] == "true"
            assert limited.headers["Retry-After"] == "1"
            body = await limited.json()
            assert body == {"message": "You are being rate limited.", "retry_after": 0.25} | {
                "global": True
            }


async def test_clean_close(fake: FakeDiscord) -> None:
    client = StubBot()
    task = asyncio.create_task(client.start(fake.token))
    await asyncio.wait_for(client.ready.wait(), WAIT)
    await client.close()
    await asyncio.wait_for(task, WAIT)
    await fake.wait_for("disconnect", timeout=WAIT)
    # discord.py's reader answers its own close first, so Discord sees 4000 rather than 1000.
    assert not fake.gateway.sockets and len(fake.log.matching("connect")) == 1
    assert fake.unhandled == []
