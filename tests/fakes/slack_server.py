"""A fake Slack on 127.0.0.1 that the real slack-bolt and slack-sdk talk to.

    async with FakeSlack() as slack:
        slack.add_channel("C1", "papers", creator="UADMIN", members={"UADMIN"})
        client = AsyncWebClient(token=slack.bot_token, base_url=slack.api_url)
        ack = await slack.slash("C1", "UADMIN", "/follow", "rl for llm agents")
        (answer,) = await slack.wait_for_responses("C1", 1)

The Web API is `POST /api/<method>` (or GET with a query) with a bearer token, the body
form-encoded (values that are lists or objects JSON-encoded) or JSON, answered `{"ok": ...}`
with Slack's error codes. Limits are token buckets (`Rate`) on an injectable clock:
`chat.postMessage` (and a shared file) about one a second in each channel, uploads 100 a
minute in the workspace (a Tier 4 method); `chat.postMessage` also checks Block Kit's limits.
A refusal is HTTP 429 with
`Retry-After` and counts in `flood_count`. `files_upload_v2`'s three steps are served
(`files.getUploadURLExternal`, the upload itself at the URL it returns,
`files.completeUploadExternal`). Accepted posts and files are recorded per channel (`sent`);
what the app answers through a `response_url` is recorded too (`responses`).

The app's side: in Socket Mode (`apps.connections.open` hands out a ws:// URL) the fake says
hello and sends envelopes, each acknowledged by its `envelope_id` (`acks`). In HTTP mode
(`events_url` set) the same payloads are POSTed there, signed with `signing_secret` as Slack
signs them (v0, HMAC-SHA256 of `v0:timestamp:body`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import math
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

import aiohttp
from aiohttp import web

BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-test-token"
SIGNING_SECRET = "test-signing-secret"
TEAM, APP_ID, BOT_USER, BOT_ID = "T0001", "A0001", "UBOT", "B0001"
# Block Kit's limits that digests can reach.
MAX_BLOCKS, SECTION_TEXT, BUTTON_TEXT, ACTION_ELEMENTS, TEXT_LIMIT = 50, 3000, 75, 25, 40_000
ID_LIMIT, VALUE_LIMIT = 255, 2000


@dataclass(frozen=True)
class Rate:
    """`count` posts per `period` seconds in each channel, up to `burst` at once: Slack allows
    "1 message per second per channel, short bursts over that", so a post arriving a little
    early after network jitter still passes; a real burst does not."""

    count: float = 1.0
    period: float = 1.0
    burst: float = 2.0

    def scaled(self, speed: float) -> Rate:
        return Rate(self.count, self.period / speed, self.burst)


TIER_4 = Rate(100, 60.0, burst=100)  # files.getUploadURLExternal: 100+ a minute, per workspace


class _Bucket:
    def __init__(self, rate: Rate, now: float) -> None:
        self.capacity, self.refill = rate.burst, rate.count / rate.period
        self.level, self.stamp = rate.burst, now

    def take(self, now: float) -> float:
        """0 when a post fits now (and takes it), else the seconds until one would."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.refill)
        self.stamp = now
        if self.level >= 1 - 1e-9:
            self.level -= 1
            return 0.0
        return (1 - self.level) / self.refill


@dataclass
class Channel:
    id: str
    name: str
    creator: str = ""
    is_private: bool = False
    is_im: bool = False
    members: set[str] = field(default_factory=set)


class SlackError(Exception):
    def __init__(self, error: str, status: int = 200, headers: dict | None = None) -> None:
        super().__init__(error)
        self.error, self.status, self.headers = error, status, headers or {}


class FakeSlack:
    def __init__(
        self,
        *,
        rate: Rate | None = None,
        uploads: Rate | None = None,
        clock: Callable[[], float] = time.monotonic,
        retry_unit: float = 1.0,
    ) -> None:
        self.bot_token, self.app_token, self.signing_secret = BOT_TOKEN, APP_TOKEN, SIGNING_SECRET
        self.rate, self.clock, self.retry_unit = rate or Rate(), clock, retry_unit
        self.uploads_rate = uploads or TIER_4
        self.channels: dict[str, Channel] = {}
        self.users: dict[str, dict] = {BOT_USER: {"id": BOT_USER, "name": "digestbot"}}
        self.sent: dict[str, list[dict]] = defaultdict(list)
        self.responses: dict[str, list[dict]] = defaultdict(list)
        self.acks: dict[str, dict] = {}
        self.uploads: dict[str, bytes] = {}
        self.views: list[dict] = []  # modals the app opened
        self.groups: dict[str, set[str]] = {}  # user groups: id -> member ids
        self.calls: list[str] = []
        self.flood_count = 0
        self.revoked = ""  # an error every call answers, e.g. "token_revoked"
        self.files_refused = ""  # an error uploads answer, e.g. "missing_scope"
        self.outages = 0  # how many of the next calls answer 500
        self.refusals: list[tuple[str, float]] = []  # (channel, when) of each 429
        self._throttled: dict[str, tuple[int, float]] = {}
        self.events_url = ""  # POST payloads here (HTTP mode) instead of over the socket
        self._buckets: dict[str, _Bucket] = {}
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()
        self._sockets: list[web.WebSocketResponse] = []
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.base_url = ""

    # --- lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> FakeSlack:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_post("/respond/{channel}/{user}", self._respond)
        app.router.add_get("/link", self._socket)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"
        self._session = aiohttp.ClientSession()
        return self

    async def __aexit__(self, *exc_info) -> None:
        for socket in list(self._sockets):
            await socket.close()
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    # --- the workspace -----------------------------------------------------------------------

    def add_user(self, user_id: str, *, admin: bool = False, owner: bool = False) -> None:
        self.users[user_id] = {
            "id": user_id,
            "name": user_id.lower(),
            "is_admin": admin or owner,
            "is_owner": owner,
            "deleted": False,
        }

    def add_channel(
        self,
        channel_id: str,
        name: str,
        *,
        creator: str = "",
        private: bool = False,
        im: bool = False,
        members: set[str] = frozenset(),
        bot: bool = True,
    ) -> None:
        found = set(members) | ({BOT_USER} if bot else set())
        self.channels[channel_id] = Channel(channel_id, name, creator, private, im, found)

    def posts(self, channel_id: str) -> list[dict]:
        return [record for record in self.sent[channel_id] if record["method"] == "post"]

    def files(self, channel_id: str) -> list[dict]:
        return [record for record in self.sent[channel_id] if record["method"] == "file"]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    async def wait_for_sent(self, channel_id: str, count: int, timeout: float) -> list[dict]:
        await self.wait_for(lambda: len(self.sent[channel_id]) >= count, timeout)
        return self.sent[channel_id]

    async def wait_for_responses(self, channel_id: str, count: int, timeout: float) -> list[dict]:
        await self.wait_for(lambda: len(self.responses[channel_id]) >= count, timeout)
        return self.responses[channel_id]

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # --- what users do -----------------------------------------------------------------------

    async def slash(self, channel_id: str, user_id: str, command: str, text: str = "") -> dict:
        """A slash command typed in a channel; returns the app's acknowledgement."""
        payload = {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": APP_ID,
            "channel_id": channel_id,
            "channel_name": self.channels[channel_id].name,
            "user_id": user_id,
            "user_name": user_id.lower(),
            "command": command,
            "text": text,
            "response_url": self._response_url(channel_id, user_id),
            "trigger_id": f"trigger-{next(self._ids)}",
        }
        return await self.deliver("slash_commands", payload)

    async def press(
        self, channel_id: str, user_id: str, button: dict, message_ts: str = "1.000001"
    ) -> dict:
        """A button of a message pressed (`block_actions`)."""
        action = {
            "type": "button",
            "action_id": button["action_id"],
            "block_id": button.get("block_id", "b"),
            "value": button.get("value", ""),
            "action_ts": f"{time.time():.6f}",
        }
        payload = {
            "type": "block_actions",
            "token": "legacy",
            "api_app_id": APP_ID,
            "team": {"id": TEAM},
            "user": {"id": user_id, "name": user_id.lower(), "team_id": TEAM},
            "channel": {"id": channel_id, "name": self.channels[channel_id].name},
            "container": {"type": "message", "channel_id": channel_id, "message_ts": message_ts},
            "message": {"type": "message", "ts": message_ts, "text": ""},
            "actions": [action],
            "response_url": self._response_url(channel_id, user_id),
            "trigger_id": f"trigger-{next(self._ids)}",
        }
        return await self.deliver("interactive", payload)

    async def suggest(self, user_id: str, view: dict, action_id: str, typed: str) -> dict:
        """Typing into an external select of an open modal; the app's options (its ack)."""
        payload = {"type": "block_suggestion", "user": {"id": user_id}, "team": {"id": TEAM},
                   "api_app_id": APP_ID, "token": "legacy", "action_id": action_id,
                   "block_id": action_id, "value": typed, "view": view}  # fmt: skip
        return await self.deliver("interactive", payload)

    async def submit(self, user_id: str, view: dict, picked: dict[str, dict]) -> dict:
        """A modal submitted with an option picked in each named select."""
        values = {action_id: {action_id: {"type": "static_select", "selected_option": option}}
                  for action_id, option in picked.items()}  # fmt: skip
        submitted = {**view, "state": {"values": values}}
        payload = {"type": "view_submission", "user": {"id": user_id}, "team": {"id": TEAM},
                   "api_app_id": APP_ID, "token": "legacy", "view": submitted}  # fmt: skip
        return await self.deliver("interactive", payload)

    async def event(self, event: dict, event_id: str = "") -> dict:
        payload = {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": APP_ID,
            "type": "event_callback",
            "event_id": event_id or f"Ev{next(self._ids):08d}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
            "event": event,
        }
        return await self.deliver("events_api", payload)

    async def remove_bot(self, channel_id: str, by: str) -> dict:
        """Someone removes the app from a channel: it leaves, and is told (`channel_left`)."""
        channel = self.channels[channel_id]
        channel.members.discard(BOT_USER)
        kind = "group_left" if channel.is_private else "channel_left"
        return await self.event({"type": kind, "channel": channel_id, "actor_id": by})

    async def invite_bot(self, channel_id: str, by: str) -> dict:
        self.channels[channel_id].members.add(BOT_USER)
        event = {
            "type": "member_joined_channel",
            "user": BOT_USER,
            "channel": channel_id,
            "channel_type": "G" if self.channels[channel_id].is_private else "C",
            "team": TEAM,
            "inviter": by,
        }
        return await self.event(event)

    def _response_url(self, channel_id: str, user_id: str) -> str:
        return f"{self.base_url}/respond/{channel_id}/{user_id}"

    # --- to the app: over the socket, or signed HTTP requests ----------------------------

    async def deliver(self, kind: str, payload: dict, timeout: float = 5.0) -> dict:
        """Send one payload as Slack would; returns the app's acknowledgement (its payload,
        or {"status": ..., "body": ...} in HTTP mode)."""
        if self.events_url:
            return await self.post_signed(kind, payload, timeout=timeout)
        envelope_id = f"env-{next(self._ids)}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": 0,
            "retry_reason": "",
        }
        await self.wait_for(lambda: bool(self._sockets), timeout)
        await self._sockets[-1].send_str(json.dumps(envelope))
        await self.wait_for(lambda: envelope_id in self.acks, timeout)
        return self.acks[envelope_id]

    async def post_signed(
        self, kind: str, payload: dict, *, timestamp: int | None = None, secret: str = "",
        timeout: float = 5.0,
    ) -> dict:  # fmt: skip
        if kind == "slash_commands":
            body, content_type = urlencode(payload), "application/x-www-form-urlencoded"
        elif kind == "interactive":
            body = urlencode({"payload": json.dumps(payload)})
            content_type = "application/x-www-form-urlencoded"
        else:
            body, content_type = json.dumps(payload), "application/json"
        stamp = int(time.time()) if timestamp is None else timestamp
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(stamp),
            "X-Slack-Signature": sign(secret or self.signing_secret, stamp, body),
        }
        client_timeout = aiohttp.ClientTimeout(total=timeout)
        async with self._session.post(
            self.events_url, data=body.encode(), headers=headers, timeout=client_timeout
        ) as answer:
            return {"status": answer.status, "body": await answer.text()}

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        hello = {"type": "hello", "num_connections": 1, "connection_info": {"app_id": APP_ID}}
        await socket.send_str(json.dumps(hello))
        self._sockets.append(socket)
        await self._notify()
        try:
            async for message in socket:
                if message.type != aiohttp.WSMsgType.TEXT:
                    continue
                ack = json.loads(message.data)
                self.acks[ack["envelope_id"]] = ack.get("payload") or {}
                await self._notify()
        finally:
            self._sockets.remove(socket)
        return socket

    # --- the Web API -------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        self.calls.append(method)
        args = await _arguments(request)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        token = token or args.get("token", "")
        try:
            wanted = self.app_token if method == "apps.connections.open" else self.bot_token
            if token != wanted:
                raise SlackError("invalid_auth")
            if self.revoked:
                raise SlackError(self.revoked)
            if self.outages:  # Slack having trouble of its own
                self.outages -= 1
                raise SlackError("internal_error", 500)
            handler = getattr(self, "_" + method.replace(".", "_"), None)
            if handler is None:
                raise SlackError("unknown_method", 404)
            answer = handler(args)
        except SlackError as exc:
            body = {"ok": False, "error": exc.error}
            return web.json_response(body, status=exc.status, headers=exc.headers)
        await self._notify()
        return web.json_response({"ok": True, **answer})

    def _auth_test(self, args: dict) -> dict:
        return {"url": "https://fake.slack.test/", "team": "Lab", "team_id": TEAM,
                "user": "digestbot", "user_id": BOT_USER, "bot_id": BOT_ID}  # fmt: skip

    def _apps_connections_open(self, args: dict) -> dict:
        return {"url": f"ws://{self.base_url.removeprefix('http://')}/link?ticket=1"}

    def _users_info(self, args: dict) -> dict:
        user = self.users.get(args.get("user", ""))
        if user is None:
            raise SlackError("user_not_found")
        return {"user": user}

    def _usergroups_users_list(self, args: dict) -> dict:
        if args.get("usergroup") not in self.groups:
            raise SlackError("no_such_subteam")
        return {"users": sorted(self.groups[args["usergroup"]])}

    def _conversations_info(self, args: dict) -> dict:
        channel = self._channel(args.get("channel", ""))
        return {"channel": {
            "id": channel.id, "name": channel.name, "creator": channel.creator,
            "is_channel": not channel.is_private and not channel.is_im,
            "is_group": channel.is_private, "is_im": channel.is_im,
            "is_private": channel.is_private or channel.is_im,
            "is_member": BOT_USER in channel.members,
        }}  # fmt: skip

    def _chat_postMessage(self, args: dict) -> dict:
        channel = self._writable(args.get("channel", ""))
        blocks = args.get("blocks") or []
        if not args.get("text") and not blocks:
            raise SlackError("no_text")
        if len(args.get("text") or "") > TEXT_LIMIT:
            raise SlackError("msg_too_long")
        if problem := block_kit_problem(blocks):
            raise SlackError("invalid_blocks", headers={"X-Problem": problem})
        self._take_turn(channel.id)
        ts = f"{time.time():.0f}.{next(self._ids):06d}"
        record = {"method": "post", "ts": ts, "text": args.get("text", ""), "blocks": blocks,
                  "at": self.clock()}  # fmt: skip
        self.sent[channel.id].append(record)
        return {"channel": channel.id, "ts": ts, "message": {"text": record["text"], "ts": ts}}

    def _chat_postEphemeral(self, args: dict) -> dict:
        channel = self._writable(args.get("channel", ""))
        record = {"method": "ephemeral", "user": args.get("user", ""),
                  "text": args.get("text", ""), "blocks": args.get("blocks") or []}  # fmt: skip
        self.sent[channel.id].append(record)
        return {"message_ts": f"{time.time():.6f}"}

    def _views_open(self, args: dict) -> dict:
        view = args.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        if not args.get("trigger_id") or not view or len(view.get("blocks", [])) > 100:
            raise SlackError("invalid_arguments")
        self.views.append({**view, "id": f"V{next(self._ids):06d}"})
        return {"view": self.views[-1]}

    def _files_getUploadURLExternal(self, args: dict) -> dict:
        if self.files_refused:
            raise SlackError(self.files_refused)
        self._take_turn("files.getUploadURLExternal", self.uploads_rate)
        if not args.get("filename") or not str(args.get("length", "")).isdigit():
            raise SlackError("invalid_arguments")
        file_id = f"F{next(self._ids):06d}"
        return {"upload_url": f"{self.base_url}/upload/{file_id}", "file_id": file_id}

    def _files_completeUploadExternal(self, args: dict) -> dict:
        files = args.get("files") or []
        if not files or any(f.get("id") not in self.uploads for f in files):
            raise SlackError("file_not_found")
        channel = self._writable(args.get("channel_id", ""))
        self._take_turn(channel.id)  # sharing the file posts a message in the channel
        for item in files:
            record = {"method": "file", "id": item["id"], "title": item.get("title", ""),
                      "bytes": self.uploads[item["id"]],
                      "initial_comment": args.get("initial_comment", ""),
                      "at": self.clock()}  # fmt: skip
            self.sent[channel.id].append(record)
        return {"files": [{"id": f["id"], "title": f.get("title", "")} for f in files]}

    def _channel(self, channel_id: str) -> Channel:
        if channel_id not in self.channels:
            raise SlackError("channel_not_found")
        return self.channels[channel_id]

    def _writable(self, channel_id: str) -> Channel:
        channel = self._channel(channel_id)
        if BOT_USER not in channel.members:
            raise SlackError("not_in_channel")
        return channel

    def throttle(self, channel_id: str, posts: int, retry_after: float) -> None:
        """Answer the next `posts` posts to the channel 429, whatever the bucket says (as when
        another app's posts used the channel's allowance)."""
        self._throttled[channel_id] = (posts, retry_after)

    def _take_turn(self, channel_id: str, rate: Rate | None = None) -> None:
        """A post to a channel (or a call of a method, by its name) within its limit."""
        now = self.clock()
        posts, retry_after = self._throttled.get(channel_id, (0, 0.0))
        if posts:
            self._throttled[channel_id] = (posts - 1, retry_after)
            self.refusals.append((channel_id, now))
            raise SlackError("ratelimited", 429, {"Retry-After": f"{retry_after:g}"})
        bucket = self._buckets.setdefault(channel_id, _Bucket(rate or self.rate, now))
        if wait := bucket.take(now):
            self.flood_count += 1
            self.refusals.append((channel_id, now))
            retry = math.ceil(wait / self.retry_unit) * self.retry_unit
            raise SlackError("ratelimited", 429, {"Retry-After": f"{retry:g}"})

    async def _upload(self, request: web.Request) -> web.Response:
        self.uploads[request.match_info["file_id"]] = await request.read()
        return web.Response(text=f"OK - {len(self.uploads[request.match_info['file_id']])}")

    async def _respond(self, request: web.Request) -> web.Response:
        body = await request.json()
        body["user"] = request.match_info["user"]
        self.responses[request.match_info["channel"]].append(body)
        await self._notify()
        return web.Response(text="ok")


async def _arguments(request: web.Request) -> dict:
    if request.content_type == "application/json":
        return await request.json()
    form = {**request.query, **await request.post()}
    for key in ("blocks", "files"):
        if isinstance(form.get(key), str):
            form[key] = json.loads(form[key])
    return form


def sign(secret: str, timestamp: int, body: str) -> str:
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def block_kit_problem(blocks: list[dict]) -> str:
    """What breaks Block Kit's limits in `blocks`; "" when nothing does."""
    if len(blocks) > MAX_BLOCKS:
        return f"{len(blocks)} blocks"
    ids = [b["block_id"] for b in blocks if "block_id" in b]
    if len(ids) != len(set(ids)):
        return "repeated block_id"
    action_ids = []
    for block in blocks:
        text = (block.get("text") or {}).get("text", "")
        if block["type"] == "section" and not 0 < len(text) <= SECTION_TEXT:
            return f"section text of {len(text)} characters"
        elements = block.get("elements", [])
        if block["type"] == "actions" and not 0 < len(elements) <= ACTION_ELEMENTS:
            return f"{len(elements)} elements"
        for element in elements if block["type"] == "actions" else []:
            action_ids.append(element.get("action_id", ""))
            if len(element["text"]["text"]) > BUTTON_TEXT:
                return "button text too long"
            if len(element.get("value", "")) > VALUE_LIMIT or len(action_ids[-1]) > ID_LIMIT:
                return "button value or action_id too long"
    if len(action_ids) != len(set(action_ids)):
        return "repeated action_id"
    return ""


def button(message: dict, label: str) -> dict:
    """The button labelled `label` in a posted message, with its block's id."""
    for block in message.get("blocks", []):
        for element in block.get("elements", []) if block["type"] == "actions" else []:
            if element["text"]["text"] == label:
                return {**element, "block_id": block.get("block_id", "")}
    raise LookupError(f"no button {label!r}")


def visible(message: dict) -> str:
    """The text of a message's sections, as it reads in Slack (before unescaping)."""
    sections = [b["text"]["text"] for b in message.get("blocks", []) if b["type"] == "section"]
    return "\n\n".join(sections) or message.get("text", "")
