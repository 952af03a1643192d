"""The fake Telegram server is faithful: the real python-telegram-bot works against it."""

from __future__ import annotations

import asyncio
import datetime as dtm
from collections.abc import AsyncIterator

import aiohttp
import pytest
from telegram import (
    BotCommand,
    BotCommandScopeChat,
    ChatMember,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from tests.fakes import telegram_server
from tests.fakes.telegram_server import FakeTelegram, FloodLimits, validate_telegram_html

GROUP, PRIVATE, ADMIN, MEMBER = -1001234, 42, 7, 8
WAIT = 5  # seconds for awaited events; single requests are bounded by PTB's 5 s timeouts


fake_telegram = telegram_server.fake_telegram  # the fixture other test modules import too


@pytest.fixture
def tg(fake_telegram: FakeTelegram) -> FakeTelegram:
    fake_telegram.add_chat(GROUP, "supergroup", "ML reading group", is_forum=True)
    fake_telegram.set_member(GROUP, ADMIN, "creator")
    fake_telegram.add_chat(PRIVATE)
    return fake_telegram


def build_app(tg: FakeTelegram, token: str | None = None, **options: object) -> Application:
    builder = Application.builder().token(token or tg.token)
    builder = builder.base_url(tg.api_url).base_file_url(tg.file_url)
    for name, value in options.items():
        builder = getattr(builder, name)(value)
    return builder.build()


@pytest.fixture
async def app(tg: FakeTelegram) -> AsyncIterator[Application]:
    application = build_app(tg)
    await asyncio.wait_for(application.initialize(), WAIT)
    yield application
    await asyncio.wait_for(application.shutdown(), WAIT)


@pytest.fixture
def timedelta_retry_after(monkeypatch: pytest.MonkeyPatch) -> None:
    # PTB 22 warns on int retry_after; this opts into the timedelta it will return in 23.
    monkeypatch.setenv("PTB_TIMEDELTA", "true")


async def test_initialize_gets_the_bot_and_sends_are_recorded(
    tg: FakeTelegram, app: Application
) -> None:
    assert tg.calls[0][0] == "getMe"
    assert app.bot.username == "digest_test_bot"

    first = await app.bot.send_message(GROUP, "<b>x</b> &amp; y", parse_mode="HTML")
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Unfollow", callback_data="u:1")]])
    second = await app.bot.send_message(
        GROUP,
        "plain",
        message_thread_id=5,
        reply_markup=keyboard,
        disable_web_page_preview=True,
    )

    assert (first.message_id, second.message_id) == (1, 2)
    assert first.text == "x & y"
    assert [(e.type, e.offset, e.length) for e in first.entities] == [("bold", 0, 1)]
    assert first.chat.title == "ML reading group"
    assert second.reply_markup == keyboard
    assert second.message_thread_id == 5
    first_sent, second_sent = tg.sent(GROUP)
    assert (first_sent["text"], first_sent["parse_mode"]) == ("<b>x</b> &amp; y", "HTML")
    assert second_sent["message_thread_id"] == 5
    assert second_sent["disable_web_page_preview"] is True
    assert second_sent["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "u:1"


async def test_polling_delivers_commands_and_callback_queries(tg: FakeTelegram) -> None:
    app = build_app(tg)
    received: asyncio.Queue[list[str]] = asyncio.Queue()

    async def follow(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await received.put(context.args)
        await update.effective_message.reply_text("Following.")

    async def button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer("Done")
        await update.callback_query.edit_message_text(f"Pressed {update.callback_query.data}")

    app.add_handler(CommandHandler("follow", follow))
    app.add_handler(CallbackQueryHandler(button))
    await asyncio.wait_for(app.initialize(), WAIT)
    await app.start()
    await asyncio.wait_for(app.updater.start_polling(poll_interval=0, timeout=1), WAIT)
    try:
        tg.inject_message(GROUP, MEMBER, "/follow rl for llm agents")
        assert await asyncio.wait_for(received.get(), WAIT) == ["rl", "for", "llm", "agents"]
        tg.inject_message(GROUP, MEMBER, "/follow@digest_test_bot diffusion", 3)
        assert await asyncio.wait_for(received.get(), WAIT) == ["diffusion"]
        replies = await tg.wait_for_sent(GROUP, 2, WAIT)
        assert [r["text"] for r in replies] == ["Following.", "Following."]
        assert replies[1]["message_thread_id"] == 3

        tg.inject_callback_query(GROUP, MEMBER, "unfollow:1", replies[0]["message_id"])
        (edit,) = await tg.wait_for_sent(GROUP, 1, WAIT, method="editMessageText")
        assert edit["text"] == "Pressed unfollow:1"
        assert tg.callback_answers[0]["text"] == "Done"
    finally:
        await asyncio.wait_for(app.updater.stop(), WAIT)
        await asyncio.wait_for(app.stop(), WAIT)
        await asyncio.wait_for(app.shutdown(), WAIT)
    assert tg.pending_updates() == []  # the last getUpdates confirmed every update


async def test_long_poll_returns_when_an_update_arrives_and_honours_offset(
    tg: FakeTelegram, app: Application
) -> None:
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, tg.inject_message, PRIVATE, PRIVATE, "hello")
    started = loop.time()
    (update,) = await asyncio.wait_for(app.bot.get_updates(timeout=3), WAIT)
    assert loop.time() - started < 2
    assert update.message.text == "hello"

    again = await app.bot.get_updates(timeout=0)
    assert [u.update_id for u in again] == [update.update_id]  # not confirmed yet
    assert await app.bot.get_updates(offset=update.update_id + 1, timeout=0) == ()
    tg.inject_message(PRIVATE, PRIVATE, "filtered out")
    assert await app.bot.get_updates(timeout=0, allowed_updates=["callback_query"]) == ()

    await app.bot.set_webhook("https://example.com/hook")
    with pytest.raises(Conflict):
        await app.bot.get_updates(timeout=0)


async def test_channel_posts_and_membership_changes_reach_the_bot(
    tg: FakeTelegram, app: Application
) -> None:
    tg.add_chat(-100777, "channel", "Digest channel")
    tg.inject_channel_post(-100777, "/digest")
    tg.inject_my_chat_member(GROUP, ADMIN, "member", "kicked")

    post, change = await app.bot.get_updates(timeout=0)
    assert (post.channel_post.text, post.channel_post.sender_chat.id) == ("/digest", -100777)
    assert change.my_chat_member.new_chat_member.status == ChatMember.BANNED
    with pytest.raises(Forbidden, match="kicked from the supergroup chat"):
        await app.bot.send_message(GROUP, "still here?")


async def test_raw_http_speaks_the_bot_api_envelope(tg: FakeTelegram) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{tg.api_url}{tg.token}/getMe") as response:
            assert response.headers["Content-Type"] == "application/json"
            assert (await response.json())["result"]["username"] == "digest_test_bot"
        body = {"chat_id": PRIVATE, "text": "json body"}
        async with http.post(f"{tg.api_url}{tg.token}/sendMessage", json=body) as response:
            assert (await response.json())["result"]["text"] == "json body"
        async with http.post(f"{tg.api_url}1:wrong/getMe") as response:
            assert response.status == 401
            assert await response.json() == {
                "ok": False,
                "error_code": 401,
                "description": "Unauthorized",
            }


async def test_errors_map_to_the_ptb_exceptions(tg: FakeTelegram, app: Application) -> None:
    tg.block(PRIVATE)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await app.bot.send_message(PRIVATE, "hi")

    tg.add_chat(-555, title="Old group")
    tg.migrate(-555, -100555)
    with pytest.raises(ChatMigrated) as migrated:
        await app.bot.send_message(-555, "hi")
    assert migrated.value.new_chat_id == -100555
    await app.bot.send_message(migrated.value.new_chat_id, "hi")

    with pytest.raises(BadRequest, match="Chat not found"):
        await app.bot.send_message(-999, "hi")
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities: unsupported start tag"):
        await app.bot.send_message(GROUP, "a <script> b", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Message is too long"):
        await app.bot.send_message(GROUP, "x" * 4097)
    with pytest.raises(BadRequest, match="Message text is empty"):
        await app.bot.send_message(GROUP, "<b> </b>", parse_mode="HTML")

    tg.fail_next("sendMessage", 502, "Bad Gateway")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await app.bot.send_message(GROUP, "hi")
    await app.bot.send_message(GROUP, "hi")
    with pytest.raises(EndPointNotFound):
        await app.bot.do_api_request("noSuchMethod")


async def test_length_is_counted_on_the_visible_text_in_code_points(
    tg: FakeTelegram, app: Application
) -> None:
    emoji = "😀" * 4096  # 4096 code points, 8192 UTF-16 units: Telegram accepts it
    sent = await app.bot.send_message(GROUP, f"<b>{emoji}</b>", parse_mode="HTML")
    assert sent.entities[0].length == 8192
    with pytest.raises(BadRequest, match="Message is too long"):
        await app.bot.send_message(GROUP, emoji + "!")


async def test_an_unknown_token_is_refused(tg: FakeTelegram) -> None:
    with pytest.raises(InvalidToken):
        async with build_app(tg, token="999:not-this-bot"):
            pass


async def test_flood_limits_answer_retry_after(timedelta_retry_after: None) -> None:
    now = [0.0]
    async with FakeTelegram(clock=lambda: now[0]) as tg:
        tg.add_chat(PRIVATE)
        tg.add_chat(GROUP)
        app = build_app(tg)
        async with app:
            for _ in range(3):  # the private chat's burst allowance
                await app.bot.send_message(PRIVATE, "ok")
            with pytest.raises(RetryAfter) as private:
                await app.bot.send_message(PRIVATE, "too fast")
            now[0] += 1.0
            await app.bot.send_message(PRIVATE, "after waiting")

            for _ in range(20):
                await app.bot.send_message(GROUP, "ok")
            with pytest.raises(RetryAfter) as group:
                await app.bot.send_message(GROUP, "21st this minute")
    assert private.value.retry_after == dtm.timedelta(seconds=1)
    assert group.value.retry_after == dtm.timedelta(seconds=3)  # one message per 60/20 s
    assert (tg.flood_count, tg.flood_by_chat[GROUP]) == (2, 1)
    assert len(tg.timeline) == 24


async def test_the_overall_limit_spans_chats(timedelta_retry_after: None) -> None:
    async with FakeTelegram(clock=lambda: 0.0) as tg:
        app = build_app(tg)
        async with app:
            for n in range(40):
                tg.add_chat(-100 - n)
            sends = [app.bot.send_message(-100 - n, "x") for n in range(40)]
            results = await asyncio.gather(*sends, return_exceptions=True)
    refused = [r for r in results if isinstance(r, RetryAfter)]
    assert (len(results) - len(refused), len(refused)) == (30, 10)
    assert refused[0].retry_after == dtm.timedelta(seconds=1)


async def test_scaled_limits_let_a_rate_limited_bot_reach_200_chats_fast() -> None:
    speed = 20  # Telegram's 30 messages/s become 600/s
    async with FakeTelegram(flood=FloodLimits().scaled(speed)) as tg:
        # A client limiter a little under the server's limit absorbs network jitter.
        limiter = AIORateLimiter(overall_max_rate=25, overall_time_period=1 / speed)
        app = build_app(tg, rate_limiter=limiter)
        chats = [-200_000 - n for n in range(200)]
        for chat in chats:
            tg.add_chat(chat)
        async with app:
            for chat in chats:  # one after another, as a digest broadcaster does
                await asyncio.wait_for(app.bot.send_message(chat, "digest"), WAIT)
    assert (tg.flood_count, len(tg.timeline)) == (0, 200)


async def test_a_scaled_retry_after_is_a_fraction_of_a_second(
    timedelta_retry_after: None,
) -> None:
    async with FakeTelegram(flood=FloodLimits().scaled(100), clock=lambda: 0.0) as tg:
        tg.add_chat(PRIVATE)
        async with build_app(tg) as app:
            for _ in range(3):
                await app.bot.send_message(PRIVATE, "ok")
            with pytest.raises(RetryAfter) as refused:
                await app.bot.send_message(PRIVATE, "too fast")
    assert refused.value.retry_after == dtm.timedelta(milliseconds=10)


async def test_commands_are_stored_per_scope(app: Application) -> None:
    commands = [BotCommand("follow", "Follow a topic"), BotCommand("digest", "Send now")]
    await app.bot.set_my_commands(commands)
    await app.bot.set_my_commands(commands[:1], scope=BotCommandScopeChat(GROUP))

    assert await app.bot.get_my_commands() == tuple(commands)
    assert await app.bot.get_my_commands(scope=BotCommandScopeChat(GROUP)) == tuple(commands[:1])
    with pytest.raises(BadRequest, match=r"(?i)bot_command_invalid"):
        await app.bot.set_my_commands([BotCommand("Follow-Topic", "bad name")])


async def test_chat_members_have_the_configured_status(tg: FakeTelegram, app: Application) -> None:
    tg.set_member(GROUP, 9, "administrator")
    tg.inject_message(GROUP, MEMBER, "hello")

    statuses = [(await app.bot.get_chat_member(GROUP, u)).status for u in (ADMIN, 9, MEMBER)]
    assert statuses == [ChatMember.OWNER, ChatMember.ADMINISTRATOR, ChatMember.MEMBER]
    admins = await app.bot.get_chat_administrators(GROUP)
    assert {a.user.id for a in admins} == {ADMIN, 9}
    chat = await app.bot.get_chat(GROUP)
    assert (chat.type, chat.title) == ("supergroup", "ML reading group")


async def test_photos_are_uploaded_as_multipart(tg: FakeTelegram, app: Application) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    message = await app.bot.send_photo(GROUP, png, caption="<i>chart</i>", parse_mode="HTML")
    (record,) = tg.sent(GROUP, method="sendPhoto")
    assert record["photo"] == png
    assert (message.caption, message.photo[-1].file_size) == ("chart", len(png))


@pytest.mark.parametrize(
    "html",
    [
        "<b>Weekly digest</b>\n<i>a &amp; b</i> &lt;script&gt; &quot;x&quot; &#128512;",
        '<a href="https://arxiv.org/abs/2605.00001">Paper</a> <code>x &lt; y</code>',
        '<pre><code class="language-python">print(1)</code></pre><blockquote expandable>q'
        '</blockquote><tg-spoiler>s</tg-spoiler><span class="tg-spoiler">t</span>',
        "<B>upper case tags</b> <s>and</s> <u>friends</u> a > b",
    ],
)
def test_well_formed_telegram_html_is_accepted(html: str) -> None:
    assert validate_telegram_html(html) is None


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("<script>alert(1)</script>", 'Unsupported start tag "script" at byte offset 0'),
        ("<b>unclosed", 'Can\'t find end tag corresponding to start tag "b"'),
        ("AT&T", 'Unescaped "&" at byte offset 2'),
        ("&nbsp;", 'Unescaped "&" at byte offset 0'),
        ("<a>no href</a>", 'Tag "a" must have an href attribute'),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("<a href=https://x.org>x</a>", "Unexpected end of name token at byte offset 8"),
        ("é <br>", 'Unsupported start tag "br" at byte offset 3'),
    ],
)
def test_malformed_telegram_html_is_rejected(html: str, error: str) -> None:
    assert error in (validate_telegram_html(html) or "")


def test_lenient_mode_keeps_what_telegram_itself_tolerates() -> None:
    assert validate_telegram_html("AT&T &nbsp; <a>x</a>", strict=False) is None
