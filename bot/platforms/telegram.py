"""The Telegram adapter: commands in, digests out, through python-telegram-bot.

It translates and decides nothing: an update becomes a `Caller` plus a command for
`CommandService.handle`, the neutral `Reply` becomes HTML (`telegram_render`), and sending a
stored part maps PTB's errors onto the delivery layer's `SendFailure` tree:

    RetryAfter          -> RetryLater(seconds)   the Dispatcher waits as told and resends
    ChatMigrated        -> ChatMoved(new id)     a group became a supergroup
    Forbidden           -> ChatUnavailable       blocked by the user, kicked from the group
    BadRequest          -> Rejected              ... but "chat not found" -> ChatUnavailable
    TimedOut, NetworkError and other API errors -> Transient
    ... after the request was written       -> OutcomeUnknown (a read timeout, a dropped answer)
    InvalidToken        -> raised as is          a configuration error, not a delivery problem

The PTB `Application` runs inside digestbot's own event loop (initialize/start/updater, never
`run_polling`), beside the scheduler and the other adapters.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import logging
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
from telegram import (
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Chat,
    ChatMember,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import ChatType
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TelegramError,
)
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.request import BaseRequest, HTTPXRequest

from bot.platforms import telegram_render
from bot.platforms.base import draw_chart
from bot.platforms.telegram_updates import PerChatUpdates
from bot.settings import Settings, SettingsError
from bot.tls import shared_tls_context
from digests.delivery.sending import (
    Address,
    ChatMoved,
    ChatUnavailable,
    MediaRefused,
    OutcomeUnknown,
    Rejected,
    RetryLater,
    SendFailure,
    Transient,
)
from digests.messages.alert import SpikeAlert
from digests.messages.chart_spec import CHART_KEY
from digests.messages.digest import Digest
from digests.messages.layout import clean_text
from digests.messages.vote_keys import is_vote_data
from digests.usecases.app import UseCases
from digests.usecases.commands import COMMANDS, Caller, Reply, menu
from digests.usecases.dispatch import SEND_TIMEOUT
from digests.usecases.votes import Voter

if TYPE_CHECKING:
    from bot.platforms.telegram_webhook import WebhookReceiver

log = logging.getLogger(__name__)

PLATFORM = "telegram"
CHAT_KINDS = {
    ChatType.PRIVATE: "private",
    ChatType.GROUP: "group",
    ChatType.SUPERGROUP: "group",
    ChatType.CHANNEL: "channel",
}
ADMIN_STATUSES = frozenset((ChatMember.ADMINISTRATOR, ChatMember.OWNER))
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.CHANNEL_POST,
    Update.CALLBACK_QUERY,
    Update.MY_CHAT_MEMBER,
]
GONE_STATUSES = frozenset((ChatMember.LEFT, ChatMember.BANNED))  # BANNED is "kicked"
# Telegram sends /start when someone opens a chat with the bot: it answers as /help does.
START = BotCommand("start", "start here: what I can do")
STEP_TIMEOUT = 10.0  # seconds for each step of stop()
# Checked first: "not enough rights to send photos" refuses the chart, not the chat.
MEDIA_REFUSED_PHRASES = (
    "not enough rights to send photos",
    "chat_send_photos_forbidden",
    "chat_send_media_forbidden",
)
# 400 answers that mean "cannot write here now", not "this message is wrong".
UNAVAILABLE_PHRASES = (
    "chat not found",
    "message thread not found",
    "topic_closed",
    "not enough rights",
    "have no rights to send",
    "chat_write_forbidden",
)
SEND_OPTIONS = ("text", "parse_mode", "link_preview_options", "reply_markup")
# httpx's errors after a request was written: it may have been carried out.
UNANSWERED = (httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError)


class _PassedOnRetryAfter(logging.Filter):
    """Drops AIORateLimiter's error log for a RetryAfter it passes on: the Dispatcher handles
    it (waits and resends), so it is routine, not an error."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Rate limit hit after maximum of 0 retries")


_RATE_LIMITER_LOG = logging.getLogger("telegram.ext.AIORateLimiter")
if not any(isinstance(f, _PassedOnRetryAfter) for f in _RATE_LIMITER_LOG.filters):
    _RATE_LIMITER_LOG.addFilter(_PassedOnRetryAfter())


def _https_request(connection_pool_size: int, timeout: float | None = None) -> HTTPXRequest:
    """PTB's own HTTP client, as its builder makes it, on the process's one TLS context."""
    timeouts = {} if timeout is None else {"read_timeout": timeout, "write_timeout": timeout}
    return HTTPXRequest(
        connection_pool_size=connection_pool_size,
        httpx_kwargs={"verify": shared_tls_context()},
        **timeouts,
    )


def telegram_rate_limiter(speed: float = 1.0) -> AIORateLimiter:
    """Telegram's limits: about 30 messages/s per bot and 20 per minute in each group.

    max_retries=0: a RetryAfter is not retried here but reaches the Dispatcher, which waits
    as told and resends, so one chat's flood wait never stalls every other chat. `speed` runs
    the limits that much faster, to match a fake server whose clock runs faster.
    """
    return AIORateLimiter(
        overall_max_rate=30,
        overall_time_period=1 / speed,
        group_max_rate=20,
        group_time_period=60 / speed,
        max_retries=0,
    )


# --- sending stored parts ------------------------------------------------------------------


class TelegramSender:
    """`digests.delivery.sending.Sender` for Telegram: one stored part, one `sendMessage`."""

    platform = PLATFORM
    sends_per_second = 30.0  # per bot; the rate limiter also keeps 20 a minute per group

    def __init__(self, bot) -> None:
        self.bot = bot

    async def send(self, address: Address, payload: dict) -> str:
        target = {
            "chat_id": chat_id(address.chat_id),
            "message_thread_id": int(address.thread_id) if address.thread_id else None,
        }
        try:
            if CHART_KEY in payload:  # a photo, the text its caption
                message = await self.bot.send_photo(
                    photo=await draw_chart(payload[CHART_KEY]),
                    caption=payload.get("text"),
                    parse_mode=payload.get("parse_mode"),
                    **target,
                )
            else:
                message = await self.bot.send_message(**target, **send_options(payload, self.bot))
        except TelegramError as exc:
            failure = send_failure(exc)
            if failure is None:
                raise
            raise failure from exc
        return str(message.message_id)


def chat_id(value: str) -> int | str:
    """Numeric ids as int (so the rate limiter sees groups), `@channelname` as is."""
    return int(value) if value.lstrip("-").isdigit() else value


def send_options(payload: dict, bot) -> dict:
    """A stored JSON payload as `send_message` keywords; unknown keys are dropped."""
    options = {key: payload[key] for key in SEND_OPTIONS if key in payload}
    if isinstance(options.get("link_preview_options"), dict):
        options["link_preview_options"] = LinkPreviewOptions(**options["link_preview_options"])
    if isinstance(options.get("reply_markup"), dict):
        options["reply_markup"] = InlineKeyboardMarkup.de_json(options["reply_markup"], bot)
    return options


def send_failure(exc: TelegramError) -> SendFailure | None:
    """The delivery layer's name for a PTB error; None when it must propagate."""
    if isinstance(exc, InvalidToken):
        return None
    if isinstance(exc, RetryAfter):
        return RetryLater(retry_after_seconds(exc), str(exc))
    if isinstance(exc, ChatMigrated):
        return ChatMoved(str(exc.new_chat_id))
    if isinstance(exc, Forbidden):
        return ChatUnavailable(exc.message)
    if isinstance(exc, BadRequest):  # before NetworkError: BadRequest is one
        if any(phrase in exc.message.lower() for phrase in MEDIA_REFUSED_PHRASES):
            return MediaRefused(exc.message)
        if any(phrase in exc.message.lower() for phrase in UNAVAILABLE_PHRASES):
            return ChatUnavailable(exc.message)
        return Rejected(exc.message)
    if isinstance(exc.__cause__, UNANSWERED):
        return OutcomeUnknown(f"no answer: {exc.message or type(exc).__name__}")
    return Transient(exc.message or type(exc).__name__)


def retry_after_seconds(exc: RetryAfter) -> float:
    # PTB 22 returns int or timedelta depending on PTB_TIMEDELTA and warns about the int.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


# --- who may manage a chat -----------------------------------------------------------------


class AdminCache:
    """Remembers `get_chat_member` answers for `ttl` seconds, keyed by chat and user."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, ttl: float = 60.0) -> None:
        self.clock, self.ttl = clock, ttl
        self._answers: dict[tuple[int, int], tuple[float, bool]] = {}

    def get(self, chat: int, user: int) -> bool | None:
        found = self._answers.get((chat, user))
        if found is None or found[0] <= self.clock():
            return None
        return found[1]

    def put(self, chat: int, user: int, is_admin: bool) -> None:
        now = self.clock()
        if len(self._answers) > 10_000:
            self._answers = {k: v for k, v in self._answers.items() if v[0] > now}
        self._answers[(chat, user)] = (now + self.ttl, is_admin)


def parse_command(text: str, bot_username: str) -> tuple[str, str, bool] | None:
    """("follow", "rl agents", addressed) from "/follow@bot rl agents"; None if for another bot.

    `addressed` says the command named this bot explicitly.
    """
    head, *rest = text.split(maxsplit=1) or [""]
    argument = rest[0] if rest else ""
    name, at, target = head.removeprefix("/").partition("@")
    if at and target.lower() != bot_username.lower():
        return None
    return name.lower(), argument, bool(at)


# --- the adapter ---------------------------------------------------------------------------


class TelegramAdapter:
    """`bot.platforms.base.Adapter` for Telegram."""

    platform = PLATFORM

    def __init__(
        self,
        settings: Settings,
        services: UseCases,
        *,
        request: BaseRequest | None = None,
        rate_limiter: BaseRateLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
        admin_cache_seconds: float = 60.0,
        send_timeout: float = SEND_TIMEOUT,
    ) -> None:
        if settings.telegram_token is None:
            raise ValueError("TELEGRAM_TOKEN is not set")
        self.settings = settings
        self.services = services
        api = settings.telegram_api_url.rstrip("/")
        self.updates = PerChatUpdates(services.inbox)
        builder = (
            ApplicationBuilder()
            .token(settings.telegram_token.get_secret_value())
            .base_url(f"{api}/bot")
            .base_file_url(f"{api}/file/bot")
            .rate_limiter(rate_limiter or telegram_rate_limiter())
            .concurrent_updates(self.updates)
            .job_queue(None)  # our scheduler runs the jobs; PTB's would be a second one
        )
        if request is None:  # PTB waits 5 s by default; Telegram may take longer to accept
            request = _https_request(connection_pool_size=256, timeout=send_timeout)
        builder = builder.request(request).get_updates_request(
            _https_request(connection_pool_size=1)
        )
        self.app: Application = builder.build()
        self.sender = TelegramSender(self.app.bot)
        self.admins = AdminCache(clock, admin_cache_seconds)
        self._webhook: WebhookReceiver | None = None  # in webhook mode
        self._offered: dict[str, str] = {}  # value hash -> value, for long button values
        commands = filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST
        self.app.add_handler(MessageHandler(filters.COMMAND & commands, self._on_command))
        self.app.add_handler(CallbackQueryHandler(self._on_button))
        self.app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, self._on_migrate))
        self.app.add_handler(ChatMemberHandler(self._on_my_membership))
        self.app.add_error_handler(self._on_error)

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        return telegram_render.render_alert(alert)

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        return telegram_render.render_digest(
            digest, title=title, public_url=self.settings.public_url
        )

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Connect, start receiving updates (webhook if configured, else long polling).

        Raises Transient while the Bot API cannot be reached (the caller tries again), and
        SettingsError when it refuses the token.
        """
        try:
            await self._connect()
        except InvalidToken:  # its message quotes the token
            await self.stop()
            raise SettingsError("TELEGRAM_TOKEN was refused by the Bot API") from None
        except TelegramError as exc:
            await self.stop()  # back to the start, for the next attempt
            if isinstance(failure := send_failure(exc), Transient):
                raise failure from exc
            raise

    async def _connect(self) -> None:
        await self.app.initialize()
        await self.app.start()
        url = self.settings.telegram_webhook_url
        if url or self.settings.telegram_polling:
            await self._handle_waiting()
        if url:
            await self._start_webhook(url)
        elif self.settings.telegram_polling:
            await self.app.updater.start_polling(allowed_updates=ALLOWED_UPDATES)
        else:  # a send-only replica: another one receives the updates
            log.info("telegram: @%s sends only (TELEGRAM_POLLING=false)", self.app.bot.username)
            return
        await self._register_commands()
        log.info("telegram: @%s is receiving updates", self.app.bot.username)

    async def _handle_waiting(self) -> None:
        """The updates this instance acknowledged and had not handled when it last stopped."""
        waiting = await asyncio.to_thread(self.updates.waiting_updates, self.app.bot)
        for update in waiting:
            await self.app.update_queue.put(update)
        if waiting:
            log.info(
                "telegram: %d updates received before the last stop are handled now", len(waiting)
            )

    async def _start_webhook(self, url: str) -> None:
        # Loaded only in webhook mode: aiohttp's server is 2.3 MiB a polling bot need not carry.
        from bot.platforms.telegram_webhook import WebhookReceiver

        host, _, port = self.settings.telegram_webhook_listen.rpartition(":")
        secret = self.webhook_secret()
        self._webhook = WebhookReceiver(
            self.app, path=urlsplit(url).path, secret=secret, accept=self.updates.accept
        )
        await self._webhook.start(host.strip("[]"), int(port))
        await self.app.bot.set_webhook(url, allowed_updates=ALLOWED_UPDATES, secret_token=secret)

    async def stop(self) -> None:
        """Stop receiving, finish handlers in flight, close connections; each step bounded."""
        steps = [self._webhook.stop] if self._webhook is not None else []
        if self.app.updater is not None and self.app.updater.running:
            steps.append(self.app.updater.stop)
        if self.app.running:
            steps.append(self._stop_handling)
        steps.append(self.app.shutdown)
        for step in steps:
            try:
                await asyncio.wait_for(step(), STEP_TIMEOUT)
            except Exception:
                log.exception("telegram: %s did not finish cleanly", step.__name__)

    async def _stop_handling(self) -> None:
        """Finish the updates in hand; those still waiting for their chat's turn stay in the
        inbox, for the next start."""
        self.updates.closing = True
        await self.app.stop()
        if self.updates.left:
            log.info(
                "telegram: stopped; %d received updates are kept for the next start",
                self.updates.left,
            )

    def webhook_secret(self) -> str:
        return self.settings.telegram_webhook_secret()

    async def _register_commands(self) -> None:
        """One menu per scope: admin-only commands are shown to group admins and in private
        chats (the user's own), the rest to everyone. Telegram picks the narrowest scope."""
        menus = (
            (BotCommandScopeDefault(), False),
            (BotCommandScopeAllGroupChats(), False),
            (BotCommandScopeAllChatAdministrators(), True),
            (BotCommandScopeAllPrivateChats(), True),
        )
        for scope, managing in menus:
            commands = [START] + [BotCommand(c.name, c.help[:256]) for c in menu(managing=managing)]
            try:
                await self.app.bot.set_my_commands(commands, scope=scope)
            except TelegramError as exc:  # the menu is a convenience; commands work without it
                log.warning("telegram: could not register the %s menu: %s", scope.type, exc)

    # --- commands ----------------------------------------------------------------------------

    async def _on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        kind = CHAT_KINDS.get(message.chat.type) if message else None
        if message is None or kind is None or not message.text:
            return
        parsed = parse_command(message.text, self.app.bot.username)
        if parsed is None:
            return
        command, argument, addressed = parsed
        commands = self.services.commands
        started = command == START.command  # opened from a link, or the Start button
        if started:
            command = commands.start_command(argument)
        if command not in COMMANDS and kind != "private" and not addressed:
            return  # most likely another bot's command in a shared group
        caller = await self._caller(message, kind, command)
        if started:
            reply = await asyncio.to_thread(commands.start, caller, argument)
        else:
            reply = await asyncio.to_thread(commands.handle, caller, command, argument)
        await self._answer(message, caller, reply)
        if reply.digest is not None:
            self.app.create_task(self._send_digest(caller, reply), update=update)

    async def _caller(self, message: Message, kind: str, command: str) -> Caller:
        chat = message.chat
        # Only commands for admins need the admin fact; the others skip the API call.
        for_admins = command in COMMANDS and COMMANDS[command].admins_only
        return Caller(
            platform=PLATFORM,
            chat_id=str(chat.id),
            thread_id=thread_of(message),
            chat_kind=kind,
            chat_title=chat.title or "",
            can_manage=for_admins and await self._can_manage(message, kind),
        )

    async def _can_manage(self, message: Message, kind: str) -> bool:
        if kind in ("private", "channel"):
            return True  # a private chat is the user's own; only admins post in a channel
        if message.sender_chat is not None and message.sender_chat.id == message.chat.id:
            return True  # an anonymous admin, posting as the group itself
        return await self._is_admin(message.chat, message.from_user)

    async def _is_admin(self, chat: Chat, user: User | None) -> bool:
        if user is None:
            return False
        known = self.admins.get(chat.id, user.id)
        if known is not None:
            return known
        try:
            member = await self.app.bot.get_chat_member(chat.id, user.id)
        except TelegramError as exc:
            log.warning("telegram: admin check failed in %s: %s", chat.id, exc)
            return False  # refuse rather than guess; the answer is not cached
        is_admin = member.status in ADMIN_STATUSES
        self.admins.put(chat.id, user.id, is_admin)
        return is_admin

    async def _answer(self, message: Message, caller: Caller, reply: Reply) -> None:
        if reply.quiet:  # Telegram has no answer only the asker sees
            return
        payload = self._reply_payload(reply)
        quote = None
        if caller.chat_kind != "private":
            quote = ReplyParameters(message.message_id, allow_sending_without_reply=True)
        try:
            await self.app.bot.send_message(
                chat_id=message.chat.id,
                message_thread_id=int(caller.thread_id) if caller.thread_id else None,
                reply_parameters=quote,
                **send_options(payload, self.app.bot),
            )
        except TelegramError as exc:
            log.warning("telegram: could not answer in %s: %s", message.chat.id, exc)

    async def _send_digest(self, caller: Caller, reply: Reply) -> None:
        await self.services.send_digest_now(caller, reply.digest)

    def _reply_payload(self, reply: Reply) -> dict:
        for choice in reply.choices:
            data = telegram_render.choice_data(reply.choice_command, choice)
            if not data.startswith(f"{reply.choice_command}:"):
                self._remember(choice.value)
        return telegram_render.render_reply(reply)

    def _remember(self, value: str) -> None:
        if len(self._offered) > 5_000:
            self._offered.clear()
        self._offered[telegram_render.value_hash(value)] = value

    # --- buttons -----------------------------------------------------------------------------

    async def _on_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        message = query.message if query else None
        kind = CHAT_KINDS.get(message.chat.type) if message else None
        if query is None or message is None or kind is None:
            if query is not None:
                await query.answer()
            return
        if is_vote_data(query.data or ""):
            await self._on_vote(query, message)
            return
        topics = self.services.commands.catalog.topics
        known = [*self._offered.values(), *(topic.slug for topic in topics)]
        parsed = telegram_render.parse_choice_data(query.data or "", known)
        if parsed is None:
            await query.answer("This button no longer works; type the command again.")
            return
        command, value = parsed
        caller = Caller(
            platform=PLATFORM,
            chat_id=str(message.chat.id),
            thread_id=thread_of(message),
            chat_kind=kind,
            chat_title=message.chat.title or "",
            # In a channel any subscriber can press a button: presser must be an admin too.
            can_manage=kind == "private" or await self._is_admin(message.chat, query.from_user),
        )
        reply = await asyncio.to_thread(self.services.commands.handle, caller, command, value)
        if not reply.ok and not reply.choices:
            # Refused or invalid: tell the presser alone and keep the buttons for others.
            await query.answer(telegram_render.answer_text(reply), show_alert=True)
            return
        await query.answer(telegram_render.answer_text(reply))
        await self._edit(message, reply)
        if reply.digest is not None:
            self.app.create_task(self._send_digest(caller, reply), update=update)

    async def _on_vote(self, query, message: Message) -> None:
        voter = Voter(PLATFORM, str(message.chat.id), str(query.from_user.id), thread_of(message))
        answer = await asyncio.to_thread(self.services.vote, voter, query.data)
        text = clean_text(answer.text, telegram_render.ANSWER_LIMIT)
        await query.answer(text, show_alert=not answer.ok)

    async def _edit(self, message, reply: Reply) -> None:
        options = send_options(self._reply_payload(reply), self.app.bot)
        try:
            await self.app.bot.edit_message_text(
                chat_id=message.chat.id, message_id=message.message_id, **options
            )
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.warning("telegram: could not edit %s: %s", message.chat.id, exc)

    async def _on_migrate(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group became a supergroup: move its follows now, not at the next failed send."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id:  # the old group's last word
            old, new = str(message.chat.id), str(message.migrate_to_chat_id)
            await asyncio.to_thread(self.services.move_chat, PLATFORM, old, new)

    async def _on_my_membership(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot was removed, kicked or blocked (left/kicked), or added back."""
        change = update.my_chat_member
        if change is None:
            return
        chat, was, now = change.chat, change.old_chat_member, change.new_chat_member
        gone, had_gone = now.status in GONE_STATUSES, was.status in GONE_STATUSES
        if gone and not had_gone:
            private = chat.type == ChatType.PRIVATE
            reason = "the user blocked the bot" if private else "the bot was removed from this chat"
            await asyncio.to_thread(
                self.services.chat_left, PLATFORM, chat_id=str(chat.id), reason=reason
            )
        elif had_gone and not gone:
            welcomes = await asyncio.to_thread(
                self.services.chat_returned, PLATFORM, chat_id=str(chat.id)
            )
            for address, reply in welcomes:
                await self._post(address, reply)

    async def _post(self, address: Address, reply: Reply) -> None:
        try:
            await self.sender.send(address, self._reply_payload(reply))
        except SendFailure as exc:  # a welcome is a courtesy: the digests come regardless
            log.warning("telegram: could not welcome %s: %s", address.chat_id, exc)

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        log.error("telegram: update %r failed", _update_id(update), exc_info=context.error)


def thread_of(message) -> str:
    """The forum topic a message belongs to ("" outside forum topics and for General)."""
    if getattr(message, "is_topic_message", False) and message.message_thread_id:
        return str(message.message_thread_id)
    return ""


def _update_id(update: object) -> object:
    return update.update_id if isinstance(update, Update) else update


def build_telegram(settings: Settings, services: UseCases) -> TelegramAdapter | None:
    """The Telegram adapter, or None when no TELEGRAM_TOKEN is configured."""
    if settings.telegram_token is None or not settings.telegram_token.get_secret_value():
        return None
    return TelegramAdapter(settings, services)
