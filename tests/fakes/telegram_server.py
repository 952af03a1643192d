"""A fake Telegram Bot API server on 127.0.0.1 that the real python-telegram-bot talks to.

    async with FakeTelegram() as tg:  # or: base_url = await tg.start(); ...; await tg.stop()
        tg.add_chat(-100123, title="ML reading group", admins={7: "creator"})
        app = Application.builder().token(tg.token).base_url(tg.api_url).build()
        tg.inject_message(-100123, 7, "/follow rl agents")
        sent = await tg.wait_for_sent(-100123, 1)

In pytest, import the `fake_telegram` fixture defined at the bottom of this module.

Requests are `POST|GET /bot<token>/<method>` with form-urlencoded (non-string values
JSON-encoded), multipart or JSON bodies; answers are `{"ok": ...}` JSON with Telegram's error
texts and statuses. Text is checked as Telegram does after parsing (`telegram_html`: strict
HTML by default, length in code points). Accepted sends and edits are recorded per chat
(`sent(chat_id)`); updates wait in a queue until a getUpdates offset confirms them.

Flood limits are token buckets (`Rate(count, period, burst)`: `burst` sends at once, then
`count` per `period` seconds) checked against an injectable clock. A refused send answers 429
with `retry_after` rounded up to `FloodLimits.retry_unit` (1 s, an integer, like Telegram;
`FloodLimits().scaled(speed)` runs every limit `speed` times faster and shrinks the unit to
match). Only accepted sends consume quota. Long polling waits in real event-loop time.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from aiohttp import web

from tests.fakes.telegram_html import (
    HtmlError,
    parse_telegram_html,
    strip_text,
    text_length,
    validate_telegram_html,
)

__all__ = [
    "ApiError",
    "Chat",
    "FakeTelegram",
    "FloodLimits",
    "Rate",
    "fake_telegram",
    "validate_telegram_html",
]

TOKEN = "123456:TEST-token"
TEXT_LIMIT, CAPTION_LIMIT = 4096, 1024
# fmt: off
JSON_FIELDS = frozenset((
    "reply_markup", "commands", "scope", "allowed_updates", "link_preview_options",
    "entities", "caption_entities", "reply_parameters",
))
DEFAULT_UPDATES = frozenset((  # what Telegram sends when allowed_updates is unset or []
    "message", "edited_message", "channel_post", "edited_channel_post", "callback_query",
    "my_chat_member",
))
ADMIN_RIGHTS = (
    "can_manage_chat", "can_delete_messages", "can_manage_video_chats", "can_restrict_members",
    "can_promote_members", "can_change_info", "can_invite_users", "can_post_stories",
    "can_edit_stories", "can_delete_stories",
)
# fmt: on
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?")
_VALID_COMMAND = re.compile(r"[a-z0-9_]{1,32}")


class ApiError(Exception):
    """An error answer: HTTP status, Telegram's description and optional parameters."""

    def __init__(self, status: int, description: str, parameters: dict | None = None) -> None:
        super().__init__(description)
        self.status, self.description, self.parameters = status, description, parameters


def _bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


@dataclass(frozen=True)
class Rate:
    """`count` sends per `period` seconds, up to `burst` (default `count`) at once."""

    count: float
    period: float
    burst: float | None = None


@dataclass(frozen=True)
class FloodLimits:
    """Telegram's published limits: 30/s per bot, 20/min per group, about 1/s per chat."""

    overall: Rate = Rate(30, 1.0)
    group: Rate = Rate(20, 60.0)  # negative chat ids: groups, supergroups, channels
    private: Rate = Rate(1, 1.0, burst=3)
    retry_unit: float = 1.0

    def scaled(self, speed: float) -> FloodLimits:
        """The same limits with time running `speed` times faster."""

        def fast(rate: Rate) -> Rate:
            return replace(rate, period=rate.period / speed)

        return FloodLimits(
            fast(self.overall), fast(self.group), fast(self.private), self.retry_unit / speed
        )


TELEGRAM_LIMITS = FloodLimits()


class _Bucket:
    def __init__(self, rate: Rate, now: float) -> None:
        self.capacity = rate.burst or rate.count
        self.refill = rate.count / rate.period
        self.level, self.stamp = float(self.capacity), now

    def wait(self, now: float) -> float:
        """Seconds until one send fits (0 if it fits now)."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.refill)
        self.stamp = now
        return 0.0 if self.level >= 1 else (1 - self.level) / self.refill


class _Signal:
    """Wakes every waiter on notify(); usable from sync code in the same event loop."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()

    async def wait_until(self, ready: Callable[[], bool], timeout: float) -> bool:
        deadline = asyncio.get_running_loop().time() + timeout
        while not ready():
            event = self._event
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return False
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                return ready()
        return True


@dataclass
class Chat:
    id: int
    type: str
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    members: dict[int, str] = field(default_factory=dict)  # user id -> status
    blocked: str | None = None  # the 403 description while the bot cannot write here
    photos_allowed: bool = True  # a group may let members (and the bot) post text only
    migrated_to: int | None = None
    messages: dict[int, dict] = field(default_factory=dict)
    last_message_id: int = 0

    def as_json(self, users: dict[int, dict]) -> dict:
        chat: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private":
            user = users.get(self.id, {})
            chat["first_name"] = user.get("first_name", f"User {self.id}")
        else:
            chat["title"] = self.title or f"Chat {self.id}"
        if self.username:
            chat["username"] = self.username
        if self.is_forum:
            chat["is_forum"] = True
        return chat


def sent_text(record: dict) -> str:
    """What the bot wrote in a recorded send: a message's text or a photo's caption, as sent."""
    return record["params"].get("text") or record["params"].get("caption")


class FakeTelegram:
    """The fake server plus the state tests drive and read; see the module docstring."""

    def __init__(
        self,
        token: str = TOKEN,
        *,
        bot_username: str = "digest_test_bot",
        flood: FloodLimits | None = TELEGRAM_LIMITS,
        clock: Callable[[], float] = time.monotonic,
        strict_html: bool = True,
        length_unit: str = "code_points",
    ) -> None:
        self.token, self.flood, self.clock = token, flood, clock
        self.strict_html, self.length_unit = strict_html, length_unit
        self.bot = {"id": int(token.split(":")[0]), "is_bot": True, "first_name": "Digest"}
        self.bot.update(username=bot_username, can_join_groups=True)
        self.bot.update(can_read_all_group_messages=False, supports_inline_queries=False)
        self.chats: dict[int, Chat] = {}
        self.users: dict[int, dict] = {}
        self.commands: dict[str, list[dict]] = {}
        self.webhook: dict[str, Any] = {"url": ""}
        self.callback_answers: list[dict] = []
        self.calls: list[tuple[str, dict]] = []  # every request: (method, params)
        self.timeline: list[tuple[float, int, str]] = []  # accepted sends: (clock, chat, method)
        self.flood_count = 0
        self.flood_by_chat: Counter[int] = Counter()
        self._sent: dict[int, list[dict]] = {}
        self._updates: list[dict] = []
        self._allowed = DEFAULT_UPDATES
        self._next_update_id = 1
        self._queries: dict[str, dict] = {}
        self._failures: list[dict] = []
        self._buckets: dict[object, _Bucket] = {}
        self._poll_generation = 0
        self._updates_signal, self._sent_signal = _Signal(), _Signal()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._closing = False
        self._outage: ApiError | None = None
        # Seconds an accepted send waits before its answer goes out (Telegram under load).
        self.answer_delay = 0.0
        self.base_url = ""

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self, port: int = 0) -> str:
        """Listen on 127.0.0.1 (a free port unless given); returns the base URL, e.g.
        http://127.0.0.1:N."""
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, "127.0.0.1", port)
        await self._site.start()
        self.base_url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        self._closing = False
        return self.base_url

    async def go_offline(self) -> None:
        """Refuse connections, and drop the open ones, until `go_online`."""
        if self._site is not None and self._runner is not None:
            await self._site.stop()
            self._site = None
            for connection in list(self._runner.server.connections):
                connection.force_close()

    async def go_online(self) -> None:
        if self._site is None and self._runner is not None:
            port = int(self.base_url.rpartition(":")[2])
            self._site = web.TCPSite(self._runner, "127.0.0.1", port)
            await self._site.start()

    def set_outage(self, status: int | None, description: str = "Bad Gateway") -> None:
        """Answer every call with this error (as Telegram's front does when it is down), or
        serve again after `set_outage(None)`."""
        self._outage = ApiError(status, description) if status else None

    async def stop(self) -> None:
        self._closing = True
        self._updates_signal.notify()  # long polls answer at once instead of at their timeout
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def api_url(self) -> str:
        """For `ApplicationBuilder().base_url(...)` (PTB appends the token)."""
        return f"{self.base_url}/bot"

    @property
    def file_url(self) -> str:
        return f"{self.base_url}/file/bot"

    # --- state tests configure -------------------------------------------------------------

    def add_user(self, user_id: int, first_name: str | None = None, **extra: Any) -> dict:
        user = {"id": user_id, "is_bot": False, "first_name": first_name or f"User {user_id}"}
        self.users[user_id] = {**user, **extra}
        return self.users[user_id]

    def add_chat(
        self,
        chat_id: int,
        type: str | None = None,
        title: str | None = None,
        *,
        is_forum: bool = False,
        username: str | None = None,
        admins: dict[int, str] | None = None,
    ) -> Chat:
        """Register a chat; the type defaults from the id (-100… supergroup, <0 group)."""
        if type is None:
            type = "private" if chat_id > 0 else "group"
            type = "supergroup" if str(chat_id).startswith("-100") else type
        chat = Chat(chat_id, type, title, username, is_forum, dict(admins or {}))
        self.chats[chat_id] = chat
        if type == "private":
            self.users.get(chat_id) or self.add_user(chat_id)
            chat.members.setdefault(chat_id, "member")
        for user_id in chat.members:
            self.users.get(user_id) or self.add_user(user_id)
        return chat

    def set_member(self, chat_id: int, user_id: int, status: str) -> None:
        """status: creator, administrator, member, left or kicked."""
        self.users.get(user_id) or self.add_user(user_id)
        self._chat_or_add(chat_id).members[user_id] = status

    def forbid_photos(self, chat_id: int) -> None:
        """From now on photos sent here answer 400, as in a group whose members may not post
        media; text still goes through."""
        self._chat_or_add(chat_id).photos_allowed = False

    def block(self, chat_id: int, description: str | None = None) -> None:
        """From now on sends to this chat answer 403 (blocked by the user / kicked)."""
        chat = self._chat_or_add(chat_id)
        kicked = {"private": "bot was blocked by the user"}
        kicked["channel"] = "bot is not a member of the channel chat"
        default = kicked.get(chat.type, f"bot was kicked from the {chat.type} chat")
        chat.blocked = f"Forbidden: {description or default}"

    def unblock(self, chat_id: int) -> None:
        self._chat_or_add(chat_id).blocked = None

    def migrate(self, chat_id: int, new_chat_id: int) -> Chat:
        """Upgrade a group to a supergroup: the old id answers 400 with migrate_to_chat_id."""
        old = self._chat_or_add(chat_id)
        old.migrated_to = new_chat_id
        return self.add_chat(new_chat_id, "supergroup", old.title, admins=old.members)

    def fail_next(
        self,
        method: str,
        status: int,
        description: str,
        parameters: dict | None = None,
        times: int = 1,
        *,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next `times` calls of `method` (optionally only for `chat_id`) so."""
        failure = {"method": method.lower(), "chat_id": chat_id, "times": times}
        failure["error"] = ApiError(status, description, parameters)
        self._failures.append(failure)

    # --- updates tests inject --------------------------------------------------------------

    def inject_message(
        self, chat_id: int, user_id: int, text: str, message_thread_id: int | None = None
    ) -> dict:
        """Queue a `message` update from a user (bot_command entity for `/cmd` text)."""
        chat = self._chat_or_add(chat_id)
        user = self.users.get(user_id) or self.add_user(user_id)
        chat.members.setdefault(user_id, "member")
        message = self._new_message(chat, text, sender=user, thread=message_thread_id)
        return self._queue("message", message)

    def inject_channel_post(self, chat_id: int, text: str) -> dict:
        chat = self.chats.get(chat_id) or self.add_chat(chat_id, "channel")
        message = self._new_message(chat, text, sender=None, thread=None)
        return self._queue("channel_post", message)

    def inject_callback_query(self, chat_id: int, user_id: int, data: str, message_id: int) -> dict:
        """Queue a `callback_query` from a button on message `message_id` of the chat."""
        chat = self._chat_or_add(chat_id)
        user = self.users.get(user_id) or self.add_user(user_id)
        message = chat.messages.get(message_id) or {
            "message_id": message_id,
            "chat": chat.as_json(self.users),
            "date": 0,  # PTB reads date 0 as an InaccessibleMessage
        }
        query_id = str(4_000_000 + self._next_update_id)
        query = {"id": query_id, "from": user, "chat_instance": str(abs(chat_id)), "data": data}
        query["message"] = message
        self._queries[query_id] = query
        return self._queue("callback_query", query)

    def inject_my_chat_member(
        self, chat_id: int, user_id: int, old_status: str, new_status: str
    ) -> dict:
        """The bot was added/removed/promoted by `user_id`; kicked/left also block sends."""
        chat = self._chat_or_add(chat_id)
        user = self.users.get(user_id) or self.add_user(user_id)
        event = {"chat": chat.as_json(self.users), "from": user, "date": int(time.time())}
        event["old_chat_member"] = _member_json(self.bot, old_status)
        event["new_chat_member"] = _member_json(self.bot, new_status)
        if new_status in ("kicked", "left"):
            self.block(chat_id)
        else:
            self.unblock(chat_id)
        return self._queue("my_chat_member", event)

    # --- what tests read --------------------------------------------------------------------

    def sent(self, chat_id: int, method: str | None = None) -> list[dict]:
        """Accepted sends/edits to the chat, oldest first (optionally of one method)."""
        records = self._sent.get(chat_id, [])
        return [r for r in records if method is None or r["method"] == method]

    async def wait_for_sent(
        self, chat_id: int, count: int, timeout: float = 5.0, method: str | None = None
    ) -> list[dict]:
        """Wait until the chat has `count` records; AssertionError after `timeout` seconds."""

        def ready() -> bool:
            return len(self.sent(chat_id, method)) >= count

        if not await self._sent_signal.wait_until(ready, timeout):
            got = [r["text"] for r in self.sent(chat_id, method)]
            raise AssertionError(f"chat {chat_id}: wanted {count} sends in {timeout}s, got {got}")
        return self.sent(chat_id, method)

    def menu(self, scope: str = "default", language_code: str = "") -> list[dict]:
        """The commands setMyCommands last set for a scope type without a chat (default,
        all_private_chats, all_group_chats, all_chat_administrators)."""
        return self.commands.get(
            _commands_key({"scope": {"type": scope}, "language_code": language_code}), []
        )

    def pending_updates(self) -> list[dict]:
        return list(self._updates)

    def peak_rate(self, window: float = 1.0) -> float:
        """Most accepted sends within any `window` seconds of the clock, per second."""
        times, best, first = [t for t, _, _ in self.timeline], 0, 0
        for last, now in enumerate(times):
            while now - times[first] >= window:
                first += 1
            best = max(best, last - first + 1)
        return best / window

    # --- HTTP ------------------------------------------------------------------------------

    async def _dispatch(self, request: web.Request) -> web.Response:
        match = re.fullmatch(r"/bot([^/]+)/([^/]+)", request.path)
        if match is None:
            return _answer(ApiError(404, "Not Found"))
        if self._outage is not None:
            return _answer(self._outage)
        if match.group(1) != self.token:
            return _answer(ApiError(401, "Unauthorized"))
        method = match.group(2).lower()  # Bot API method names are case-insensitive
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            return _answer(ApiError(404, "Not Found"))
        try:
            params, files = await _read_params(request)
            self.calls.append((match.group(2), params))
            self._scripted_failure(method, params)
            result = await handler(params, files)
        except ApiError as error:
            return _answer(error)
        if self.answer_delay and method in ("sendmessage", "sendphoto"):
            await asyncio.sleep(self.answer_delay)  # the message is in the chat already
        return _answer(result)

    def _scripted_failure(self, method: str, params: dict) -> None:
        for failure in self._failures:
            wanted_chat = failure["chat_id"]
            if failure["method"] != method:
                continue
            if wanted_chat is not None and str(wanted_chat) != str(params.get("chat_id")):
                continue
            failure["times"] -= 1
            if failure["times"] <= 0:
                self._failures.remove(failure)
            raise failure["error"]

    # --- Bot API methods (params are decoded, JSON fields parsed) -------------------------

    async def _api_getme(self, params: dict, files: dict) -> dict:
        return self.bot

    async def _api_setwebhook(self, params: dict, files: dict) -> bool:
        if not params.get("url"):
            return await self._api_deletewebhook(params, files)
        self.webhook = {"url": params["url"], "allowed_updates": params.get("allowed_updates")}
        self._drop_pending(params)
        return True

    async def _api_deletewebhook(self, params: dict, files: dict) -> bool:
        self.webhook = {"url": ""}
        self._drop_pending(params)
        return True

    async def _api_getwebhookinfo(self, params: dict, files: dict) -> dict:
        info = {"has_custom_certificate": False, "pending_update_count": len(self._updates)}
        return {**info, **{k: v for k, v in self.webhook.items() if v is not None}}

    async def _api_getupdates(self, params: dict, files: dict) -> list[dict]:
        if self.webhook["url"]:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        if "allowed_updates" in params:
            self._allowed = frozenset(params["allowed_updates"]) or DEFAULT_UPDATES
        self._confirm(_number(params, "offset", 0))
        limit = min(max(_number(params, "limit", 100), 1), 100)
        self._poll_generation += 1
        generation = self._poll_generation
        self._updates_signal.notify()  # an older long poll now ends with 409, as on Telegram

        def ready() -> bool:
            return bool(self._deliverable()) or self._closing or generation != self._poll_generation

        await self._updates_signal.wait_until(ready, _number(params, "timeout", 0, float))
        if generation != self._poll_generation:
            raise ApiError(
                409,
                "Conflict: terminated by other getUpdates request; "
                "make sure that only one bot instance is running",
            )
        return self._deliverable()[:limit]

    async def _api_setmycommands(self, params: dict, files: dict) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad("BOT_COMMANDS_TOO_MUCH" if commands else "commands are empty")
        for command in commands:
            if not _VALID_COMMAND.fullmatch(str(command.get("command", ""))):
                raise _bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands[_commands_key(params)] = commands
        return True

    async def _api_getmycommands(self, params: dict, files: dict) -> list[dict]:
        return self.commands.get(_commands_key(params), [])

    async def _api_getchat(self, params: dict, files: dict) -> dict:
        chat = self._target_chat(params)
        full = chat.as_json(self.users)
        full.update(accent_color_id=0, max_reaction_count=11)
        gifts = "unlimited_gifts limited_gifts unique_gifts premium_subscription"
        full["accepted_gift_types"] = dict.fromkeys(gifts.split(), False)
        full["accepted_gift_types"]["gifts_from_channels"] = False
        return full

    async def _api_getchatmember(self, params: dict, files: dict) -> dict:
        chat = self._target_chat(params)
        user_id = _number(params, "user_id", 0)
        user = self.bot if user_id == self.bot["id"] else self.users.get(user_id)
        if user is None:
            raise _bad("user not found")
        default = "left"  # never seen in the chat
        if user is self.bot:
            default = "administrator" if chat.type == "channel" else "member"
        return _member_json(user, chat.members.get(user_id, default))

    async def _api_getchatadministrators(self, params: dict, files: dict) -> list[dict]:
        chat = self._target_chat(params)
        admins = [(u, s) for u, s in chat.members.items() if s in ("creator", "administrator")]
        return [_member_json(self.users[u], s) for u, s in admins]

    async def _api_answercallbackquery(self, params: dict, files: dict) -> bool:
        query_id = str(params.get("callback_query_id", ""))
        if self._queries.pop(query_id, None) is None:
            raise _bad("query is too old and response timeout expired or query ID is invalid")
        self.callback_answers.append(params)
        return True

    async def _api_sendmessage(self, params: dict, files: dict) -> dict:
        chat = self._writable_chat(params)
        text, entities = self._parsed(params, "text", TEXT_LIMIT, "message is too long")
        if not text:
            raise _bad("message text is empty")
        self._take_flood_quota(chat, "sendMessage")
        thread = _number(params, "message_thread_id", None)
        message = self._new_message(chat, text, sender=self.bot, thread=thread, entities=entities)
        _add_markup(message, params)
        return self._record(chat, "sendMessage", params, message)

    async def _api_sendphoto(self, params: dict, files: dict) -> dict:
        chat = self._writable_chat(params)
        if not chat.photos_allowed:
            raise _bad("not enough rights to send photos to the chat")
        photo = _photo_bytes(params, files)
        caption, entities = self._parsed(
            params, "caption", CAPTION_LIMIT, "message caption is too long"
        )
        self._take_flood_quota(chat, "sendPhoto")
        thread = _number(params, "message_thread_id", None)
        message = self._new_message(chat, None, sender=self.bot, thread=thread)
        size = len(photo) if isinstance(photo, bytes) else 0
        file_id = f"photo-{chat.id}-{message['message_id']}"
        sizes = {"file_id": file_id, "file_unique_id": file_id, "width": 1280, "height": 720}
        message["photo"] = [{**sizes, "file_size": size}]
        if caption:
            message["caption"] = caption
            message.update({"caption_entities": entities} if entities else {})
        _add_markup(message, params)
        return self._record(chat, "sendPhoto", params, message, photo=photo, caption=caption)

    async def _api_editmessagetext(self, params: dict, files: dict) -> dict:
        chat = self._writable_chat(params)
        message = chat.messages.get(_number(params, "message_id", 0))
        if message is None:
            raise _bad("message to edit not found")
        text, entities = self._parsed(params, "text", TEXT_LIMIT, "message is too long")
        if not text:
            raise _bad("message text is empty")
        markup = params.get("reply_markup")
        same = (message.get("text"), message.get("entities", []), message.get("reply_markup"))
        if same == (text, entities, markup if markup and "inline_keyboard" in markup else None):
            raise _bad(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message"
            )
        self._take_flood_quota(chat, "editMessageText")
        message.pop("entities", None)
        message.pop("reply_markup", None)
        message.update({"text": text, "edit_date": int(time.time())})
        message.update({"entities": entities} if entities else {})
        _add_markup(message, params)
        return self._record(chat, "editMessageText", params, message)

    # --- helpers ---------------------------------------------------------------------------

    def _chat_or_add(self, chat_id: int) -> Chat:
        return self.chats.get(chat_id) or self.add_chat(chat_id)

    def _target_chat(self, params: dict) -> Chat:
        raw = str(params.get("chat_id", "")).strip()
        if not raw:
            raise _bad("chat_id is empty")
        if raw.startswith("@"):
            chat = next((c for c in self.chats.values() if f"@{c.username}" == raw), None)
        else:
            chat = self.chats.get(int(raw)) if raw.lstrip("-").isdigit() else None
        if chat is None:
            raise _bad("chat not found")
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        return chat

    def _writable_chat(self, params: dict) -> Chat:
        chat = self._target_chat(params)
        if chat.blocked:
            raise ApiError(403, chat.blocked)
        return chat

    def _parsed(self, params: dict, name: str, limit: int, too_long: str) -> tuple[str, list]:
        raw = str(params.get(name) or "")
        mode = str(params.get("parse_mode") or "").lower()
        if mode == "html":
            try:
                text, entities = parse_telegram_html(raw, strict=self.strict_html)
            except HtmlError as exc:
                raise _bad(f"can't parse entities: {exc}") from None
        elif mode in ("", "markdown", "markdownv2"):
            text, entities = raw, []  # Markdown is passed through unchecked
        else:
            raise _bad("unsupported parse_mode")
        text, entities = strip_text(text, entities)
        if text_length(text, self.length_unit) > limit:
            raise _bad(too_long)
        return text, entities

    def _take_flood_quota(self, chat: Chat, method: str) -> None:
        if self.flood is None:
            return
        now = self.clock()
        per_chat = self.flood.group if chat.id < 0 else self.flood.private
        buckets = [self._bucket("overall", self.flood.overall, now)]
        buckets.append(self._bucket(chat.id, per_chat, now))
        wait = max(bucket.wait(now) for bucket in buckets)
        if wait > 0:
            self.flood_count += 1
            self.flood_by_chat[chat.id] += 1
            unit = self.flood.retry_unit
            retry = max(math.ceil(wait / unit - 1e-9), 1) * unit
            retry = int(retry) if unit >= 1 else round(retry, 6)
            raise ApiError(429, f"Too Many Requests: retry after {retry}", {"retry_after": retry})
        for bucket in buckets:
            bucket.level -= 1
        self.timeline.append((now, chat.id, method))

    def _bucket(self, key: object, rate: Rate, now: float) -> _Bucket:
        if key not in self._buckets:
            self._buckets[key] = _Bucket(rate, now)
        return self._buckets[key]

    def _new_message(
        self,
        chat: Chat,
        text: str | None,
        *,
        sender: dict | None,
        thread: int | None,
        entities: list[dict] | None = None,
    ) -> dict:
        chat.last_message_id += 1
        message: dict[str, Any] = {"message_id": chat.last_message_id, "date": int(time.time())}
        message["chat"] = chat.as_json(self.users)
        if chat.type == "channel":
            message["sender_chat"] = message["chat"]
        elif sender is not None:
            message["from"] = sender
        if thread is not None:
            message["message_thread_id"] = thread
            message.update({"is_topic_message": True} if chat.is_forum else {})
        if text is not None:
            message["text"] = text
            command = _COMMAND.match(text) if sender is not self.bot else None
            entities = entities or []
            if command:
                entities = [{"type": "bot_command", "offset": 0, "length": command.end()}]
            message.update({"entities": entities} if entities else {})
        chat.messages[chat.last_message_id] = message
        return message

    def _record(self, chat: Chat, method: str, params: dict, message: dict, **extra: Any) -> dict:
        preview = params.get("link_preview_options") or {}
        record = {"method": method, "chat_id": chat.id, "message_id": message["message_id"]}
        record.update(text=params.get("text"), parse_mode=params.get("parse_mode"))
        record.update(reply_markup=params.get("reply_markup"), link_preview_options=preview)
        record["message_thread_id"] = _number(params, "message_thread_id", None)
        dwpp = params.get("disable_web_page_preview", preview.get("is_disabled"))
        record["disable_web_page_preview"] = _bool(dwpp)
        record.update(extra, message=dict(message), params=params, at=self.clock())
        self._sent.setdefault(chat.id, []).append(record)
        self._sent_signal.notify()
        return message

    def _queue(self, kind: str, payload: dict) -> dict:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._updates.append(update)
        self._updates_signal.notify()
        return update

    def _deliverable(self) -> list[dict]:
        return [u for u in self._updates if self._allowed.intersection(u)]

    def _confirm(self, offset: int) -> None:
        if offset < 0:
            self._updates = self._updates[offset:]
        elif offset:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]

    def _drop_pending(self, params: dict) -> None:
        if _bool(params.get("drop_pending_updates")):
            self._updates.clear()


def _answer(result: Any) -> web.Response:
    if isinstance(result, ApiError):
        body: dict[str, Any] = {"ok": False, "error_code": result.status}
        body["description"] = result.description
        body.update({"parameters": result.parameters} if result.parameters else {})
        status = result.status
    else:
        body, status = {"ok": True, "result": result}, 200
    # body= keeps the Content-Type exactly application/json (text= would add a charset)
    return web.Response(status=status, body=json.dumps(body), content_type="application/json")


async def _read_params(request: web.Request) -> tuple[dict, dict[str, bytes]]:
    params: dict[str, Any] = dict(request.query)
    files: dict[str, bytes] = {}
    if request.content_type == "application/json" and request.can_read_body:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise _bad("can't parse JSON object")
        params.update(body)
    elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        for name, value in (await request.post()).items():
            if isinstance(value, web.FileField):
                files[name] = value.file.read()
            else:
                params[name] = value
    for name in JSON_FIELDS.intersection(params):
        if isinstance(params[name], str):
            try:
                params[name] = json.loads(params[name])
            except ValueError:
                raise _bad(f"can't parse {name} JSON object") from None
    return params, files


def _number(params: dict, name: str, default: Any, kind: type = int) -> Any:
    value = params.get(name)
    if value in (None, ""):
        return default
    try:
        return kind(float(value))
    except ValueError:
        raise _bad(f"invalid {name} specified") from None


def _bool(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    return str(value).lower() in ("true", "1")


def _commands_key(params: dict) -> str:
    scope = params.get("scope") or {"type": "default"}
    return json.dumps([scope, params.get("language_code") or ""], sort_keys=True)


def _add_markup(message: dict, params: dict) -> None:
    markup = params.get("reply_markup")
    if isinstance(markup, dict) and "inline_keyboard" in markup:
        message["reply_markup"] = markup  # Telegram echoes only inline keyboards


def _photo_bytes(params: dict, files: dict[str, bytes]) -> bytes | str:
    """The uploaded bytes, or the file_id/URL string sent instead."""
    photo = files.get("photo") or params.get("photo")
    if not photo:
        raise _bad("there is no photo in the request")
    return photo


def _member_json(user: dict, status: str) -> dict:
    """A ChatMember object with the fields PTB requires for `status`."""
    member: dict[str, Any] = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(dict.fromkeys(ADMIN_RIGHTS, True), can_be_edited=False, is_anonymous=False)
    elif status == "kicked":
        member["until_date"] = 0
    return member


@pytest.fixture
async def fake_telegram() -> AsyncIterator[FakeTelegram]:
    """A running fake with Telegram's real flood limits and no chats yet."""
    async with FakeTelegram() as server:
        yield server
