"""A fake Discord (REST under /api/v10 + gateway websocket) that the real discord.py logs into.

Pointing discord.py at it (read from discord.py 2.7.1):
- REST: `discord.http.Route.BASE`, a `str` class attribute read each time a `Route` is built
  (interaction webhooks build theirs from the same class) → `fake.api_url`.
- Gateway: `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`, a `yarl.URL` to which the client
  adds `?v=10&encoding=json&compress=zlib-stream` → `yarl.URL(fake.gateway_url)`. Only an
  `AutoShardedClient` asks `GET /gateway/bot` instead, which answers the same URL.
- After READY the client reconnects to READY's `resume_gateway_url`, which is this server's
  `/gateway/resume` (a distinct path so tests can see that a RESUME used it).
`pointing_discord_py(api_url, gateway_url)` sets both attributes and restores them afterwards;
`fake.point_discord_py()` does it for one fake. digestbot's adapter sets the same attributes from
its DISCORD_API_URL and DISCORD_GATEWAY_URL settings.

    async with FakeDiscord(rate_limits=RateLimits().scaled(0.01)) as fake:
        with fake.point_discord_py():
            client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)
            ...  # client.start(fake.token), then fake.dispatch(...), fake.messages(...)

The default world (`default_world`) is one guild, "Research Lab", owned by OWNER_ID, with a
moderator (MODERATOR_ID: Manage Server), a plain member (MEMBER_ID), #general and #digests (the
bot may post there) and #staff (hidden from @everyone, so the bot gets Missing Access).
The fake's `clock` times rate-limit windows, the send timeline, events and interaction deadlines.
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
import secrets
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Self

import yarl
from aiohttp import web
from discord.gateway import DiscordWebSocket
from discord.http import Route

from tests.fakes.discord_gateway import (
    EVERYONE_PERMISSIONS,
    MANAGE_CHANNELS,
    MANAGE_GUILD,
    VIEW_CHANNEL,
    EventLog,
    EventMatch,
    FakeEvent,
    Gateway,
    Snowflakes,
    World,
    channel_payload,
    command_data,
    guild_payload,
    interaction_payload,
    member_payload,
    overwrite,
    role_payload,
    user_payload,
)
from tests.fakes.discord_rest import (
    API_PREFIX,
    ApiError,
    RestApi,
    SendRecord,
    json_response,
    public,
)

BOT_ID = 1_100_000_000_000_000_001
OWNER_ID = 1_100_000_000_000_000_002
MEMBER_ID = 1_100_000_000_000_000_003
MODERATOR_ID = 1_100_000_000_000_000_004
GUILD_ID = 1_200_000_000_000_000_001
CATEGORY_ID = 1_200_000_000_000_000_010
GENERAL_ID = 1_200_000_000_000_000_011
DIGESTS_ID = 1_200_000_000_000_000_012
STAFF_ID = 1_200_000_000_000_000_013
BOT_ROLE_ID = 1_200_000_000_000_000_021
MOD_ROLE_ID = 1_200_000_000_000_000_022

MAJOR_KEYS = ("channel_id", "guild_id", "application_id", "interaction_id", "token")


def default_world(token: str) -> World:
    bot = user_payload(BOT_ID, "digestbot", bot=True)
    owner = user_payload(OWNER_ID, "owner")
    reader = user_payload(MEMBER_ID, "reader")
    moderator = user_payload(MODERATOR_ID, "moderator")
    roles = [
        role_payload(GUILD_ID, "@everyone", EVERYONE_PERMISSIONS),
        role_payload(BOT_ROLE_ID, "digestbot", EVERYONE_PERMISSIONS, position=1, bot_id=BOT_ID),
        role_payload(MOD_ROLE_ID, "Moderators", MANAGE_GUILD | MANAGE_CHANNELS, position=2),
    ]
    hidden = [overwrite(GUILD_ID, deny=VIEW_CHANNEL), overwrite(MOD_ROLE_ID, allow=VIEW_CHANNEL)]
    channels = [
        channel_payload(CATEGORY_ID, GUILD_ID, "Text Channels", type=4),
        channel_payload(GENERAL_ID, GUILD_ID, "general", parent_id=CATEGORY_ID),
        channel_payload(DIGESTS_ID, GUILD_ID, "digests", position=1, parent_id=CATEGORY_ID),
        channel_payload(STAFF_ID, GUILD_ID, "staff", position=2, overwrites=hidden),
    ]
    members = [
        member_payload(bot, [BOT_ROLE_ID]),
        member_payload(owner, []),
        member_payload(reader, []),
        member_payload(moderator, [MOD_ROLE_ID]),
    ]
    guild = guild_payload(
        GUILD_ID, "Research Lab", owner_id=OWNER_ID, roles=roles, channels=channels, members=members
    )
    application = {
        "id": str(BOT_ID),
        "name": "digestbot",
        "description": "Weekly research digests",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": owner,
        "team": None,
        "verify_key": "0" * 64,
        "flags": 0,
        "bot": bot,
        "summary": "",
        "rpc_origins": [],
        "redirect_uris": [],
        "tags": [],
        "approximate_guild_count": 1,
        "integration_types_config": {"0": {}},
        "interactions_endpoint_url": None,
    }
    users = {int(user["id"]): user for user in (bot, owner, reader, moderator)}
    return World(token=token, bot=bot, application=application, guilds=[guild], users=users)


@dataclass(frozen=True)
class RateLimits:
    """Discord's limits: 50 requests/s per bot, 5 messages per 5 s per channel."""

    global_limit: int = 50
    global_window: float = 1.0
    message_limit: int = 5
    message_window: float = 5.0
    route_limit: int = 50
    route_window: float = 1.0

    def scaled(self, factor: float) -> RateLimits:
        """The same counts over windows `factor` times as long (0.01 → 100× faster)."""
        return replace(
            self,
            global_window=self.global_window * factor,
            message_window=self.message_window * factor,
            route_window=self.route_window * factor,
        )


@dataclass
class RateLimitStats:
    requests: int = 0
    rate_limited: int = 0
    global_limited: int = 0
    route_limited: int = 0
    stormed: int = 0
    forbidden: int = 0  # 403s: with 401s and 429s, what Cloudflare counts towards a ban


@dataclass
class _Window:
    count: int
    resets_at: float


class RateLimiter:
    """Fixed windows that open on the first request after the previous one closed."""

    def __init__(self, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self._windows: dict[str, _Window] = {}

    def _take(self, key: str, limit: int, window: float) -> tuple[int, float, bool]:
        now = self.clock()
        current = self._windows.get(key)
        if current is None or now >= current.resets_at:
            current = self._windows[key] = _Window(0, now + window)
        allowed = current.count < limit
        current.count += allowed
        return limit - current.count, current.resets_at - now, allowed

    def take_global(self) -> float | None:
        """None if the request may pass, else the seconds until the global window reopens."""
        _, reset_after, allowed = self._take(
            "global", self.limits.global_limit, self.limits.global_window
        )
        return None if allowed else reset_after

    def take(self, bucket: str, major: str, limit: int, window: float) -> tuple[dict, float | None]:
        remaining, reset_after, allowed = self._take(f"{bucket}:{major}", limit, window)
        reset_after = math.ceil(reset_after * 1000) / 1000
        headers = {
            "X-RateLimit-Bucket": bucket,
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        }
        return headers, None if allowed else reset_after


def too_many_requests(
    retry_after: float, *, is_global: bool, scope: str, headers: dict | None = None
) -> web.Response:
    headers = {
        **(headers or {}),
        "Retry-After": str(math.ceil(retry_after)),
        "X-RateLimit-Scope": scope,
        # Without Via discord.py takes a 429 for a Cloudflare ban and raises at once.
        "Via": "1.1 google",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry_after}
    return json_response(body | {"global": is_global}, 429, headers)


@dataclass
class FailRule:
    method: str
    path_pattern: str
    status: int
    body: dict
    times: int


class Traffic:
    """What happens to an API request before its handler.

    In Discord's order of concern: scripted storms and failures, bot authentication, the global
    limit (interaction webhooks are exempt, as on Discord), then the per-route bucket, whose
    `X-RateLimit-*` headers go out on every answer.
    """

    def __init__(self, token: str, limits: RateLimits, clock: Callable[[], float]) -> None:
        self.token = token
        self.limiter = RateLimiter(limits, clock)
        self.stats = RateLimitStats()
        self.unhandled: list[str] = []
        self.fail_rules: list[FailRule] = []
        self.storm_left = 0
        self.storm_retry_after = 0.05
        self.storm_global = False
        self.outage: int | None = None  # while set, every API request answers this status

    @web.middleware
    async def middleware(self, request: web.Request, handler: Callable) -> web.StreamResponse:
        if not request.path.startswith(API_PREFIX + "/"):
            return await handler(request)
        self.stats.requests += 1
        path = request.path.removeprefix(API_PREFIX)
        if (scripted := self._scripted(request.method, path)) is not None:
            return scripted
        if request.match_info.http_exception is not None:
            self.unhandled.append(f"{request.method} {path}")
            return json_response({"message": "404: Not Found", "code": 0}, 404)
        template = request.match_info.route.resource.canonical.removeprefix(API_PREFIX)
        by_token = template.startswith(("/interactions/", "/webhooks/"))
        if not by_token and request.headers.get("Authorization") != f"Bot {self.token}":
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        if not by_token and (retry_after := self.limiter.take_global()) is not None:
            self.stats.global_limited += 1
            return self._limited(retry_after, is_global=True)
        headers, retry_after = self._take_bucket(request, template)
        if retry_after is not None:
            self.stats.route_limited += 1
            return self._limited(retry_after, is_global=False, headers=headers)
        try:
            response = await handler(request)
        except ApiError as error:
            response = json_response(error.body(), error.status)
            self.stats.forbidden += error.status == 403
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            # A body the fake cannot read: Discord would say 400; the test needs to know.
            self.unhandled.append(f"{request.method} {path}: {error!r}")
            body = {"message": f"Invalid Form Body ({error!r})", "code": 50035}
            response = json_response(body, 400)
        response.headers.update(headers)
        return response

    def _scripted(self, method: str, path: str) -> web.Response | None:
        if self.outage is not None:
            body = {"message": f"{self.outage}: Service Unavailable", "code": 0}
            return json_response(body, self.outage)
        if self.storm_left > 0:
            self.storm_left -= 1
            self.stats.stormed += 1
            return self._limited(self.storm_retry_after, is_global=self.storm_global)
        for rule in self.fail_rules:
            if rule.method in ("*", method) and fnmatch.fnmatchcase(path, rule.path_pattern):
                rule.times -= 1
                if rule.times <= 0:
                    self.fail_rules.remove(rule)
                if rule.status == 429:
                    retry_after = float(rule.body.get("retry_after", 0.05))
                    return self._limited(retry_after, is_global=bool(rule.body.get("global")))
                return json_response(rule.body, rule.status)
        return None

    def _limited(
        self, retry_after: float, *, is_global: bool, headers: dict | None = None
    ) -> web.Response:
        self.stats.rate_limited += 1
        scope = "global" if is_global else "user"
        retry_after = math.ceil(retry_after * 1000) / 1000
        return too_many_requests(retry_after, is_global=is_global, scope=scope, headers=headers)

    def _take_bucket(self, request: web.Request, template: str) -> tuple[dict, float | None]:
        limits = self.limiter.limits
        if request.method == "POST" and template == "/channels/{channel_id}/messages":
            limit, window = limits.message_limit, limits.message_window
        else:
            limit, window = limits.route_limit, limits.route_window
        bucket = hashlib.sha1(f"{request.method} {template}".encode()).hexdigest()[:32]
        info = request.match_info
        major = "+".join(info[key] for key in MAJOR_KEYS if key in info)
        return self.limiter.take(bucket, major, limit, window)


@contextmanager
def pointing_discord_py(api_url: str, gateway_url: str) -> Iterator[None]:
    """Send discord.py's REST calls to `api_url` and its gateway connection to `gateway_url`."""
    saved = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = api_url
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    try:
        yield
    finally:
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved


class FakeDiscord:
    """Discord's REST API and gateway on 127.0.0.1 (port 0), with scripting and recording."""

    def __init__(
        self,
        *,
        world: World | None = None,
        token: str = "fake-bot-token",
        rate_limits: RateLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
        heartbeat_interval_ms: int = 41_250,
        interaction_deadline: float | None = 3.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.world = world or default_world(token)
        self.host = host
        self.port = port  # 0: a free one, chosen on start
        self.make_id = Snowflakes()
        self.log = EventLog(clock)
        self.gateway = Gateway(self.world, self.log, heartbeat_interval_ms=heartbeat_interval_ms)
        self.rest = RestApi(
            self.world,
            self.gateway,
            self.log,
            clock=clock,
            make_id=self.make_id,
            interaction_deadline=interaction_deadline,
        )
        self.traffic = Traffic(self.world.token, rate_limits or RateLimits(), clock)
        self._runner: web.AppRunner | None = None

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        app = web.Application(middlewares=[self.traffic.middleware], client_max_size=64 * 2**20)
        app.add_routes(self.rest.routes())
        app.add_routes([web.get("/gateway", self.gateway.handle)])
        app.add_routes([web.get("/gateway/resume", self.gateway.handle)])
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        self.port = listener.getsockname()[1]
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.SockSite(self._runner, listener).start()
        self.gateway.resume_url = f"{self.gateway_url}/resume"
        self.rest.gateway_url, self.rest.base_url = self.gateway_url, self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self.gateway.close_all()
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_url(self) -> str:
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    @property
    def token(self) -> str:
        return self.world.token

    @property
    def application_id(self) -> int:
        return int(self.world.application["id"])

    def point_discord_py(self) -> AbstractContextManager[None]:
        return pointing_discord_py(self.api_url, self.gateway_url)

    @property
    def interaction_deadline(self) -> float | None:
        """Seconds within which an interaction must get its callback (Discord: 3 s)."""
        return self.rest.interaction_deadline

    @interaction_deadline.setter
    def interaction_deadline(self, seconds: float | None) -> None:
        self.rest.interaction_deadline = seconds

    # --- gateway ----------------------------------------------------------------------------

    async def dispatch(self, event: str, data: dict) -> None:
        """Send a dispatch event to the connected client(s); interactions become answerable."""
        if event == "INTERACTION_CREATE":
            self.rest.register_interaction(data)
        if not await self.gateway.dispatch(event, data):
            raise RuntimeError(f"cannot dispatch {event}: no client has identified yet")

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and RESUMEs on `resume_gateway_url`."""
        await self.gateway.reconnect()

    async def invalidate_session(self, *, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION: the client RESUMEs if `resumable`, else IDENTIFYs anew."""
        await self.gateway.invalidate(resumable=resumable)

    async def drop_connections(self, code: int = 4000) -> None:
        """Close the gateway sockets like a network failure; the client should RESUME."""
        await self.gateway.drop(code)

    # --- interactions -----------------------------------------------------------------------

    def slash_command(
        self,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        user_id: int = OWNER_ID,
        channel_id: int = GENERAL_ID,
        dm: bool = False,
    ) -> dict:
        """An INTERACTION_CREATE payload invoking `/name`, matched to the synced command."""
        return self._interaction(2, name, options or {}, user_id, channel_id, dm, None)

    def autocomplete(
        self,
        name: str,
        focused: str,
        options: dict[str, Any],
        *,
        user_id: int = OWNER_ID,
        channel_id: int = GENERAL_ID,
        dm: bool = False,
    ) -> dict:
        """An autocomplete (type 4) payload while the user types option `focused`."""
        return self._interaction(4, name, options, user_id, channel_id, dm, focused)

    def press_button(
        self, message: dict, custom_id: str, *, user_id: int = OWNER_ID, dm: bool = False
    ) -> dict:
        """A component (type 3) payload: `user_id` pressed the button `custom_id` under
        `message` (a message the bot sent, as `messages()` lists it)."""
        data = {"custom_id": custom_id, "component_type": 2}
        channel_id = int(message["channel_id"])
        return self._payload(3, data, user_id, channel_id, dm) | {"message": public(message)}

    def _interaction(
        self,
        kind: int,
        name: str,
        options: dict[str, Any],
        user_id: int,
        channel_id: int,
        dm: bool,
        focused: str | None,
    ) -> dict:
        guild = None if dm else self._where(channel_id)[1]
        command = self._synced_command(name, guild)
        option_types = {o["name"]: o["type"] for o in (command or {}).get("options", [])}
        data = command_data(
            int(command["id"]) if command else self.make_id(),
            name,
            options,
            option_types=option_types,
            focused=focused,
            guild_id=int(command["guild_id"]) if command and "guild_id" in command else None,
        )
        return self._payload(kind, data, user_id, channel_id, dm)

    def _where(self, channel_id: int) -> tuple[dict, dict]:
        if (found := self.world.find_channel(channel_id)) is None:
            raise ValueError(f"no channel {channel_id} in the fake's world")
        return found

    def _payload(self, kind: int, data: dict, user_id: int, channel_id: int, dm: bool) -> dict:
        if dm:
            channel, guild = self.world.dm_channel(user_id, self.make_id), None
        else:
            channel, guild = self._where(channel_id)
        common = {
            "interaction_id": self.make_id(),
            "token": secrets.token_urlsafe(48),
            "interaction_type": kind,
            "application_id": self.application_id,
            "data": data,
        }
        if guild is None:
            return interaction_payload(**common, channel=channel, user=self.world.users[user_id])
        if (member := self.world.member(guild, user_id)) is None:
            raise ValueError(f"user {user_id} is not a member of guild {guild['id']}")
        return interaction_payload(
            **common,
            channel=channel,
            guild=guild,
            member=member,
            permissions=self.world.permissions(guild, user_id, channel),
            app_permissions=self.world.permissions(guild, self.world.bot_id, channel),
        )

    def _synced_command(self, name: str, guild: dict | None) -> dict | None:
        scopes = ([int(guild["id"])] if guild else []) + [None]
        for scope in scopes:
            for command in self.rest.commands.get(scope, []):
                if command["name"] == name and command["type"] == 1:
                    return command
        return None

    # --- scripted failures ------------------------------------------------------------------

    def forbid(self, channel_id: int) -> None:
        """Requests on this channel answer 403 Missing Access (code 50001)."""
        self.rest.forbidden.add(channel_id)

    async def remove_bot(self, guild_id: int = GUILD_ID) -> None:
        """The bot is kicked from the server: GUILD_DELETE (without `unavailable`), and its
        channels answer 403 Missing Access from now on."""
        self.world.departed.add(guild_id)
        await self.dispatch("GUILD_DELETE", {"id": str(guild_id)})

    async def add_bot_back(self, guild_id: int = GUILD_ID) -> None:
        """The bot is added to the server again: GUILD_CREATE, and its channels answer."""
        self.world.departed.discard(guild_id)
        await self.gateway.guild_joined(self.world.guild(guild_id))

    def delete_channel(self, channel_id: int) -> None:
        """Remove the channel: requests on it answer 404 Unknown Channel (code 10003)."""
        for guild in self.world.guilds:
            guild["channels"] = [c for c in guild["channels"] if int(c["id"]) != channel_id]
        self.world.dm_channels.pop(channel_id, None)

    def fail_next(
        self, method: str, path_pattern: str, status: int, body: dict | None = None, times: int = 1
    ) -> None:
        """The next `times` requests matching answer `status` with `body`.

        `method` may be "*"; `path_pattern` is a glob on the path after /api/v10, such as
        "/channels/*/messages". A 429 gets Discord's headers and `body["retry_after"]`.
        """
        body = body if body is not None else {"message": f"{status}: scripted", "code": 0}
        self.traffic.fail_rules.append(FailRule(method.upper(), path_pattern, status, body, times))

    def storm(self, n: int, *, retry_after: float = 0.05, is_global: bool = False) -> None:
        """The next `n` API requests, whatever they are, answer 429."""
        self.traffic.storm_left = n
        self.traffic.storm_retry_after, self.traffic.storm_global = retry_after, is_global

    # --- what the bot did -------------------------------------------------------------------

    @property
    def stats(self) -> RateLimitStats:
        return self.traffic.stats

    @property
    def send_timeline(self) -> list[SendRecord]:
        """Accepted POST /channels/{id}/messages, in order, timed by the fake's clock."""
        return self.rest.send_timeline

    @property
    def events(self) -> list[FakeEvent]:
        return self.log.events

    @property
    def unhandled(self) -> list[str]:
        """Requests the fake could not serve: unknown routes (404), unreadable bodies (400)."""
        return self.traffic.unhandled

    def messages(self, channel_id: int) -> list[dict]:
        """The channel's messages as they are now (edits applied, deletions gone).

        Each is the message object plus what the bot sent besides: `allowed_mentions` and
        `files` (field, filename, content_type, data bytes).
        """
        return list(self.rest.channel_messages.get(channel_id, []))

    def interaction_responses(self, interaction_id: int | str) -> list[dict]:
        """Snapshots of each callback, followup, edit and delete of the interaction, in order.

        Each has a `kind`: "callback" (with `type`, `data`, `files`), or "followup",
        "edit_original", "edit_followup", "delete_original", "delete_followup" (with `message`).
        """
        record = self.rest.interactions.get(int(interaction_id))
        return [] if record is None else list(record.responses)

    def commands(self, guild_id: int | None = None) -> list[dict]:
        """The commands last synced globally, or to `guild_id`."""
        return list(self.rest.commands.get(guild_id, []))

    async def wait_for(
        self, match: EventMatch, *, timeout: float = 5.0, count: int = 1
    ) -> FakeEvent:
        """The `count`-th event matching, past ones included; TimeoutError after `timeout`.

        `match` is a kind ("message", "message_edit", "message_delete", "interaction_response",
        "commands", "connect", "identify", "resume", "heartbeat", "disconnect", "presence") or a
        predicate on the event.
        """
        return await self.log.wait_for(match, timeout=timeout, count=count)

    async def wait_for_message(self, channel_id: int, *, timeout: float = 5.0) -> dict:
        event = await self.wait_for(
            lambda e: e.kind == "message" and e.data["channel_id"] == str(channel_id),
            timeout=timeout,
        )
        return event.data

    async def wait_for_response(
        self, interaction_id: int | str, kind: str | None = None, *, timeout: float = 5.0
    ) -> dict:
        """The first response to the interaction of `kind` ("callback", "followup", ...)."""

        def matches(event: FakeEvent) -> bool:
            data = event.data
            return (
                event.kind == "interaction_response"
                and data["interaction_id"] == int(interaction_id)
                and kind in (None, data["kind"])
            )

        return (await self.wait_for(matches, timeout=timeout)).data


@asynccontextmanager
async def running_fake_discord(**options: Any) -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord with discord.py pointed at it, for fixtures and scripts."""
    async with FakeDiscord(**options) as fake:
        with fake.point_discord_py():
            yield fake
