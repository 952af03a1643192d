"""Chat commands, decided once for every platform: follows, permissions, bad input."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from digests.store import channels
from digests.store.models import Channel
from digests.usecases.commands import COMMANDS, Caller, CommandService

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
PRIVATE = Caller(platform="telegram", chat_id="42", chat_kind="private")
ADMIN = Caller(platform="telegram", chat_id="-100", chat_kind="group", can_manage=True)
MEMBER = Caller(platform="telegram", chat_id="-100", chat_kind="group")


@pytest.fixture
def service(engine, catalog) -> CommandService:
    ticks = itertools.count()  # every reading of the clock is a second later
    return CommandService(
        lambda: Session(engine, expire_on_commit=False),
        catalog,
        clock=lambda: NOW + timedelta(seconds=next(ticks)),
    )


def following(service: CommandService, caller: Caller) -> str:
    return service.handle(caller, "following").text


def test_follow_by_name_in_any_case_confirms_and_sticks(service):
    reply = service.handle(PRIVATE, "follow", "rl for llm agents")
    assert reply.ok and reply.text.startswith("Following RL for LLM Agents.")
    assert "RL for LLM Agents: " in following(service, PRIVATE)


def test_following_twice_is_harmless_and_says_so(service):
    service.handle(PRIVATE, "follow", "RL for LLM Agents")
    reply = service.handle(PRIVATE, "follow", "rl-for-llm-agents")
    assert "already follows" in reply.text
    assert following(service, PRIVATE).count("RL for LLM Agents:") == 1


def test_a_member_who_is_not_an_admin_is_refused_and_nothing_changes(service):
    reply = service.handle(MEMBER, "follow", "RL for LLM Agents")
    assert not reply.ok and "administrators" in reply.text
    assert "no topics yet" in following(service, MEMBER)


def test_read_only_commands_are_open_to_everyone(service):
    service.handle(ADMIN, "follow", "RL for LLM Agents")
    assert "RL for LLM Agents" in following(service, MEMBER)
    assert service.handle(MEMBER, "topics", "memory").ok


def test_an_unknown_topic_offers_the_closest_and_follows_nothing(service):
    reply = service.handle(PRIVATE, "follow", "rl for agnets")
    assert not reply.ok and reply.choices and reply.choice_command == "follow"
    assert "no topics yet" in following(service, PRIVATE)


def test_follow_without_a_topic_offers_a_list_to_pick_from(service):
    reply = service.handle(PRIVATE, "follow", "")
    assert not reply.ok and len(reply.choices) >= 5


@pytest.mark.parametrize("argument", ["x" * 10_000, "@everyone " * 1000])
def test_an_overlong_argument_is_refused_without_a_change(service, argument):
    reply = service.handle(ADMIN, "follow", argument)
    assert not reply.ok and "too long" in reply.text
    assert "no topics yet" in following(service, ADMIN)


def test_unfollow_of_a_topic_not_followed_says_so(service):
    assert "does not follow" in service.handle(PRIVATE, "unfollow", "Agentic RL").text


def test_unfollow_removes_the_topic(service):
    service.handle(PRIVATE, "follow", "Agentic RL")
    assert service.handle(PRIVATE, "unfollow", "agentic rl").text.startswith("Stopped")
    assert "no topics yet" in following(service, PRIVATE)


def test_a_schedule_with_an_unknown_timezone_changes_nothing(service, engine):
    service.handle(ADMIN, "schedule", "friday 17:00 Europe/Paris")
    reply = service.handle(ADMIN, "schedule", "monday 09:00 Mars/Base")
    assert not reply.ok and "timezone" in reply.text
    with Session(engine) as session:
        channel = channels.find_channel(session, "telegram", "-100")
        assert (channel.digest_weekday, channel.digest_time, channel.timezone) == (
            4,
            "17:00",
            "Europe/Paris",
        )


def test_alerts_switch_and_garbage(service):
    assert service.handle(ADMIN, "alerts", "off").text == "Spike alerts are off."
    assert not service.handle(ADMIN, "alerts", "maybe").ok
    assert "spike alerts off" in following(service, ADMIN) or "no topics" in following(
        service, ADMIN
    )


def test_a_command_in_a_paused_chat_resumes_it(service, engine):
    service.handle(PRIVATE, "follow", "RL for LLM Agents")
    with Session(engine) as session:
        channel = channels.find_channel(session, "telegram", "42")
        channels.pause(session, channel.id, "bot was blocked by the user", now=NOW)
        session.commit()
    reply = service.handle(PRIVATE, "help")
    assert any("resumed" in note for note in reply.notes)
    with Session(engine) as session:
        assert channels.find_channel(session, "telegram", "42").paused_reason is None


def test_a_command_anywhere_in_a_server_explains_a_paused_channel(service, engine):
    guild = dict(platform="discord", guild_id="900", chat_kind="group", can_manage=True)
    service.handle(Caller(chat_id="1", chat_title="papers", **guild), "follow", "Agentic RL")
    with Session(engine) as session:
        channel = channels.find_channel(session, "discord", "1")
        channels.pause(session, channel.id, "missing access", now=NOW)
        session.commit()
    reply = service.handle(Caller(chat_id="2", **guild), "following")
    assert any("#papers" in note and "missing access" in note for note in reply.notes)


def test_digest_now_without_follows_explains_how_to_follow(service):
    reply = service.handle(PRIVATE, "digest")
    assert reply.digest is None and "/follow" in reply.text


def test_digest_now_has_a_section_per_followed_topic(service):
    service.handle(PRIVATE, "follow", "RL for LLM Agents")
    service.handle(PRIVATE, "follow", "LLM Agent Memory")
    digest = service.handle(PRIVATE, "digest").digest
    assert [s.topic.name for s in digest.sections] == ["RL for LLM Agents", "LLM Agent Memory"]


def test_unknown_commands_get_a_pointer_to_help(service):
    assert "/help" in service.handle(PRIVATE, "frobnicate").text


def test_autocomplete_is_bounded_and_relevant(service):
    choices = service.complete_topics("rl for llm")
    assert 1 <= len(choices) <= 25 and choices[0].label == "RL for LLM Agents"
    assert len(service.complete_topics("")) == 25
    assert len(service.complete_topics("ж" * 5000)) <= 25


@pytest.mark.parametrize("caller", [PRIVATE, ADMIN, MEMBER], ids=["private", "admin", "member"])
def test_help_lists_every_command_the_caller_may_run(service, caller):
    text = service.handle(caller, "help").text
    runnable = [command for command in COMMANDS.values() if command.allows(caller)]
    assert runnable and all(f"/{c.name} — {c.help}" in text.splitlines() for c in runnable)


def test_channels_are_recorded_with_their_kind(service, engine):
    service.handle(ADMIN, "help")
    with Session(engine) as session:
        channel = session.exec(select(Channel)).one()
    assert (channel.platform, channel.chat_id, channel.kind) == ("telegram", "-100", "group")


def test_a_follow_can_ask_for_daily_or_instant_delivery(service):
    assert "daily at 09:00" in service.handle(PRIVATE, "follow", "Agentic RL daily").text
    reply = service.handle(PRIVATE, "follow", "agentic rl instant")
    assert reply.text.startswith("Still following Agentic RL, now instant.")
    assert "already follows" in service.handle(PRIVATE, "follow", "Agentic RL instant").text


def test_digest_on_demand_is_once_per_chat_per_ten_minutes_with_one_notice(engine, catalog):
    now = [NOW]
    service = CommandService(lambda: Session(engine), catalog, clock=lambda: now[0])
    service.handle(ADMIN, "follow", "RL for LLM Agents")
    assert service.handle(MEMBER, "digest").digest is not None

    now[0] += timedelta(minutes=2)
    notice = service.handle(MEMBER, "digest")
    assert notice.text == "/digest was used here 2 min ago; it works again here in 8 min."
    assert (notice.digest, notice.quiet) == (None, False)
    assert service.handle(MEMBER, "digest").quiet  # said once; further ones get no answer
    assert service.handle(PRIVATE, "digest").ok  # other chats are not held back
    assert service.handle(MEMBER, "following").ok  # nor other commands

    now[0] += timedelta(minutes=8)
    assert service.handle(MEMBER, "digest").digest is not None


# --- text hygiene: what users type ----------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        ("query: agent\x00model", "a NUL character (U+0000)"),
        ("query: agent\x07model", "a control character (U+0007)"),
        ("author: \u202eenivel", "a text-direction control (U+202E)"),
        ("RL for LLM\x9b Agents", "a control character (U+009B)"),
    ],
)
def test_a_follow_holding_a_control_character_is_refused_and_nothing_is_stored(
    service, typed, named
):
    reply = service.handle(PRIVATE, "follow", typed)
    assert not reply.ok
    assert reply.text.startswith(f"That message holds {named}, which I cannot store")
    assert "nothing was changed" in reply.text
    assert "no topics yet" in service.handle(PRIVATE, "following").text


def test_a_chat_title_with_controls_is_stored_without_them(service, engine):
    group = Caller(
        platform="telegram", chat_id="-7", chat_kind="group", chat_title="Lab\u202e\x07 chat"
    )
    service.handle(group, "following")
    with Session(engine) as session:
        titles = [channel.title for channel in session.exec(select(Channel))]
    assert titles == ["Lab chat"]


def test_what_is_offered_while_typing_leaves_control_characters_out(service):
    typed = "query: agent\x00\u202e model"
    offered = service.suggest(PRIVATE, COMMANDS["follow"].arguments[0], typed)
    assert [choice.value for choice in offered] == ["query: agent model"]
