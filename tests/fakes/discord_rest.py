"""The fake Discord's REST resources under /api/v10: commands, interactions, channels, messages.

Handlers raise `ApiError` for Discord's error answers and enforce Discord's message limits and
permission checks; authentication, rate limits and scripted failures happen before them, in
`discord_server.Traffic`. Every answer is JSON with a Content-Type of exactly
`application/json`, the only one discord.py parses.
"""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes.discord_gateway import (
    ATTACH_FILES,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    EventLog,
    Gateway,
    World,
    iso_now,
)

API_PREFIX = "/api/v10"
EPHEMERAL = 1 << 6
LOADING = 1 << 7
INTERACTION_TOKEN_LIFETIME = 15 * 60.0
RECORD_ONLY_KEYS = ("allowed_mentions", "files")
EDITABLE: dict[str, Any] = {"content": "", "embeds": [], "components": [], "allowed_mentions": None}


class ApiError(Exception):
    """An error answer in Discord's shape: HTTP status, JSON code, message, form errors."""

    def __init__(self, status: int, code: int, message: str, errors: dict | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def json_response(data: Any, status: int = 200, headers: dict | None = None) -> web.Response:
    headers = {**(headers or {}), "Content-Type": "application/json"}
    return web.Response(body=json.dumps(data).encode(), status=status, headers=headers)


def field_error(code: str, message: str) -> dict:
    return {"_errors": [{"code": code, "message": message}]}


def too_long(limit: int) -> dict:
    return field_error("BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def invalid_form(errors: dict) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", errors)


@dataclass(frozen=True)
class SendRecord:
    at: float
    channel_id: int
    message_id: int


@dataclass
class InteractionRecord:
    payload: dict
    created_at: float
    callback_type: int | None = None
    original: dict | None = None
    followups: dict[int, dict] = field(default_factory=dict)
    responses: list[dict] = field(default_factory=list)

    @property
    def id(self) -> int:
        return int(self.payload["id"])

    @property
    def channel_id(self) -> int:
        return int(self.payload.get("channel_id") or self.payload["channel"]["id"])


def embed_errors(embed: dict) -> dict:
    errors: dict[str, Any] = {}
    for key, limit in (("title", 256), ("description", 4096)):
        if len(embed.get(key) or "") > limit:
            errors[key] = too_long(limit)
    for key, sub, limit in (("footer", "text", 2048), ("author", "name", 256)):
        if len((embed.get(key) or {}).get(sub) or "") > limit:
            errors[key] = {sub: too_long(limit)}
    fields = embed.get("fields") or []
    if len(fields) > 25:
        errors["fields"] = too_long(25)
    for index, item in enumerate(fields):
        for key, limit in (("name", 256), ("value", 1024)):
            text = item.get(key) or ""
            if not text:
                error = field_error("BASE_TYPE_REQUIRED", "This field is required")
            elif len(text) > limit:
                error = too_long(limit)
            else:
                continue
            errors.setdefault("fields", {}).setdefault(str(index), {})[key] = error
    return errors


def embed_size(embed: dict) -> int:
    texts = [embed.get("title"), embed.get("description")]
    texts += [(embed.get("footer") or {}).get("text"), (embed.get("author") or {}).get("name")]
    for item in embed.get("fields") or []:
        texts += [item.get("name"), item.get("value")]
    return sum(len(text or "") for text in texts)


def component_errors(rows: list[dict]) -> dict:
    """Discord's limits on a message's buttons: 5 action rows of at most 5 buttons, each
    with a label of at most 80 characters and a unique custom_id of at most 100."""
    if len(rows) > 5:
        return too_long(5)
    errors: dict[str, Any] = {}
    seen: set[str] = set()
    for index, row in enumerate(rows):
        buttons = row.get("components") or []
        if row.get("type") != 1 or not 1 <= len(buttons) <= 5:
            errors[str(index)] = field_error("BASE_TYPE_BAD_LENGTH", "1 to 5 components a row")
        for button in buttons:
            custom_id = str(button.get("custom_id") or "")
            if len(str(button.get("label") or "")) > 80 or not 1 <= len(custom_id) <= 100:
                errors[str(index)] = too_long(100)
            if custom_id in seen:
                errors[str(index)] = field_error("COMPONENT_CUSTOM_ID_DUPLICATED", "duplicate")
            seen.add(custom_id)
    return errors


def check_message(payload: dict, files: list[dict], *, edit: bool = False) -> None:
    """Discord's message limits (characters counted as code points) and emptiness rule."""
    errors: dict[str, Any] = {}
    content = payload.get("content") or ""
    if len(content) > 2000:
        errors["content"] = too_long(2000)
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        errors["embeds"] = too_long(10)
    for index, embed in enumerate(embeds):
        if found := embed_errors(embed):
            errors.setdefault("embeds", {})[str(index)] = found
    if found := component_errors(payload.get("components") or []):
        errors["components"] = found
    if sum(embed_size(embed) for embed in embeds) > 6000:
        message = "Embed size exceeds maximum size of 6000"
        errors.setdefault("embeds", {}).update(field_error("MAX_EMBED_SIZE_EXCEEDED", message))
    if errors:
        raise invalid_form(errors)
    keys = ("sticker_ids", "components", "poll")
    if not edit and not (content or embeds or files or any(payload.get(k) for k in keys)):
        raise ApiError(400, 50006, "Cannot send an empty message")


async def read_payload(request: web.Request) -> tuple[Any, list[dict]]:
    """The JSON body, or a multipart body's `payload_json` and its files."""
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        raw = form.get("payload_json")
        files = [
            {
                "field": name,
                "filename": part.filename,
                "content_type": part.content_type,
                "data": part.file.read(),
            }
            for name, part in form.items()
            if isinstance(part, web.FileField)
        ]
        return json.loads(raw) if isinstance(raw, str) else {}, files
    if not request.body_exists:
        return {}, []
    return await request.json(), []


def public(record: dict) -> dict:
    """The message object Discord returns, without what the fake recorded besides it."""
    return {k: v for k, v in record.items() if k not in RECORD_ONLY_KEYS}


def truthy(value: str | None) -> bool:
    return value in ("1", "true", "True")


class RestApi:
    """Route handlers and the resources they act on; the facade reads the state."""

    def __init__(
        self,
        world: World,
        gateway: Gateway,
        events: EventLog,
        *,
        clock: Callable[[], float],
        make_id: Callable[[], int],
        interaction_deadline: float | None,
    ) -> None:
        self.world, self.gateway, self.events = world, gateway, events
        self.clock, self.make_id = clock, make_id
        self.interaction_deadline = interaction_deadline
        self.base_url = ""
        self.gateway_url = ""
        self.send_timeline: list[SendRecord] = []
        self.uploads: dict[str, bytes] = {}  # attachment id -> the bytes uploaded
        self.channel_messages: dict[int, list[dict]] = defaultdict(list)
        self.commands: dict[int | None, list[dict]] = {}
        self.interactions: dict[int, InteractionRecord] = {}
        self.forbidden: set[int] = set()

    # --- routes -----------------------------------------------------------------------------

    def routes(self) -> list[web.RouteDef]:
        channel = API_PREFIX + "/channels/{channel_id}"
        app = API_PREFIX + "/applications/{application_id}"
        webhook = API_PREFIX + "/webhooks/{application_id}/{token}"
        return [
            web.get(API_PREFIX + "/users/@me", self.get_me),
            web.get(API_PREFIX + "/oauth2/applications/@me", self.get_application),
            web.get(API_PREFIX + "/gateway", self.get_gateway),
            web.get(API_PREFIX + "/gateway/bot", self.get_gateway_bot),
            web.put(app + "/commands", self.put_commands),
            web.get(app + "/commands", self.get_commands),
            web.put(app + "/guilds/{guild_id}/commands", self.put_commands),
            web.get(app + "/guilds/{guild_id}/commands", self.get_commands),
            web.post(API_PREFIX + "/interactions/{interaction_id}/{token}/callback", self.callback),
            web.post(webhook, self.followup),
            web.route("*", webhook + "/messages/{message_id}", self.webhook_message),
            web.get(channel, self.get_channel),
            web.post(channel + "/messages", self.post_message),
            web.route("*", channel + "/messages/{message_id}", self.channel_message),
            web.get(API_PREFIX + "/guilds/{guild_id}/channels", self.get_guild_channels),
            web.post(API_PREFIX + "/users/@me/channels", self.create_dm),
        ]

    async def get_me(self, request: web.Request) -> web.Response:
        return json_response(self.world.bot)

    async def get_application(self, request: web.Request) -> web.Response:
        return json_response(self.world.application)

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        limit = {"total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1}
        return json_response({"url": self.gateway_url, "shards": 1, "session_start_limit": limit})

    # --- application commands ---------------------------------------------------------------

    def _command_scope(self, request: web.Request) -> int | None:
        if request.match_info["application_id"] != self.world.application["id"]:
            raise ApiError(403, 20012, "You are not authorized to perform this action")
        guild_id = request.match_info.get("guild_id")
        if guild_id is not None and self.world.guild(int(guild_id)) is None:
            raise ApiError(403, 50001, "Missing Access")
        return None if guild_id is None else int(guild_id)

    async def put_commands(self, request: web.Request) -> web.Response:
        guild_id = self._command_scope(request)
        items, _ = await read_payload(request)
        check_commands(items)
        previous = {(c["name"], c["type"]): c for c in self.commands.get(guild_id, [])}
        stored = [self._command(item, guild_id, previous) for item in items]
        self.commands[guild_id] = stored
        self.events.record("commands", {"guild_id": guild_id, "commands": stored})
        return json_response(stored)

    async def get_commands(self, request: web.Request) -> web.Response:
        return json_response(self.commands.get(self._command_scope(request), []))

    def _command(self, item: dict, guild_id: int | None, previous: dict) -> dict:
        kind = item.get("type", 1)
        old = previous.get((item["name"], kind))
        permissions = item.get("default_member_permissions")
        command = {
            "id": old["id"] if old else str(self.make_id()),
            "application_id": self.world.application["id"],
            "version": str(self.make_id()),
            "description": "",
            "options": [],
            "dm_permission": True,
            "contexts": None,
            "integration_types": [0],
            "nsfw": False,
        }
        command |= item | {"type": kind}
        command["integration_types"] = command["integration_types"] or [0]
        command["default_member_permissions"] = None if permissions is None else str(permissions)
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    # --- interactions -----------------------------------------------------------------------

    def register_interaction(self, payload: dict) -> None:
        self.interactions[int(payload["id"])] = InteractionRecord(payload, self.clock())

    def _interaction(self, interaction_id: str, token: str) -> InteractionRecord:
        record = self.interactions.get(int(interaction_id))
        deadline = self.interaction_deadline
        expired = record and deadline and self.clock() - record.created_at > deadline
        if record is None or record.payload["token"] != token or expired:
            raise ApiError(404, 10062, "Unknown interaction")
        return record

    def _by_token(self, application_id: str, token: str) -> InteractionRecord:
        """The acknowledged interaction whose webhook this is (its token lives 15 minutes)."""
        for record in self.interactions.values():
            payload = record.payload
            if payload["token"] != token or payload["application_id"] != application_id:
                continue
            if self.clock() - record.created_at > INTERACTION_TOKEN_LIFETIME:
                raise ApiError(401, 50027, "Invalid Webhook Token")
            if record.callback_type is not None:
                return record
        raise ApiError(404, 10015, "Unknown Webhook")

    def _respond(self, record: InteractionRecord, response: dict) -> None:
        response = copy.deepcopy({"interaction_id": record.id, **response})
        record.responses.append(response)
        self.events.record("interaction_response", response)

    async def callback(self, request: web.Request) -> web.Response:
        info = request.match_info
        record = self._interaction(info["interaction_id"], info["token"])
        if record.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body, files = await read_payload(request)
        kind, data = int(body.get("type", 0)), body.get("data") or {}
        message = self._callback_message(record, kind, data, files)
        record.callback_type = kind
        self._respond(record, {"kind": "callback", "type": kind, "data": data, "files": files})
        if not truthy(request.query.get("with_response")):
            return web.Response(status=204)
        answer: dict[str, Any] = {"id": str(record.id), "type": record.payload["type"]}
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            answer |= {
                "response_message_id": message["id"],
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(message["flags"] & EPHEMERAL),
            }
            resource["message"] = public(message)
        return json_response({"interaction": answer, "resource": resource})

    def _callback_message(
        self, record: InteractionRecord, kind: int, data: dict, files: list[dict]
    ) -> dict | None:
        is_autocomplete = record.payload["type"] == 4
        if is_autocomplete != (kind == 8) or kind not in (1, 4, 5, 6, 7, 8, 9):
            raise invalid_form({"type": field_error("BASE_TYPE_CHOICES", "Invalid response type")})
        if kind == 8:
            check_choices(data.get("choices") or [])
        if kind not in (4, 5):
            return None
        if kind == 4:
            check_message(data, files)
            flags = int(data.get("flags") or 0)
        else:
            data, flags = {}, LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
        record.original = self._message(record.channel_id, data, files, flags, record)
        return record.original

    async def followup(self, request: web.Request) -> web.Response:
        record = self._by_token(request.match_info["application_id"], request.match_info["token"])
        body, files = await read_payload(request)
        check_message(body, files)
        original = record.original
        if original is not None and original["flags"] & LOADING:
            # Discord turns the first followup after a deferral into the deferred answer.
            self._edit(original, body, files)
            message = original
        else:
            message = self._message(record.channel_id, body, files, 0, record)
            record.followups[int(message["id"])] = message
        response = {"kind": "followup", "data": body, "files": files, "message": message}
        self._respond(record, response)
        if truthy(request.query.get("wait")):
            return json_response(public(message))
        return web.Response(status=204)

    async def webhook_message(self, request: web.Request) -> web.Response:
        info = request.match_info
        record = self._by_token(info["application_id"], info["token"])
        message_id = info["message_id"]
        if message_id == "@original":
            message = record.original
        else:
            message = record.followups.get(int(message_id) if message_id.isdigit() else 0)
        if message is None:
            raise ApiError(404, 10008, "Unknown Message")
        which = "original" if message is record.original else "followup"
        if request.method == "PATCH":
            body, files = await read_payload(request)
            self._edit(message, body, files)
            self._respond(record, {"kind": f"edit_{which}", "data": body, "message": message})
        elif request.method == "DELETE":
            if which == "original":
                record.original = None
            else:
                record.followups.pop(int(message_id))
            self._respond(record, {"kind": f"delete_{which}", "message": message})
            return web.Response(status=204)
        elif request.method != "GET":
            raise ApiError(405, 0, "405: Method Not Allowed")
        return json_response(public(message))

    # --- channels and messages --------------------------------------------------------------

    def _channel(self, channel_id: str, needed: int = 0) -> tuple[dict, dict | None]:
        found = self.world.find_channel(int(channel_id))
        if found is None:
            raise ApiError(404, 10003, "Unknown Channel")
        channel, guild = found
        departed = guild is not None and int(guild["id"]) in self.world.departed
        if int(channel_id) in self.forbidden or departed:
            raise ApiError(403, 50001, "Missing Access")
        if guild is not None:
            permissions = self.world.permissions(guild, self.world.bot_id, channel)
            if not permissions & VIEW_CHANNEL:
                raise ApiError(403, 50001, "Missing Access")
            if permissions & needed != needed:
                raise ApiError(403, 50013, "Missing Permissions")
        return channel, guild

    async def get_channel(self, request: web.Request) -> web.Response:
        channel, _ = self._channel(request.match_info["channel_id"])
        return json_response(channel)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self.world.guild(int(request.match_info["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return json_response(guild["channels"])

    async def create_dm(self, request: web.Request) -> web.Response:
        body, _ = await read_payload(request)
        if int(body.get("recipient_id", 0)) not in self.world.users:
            raise ApiError(400, 50033, "Invalid Recipient(s)")
        return json_response(self.world.dm_channel(int(body["recipient_id"]), self.make_id))

    async def post_message(self, request: web.Request) -> web.Response:
        channel_id = request.match_info["channel_id"]
        channel, guild = self._channel(channel_id, SEND_MESSAGES)
        body, files = await read_payload(request)
        if files and guild is not None:
            self._channel(channel_id, SEND_MESSAGES | ATTACH_FILES)
        check_message(body, files)
        sent = self.channel_messages[int(channel_id)]
        if body.get("enforce_nonce") and body.get("nonce") is not None:
            for earlier in sent:
                if earlier.get("nonce") == body["nonce"]:
                    return json_response(public(earlier))
        message = self._message(int(channel_id), body, files, 0, None)
        sent.append(message)
        channel["last_message_id"] = message["id"]
        self.send_timeline.append(SendRecord(self.clock(), int(channel_id), int(message["id"])))
        self.events.record("message", message)
        await self._echo(message, guild)
        return json_response(public(message))

    async def _echo(self, message: dict, guild: dict | None) -> None:
        event = public(message)
        if guild is None:
            await self.gateway.dispatch("MESSAGE_CREATE", event, intent=INTENT_DIRECT_MESSAGES)
            return
        member = dict(self.world.member(guild, self.world.bot_id) or {})
        member.pop("user", None)
        event |= {"guild_id": guild["id"], "member": member}
        await self.gateway.dispatch("MESSAGE_CREATE", event, intent=INTENT_GUILD_MESSAGES)

    async def channel_message(self, request: web.Request) -> web.Response:
        channel_id = request.match_info["channel_id"]
        self._channel(channel_id)
        sent = self.channel_messages[int(channel_id)]
        message_id = request.match_info["message_id"]
        message = next((m for m in sent if m["id"] == message_id), None)
        if message is None:
            raise ApiError(404, 10008, "Unknown Message")
        if request.method == "PATCH":
            body, files = await read_payload(request)
            self._edit(message, body, files)
            self.events.record("message_edit", message)
        elif request.method == "DELETE":
            sent.remove(message)
            self.events.record("message_delete", message)
            return web.Response(status=204)
        elif request.method != "GET":
            raise ApiError(405, 0, "405: Method Not Allowed")
        return json_response(public(message))

    def _message(
        self,
        channel_id: int,
        body: dict,
        files: list[dict],
        flags: int,
        interaction: InteractionRecord | None,
    ) -> dict:
        message = {
            "id": str(self.make_id()),
            "channel_id": str(channel_id),
            "type": 0 if interaction is None else 20,
            "author": self.world.bot,
            "content": body.get("content") or "",
            "embeds": [{"type": "rich", **embed} for embed in body.get("embeds") or []],
            "attachments": self._attachments(channel_id, body, files),
            "components": body.get("components") or [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": bool(body.get("tts")),
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "flags": int(body.get("flags") or 0) | flags,
            "allowed_mentions": body.get("allowed_mentions"),
            "files": files,
        }
        if body.get("nonce") is not None:
            message["nonce"] = body["nonce"]
        if interaction is not None:
            message["webhook_id"] = message["application_id"] = self.world.application["id"]
        return message

    def _attachments(self, channel_id: int, body: dict, files: list[dict]) -> list[dict]:
        described = {str(a.get("id")): a for a in body.get("attachments") or []}
        attachments = []
        for index, file in enumerate(files):
            meta = described.get(str(index), {})
            attachment_id = self.make_id()
            filename = meta.get("filename") or file["filename"]
            url = f"{self.base_url}/attachments/{channel_id}/{attachment_id}/{filename}"
            self.uploads[str(attachment_id)] = file["data"]
            attachments.append(
                {
                    "id": str(attachment_id),
                    "filename": filename,
                    "description": meta.get("description"),
                    "content_type": file["content_type"],
                    "size": len(file["data"]),
                    "url": url,
                    "proxy_url": url,
                }
            )
        return attachments

    def _edit(self, message: dict, body: dict, files: list[dict]) -> None:
        check_message({**message, **body}, files, edit=True)
        for key, empty in EDITABLE.items():
            if key in body:
                message[key] = empty if body[key] is None else body[key]
        message["embeds"] = [{"type": "rich", **embed} for embed in message["embeds"]]
        if "attachments" in body or files:
            kept = {str(a.get("id")) for a in body.get("attachments") or []}
            old = [a for a in message["attachments"] if a["id"] in kept]
            new = self._attachments(int(message["channel_id"]), body, files)
            message["attachments"] = old + new
            message["files"] = message["files"] + files
        if "flags" in body:
            message["flags"] = int(body["flags"] or 0)
        message["flags"] &= ~LOADING
        message["edited_timestamp"] = iso_now()


def check_choices(choices: list[dict]) -> None:
    if len(choices) > 25:
        raise invalid_form({"data": {"choices": too_long(25)}})
    for index, choice in enumerate(choices):
        if not 1 <= len(str(choice.get("name", ""))) <= 100:
            error = {str(index): {"name": too_long(100)}}
            raise invalid_form({"data": {"choices": error}})


def check_commands(items: Any) -> None:
    """Discord's main command rules: ≤ 100 slash commands, names and descriptions, options."""
    if not isinstance(items, list) or sum(item.get("type", 1) == 1 for item in items) > 100:
        raise invalid_form(too_long(100))
    errors: dict[str, Any] = {}
    seen: set[tuple[str, int]] = set()
    for index, item in enumerate(items):
        key = (item.get("name", ""), item.get("type", 1))
        problems = command_problems(item)
        if key in seen:
            problems["name"] = field_error("APPLICATION_COMMANDS_DUPLICATE_NAME", "Duplicate name")
        seen.add(key)
        if problems:
            errors[str(index)] = problems
    if errors:
        raise invalid_form(errors)


def command_problems(item: dict) -> dict:
    problems: dict[str, Any] = {}
    name, chat_input = item.get("name", ""), item.get("type", 1) == 1
    if not 1 <= len(name) <= 32 or (chat_input and name != name.lower()):
        problems["name"] = field_error("APPLICATION_COMMAND_INVALID_NAME", "Invalid name")
    if chat_input and not 1 <= len(item.get("description") or "") <= 100:
        problems["description"] = too_long(100)
    options = item.get("options") or []
    if len(options) > 25:
        problems["options"] = too_long(25)
    for index, option in enumerate(options):
        if found := command_problems({**option, "type": 1}):
            problems.setdefault("options", {})[str(index)] = found
    return problems
