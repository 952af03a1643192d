"""Discord slash commands are uploaded only when their definition changed (its hash is kept in
the database), by one replica, and a development server gets them as its own, not twice.
The real discord.py against the fake Discord, on both databases."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

import pytest
from sqlalchemy import Engine

from bot.app import App
from digests.usecases.commands import COMMANDS
from tests.fakes.discord_bot import WAIT, start_adapter
from tests.fakes.discord_server import GUILD_ID, FakeDiscord


def uploads(fake: FakeDiscord, guild_id: int | None = None) -> int:
    """PUTs of the command list to a scope so far."""
    return sum(1 for e in fake.events if e.kind == "commands" and e.data["guild_id"] == guild_id)


async def start_and_stop(
    make_app: Callable[..., App], fake: FakeDiscord, engine: Engine, **settings
) -> None:
    adapter, _ = await start_adapter(make_app, fake, engine, **settings)
    await asyncio.wait_for(adapter.stop(), WAIT)


async def test_a_second_start_with_the_same_commands_uploads_nothing(
    make_app: Callable[..., App], discord_fake: FakeDiscord, engine: Engine
) -> None:
    await start_and_stop(make_app, discord_fake, engine)
    assert uploads(discord_fake) == 1 and {c["name"] for c in discord_fake.commands()} == set(
        COMMANDS
    )
    await start_and_stop(make_app, discord_fake, engine, instance_name="another-host")
    assert uploads(discord_fake) == 1


async def test_a_changed_command_is_uploaded_at_the_next_start(
    make_app: Callable[..., App], discord_fake: FakeDiscord, engine: Engine, monkeypatch
) -> None:
    await start_and_stop(make_app, discord_fake, engine)
    changed = dataclasses.replace(COMMANDS["trending"], help="the topics rising fastest today")
    monkeypatch.setitem(COMMANDS, "trending", changed)
    await start_and_stop(make_app, discord_fake, engine)
    assert uploads(discord_fake) == 2
    (trending,) = [c for c in discord_fake.commands() if c["name"] == "trending"]
    assert trending["description"] == "the topics rising fastest today"


async def test_two_replicas_starting_together_upload_once(
    make_app: Callable[..., App], discord_fake: FakeDiscord, engine: Engine
) -> None:
    started = await asyncio.gather(
        start_adapter(make_app, discord_fake, engine, instance_name="replica-a"),
        start_adapter(make_app, discord_fake, engine, instance_name="replica-b"),
    )
    try:
        assert uploads(discord_fake) == 1
    finally:
        for adapter, _ in started:
            await asyncio.wait_for(adapter.stop(), WAIT)


async def test_a_failed_upload_is_tried_again_at_the_next_start(
    make_app: Callable[..., App], discord_fake: FakeDiscord, engine: Engine
) -> None:
    discord_fake.fail_next(
        "PUT", "/applications/*/commands", 403, {"message": "Missing Access", "code": 50001}
    )
    await start_and_stop(make_app, discord_fake, engine)  # logged; the bot still starts
    assert discord_fake.commands() == []
    await start_and_stop(make_app, discord_fake, engine)
    assert {c["name"] for c in discord_fake.commands()} == set(COMMANDS)


@pytest.mark.parametrize("restarts", [0, 1])
async def test_a_dev_server_gets_the_commands_once_and_none_are_global(
    make_app: Callable[..., App], discord_fake: FakeDiscord, engine: Engine, restarts: int
) -> None:
    for _ in range(1 + restarts):
        await start_and_stop(make_app, discord_fake, engine, discord_dev_guild=GUILD_ID)
    assert {c["name"] for c in discord_fake.commands(GUILD_ID)} == set(COMMANDS)
    assert discord_fake.commands() == []
    assert (uploads(discord_fake, GUILD_ID), uploads(discord_fake)) == (
        1,
        1,
    )  # the global list cleared once
