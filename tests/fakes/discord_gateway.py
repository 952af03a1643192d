"""The fake Discord's world (users, guilds, channels, permissions) and its gateway websocket.

The `*_payload` builders make Discord's JSON objects (ids as strings), including
INTERACTION_CREATE's. `World` holds the payloads both halves of the fake serve: the gateway
sends them in READY and GUILD_CREATE, the REST API looks channels and permissions up in them.
`Gateway` speaks the gateway protocol (v10, plain JSON text frames, which discord.py accepts
although it asks for zlib-stream) to the real client; `EventLog` records what happened so tests
can wait for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from aiohttp import WSMsgType, web

DISCORD_EPOCH_MS = 1_420_070_400_000

CREATE_INSTANT_INVITE = 1 << 0
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
ALL_PERMISSIONS = (1 << 51) - 1
EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
)

INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12

OPTION_TYPES = {str: 3, bool: 5, int: 4, float: 10}
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Increasing snowflake ids built from the wall clock, as Discord's are."""

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(candidate, self._last + 1)
        return self._last


def user_payload(user_id: int, username: str, *, bot: bool = False) -> dict:
    return {
        "id": str(user_id),
        "username": username,
        "discriminator": "0",
        "global_name": None if bot else username.title(),
        "avatar": None,
        "bot": bot,
        "system": False,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
    }


def role_payload(
    role_id: int, name: str, permissions: int, *, position: int = 0, bot_id: int | None = None
) -> dict:
    role = {
        "id": str(role_id),
        "name": name,
        "permissions": str(permissions),
        "position": position,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "managed": bot_id is not None,
        "mentionable": False,
        "flags": 0,
    }
    if bot_id is not None:
        role["tags"] = {"bot_id": str(bot_id)}
    return role


def overwrite(target_id: int, *, allow: int = 0, deny: int = 0, member: bool = False) -> dict:
    kind = 1 if member else 0
    return {"id": str(target_id), "type": kind, "allow": str(allow), "deny": str(deny)}


def channel_payload(
    channel_id: int,
    guild_id: int,
    name: str,
    *,
    type: int = 0,
    position: int = 0,
    parent_id: int | None = None,
    overwrites: list[dict] | None = None,
) -> dict:
    channel = {
        "id": str(channel_id),
        "guild_id": str(guild_id),
        "type": type,
        "name": name,
        "position": position,
        "parent_id": None if parent_id is None else str(parent_id),
        "permission_overwrites": overwrites or [],
        "flags": 0,
    }
    if type in (0, 5):
        channel |= {
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "default_auto_archive_duration": 1440,
        }
    return channel


def member_payload(user: dict, role_ids: list[int]) -> dict:
    return {
        "user": user,
        "roles": [str(role_id) for role_id in role_ids],
        "joined_at": "2025-01-01T00:00:00+00:00",
        "premium_since": None,
        "nick": None,
        "avatar": None,
        "banner": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "communication_disabled_until": None,
    }


def guild_payload(
    guild_id: int,
    name: str,
    *,
    owner_id: int,
    roles: list[dict],
    channels: list[dict],
    members: list[dict],
    application_id: int | None = None,
) -> dict:
    """A full guild object as GUILD_CREATE carries it; `roles` must include @everyone."""
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(owner_id),
        "application_id": None if application_id is None else str(application_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "system_channel_id": channels[0]["id"] if channels else None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "verification_level": 1,
        "default_message_notifications": 1,
        "explicit_content_filter": 2,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": "en-US",
        "vanity_url_code": None,
        "max_members": 500_000,
        "max_video_channel_users": 25,
        "features": ["COMMUNITY", "NEWS"],
        "roles": roles,
        "emojis": [],
        "stickers": [],
        "channels": channels,
        "members": members,
        "member_count": len(members),
    }


def interaction_payload(
    *,
    interaction_id: int,
    token: str,
    interaction_type: int,
    application_id: int,
    data: dict,
    channel: dict,
    guild: dict | None = None,
    member: dict | None = None,
    user: dict | None = None,
    permissions: int = 0,
    app_permissions: int = 0,
    locale: str = "en-US",
) -> dict:
    """INTERACTION_CREATE's payload: from a guild (`guild` + `member`) or a DM (`user`)."""
    payload = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": interaction_type,
        "token": token,
        "version": 1,
        "data": data,
        "channel_id": channel["id"],
        "app_permissions": str(app_permissions),
        "locale": locale,
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if guild is None:
        return payload | {
            "channel": channel,
            "user": user,
            "authorizing_integration_owners": {"0": "0"},
            "context": 1,
        }
    return payload | {
        "guild_id": guild["id"],
        "guild": {"id": guild["id"], "locale": "en-US", "features": guild["features"]},
        "guild_locale": guild["preferred_locale"],
        "channel": channel | {"permissions": str(permissions)},
        "member": member | {"permissions": str(permissions)},
        "authorizing_integration_owners": {"0": guild["id"]},
        "context": 0,
    }


def command_data(
    command_id: int,
    name: str,
    options: dict[str, Any],
    *,
    option_types: dict[str, int] | None = None,
    focused: str | None = None,
    guild_id: int | None = None,
) -> dict:
    """A slash command's `data`; `focused` marks the option being typed (autocomplete)."""
    listed = []
    for option_name, value in options.items():
        kind = (option_types or {}).get(option_name) or OPTION_TYPES[type(value)]
        option = {"name": option_name, "type": kind, "value": value}
        if option_name == focused:
            option["focused"] = True
        listed.append(option)
    data = {"id": str(command_id), "name": name, "type": 1, "options": listed}
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    return data


@dataclass
class World:
    """Everything the fake Discord knows: its bot, application, users, guilds and DMs."""

    token: str
    bot: dict
    application: dict
    guilds: list[dict]
    users: dict[int, dict] = field(default_factory=dict)
    dm_channels: dict[int, dict] = field(default_factory=dict)
    # Servers the bot was removed from: not announced to it, their channels answer 403.
    departed: set[int] = field(default_factory=set)

    @property
    def present_guilds(self) -> list[dict]:
        return [g for g in self.guilds if int(g["id"]) not in self.departed]

    @property
    def bot_id(self) -> int:
        return int(self.bot["id"])

    def guild(self, guild_id: int) -> dict | None:
        return next((g for g in self.guilds if int(g["id"]) == guild_id), None)

    def find_channel(self, channel_id: int) -> tuple[dict, dict | None] | None:
        """The channel and its guild (None for a DM), or None if no such channel exists."""
        for guild in self.guilds:
            for channel in guild["channels"]:
                if int(channel["id"]) == channel_id:
                    return channel, guild
        dm = self.dm_channels.get(channel_id)
        return None if dm is None else (dm, None)

    def member(self, guild: dict, user_id: int) -> dict | None:
        return next((m for m in guild["members"] if int(m["user"]["id"]) == user_id), None)

    def dm_channel(self, user_id: int, make_id: Callable[[], int]) -> dict:
        for channel in self.dm_channels.values():
            if int(channel["recipients"][0]["id"]) == user_id:
                return channel
        channel_id = make_id()
        channel = {
            "id": str(channel_id),
            "type": 1,
            "last_message_id": None,
            "flags": 0,
            "recipients": [self.users[user_id]],
        }
        self.dm_channels[channel_id] = channel
        return channel

    def permissions(self, guild: dict, user_id: int, channel: dict | None = None) -> int:
        """Discord's permission resolution: roles, then @everyone, role and member overwrites."""
        if int(guild["owner_id"]) == user_id:
            return ALL_PERMISSIONS
        member = self.member(guild, user_id)
        role_ids = {guild["id"], *(member["roles"] if member else [])}
        perms = 0
        for role in guild["roles"]:
            if role["id"] in role_ids:
                perms |= int(role["permissions"])
        if perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        if channel is None:
            return perms
        overwrites = {ow["id"]: ow for ow in channel.get("permission_overwrites", [])}
        if everyone := overwrites.get(guild["id"]):
            perms = (perms & ~int(everyone["deny"])) | int(everyone["allow"])
        allow = deny = 0
        for role_id in role_ids - {guild["id"]}:
            if (ow := overwrites.get(role_id)) and ow["type"] == 0:
                allow, deny = allow | int(ow["allow"]), deny | int(ow["deny"])
        perms = (perms & ~deny) | allow
        if (mine := overwrites.get(str(user_id))) and mine["type"] == 1:
            perms = (perms & ~int(mine["deny"])) | int(mine["allow"])
        return perms


@dataclass(frozen=True)
class FakeEvent:
    """Something the fake saw or did: `kind` names it, `data` carries the payload."""

    index: int
    kind: str
    data: dict
    at: float


EventMatch = str | Callable[[FakeEvent], bool]


class EventLog:
    """An append-only record of events with bounded, event-driven waiting."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.events: list[FakeEvent] = []
        self._changed = asyncio.Event()

    def record(self, kind: str, data: dict) -> FakeEvent:
        """Append a snapshot of `data`, so later edits of a message do not rewrite history."""
        event = FakeEvent(len(self.events), kind, copy.deepcopy(data), self._clock())
        self.events.append(event)
        self._changed.set()
        self._changed = asyncio.Event()
        return event

    def matching(self, match: EventMatch) -> list[FakeEvent]:
        return [event for event in self.events if matches(match, event)]

    async def wait_for(self, match: EventMatch, *, timeout: float, count: int = 1) -> FakeEvent:
        """The `count`-th event matching (past events included); TimeoutError after `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        found: list[FakeEvent] = []
        checked = 0
        while True:
            found += [e for e in self.events[checked:] if matches(match, e)]
            checked = len(self.events)
            if len(found) >= count:
                return found[count - 1]
            remaining = deadline - loop.time()
            if remaining <= 0:
                kinds = [e.kind for e in self.events[-10:]]
                raise TimeoutError(f"no event matching {match!r} (latest kinds: {kinds})")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)


def matches(match: EventMatch, event: FakeEvent) -> bool:
    return event.kind == match if isinstance(match, str) else match(event)


@dataclass
class Session:
    session_id: str
    intents: int
    shard: list[int] | None
    seq: int = 0
    sent: list[dict] = field(default_factory=list)
    socket: web.WebSocketResponse | None = None
    # Set when the fake itself breaks the connection, so the client's RESUME is expected.
    resumable: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Gateway:
    """Discord's gateway: HELLO, heartbeats, IDENTIFY → READY + GUILD_CREATE, RESUME, dispatch."""

    def __init__(self, world: World, events: EventLog, *, heartbeat_interval_ms: int) -> None:
        self.world = world
        self.events = events
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.resume_url = ""
        self.sessions: dict[str, Session] = {}
        self.sockets: set[web.WebSocketResponse] = set()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self.sockets.add(socket)
        self.events.record("connect", {"path": request.path, "query": dict(request.query)})
        await self._send(socket, 10, {"heartbeat_interval": self.heartbeat_interval_ms})
        session: Session | None = None
        try:
            async for message in socket:
                if message.type is not WSMsgType.TEXT:
                    continue
                frame = json.loads(message.data)
                session = await self._on_frame(socket, frame, session, request.path)
        finally:
            self.sockets.discard(socket)
            if session is not None and session.socket is socket:
                session.socket = None
                if not session.resumable:
                    self.sessions.pop(session.session_id, None)
            self.events.record("disconnect", {"code": socket.close_code})
        return socket

    async def _on_frame(
        self, socket: web.WebSocketResponse, frame: dict, session: Session | None, path: str
    ) -> Session | None:
        op, data = frame.get("op"), frame.get("d")
        if session is None and op not in (1, 2, 6):
            await socket.close(code=4003, message=b"Not authenticated.")
        elif op == 1:
            self.events.record("heartbeat", {"seq": data})
            await self._send(socket, 11, None)
        elif op == 2:
            return await self._identify(socket, data, path)
        elif op == 6:
            return await self._resume(socket, data, path)
        elif op == 8:
            await self._send_member_chunk(session, data)
        elif op in (3, 4):
            self.events.record("presence" if op == 3 else "voice_state", data or {})
        else:
            await socket.close(code=4001, message=b"Unknown opcode.")
        return session

    async def _identify(
        self, socket: web.WebSocketResponse, data: dict, path: str
    ) -> Session | None:
        if data.get("token") != self.world.token:
            await socket.close(code=4004, message=b"Authentication failed.")
            return None
        session = Session(uuid.uuid4().hex, int(data.get("intents", 0)), data.get("shard"))
        session.socket = socket
        self.sessions[session.session_id] = session
        self.events.record("identify", {"path": path, "intents": session.intents} | data)
        await self.send_dispatch(session, "READY", self._ready(session))
        for guild in self.world.present_guilds:
            await self.send_dispatch(session, "GUILD_CREATE", self._guild_create(session, guild))
        return session

    async def _resume(self, socket: web.WebSocketResponse, data: dict, path: str) -> Session | None:
        session = self.sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self.world.token:
            await self._send(socket, 9, False)
            return None
        self.events.record("resume", {"path": path, "seq": data.get("seq")})
        async with session.lock:
            session.socket, session.resumable = socket, False
            for frame in session.sent:
                if frame["s"] > (data.get("seq") or 0):
                    await socket.send_str(json.dumps(frame))
        await self.send_dispatch(session, "RESUMED", {})
        return session

    def _ready(self, session: Session) -> dict:
        ready = {
            "v": 10,
            "user": self.world.bot,
            "guilds": [{"id": g["id"], "unavailable": True} for g in self.world.present_guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_url,
            "application": {k: self.world.application[k] for k in ("id", "flags")},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "user_settings": {},
            "_trace": ['["fake-discord-gateway",{"micros":0}]'],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        return ready

    def _guild_create(self, session: Session, guild: dict) -> dict:
        members = guild["members"]
        if not session.intents & INTENT_GUILD_PRESENCES:
            # Without the presences intent Discord sends only the bot's own member.
            members = [m for m in members if int(m["user"]["id"]) == self.world.bot_id]
        return guild | {
            "unavailable": False,
            "joined_at": "2025-01-01T00:00:00+00:00",
            "large": guild["member_count"] >= 250,
            "members": members,
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    async def _send_member_chunk(self, session: Session, data: dict) -> None:
        guild = self.world.guild(int(data["guild_id"]))
        chunk = {
            "guild_id": data["guild_id"],
            "members": [] if guild is None else guild["members"],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self.send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send(self, socket: web.WebSocketResponse, op: int, data: Any) -> None:
        await socket.send_str(json.dumps({"op": op, "d": data, "s": None, "t": None}))

    async def send_dispatch(self, session: Session, event: str, data: dict) -> None:
        """Send one op 0 frame; kept for replay so a RESUME gets what it missed."""
        async with session.lock:
            session.seq += 1
            frame = {"op": 0, "t": event, "s": session.seq, "d": data}
            session.sent.append(frame)
            if session.socket is not None and not session.socket.closed:
                await session.socket.send_str(json.dumps(frame))

    async def dispatch(self, event: str, data: dict, *, intent: int | None = None) -> int:
        """Send a dispatch to every session (with `intent`, if given); returns how many."""
        targets = [s for s in self.sessions.values() if intent is None or s.intents & intent]
        for session in targets:
            await self.send_dispatch(session, event, data)
        return len(targets)

    async def guild_joined(self, guild: dict) -> None:
        """GUILD_CREATE to every session, as when the bot is added to a server."""
        for session in list(self.sessions.values()):
            await self.send_dispatch(session, "GUILD_CREATE", self._guild_create(session, guild))

    def _live(self) -> list[Session]:
        return [s for s in self.sessions.values() if s.socket is not None and not s.socket.closed]

    async def reconnect(self) -> None:
        """Op 7 RECONNECT to every live session: the client closes and RESUMEs."""
        for session in self._live():
            session.resumable = True
            await self._send(session.socket, 7, None)

    async def invalidate(self, *, resumable: bool) -> None:
        """Op 9 INVALID_SESSION: the client RESUMEs if `resumable`, else IDENTIFYs anew."""
        for session in self._live():
            session.resumable = resumable
            if not resumable:
                self.sessions.pop(session.session_id)
            await self._send(session.socket, 9, resumable)

    async def drop(self, code: int) -> None:
        """Close live connections as a network failure would; sessions stay resumable."""
        for session in self._live():
            session.resumable = True
            await session.socket.close(code=code)

    async def close_all(self, code: int = 1001) -> None:
        for socket in list(self.sockets):
            await socket.close(code=code)
