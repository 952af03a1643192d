"""Links that lead into the bot, such as a topic page's "Follow this topic" button.

Telegram: `https://t.me/<bot>?start=<payload>` opens a private chat with the bot, and
`?startgroup=<payload>` lets the user pick a group to add it to; either way the bot then receives
`/start <payload>`. Telegram allows only `[A-Za-z0-9_-]`, at most 64 characters, in a payload.
A topic's payload is `follow-<slug>`; a slug that cannot fit (too long, or other characters, as a
`TOPICS_FILE` may bring) is named by a hash instead, `follow_<16 hex digits>`, which the bot maps
back through the catalog. The underscore keeps the two forms apart.

Discord has no link that opens a slash command with its arguments filled in. What exists: the
OAuth2 install link (the bot joins a server with the permissions it needs) and, inside Discord
messages only, the command mention `</follow:COMMAND_ID>`, which puts `/follow` in the message box
without a topic. So a topic page offers the install link and says what to type.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import urlencode

PAYLOAD_LIMIT = 64  # characters of a Telegram start payload
FOLLOW_PREFIX = "follow-"
HASHED_PREFIX = "follow_"
_PAYLOAD_CHARS = re.compile(r"[A-Za-z0-9_-]+")
_HASHED = re.compile(r"follow_([0-9a-f]{16})")

# What the bot needs in a Discord channel: View Channel, Send Messages, Embed Links, Attach
# Files (the chart), Send Messages in Threads. Nothing more is asked for.
DISCORD_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 38)
DISCORD_SCOPES = "bot applications.commands"


def follow_payload(slug: str) -> str:
    """The `/start` payload that follows `slug`: `follow-<slug>` when it fits, else hashed."""
    payload = FOLLOW_PREFIX + slug
    if len(payload) <= PAYLOAD_LIMIT and _PAYLOAD_CHARS.fullmatch(slug):
        return payload
    return HASHED_PREFIX + slug_hash(slug)


def slug_hash(slug: str) -> str:
    return hashlib.sha256(slug.encode()).hexdigest()[:16]


def telegram_follow_link(bot_username: str, slug: str) -> str:
    """A private chat with the bot that follows `slug` when opened (Start)."""
    return _telegram_link(bot_username, "start", slug)


def telegram_group_follow_link(bot_username: str, slug: str) -> str:
    """Adds the bot to a group the user picks, then follows `slug` there (admins only)."""
    return _telegram_link(bot_username, "startgroup", slug)


def _telegram_link(bot_username: str, parameter: str, slug: str) -> str:
    username = bot_username.strip().removeprefix("@")
    return f"https://t.me/{username}?{parameter}={follow_payload(slug)}"


def discord_install_link(application_id: str) -> str:
    """Adds the bot to a server the user picks, with its slash commands and permissions."""
    query = {
        "client_id": str(application_id).strip(),
        "scope": DISCORD_SCOPES,
        "permissions": str(DISCORD_PERMISSIONS),
    }
    return "https://discord.com/oauth2/authorize?" + urlencode(query)


@dataclass(frozen=True)
class StartFollow:
    """A `/start` payload asking to follow a topic: by its slug, or by the slug's hash."""

    slug: str = ""
    hashed: str = ""

    def matches(self, slug: str) -> bool:
        return slug == self.slug if self.slug else slug_hash(slug) == self.hashed


def parse_start_payload(payload: str) -> StartFollow | None:
    """What a `/start` payload asks for; None when it is not one of our follow payloads."""
    payload = payload.strip()
    if len(payload) > PAYLOAD_LIMIT or not _PAYLOAD_CHARS.fullmatch(payload):
        return None
    if hashed := _HASHED.fullmatch(payload):
        return StartFollow(hashed=hashed.group(1))
    slug = payload.removeprefix(FOLLOW_PREFIX)
    if slug == payload or not slug:
        return None
    return StartFollow(slug=slug)
