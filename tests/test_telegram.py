"""The Telegram adapter, end to end: the real python-telegram-bot against the fake Bot API.

Each test starts a fresh fake server, database and adapter (long polling) in its own event
loop; every wait is bounded. The fake runs Telegram's flood limits 50 times faster, so limits
still bite but a retry_after is a fraction of a second.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest
from sqlalchemy import Engine
from telegram.error import InvalidToken

from bot.app import App
from bot.platforms.telegram import telegram_rate_limiter
from bot.platforms.telegram_render import render_digest
from digests.delivery.pacing import RequestPace
from digests.delivery.sending import (
    Address,
    ChatMoved,
    ChatUnavailable,
    Rejected,
    RetryLater,
    Transient,
)
from digests.store import channels
from digests.topics.catalog import Catalog
from digests.usecases.commands import COMMANDS, Caller
from tests.fakes.telegram_bot import (
    ADMIN,
    CHANNEL,
    FORUM,
    GROUP,
    HOOK_URL,
    LONG_SLUG,
    MEMBER,
    NOW,
    PRIVATE,
    RL,
    WAIT,
    Bot,
    enqueue_digest,
    long_slug_bot,
    seed_papers,
    start_bot,
    visible,
    webhook_bot,
)
from tests.fakes.telegram_html import parse_telegram_html
from tests.fakes.telegram_server import (
    FakeTelegram,
    FloodLimits,
    sent_text,
    validate_telegram_html,
)

STICKER = {"file_id": "s", "file_unique_id": "s", "type": "regular", "width": 1, "height": 1}
STICKER |= {"is_animated": False, "is_video": False}
YOU = Caller(platform="telegram", chat_id=str(PRIVATE))
PNG = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.usefixtures("ptb_timedelta")


@pytest.fixture
def bot(telegram_bot: Bot) -> Bot:
    return telegram_bot


# --- following -------------------------------------------------------------------------------


async def test_a_user_follows_a_topic_from_a_private_chat(bot: Bot) -> None:
    reply = await bot.say(PRIVATE, PRIVATE, "/follow rl for llm agents")
    assert visible(reply).startswith("Following RL for LLM Agents.")
    assert reply["parse_mode"] == "HTML" and reply["disable_web_page_preview"] is True
    assert bot.follows(PRIVATE) == [RL]


async def test_in_a_group_only_admins_change_what_it_follows(bot: Bot) -> None:
    refused = await bot.say(GROUP, MEMBER, "/follow rl for llm agents")
    assert "Only chat administrators" in visible(refused)
    assert bot.follows(GROUP) == []

    done = await bot.say(GROUP, ADMIN, "/follow@digest_test_bot rl for llm agents")
    assert visible(done).startswith("Following RL for LLM Agents.")
    assert bot.follows(GROUP) == [RL]


async def test_a_command_for_another_bot_is_left_alone(bot: Bot) -> None:
    bot.tg.inject_message(GROUP, ADMIN, "/follow@other_bot rl for llm agents")
    answer = await bot.say(GROUP, ADMIN, "/following")  # answered, so the first was seen
    assert "follows no topics" in visible(answer)
    assert len(bot.tg.sent(GROUP)) == 1


async def test_follow_without_a_topic_offers_buttons_and_a_press_follows(bot: Bot) -> None:
    offer = await bot.say(PRIVATE, PRIVATE, "/follow")
    buttons = [row[0] for row in offer["reply_markup"]["inline_keyboard"]]
    assert len(buttons) >= 5
    assert all(len(b["callback_data"].encode()) <= 64 for b in buttons)
    pressed = buttons[1]

    bot.tg.inject_callback_query(PRIVATE, PRIVATE, pressed["callback_data"], offer["message_id"])
    (edit,) = await bot.tg.wait_for_sent(PRIVATE, 1, WAIT, method="editMessageText")
    assert edit["message_id"] == offer["message_id"]
    assert visible(edit).startswith(f"Following {pressed['text']}.")
    assert edit["reply_markup"] is None  # the choice is made; the buttons are gone
    assert bot.tg.callback_answers[0]["text"].startswith("Following")
    assert len(bot.follows(PRIVATE)) == 1


async def test_a_member_pressing_an_admins_button_is_refused_and_the_buttons_stay(
    bot: Bot,
) -> None:
    offer = await bot.say(GROUP, ADMIN, "/follow")
    data = offer["reply_markup"]["inline_keyboard"][0][0]["callback_data"]

    bot.tg.inject_callback_query(GROUP, MEMBER, data, offer["message_id"])
    await bot.handled_all(GROUP)
    (answer,) = bot.tg.callback_answers
    assert "Only chat administrators" in answer["text"] and answer["show_alert"] in (True, "true")
    assert bot.tg.sent(GROUP, "editMessageText") == []
    assert bot.follows(GROUP) == []



async def test_a_button_for_a_topic_with_a_very_long_slug_still_works(
    make_app: Callable[..., App], sqlite_engine: Engine, tmp_path: Path
) -> None:
    async with long_slug_bot(make_app, sqlite_engine, tmp_path) as bot:
        offer = await bot.say(PRIVATE, PRIVATE, "/topics zebrafish")
        (button,) = [row[0] for row in offer["reply_markup"]["inline_keyboard"]]
        assert len(button["callback_data"].encode()) <= 64
        bot.tg.inject_callback_query(
            PRIVATE, PRIVATE, button["callback_data"], offer["message_id"]
        )
        (edit,) = await bot.tg.wait_for_sent(PRIVATE, 1, WAIT, method="editMessageText")
        assert visible(edit).startswith("Following Zebrafish Locomotion Models.")
        assert bot.follows(PRIVATE) == [LONG_SLUG]


async def test_a_command_posted_in_a_channel_is_obeyed(bot: Bot) -> None:
    bot.tg.inject_channel_post(CHANNEL, "/follow RL for LLM Agents")
    (reply,) = await bot.tg.wait_for_sent(CHANNEL, 1, WAIT)
    assert visible(reply).startswith("Following RL for LLM Agents.")
    assert bot.follows(CHANNEL) == [RL]
    assert bot.channel(CHANNEL).kind == "channel"


async def test_admin_status_is_asked_once_a_minute_per_person(bot: Bot) -> None:
    now = [0.0]
    bot.adapter.admins.clock = lambda: now[0]

    def lookups() -> int:
        return sum(1 for method, _ in bot.tg.calls if method == "getChatMember")

    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    await bot.say(GROUP, ADMIN, "/alerts off")
    await bot.say(GROUP, ADMIN, "/following")  # read-only: no lookup at all
    assert lookups() == 1
    now[0] += 61
    await bot.say(GROUP, ADMIN, "/alerts on")
    assert lookups() == 2


# --- digests ---------------------------------------------------------------------------------


async def test_a_digest_on_demand_arrives_as_its_chart_then_valid_parts(
    bot: Bot, catalog: Catalog
) -> None:
    seed_papers(bot.engine, catalog)
    await bot.say(PRIVATE, PRIVATE, "/follow rl for llm agents")
    answer = await bot.say(PRIVATE, PRIVATE, "/digest")
    assert visible(answer) == "Your digest: 60 new papers."

    expected = len(render_digest(bot.digest(PRIVATE), title="Your digest")) - 1  # after the chart
    assert expected >= 3
    (chart,) = await bot.tg.wait_for_sent(PRIVATE, 1, WAIT, "sendPhoto")
    assert chart["photo"].startswith(PNG)
    assert "60 new papers in 1 followed topic" in chart["message"]["caption"]
    parts = (await bot.tg.wait_for_sent(PRIVATE, 2 + expected, WAIT, "sendMessage"))[2:]
    for part in parts:
        assert validate_telegram_html(part["text"]) is None
        assert len(part["text"]) <= 4096 and len(parse_telegram_html(part["text"])[0]) <= 4096
        assert part["disable_web_page_preview"] is True
    text = "\n".join(visible(part) for part in parts)
    assert "<b>bold</b> & <script>x</script>" in text  # shown literally, not as markup
    assert "/start@digest_test_bot" not in text and "/\u2060start@digest_test_bot" in text
    assert text.count("Agent study number") == 58


async def test_where_members_may_not_post_photos_the_digest_comes_as_text_and_nothing_pauses(
    bot: Bot, catalog: Catalog
) -> None:
    seed_papers(bot.engine, catalog, count=5)
    await bot.say(GROUP, ADMIN, "/follow rl for llm agents")
    bot.tg.forbid_photos(GROUP)
    await bot.say(GROUP, ADMIN, "/digest")

    rendered = render_digest(bot.digest(GROUP), title="x")
    assert "chart" in rendered[0]
    sent = (await bot.tg.wait_for_sent(GROUP, 2 + len(rendered), WAIT, "sendMessage"))[2:]
    assert bot.tg.sent(GROUP, "sendPhoto") == []
    assert "5 new papers in 1 followed topic" in visible(sent[0])  # the chart's caption
    assert [part["text"] for part in sent[1:]] == [part["text"] for part in rendered[1:]]
    assert bot.channel(GROUP).paused_reason is None


async def test_in_a_forum_the_digest_goes_to_the_topic_where_follow_was_typed(
    bot: Bot, catalog: Catalog
) -> None:
    seed_papers(bot.engine, catalog, count=5)
    await bot.say(FORUM, ADMIN, "/follow rl for llm agents", thread=77)
    assert bot.follows(FORUM, "77") == [RL] and bot.follows(FORUM) == []

    answer = await bot.say(FORUM, ADMIN, "/digest", thread=77)
    assert answer["message_thread_id"] == 77
    (*_, digest) = await bot.tg.wait_for_sent(FORUM, 3, WAIT, "sendMessage")
    assert digest["message_thread_id"] == 77 and "Agent study number" in visible(digest)



async def test_a_blocked_chat_is_paused_and_a_later_command_resumes_it(bot: Bot) -> None:
    await bot.say(PRIVATE, PRIVATE, "/follow rl for llm agents")
    bot.tg.block(PRIVATE)
    enqueue_digest(bot, PRIVATE, [{"text": "weekly digest", "parse_mode": "HTML"}])

    report = await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert report.paused == 1
    assert bot.channel(PRIVATE).paused_reason == "Forbidden: bot was blocked by the user"
    assert bot.follows(PRIVATE) == [RL]

    bot.tg.unblock(PRIVATE)
    answer = await bot.say(PRIVATE, PRIVATE, "/following")
    assert "paused and are now resumed" in visible(answer)
    assert bot.channel(PRIVATE).paused_reason is None
    await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert visible(bot.tg.sent(PRIVATE)[-1]) == "weekly digest"


async def test_a_group_upgraded_to_a_supergroup_gets_its_digest_under_the_new_id(
    bot: Bot,
) -> None:
    old, new = -4001, -1004001
    bot.tg.add_chat(old, "group", "Old group", admins={ADMIN: "creator"})
    await bot.say(old, ADMIN, "/follow rl for llm agents")
    bot.tg.migrate(old, new)
    enqueue_digest(bot, old, [{"text": "part one"}, {"text": "part two"}])

    await asyncio.wait_for(bot.services.dispatcher.drain(), WAIT)
    assert [visible(r) for r in bot.tg.sent(new)] == ["part one", "part two"]
    assert bot.channel(old) is None and bot.follows(new) == [RL]


async def test_a_group_upgrade_seen_in_the_chat_moves_its_follows_at_once(bot: Bot) -> None:
    old, new = -4002, -1004002
    bot.tg.add_chat(old, "group", "Old group", admins={ADMIN: "creator"})
    await bot.say(old, ADMIN, "/follow rl for llm agents")
    bot.tg.migrate(old, new)
    notice = bot.tg.inject_message(old, ADMIN, "placeholder")
    del notice["message"]["text"]
    notice["message"]["migrate_to_chat_id"] = new

    answer = await bot.say(new, ADMIN, "/following")
    assert visible(answer).startswith("RL for LLM Agents: ")
    assert bot.channel(old) is None


async def test_a_burst_to_200_chats_delivers_every_part_once_despite_flood_limits(
    make_app: Callable[..., App], sqlite_engine: Engine, catalog: Catalog
) -> None:
    # Overall and group limits run 20 times faster; private chats keep Telegram's real pace
    # (3 at once, then 1 a second), which the client's rate limiter does not model: 429s come.
    speed = 20
    limits = FloodLimits().scaled(speed)
    limits = replace(limits, private=FloodLimits().private, retry_unit=0.05)
    seed_papers(sqlite_engine, catalog)
    async with FakeTelegram(flood=limits) as tg:
        private = [10_000 + n for n in range(20)]
        groups = [-1_005_000 - n for n in range(180)]
        for chat in private + groups:
            tg.add_chat(chat)
        adapter, services = await start_bot(
            make_app, tg, sqlite_engine, rate_limiter=telegram_rate_limiter(speed=speed)
        )
        services.dispatcher.paces["telegram"] = RequestPace(30 * speed)
        bot = Bot(tg, adapter, services, sqlite_engine)
        try:
            services.commands.handle(YOU, "follow", "rl for llm agents")
            parts = render_digest(services.commands.handle(YOU, "digest").digest, title="Weekly")
            assert len(parts) >= 4  # more than a private chat's burst
            expected = {chat: parts for chat in private} | {chat: parts[:1] for chat in groups}
            with bot.session() as session:
                for chat in expected:
                    channels.get_or_create_channel(
                        session, platform="telegram", chat_id=str(chat), now=NOW
                    )
                session.commit()
            for chat, chat_parts in expected.items():
                enqueue_digest(bot, chat, chat_parts)

            report = await asyncio.wait_for(services.dispatcher.drain(), 20)
        finally:
            await asyncio.wait_for(adapter.stop(), 3 * WAIT)
    for chat, chat_parts in expected.items():
        sent = [sent_text(record) for record in tg.sent(chat)]
        assert sent == [p["text"] for p in chat_parts]  # the first one with its chart
    assert report.delivered == 200 and report.failed == report.retried == 0
    assert tg.flood_count > 0  # limits did bite, and every refused part was sent later


@pytest.mark.parametrize(
    ("status", "description", "parameters", "failure", "reason"),
    [
        (429, "Too Many Requests: retry after 7", {"retry_after": 7}, RetryLater, "7"),
        (
            400,
            "Bad Request: group chat was upgraded",
            {"migrate_to_chat_id": -100777},
            ChatMoved,
            "-100777",
        ),
        (403, "Forbidden: bot was kicked from the group chat", None, ChatUnavailable, "kicked"),
        (400, "Bad Request: chat not found", None, ChatUnavailable, "chat not found"),
        (
            400,
            "Bad Request: not enough rights to send text messages to the chat",
            None,
            ChatUnavailable,
            "not enough rights",
        ),
        (400, "Bad Request: can't parse entities: oops", None, Rejected, "parse entities"),
        (502, "Bad Gateway", None, Transient, "Bad Gateway"),
    ],
)
async def test_each_telegram_error_reaches_the_dispatcher_under_its_meaning(
    bot: Bot, status, description, parameters, failure, reason
) -> None:
    bot.tg.fail_next("sendMessage", status, description, parameters)
    with pytest.raises(failure) as raised:
        await bot.adapter.sender.send(Address("telegram", str(PRIVATE)), {"text": "x"})
    said = f"{raised.value} {getattr(raised.value, 'new_chat_id', '')}"
    assert reason.lower() in said.lower()
    if failure is RetryLater:
        assert raised.value.seconds == 7


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_a_retry_after_in_whole_seconds_is_read_without_the_timedelta_opt_in(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PTB_TIMEDELTA")
    bot.tg.fail_next("sendMessage", 429, "Too Many Requests: retry after 3", {"retry_after": 3})
    with pytest.raises(RetryLater) as raised:
        await bot.adapter.sender.send(Address("telegram", str(PRIVATE)), {"text": "x"})
    assert raised.value.seconds == 3


async def test_a_wrong_token_is_a_configuration_error_not_a_delivery_failure(bot: Bot) -> None:
    bot.tg.fail_next("sendMessage", 401, "Unauthorized")
    with pytest.raises(InvalidToken):
        await bot.adapter.sender.send(Address("telegram", str(PRIVATE)), {"text": "x"})


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("/follow " + "x" * 10_000, "too long"),
        ("/schedule monday 25:00", "time"),
        ("/schedule monday 09:00 Mars/Base", "timezone"),
        ("/follow \x00\x1b[31m\ufffd\U0001f600\u202e", "NUL character"),
        ("/alerts 🙃🙃🙃", "/alerts on"),
        ("/frobnicate@digest_test_bot", "Unknown command"),
    ],
)
async def test_bad_input_gets_a_one_line_answer_and_changes_nothing(
    bot: Bot, command: str, answer: str
) -> None:
    await bot.say(GROUP, ADMIN, "/schedule friday 17:00 Europe/Paris")
    await bot.say(GROUP, ADMIN, "/alerts off")

    reply = await bot.say(GROUP, ADMIN, command)
    assert answer.lower() in visible(reply).lower() and "\n" not in visible(reply)
    channel = bot.channel(GROUP)
    assert (channel.digest_weekday, channel.digest_time, channel.timezone) == (
        4,
        "17:00",
        "Europe/Paris",
    )
    assert not channel.alerts_enabled and bot.follows(GROUP) == []


async def test_updates_it_cannot_use_are_ignored_and_the_bot_keeps_going(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    bot.tg.add_chat(-1009999, "sender", "Not a chat type we serve")
    bot.tg.inject_message(-1009999, ADMIN, "/follow rl for llm agents")
    no_text = bot.tg.inject_message(GROUP, ADMIN, "placeholder")
    del no_text["message"]["text"]
    no_text["message"]["sticker"] = dict(STICKER)
    edited = bot.tg.inject_message(GROUP, ADMIN, "/follow rl for llm agents")
    edited["edited_message"] = {**edited.pop("message"), "edit_date": 1}
    bot.tg.inject_callback_query(GROUP, ADMIN, "follow#not-a-known-hash", 12345)
    bot.tg.inject_callback_query(GROUP, ADMIN, "\u0000garbage", 12345)

    answer = await bot.say(GROUP, ADMIN, "/following")
    assert "follows no topics" in visible(answer)
    assert bot.tg.sent(-1009999) == [] and len(bot.tg.sent(GROUP)) == 1
    assert bot.follows(GROUP) == []
    assert len(bot.tg.callback_answers) == 2  # each press is answered, none acted on
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_every_command_is_registered_in_the_admins_menu(bot: Bot) -> None:
    commands = bot.tg.menu("all_chat_administrators")
    assert [c["command"] for c in commands] == ["start", *COMMANDS]
    assert all(1 <= len(c["description"]) <= 256 for c in commands)


async def test_admin_only_commands_are_in_the_menus_of_admins_and_private_chats_alone(
    bot: Bot,
) -> None:
    admins_only = {name for name, command in COMMANDS.items() if command.admins_only}
    everyone = ["start", *(name for name in COMMANDS if name not in admins_only)]
    assert admins_only and {"follow", "unfollow", "schedule", "alerts"} <= admins_only
    for scope in ("default", "all_group_chats"):
        assert [c["command"] for c in bot.tg.menu(scope)] == everyone, scope
    for scope in ("all_chat_administrators", "all_private_chats"):
        assert [c["command"] for c in bot.tg.menu(scope)] == ["start", *COMMANDS], scope
    assert len(bot.tg.commands) == 4  # no other scope was set


async def test_the_menu_is_start_then_the_command_table_with_each_help_text(bot: Bot) -> None:
    commands = bot.tg.menu("all_chat_administrators")
    table = [(command.name, command.help) for command in COMMANDS.values()]
    start = ("start", "start here: what I can do")
    assert [(c["command"], c["description"]) for c in commands] == [start, *table]


async def test_start_answers_with_what_the_bot_can_do_like_help(bot: Bot) -> None:
    started = visible(await bot.say(PRIVATE, PRIVATE, "/start"))
    assert started == visible(await bot.say(PRIVATE, PRIVATE, "/help"))
    assert all(f"/{name} — " in started for name in COMMANDS)



async def test_with_a_webhook_url_updates_pushed_by_telegram_are_answered(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    async with webhook_bot(make_app, sqlite_engine) as (tg, adapter, local):
        assert tg.webhook["url"] == HOOK_URL
        wanted = ["message", "channel_post", "callback_query", "my_chat_member"]
        assert tg.webhook["allowed_updates"] == wanted
        update = tg.inject_message(PRIVATE, PRIVATE, "/follow rl for llm agents")
        async with aiohttp.ClientSession() as http:
            async with http.post(local, json=update) as forged:
                assert forged.status == 403  # no secret token: not from Telegram
            secret = {"X-Telegram-Bot-Api-Secret-Token": adapter.webhook_secret()}
            async with http.post(local, json=update, headers=secret) as pushed:
                assert pushed.status == 200
        (reply,) = await tg.wait_for_sent(PRIVATE, 1, WAIT)
        assert visible(reply).startswith("Following RL for LLM Agents.")


async def test_a_webhook_body_that_is_no_update_is_refused_and_the_next_update_answered(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    """Tried: text that is not JSON, JSON that is not an update, a body over 1 MiB."""
    async with webhook_bot(make_app, sqlite_engine) as (tg, adapter, local):
        secret = {"X-Telegram-Bot-Api-Secret-Token": adapter.webhook_secret()}
        async with aiohttp.ClientSession(headers=secret) as http:
            for body, status in (
                (b"{not json", 400),
                (b'["an", "array"]', 400),
                (b'{"message": "no update id"}', 400),
                (b'{"update_id": 1, "junk": "' + b"x" * (1024 * 1024) + b'"}', 413),
            ):
                async with http.post(local, data=body) as refused:
                    assert refused.status == status, body[:40]
            update = tg.inject_message(PRIVATE, PRIVATE, "/help")
            async with http.post(local, json=update) as pushed:
                assert pushed.status == 200
        (reply,) = await tg.wait_for_sent(PRIVATE, 1, WAIT)
        assert "/follow" in visible(reply)


async def test_a_webhook_secret_header_that_is_not_ascii_is_refused_with_403(
    make_app: Callable[..., App], sqlite_engine: Engine
) -> None:
    """Tried: UTF-8 and bytes that are no UTF-8 at all in the secret header."""
    async with webhook_bot(make_app, sqlite_engine) as (_, _, local):
        url = urlsplit(local)
        for secret in ("sécret".encode(), b"\xff\xfe"):
            reader, writer = await asyncio.open_connection(url.hostname, url.port)
            writer.write(
                b"POST " + url.path.encode() + b" HTTP/1.1\r\nHost: bot\r\n"
                b"X-Telegram-Bot-Api-Secret-Token: " + secret + b"\r\n"
                b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
            )
            answer = await asyncio.wait_for(reader.read(), WAIT)
            writer.close()
            assert answer.startswith(b"HTTP/1.1 403 "), answer[:80]
