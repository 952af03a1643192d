"""Links that bring a reader to the bot: follow a topic in Telegram, add the bot to Discord."""

from __future__ import annotations

from urllib.parse import quote, urlencode


def telegram_follow_link(bot_username: str, slug: str) -> str:
    """Opens a chat with the bot, which receives `/start follow-<slug>` (Telegram allows
    letters, digits, "_" and "-" in a start parameter, as in every slug)."""
    return f"https://t.me/{quote(bot_username, safe='')}?start=follow-{quote(slug, safe='')}"


def discord_install_link(application_id: str) -> str:
    """Discord's page to add the bot, with its slash commands, to a server."""
    query = urlencode({"client_id": application_id, "scope": "bot applications.commands"})
    return f"https://discord.com/oauth2/authorize?{query}"
