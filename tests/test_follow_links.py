"""Follow links: the links a topic page's "Follow this topic" button points to, and what the
bot does with them (Telegram `/start follow-<slug>`), through the real python-telegram-bot."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import Engine

from bot.app import App
from bot.cli import main
from digests.links.chat import (
    DISCORD_PERMISSIONS,
    PAYLOAD_LIMIT,
    discord_install_link,
    follow_payload,
    parse_start_payload,
    telegram_follow_link,
    telegram_group_follow_link,
)
from digests.topics.catalog import Catalog
from tests.fakes.telegram_bot import (
    ADMIN,
    GROUP,
    LONG_SLUG,
    MEMBER,
    PRIVATE,
    RL,
    Bot,
    long_slug_bot,
    visible,
)

pytestmark = pytest.mark.usefixtures("ptb_timedelta")  # for the Telegram bot
TELEGRAM_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")


def payload_of(link: str, parameter: str) -> str:
    (value,) = parse_qs(urlsplit(link).query)[parameter]
    return value


def test_every_catalog_topic_has_a_start_payload_telegram_accepts_naming_its_slug(
    catalog: Catalog,
) -> None:
    for topic in catalog.topics:
        payload = payload_of(telegram_follow_link("digest_test_bot", topic.slug), "start")
        assert TELEGRAM_PAYLOAD.fullmatch(payload), topic.slug
        assert payload == f"follow-{topic.slug}"  # readable: no hashed form in the catalog
        assert parse_start_payload(payload).matches(topic.slug)


@pytest.mark.parametrize(
    "slug", ["very-long-topic-" + "-".join(["segment"] * 8), "robotik-für-alle", "a.b c"]
)
def test_a_slug_that_cannot_fit_gets_a_hashed_payload_that_still_finds_it(slug: str) -> None:
    payload = follow_payload(slug)
    assert TELEGRAM_PAYLOAD.fullmatch(payload) and len(payload) <= PAYLOAD_LIMIT
    wanted = parse_start_payload(payload)
    assert wanted.matches(slug) and not wanted.matches("rl-for-llm-agents")


@pytest.mark.parametrize(
    "payload", ["", "follow-", "follow", "hello", "<script>x</script>", "follow-" + "a" * 60,
                "follow_nothex00000000", "@everyone"]
)  # fmt: skip
def test_payloads_that_are_not_follow_links_are_recognised_as_such(payload: str) -> None:
    assert parse_start_payload(payload) is None


def test_links_are_made_for_a_private_chat_a_group_and_a_discord_server() -> None:
    assert telegram_follow_link("@digest_test_bot", RL) == (
        "https://t.me/digest_test_bot?start=follow-rl-for-llm-agents"
    )
    assert telegram_group_follow_link("digest_test_bot", RL) == (
        "https://t.me/digest_test_bot?startgroup=follow-rl-for-llm-agents"
    )
    install = urlsplit(discord_install_link("1100000000000000001"))
    query = {key: value for key, (value,) in parse_qs(install.query).items()}
    assert install.netloc == "discord.com" and install.path == "/oauth2/authorize"
    assert query == {
        "client_id": "1100000000000000001",
        "scope": "bot applications.commands",
        "permissions": str(DISCORD_PERMISSIONS),
    }


# --- Telegram: /start with a payload ---------------------------------------------------------


async def test_opening_a_follow_link_follows_the_topic_and_answers_as_follow(
    telegram_bot: Bot,
) -> None:
    bot = telegram_bot
    reply = await bot.say(PRIVATE, PRIVATE, f"/start {follow_payload(RL)}")
    assert visible(reply).startswith("Following RL for LLM Agents. The digest comes")
    assert bot.follows(PRIVATE) == [RL]


async def test_a_group_link_follows_only_when_an_admin_added_the_bot(telegram_bot: Bot) -> None:
    bot = telegram_bot
    refused = await bot.say(GROUP, MEMBER, f"/start@digest_test_bot {follow_payload(RL)}")
    assert "Only chat administrators" in visible(refused)
    assert bot.follows(GROUP) == []
    followed = await bot.say(GROUP, ADMIN, f"/start@digest_test_bot {follow_payload(RL)}")
    assert visible(followed).startswith("Following RL for LLM Agents.")
    assert bot.follows(GROUP) == [RL]


@pytest.mark.parametrize(
    "payload", ["follow-no-such-topic", "<script>alert(1)</script>", "x" * 300, "@everyone"]
)
async def test_a_garbled_link_says_so_then_gives_the_help_and_follows_nothing(
    telegram_bot: Bot, payload: str
) -> None:
    bot = telegram_bot
    answer = visible(await bot.say(PRIVATE, PRIVATE, f"/start {payload}"))
    assert answer.startswith("That link names no topic I know, so nothing was followed.")
    assert "/follow — " in answer and "<script>" not in answer
    assert bot.follows(PRIVATE) == []


async def test_a_hashed_link_for_a_long_slug_follows_it(
    make_app: Callable[..., App], sqlite_engine: Engine, tmp_path: Path
) -> None:
    # LONG_SLUG has 79 characters: too long to name in a start payload.
    async with long_slug_bot(make_app, sqlite_engine, tmp_path) as bot:
        link = telegram_follow_link(bot.tg.bot["username"], LONG_SLUG)
        reply = await bot.say(PRIVATE, PRIVATE, f"/start {payload_of(link, 'start')}")
        assert visible(reply).startswith("Following Zebrafish Locomotion Models.")
        assert bot.follows(PRIVATE) == [LONG_SLUG]


# --- digestbot links ---------------------------------------------------------------------------


def test_links_prints_every_link_for_a_fuzzily_named_topic(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_USERNAME", "digest_test_bot")
    monkeypatch.setenv("DISCORD_APPLICATION_ID", "1100000000000000001")
    assert main(["links", "rl for llm agents"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "RL for LLM Agents"
    assert telegram_follow_link("digest_test_bot", RL) in out
    assert telegram_group_follow_link("digest_test_bot", RL) in out
    assert discord_install_link("1100000000000000001") in out
    assert f"/follow topic:{RL}" in out


def test_links_prints_the_slack_install_link_and_what_to_type(
    monkeypatch, tmp_path, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("TELEGRAM_BOT_USERNAME", "DISCORD_APPLICATION_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLACK_INSTALL_URL", "https://lab.slack.com/apps/A0001")
    assert main(["links", "rl for llm agents"]) == 0
    out = capsys.readouterr().out
    assert "Slack, add to a workspace: https://lab.slack.com/apps/A0001" in out
    assert "/invite @digestbot, then /follow RL for LLM Agents" in out


def test_links_without_settings_says_what_to_set(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("TELEGRAM_BOT_USERNAME", "DISCORD_APPLICATION_ID", "SLACK_INSTALL_URL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["links", RL]) == 1
    out = capsys.readouterr().out
    assert "set TELEGRAM_BOT_USERNAME" in out and "set DISCORD_APPLICATION_ID" in out
    assert "set SLACK_INSTALL_URL" in out


def test_links_for_an_unknown_topic_fails_naming_it(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_USERNAME", "digest_test_bot")
    assert main(["links", "rl for llm agnets"]) == 0  # a typo is forgiven, as elsewhere
    capsys.readouterr()
    assert main(["links", "zebrafish swimming"]) == 2
    assert 'unknown topic "zebrafish swimming"' in capsys.readouterr().err


def test_a_bad_bot_username_is_refused_at_start(monkeypatch, tmp_path, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_USERNAME", "bad name!")
    assert main(["links", RL]) == 2
    assert "TELEGRAM_BOT_USERNAME" in capsys.readouterr().err
