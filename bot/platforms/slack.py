"""The Slack adapter: slash commands, buttons and events in, Block Kit out, through slack-bolt.

It translates and decides nothing: a slash command becomes a `Caller` plus a command for
`CommandService.handle` (whose table makes every command a slash command here too), the
neutral `Reply` becomes Block Kit (`slack_render`), and sending a stored part maps slack-sdk's
errors onto the delivery layer's `SendFailure` tree:

    HTTP 429 (Retry-After)                 -> RetryLater(seconds)
    not_in_channel, channel_not_found, is_archived, account_inactive, token_revoked, ...
                                           -> ChatUnavailable   the channel pauses, with why
    a file refused (missing scope, ...)    -> MediaRefused      the part goes without its chart
    other API errors                       -> Rejected
    5xx, a refused connection              -> Transient
    no answer after the request was sent   -> OutcomeUnknown
    invalid_auth, not_authed               -> raised as is      a configuration error

Requests arrive over Socket Mode (SLACK_APP_TOKEN) or, with SLACK_SIGNING_SECRET, as the Events
API on an aiohttp server at /slack/events, where Bolt checks each signature and refuses
timestamps over five minutes old; an event id seen before (Slack's retries, a replay) is
acknowledged and dropped. Everything is acknowledged at once and answered afterwards through
its `response_url`, within Slack's three seconds however slow the database is.

Who may change what a channel follows is the core's decision (`Command.allows`); the adapter
gives it the fact: the user is a workspace admin or owner, a member of SLACK_MANAGER_GROUP, or
created the channel. Posts to one channel are paced a second apart and chart uploads within
the workspace's Tier 4 allowance (`SlackSender`), so a broadcast meets Slack's limits without
running into them. See docs/slack.md.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_app import AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.http_server import start_web_server
from bot.platforms import slack_render
from bot.platforms.base import draw_chart
from bot.settings import Settings, SettingsError
from digests.delivery.pacing import RequestPace
from digests.delivery.sending import (
    Address,
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
from digests.messages.vote_keys import is_vote_data
from digests.usecases.app import UseCases
from digests.usecases.commands import COMMANDS, Caller, Reply
from digests.usecases.dispatch import SEND_TIMEOUT
from digests.usecases.votes import Voter

log = logging.getLogger(__name__)

PLATFORM = "slack"
EVENTS_PATH = "/slack/events"
CHANNEL_GAP = 1.0  # seconds between posts to one channel: chat.postMessage's limit
UPLOADS_PER_MINUTE = 100  # files.getUploadURLExternal is a Tier 4 method: 100+ a minute
# Errors that mean "this channel cannot be written to now", with what they mean.
UNAVAILABLE = {
    "not_in_channel": "the app is not in this channel",
    "channel_not_found": "the channel was not found (deleted, or the app was removed)",
    "is_archived": "the channel is archived",
    "account_inactive": "the app's account is inactive (uninstalled or deactivated)",
    "token_revoked": "the app's token was revoked (uninstalled)",
    "team_access_not_granted": "the app has no access to this workspace",
    "restricted_action": "the workspace does not let the app post here",
}
FILE_REFUSED = ("missing_scope", "not_allowed_token_type", "file_uploads_disabled")
NOT_CONFIGURED = ("invalid_auth", "not_authed")
# aiohttp's errors after a request was written: it may have been carried out.
UNANSWERED = (asyncio.TimeoutError, aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError)
REMOVED = "the app was removed from this channel"
UNINSTALLED = "the app was uninstalled from this workspace"
RECENT_EVENTS = 10_000  # event ids remembered to drop replays
ANSWER_KINDS = ("in_channel", "ephemeral")


# --- sending stored parts ------------------------------------------------------------------


class SlackSender:
    """`digests.delivery.sending.Sender` for Slack: a part is a `chat.postMessage`, or the chart
    uploaded with `files_upload_v2` with the part's words as its comment. Posts to one channel
    go at most one a second (`gap`); different channels are not held up by each other. Uploads
    share the workspace's Tier 4 allowance (`uploads`), so a broadcast's charts meet no 429."""

    platform = PLATFORM
    sends_per_second = None  # Slack limits per channel and per method tier, both paced here

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        gap: float = CHANNEL_GAP,
        uploads: RequestPace | None = None,
        clock=time.monotonic,
    ) -> None:
        self.client, self.gap, self.clock = client, gap, clock
        self.uploads = uploads or RequestPace(UPLOADS_PER_MINUTE / 60, window=60.0)
        self._next: dict[str, float] = {}  # channel -> when its next post may start

    async def send(self, address: Address, payload: dict) -> str:
        await self._wait_turn(address.chat_id)
        thread = address.thread_id or None
        try:
            if CHART_KEY in payload:
                await self.uploads.wait_turn()
                answer = await self.client.files_upload_v2(
                    channel=address.chat_id,
                    file=await draw_chart(payload[CHART_KEY]),
                    filename="last-12-weeks.png",
                    title="Papers per week, last 12 weeks",
                    initial_comment=slack_render.file_comment(payload),
                    thread_ts=thread,
                )
                # The file is shared (a message posted) by the last of three requests: the
                # channel's next post waits a full gap from then, not from the first.
                self._next[address.chat_id] = self.clock() + self.gap
                return str(answer["file"]["id"])
            answer = await self.client.chat_postMessage(
                channel=address.chat_id,
                text=payload.get("text", ""),
                blocks=payload.get("blocks"),
                thread_ts=thread,
                unfurl_links=False,
                unfurl_media=False,
            )
        except SlackApiError as exc:
            failure = send_failure(exc, chart=CHART_KEY in payload)
            if failure is None:
                raise
            raise failure from exc
        except UNANSWERED as exc:
            raise OutcomeUnknown(f"no answer: {type(exc).__name__}") from exc
        except aiohttp.ClientError as exc:
            raise Transient(f"{type(exc).__name__}: {exc}") from exc
        return str(answer["ts"])

    async def _wait_turn(self, channel: str) -> None:
        now = self.clock()
        start = max(now, self._next.get(channel, now))
        if len(self._next) > 10_000:
            self._next = {c: t for c, t in self._next.items() if t > now}
        self._next[channel] = start + self.gap
        if start > now:
            await asyncio.sleep(start - now)


def send_failure(exc: SlackApiError, *, chart: bool = False) -> SendFailure | None:
    """The delivery layer's name for a Slack error; None when it must propagate."""
    response = exc.response
    error = str(response.get("error", "")) if response is not None else ""
    status = response.status_code if response is not None else 0
    if status == 429:
        headers = {name.lower(): value for name, value in (response.headers or {}).items()}
        return RetryLater(float(headers.get("retry-after", 1)), "Slack: ratelimited")
    if error in NOT_CONFIGURED:
        return None
    if error in UNAVAILABLE:
        return ChatUnavailable(f"Slack: {error} ({UNAVAILABLE[error]})")
    if chart and error in FILE_REFUSED:
        return MediaRefused(f"Slack: {error}")
    if status >= 500 or error in ("internal_error", "fatal_error", "service_unavailable"):
        return Transient(f"Slack: {error or status}")
    return Rejected(f"Slack: {error or status}")


# --- who may manage a channel --------------------------------------------------------------


class ManagerCache:
    """Remembers for `ttl` seconds whether a user may manage a channel."""

    def __init__(self, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl, self.clock = ttl, clock
        self._answers: OrderedDict[tuple[str, str], tuple[float, bool]] = OrderedDict()

    def get(self, channel: str, user: str) -> bool | None:
        found = self._answers.get((channel, user))
        return found[1] if found and found[0] > self.clock() else None

    def put(self, channel: str, user: str, allowed: bool) -> None:
        self._answers[(channel, user)] = (self.clock() + self.ttl, allowed)
        while len(self._answers) > 10_000:
            self._answers.popitem(last=False)


class RecentIds:
    """The last `size` event ids seen, to drop one delivered twice."""

    def __init__(self, size: int = RECENT_EVENTS) -> None:
        self.size, self._seen = size, OrderedDict[str, None]()

    def seen_before(self, event_id: str) -> bool:
        if event_id in self._seen:
            return True
        self._seen[event_id] = None
        if len(self._seen) > self.size:
            self._seen.popitem(last=False)
        return False


# --- the adapter ---------------------------------------------------------------------------


class SlackAdapter:
    """`bot.platforms.base.Adapter` for Slack."""

    platform = PLATFORM

    def __init__(
        self,
        settings: Settings,
        services: UseCases,
        *,
        channel_gap: float = CHANNEL_GAP,
        uploads: RequestPace | None = None,
        manager_cache_seconds: float = 60.0,
    ) -> None:
        if settings.slack_bot_token is None:
            raise ValueError("SLACK_BOT_TOKEN is not set")
        self.settings, self.services = settings, services
        self.client = AsyncWebClient(
            token=settings.slack_bot_token.get_secret_value(),
            base_url=settings.slack_api_url,
            timeout=int(SEND_TIMEOUT),
        )
        secret = settings.slack_signing_secret
        self.app = AsyncApp(
            client=self.client,
            signing_secret=secret.get_secret_value() if secret else "",
            logger=log,
        )
        self.sender = SlackSender(self.client, gap=channel_gap, uploads=uploads)
        self.managers = ManagerCache(manager_cache_seconds)
        self.events = RecentIds()
        self.bot_user = ""
        self._socket: AsyncSocketModeHandler | None = None
        self._server: web.AppRunner | None = None
        self._tasks: set[asyncio.Task] = set()
        self.app.use(self._drop_replays)
        for name in COMMANDS:
            self.app.command(f"/{name}")(self._on_command)
        self.app.options(slack_render.TOPIC_INPUT)(self._on_topic_typed)
        self.app.view(slack_render.FOLLOW_MODAL)(self._on_follow_submitted)
        self.app.action(re.compile(".+"))(self._on_button)
        self.app.event("channel_left")(self._on_removed)
        self.app.event("group_left")(self._on_removed)
        self.app.event("member_joined_channel")(self._on_joined)
        self.app.event("app_uninstalled")(self._on_uninstalled)
        self.app.error(self._on_error)

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        return slack_render.render_alert(alert)

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        return slack_render.render_digest(digest, title=title, public_url=self.settings.public_url)

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Check the tokens, then receive over Socket Mode or the Events API (or send only).

        Raises Transient while Slack cannot be reached, SettingsError when it refuses a token.
        """
        identity = await _checked("SLACK_BOT_TOKEN", self.client.auth_test())
        self.bot_user = identity["user_id"]
        settings = self.settings
        if settings.slack_app_token is not None:
            token = settings.slack_app_token.get_secret_value()
            socket = AsyncSocketModeHandler(self.app, token, web_client=self.client)
            await _checked("SLACK_APP_TOKEN", socket.connect_async())
            self._socket = socket
            log.info("slack: receiving over Socket Mode")
        elif settings.slack_signing_secret is not None:
            host, _, port = settings.slack_events_listen.rpartition(":")
            self._server = await start_web_server(self.events_app(), host.strip("[]"), int(port))
            log.info("slack: receiving the Events API on %s%s", host, EVENTS_PATH)
        else:
            log.info("slack: sends only (neither SLACK_APP_TOKEN nor SLACK_SIGNING_SECRET)")

    def events_app(self) -> web.Application:
        """The Events API, slash commands and buttons, POSTed to /slack/events."""
        app = web.Application(client_max_size=1024 * 1024)

        async def receive(request: web.Request) -> web.Response:
            answer = await self.app.async_dispatch(await to_bolt_request(request))
            return await to_aiohttp_response(answer)

        app.router.add_post(EVENTS_PATH, receive)
        return app

    async def stop(self) -> None:
        if self._socket is not None:
            socket, self._socket = self._socket, None
            await socket.close_async()
        if self._server is not None:
            server, self._server = self._server, None
            await server.cleanup()
        for task in list(self._tasks):
            task.cancel()

    async def _drop_replays(self, body: dict, next: Callable) -> Any:
        event_id = body.get("event_id")
        if event_id and self.events.seen_before(str(event_id)):
            log.info("slack: event %s was delivered before; dropped", event_id)
            return BoltResponse(status=200, body="")
        return await next()

    # --- commands ----------------------------------------------------------------------------

    async def _on_command(self, ack, body: dict, respond) -> None:
        await ack()
        name = body.get("command", "").removeprefix("/").lower()
        caller = await self._caller(body["channel_id"], body.get("team_id", ""), body, name)
        argument = body.get("text", "")
        reply = await asyncio.to_thread(self.services.commands.handle, caller, name, argument)
        asks_topic = name == "follow" and not argument.strip() and reply.choices
        if asks_topic and await self._open_follow_modal(body):
            return
        await self._answer(respond, reply, name)
        if reply.digest is not None:
            self._spawn(self.services.send_digest_now(caller, reply.digest))

    async def _caller(self, channel: str, team: str, body: dict, command: str) -> Caller:
        private = channel.startswith("D")  # a direct message with the app: the user's own
        spec = COMMANDS.get(command)
        needed = spec is not None and spec.admins_only and not private
        user = body.get("user_id") or body.get("user", {}).get("id", "")
        return Caller(
            platform=PLATFORM,
            chat_id=channel,
            chat_kind="private" if private else "group",
            chat_title=str(body.get("channel_name") or body.get("channel", {}).get("name", "")),
            guild_id=team,
            can_manage=needed and await self._can_manage(channel, user),
        )

    async def _can_manage(self, channel: str, user: str) -> bool:
        """Workspace admins and owners, members of SLACK_MANAGER_GROUP, the channel's creator."""
        known = self.managers.get(channel, user)
        if known is not None:
            return known
        group = self.settings.slack_manager_group
        try:
            profile = (await self.client.users_info(user=user))["user"]
            allowed = bool(profile.get("is_admin") or profile.get("is_owner"))
            if not allowed and group:
                members = await self.client.usergroups_users_list(usergroup=group)
                allowed = user in members["users"]
            if not allowed:
                info = (await self.client.conversations_info(channel=channel))["channel"]
                allowed = info.get("creator") == user
        except (SlackApiError, aiohttp.ClientError) as exc:
            log.warning("slack: could not tell whether %s manages %s: %s", user, channel, exc)
            return False  # refuse rather than guess; the answer is not cached
        self.managers.put(channel, user, allowed)
        return allowed

    async def _answer(self, respond, reply: Reply, command: str, *, replace: bool = False) -> None:
        """Changes to the channel are said in it; everything else to the asker alone."""
        spec = COMMANDS.get(command)
        public = reply.ok and not reply.private and spec is not None and spec.admins_only
        payload = slack_render.render_reply(reply)
        try:
            await respond(
                **payload,
                response_type=ANSWER_KINDS[not public],
                replace_original=replace,
            )
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("slack: could not answer /%s: %s", command, exc)

    # --- /follow's modal: a topic picked from an autocompleted list -------------------------

    async def _open_follow_modal(self, body: dict) -> bool:
        """`/follow` alone (by someone who may follow): a modal whose topic list is completed
        as it is typed. False when it cannot open; the reply's buttons are offered then."""
        view = slack_render.follow_modal(body["channel_id"])
        try:
            await self.client.views_open(trigger_id=body.get("trigger_id", ""), view=view)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("slack: could not open /follow's modal: %s", exc)
            return False
        return True

    async def _on_topic_typed(self, ack, body: dict) -> None:
        typed = str(body.get("value", ""))
        found = await asyncio.to_thread(self.services.commands.complete_topics, typed, 100)
        await ack(options=slack_render.options(found))

    async def _on_follow_submitted(self, ack, body: dict, view: dict) -> None:
        await ack()
        channel, (topic, how_often) = view["private_metadata"], slack_render.follow_choice(view)
        user = (body.get("user") or {}).get("id", "")
        team = (body.get("team") or {}).get("id", "")
        caller = await self._caller(channel, team, {"user_id": user}, "follow")
        handle = self.services.commands.handle
        reply = await asyncio.to_thread(handle, caller, "follow", f"{topic} {how_often}".strip())
        payload = slack_render.render_reply(reply)
        try:
            if reply.ok and not reply.private:
                await self.client.chat_postMessage(channel=channel, **payload)
            else:
                await self.client.chat_postEphemeral(channel=channel, user=user, **payload)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as exc:
            log.warning("slack: could not answer /follow's modal in %s: %s", channel, exc)

    # --- buttons -----------------------------------------------------------------------------

    async def _on_button(self, ack, body: dict, action: dict, respond) -> None:
        await ack()
        channel = (body.get("channel") or {}).get("id", "")
        user = (body.get("user") or {}).get("id", "")
        value = action.get("value", "")
        if is_vote_data(value):
            voter = Voter(PLATFORM, channel, user)
            answer = await asyncio.to_thread(self.services.vote, voter, value)
            await self._tell(respond, answer.text)
            return
        parsed = slack_render.parse_choice(value)
        if not channel or parsed is None:
            await self._tell(respond, "This button no longer works; type the command again.")
            return
        command, chosen = parsed
        team = (body.get("team") or {}).get("id", "")
        caller = await self._caller(channel, team, body, command)
        reply = await asyncio.to_thread(self.services.commands.handle, caller, command, chosen)
        # Refused or invalid: the presser alone is told, and the buttons stay for others.
        refused = not reply.ok and not reply.choices
        await self._answer(respond, reply, command, replace=not refused)
        if reply.digest is not None:
            self._spawn(self.services.send_digest_now(caller, reply.digest))

    async def _tell(self, respond, text: str) -> None:
        try:
            await respond(text=slack_render.escape(text), response_type="ephemeral",
                          replace_original=False)  # fmt: skip
        except (TimeoutError, aiohttp.ClientError) as exc:
            log.warning("slack: could not answer a button: %s", exc)

    # --- the app removed from a channel, and back ------------------------------------------

    async def _on_removed(self, event: dict) -> None:
        channel = event.get("channel", "")
        await asyncio.to_thread(self.services.chat_left, PLATFORM, chat_id=channel, reason=REMOVED)

    async def _on_uninstalled(self, body: dict) -> None:
        """The app was removed from the workspace: every channel there pauses at once."""
        team = str(body.get("team_id", ""))
        if team:
            chat_left = self.services.chat_left
            await asyncio.to_thread(chat_left, PLATFORM, guild_id=team, reason=UNINSTALLED)

    async def _on_joined(self, event: dict) -> None:
        if event.get("user") != self.bot_user:
            return  # someone else joined
        channel = event.get("channel", "")
        welcomes = await asyncio.to_thread(self.services.chat_returned, PLATFORM, chat_id=channel)
        for address, reply in welcomes:
            try:
                await self.sender.send(address, slack_render.render_reply(reply))
            except SendFailure as exc:  # a courtesy: the digests come regardless
                log.warning("slack: could not welcome %s back: %s", address.chat_id, exc)

    def _spawn(self, coroutine) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _on_error(self, error: Exception, body: dict) -> None:
        log.error("slack: a request failed (%s)", body.get("type"), exc_info=error)


async def _checked(setting: str, call: Awaitable[Any]) -> Any:
    """`call`'s answer; SettingsError naming `setting` when Slack refuses its token, Transient
    while Slack cannot be reached or answers with trouble of its own."""
    try:
        return await call
    except SlackApiError as exc:
        error = exc.response.get("error")
        if send_failure(exc) is None or error in UNAVAILABLE:
            raise SettingsError(f"{setting} was refused: {error}") from None
        raise Transient(f"Slack: {error or exc.response.status_code}") from exc
    except (TimeoutError, aiohttp.ClientError) as exc:
        raise Transient(f"Slack cannot be reached: {exc}") from exc


def build_slack(settings: Settings, services: UseCases) -> SlackAdapter | None:
    """The Slack adapter, or None when no SLACK_BOT_TOKEN is configured."""
    if settings.slack_bot_token is None or not settings.slack_bot_token.get_secret_value():
        return None
    return SlackAdapter(settings, services)
