"""The Slack app manifest an operator pastes (docs/slack-manifest.json) matches the bot: every
command of the one command table, the scopes docs/slack.md names, the events the adapter
handles."""

from __future__ import annotations

import json
from pathlib import Path

from digests.usecases.commands import COMMANDS

MANIFEST = json.loads((Path(__file__).parents[1] / "docs" / "slack-manifest.json").read_text())


def test_the_manifest_declares_every_command_of_the_table_as_a_slash_command() -> None:
    declared = [c["command"] for c in MANIFEST["features"]["slash_commands"]]
    assert declared == [f"/{name}" for name in COMMANDS]
    assert all(len(c["description"]) <= 100 for c in MANIFEST["features"]["slash_commands"])


def test_the_manifest_asks_for_the_documented_scopes_and_no_more() -> None:
    scopes = set(MANIFEST["oauth_config"]["scopes"]["bot"])
    wanted = {"commands", "chat:write", "files:write", "channels:read", "groups:read"}
    assert scopes == wanted | {"users:read"}


def test_the_manifest_subscribes_to_the_events_that_pause_and_resume_a_channel() -> None:
    events = set(MANIFEST["settings"]["event_subscriptions"]["bot_events"])
    assert events == {"app_uninstalled", "channel_left", "group_left", "member_joined_channel"}
    assert MANIFEST["settings"]["socket_mode_enabled"] is True
