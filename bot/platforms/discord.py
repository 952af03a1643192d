"""Discord: slash commands in, digests out, through discord.py in the bot's own event loop.

The adapter translates; the core decides. The slash commands, their options, descriptions and
autocomplete are made from the core's command table (`digests.usecases.commands.COMMANDS`). A slash
command becomes a `Caller` (the channel or thread the command came from, its server, and
whether the member may manage that channel) plus a command name and argument (its options
joined in the table's order) for `CommandService.handle`; its `Reply` is rendered by
`discord_render`. Deliveries reach Discord through `DiscordSender`, which maps discord.py's
errors onto the neutral `SendFailure` tree; the `Dispatcher` decides what each means.

Answers: Discord drops an interaction that gets no answer within 3 seconds, so the core's
work runs in a thread and the answer goes out directly when it is ready within
`reply_budget`; otherwise the interaction is deferred (ephemeral) and the answer follows.
Refusals, errors, bad input and read-only views are ephemeral. A successful change (follow,
unfollow, schedule, alerts) is posted for the channel to see.

DMs are personal subscriptions, like Telegram's private chats: the user owns the DM, so they
may follow topics there. Roles exist only in servers, so `/alerts on` with a role is refused
in a DM with an ephemeral answer.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import io
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
import yarl
from discord import app_commands

from bot.platforms.base import draw_chart
from bot.platforms.discord_render import render_alert, render_digest, render_reply
from bot.platforms.turns import ChatTurns
from bot.settings import Settings, SettingsError
from digests.delivery.sending import (
    Address,
    ChatGone,
    ChatUnavailable,
    MediaRefused,
    OutcomeUnknown,
    Rejected,
    RetryLater,
    SendFailure,
    Transient,
)
from digests.messages.chart_spec import CHART_KEY
from digests.messages.vote_keys import is_vote_data
from digests.usecases.commands import COMMANDS, Argument, Caller, Command, Reply
from digests.usecases.votes import Voter

if TYPE_CHECKING:
    from digests.messages.alert import SpikeAlert
    from digests.messages.digest import Digest
    from digests.usecases.app import UseCases

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg"
NO_MENTIONS = discord.AllowedMentions.none()
CHOICES_LIMIT = 25  # Discord's maximum of autocomplete choices
CHOICE_TEXT_LIMIT = 100  # characters of a choice's name and of a string choice's value
UNKNOWN_CHANNEL = 10003
MISSING_PERMISSIONS = 50013
CHART_FILE = "momentum.png"
FORBIDDEN_REASONS = {
    50001: "missing access: the bot cannot see this channel",
    MISSING_PERMISSIONS: "missing permissions: the bot needs Send Messages and Embed Links here",
    50007: "the user does not accept direct messages from the bot",
}
OOPS = "Something went wrong while answering; please try again in a moment."


# --- sending ---------------------------------------------------------------------------------


class DiscordSender:
    """Sends one stored payload to a channel, thread or DM by id; raises `SendFailure`s."""

    platform = "discord"
    # Discord's global limit is 50 requests/s per bot; 4% headroom absorbs the odd part that
    # waits in discord.py's per-channel bucket and leaves later than its turn (see docs).
    sends_per_second = 48.0

    def __init__(self, client: discord.Client) -> None:
        self.client = client

    async def send(self, address: Address, payload: dict) -> str:
        if not address.chat_id.isdigit():
            raise Rejected(f"not a Discord channel id: {address.chat_id[:40]!r}")
        # A partial channel needs no cache and no fetch: one request per message.
        channel = self.client.get_partial_messageable(int(address.chat_id))
        embeds = [discord.Embed.from_dict(embed) for embed in payload.get("embeds") or []]
        files = await self.chart_upload(int(address.chat_id), payload, embeds)
        buttons = StoredButtons(payload["components"]) if payload.get("components") else None
        try:
            message = await channel.send(
                content=payload.get("content"),
                embeds=embeds,
                files=files,
                allowed_mentions=allowed_mentions(payload),
                view=buttons,
            )
        except discord.Forbidden as error:
            if files and error.code == MISSING_PERMISSIONS:
                raise MediaRefused("the bot may not attach files here") from error
            raise send_failure(error) from error
        except (discord.DiscordException, aiohttp.ClientError, OSError, TimeoutError) as error:
            raise send_failure(error) from error
        return str(message.id)

    async def chart_upload(
        self, channel_id: int, payload: dict, embeds: list[discord.Embed]
    ) -> list[discord.File]:
        """The part's chart as an upload, shown in its first embed. Where the gateway's cache
        says the bot may not attach files, MediaRefused at once: a refused upload would count
        towards Cloudflare's ban on invalid requests."""
        if CHART_KEY not in payload:
            return []
        cached = self.client.get_channel(channel_id)
        me = getattr(getattr(cached, "guild", None), "me", None)
        if me is not None and not cached.permissions_for(me).attach_files:
            raise MediaRefused("the bot may not attach files here")
        png = await draw_chart(payload[CHART_KEY])
        if embeds:
            embeds[0].set_image(url=f"attachment://{CHART_FILE}")
        return [discord.File(io.BytesIO(png), filename=CHART_FILE)]


class StoredButtons(discord.ui.View):
    """A stored part's action rows, sent as they are. Not dispatchable, so discord.py keeps no
    view per sent message (a digest a week for years would pile up): presses reach
    `DigestClient.on_interaction`, which works the same after a restart."""

    def __init__(self, rows: list[dict]) -> None:
        super().__init__(timeout=None)
        self.rows = rows

    def to_components(self) -> list[dict]:
        return self.rows

    def is_dispatchable(self) -> bool:
        return False


def allowed_mentions(payload: dict) -> discord.AllowedMentions:
    """Nobody, or only the role an admin chose for spike alerts."""
    role_id = str(payload.get("mention_role_id") or "")
    if role_id.isdigit():
        return discord.AllowedMentions(
            everyone=False, users=False, replied_user=False, roles=[discord.Object(int(role_id))]
        )
    return NO_MENTIONS


def send_failure(error: BaseException) -> SendFailure:
    """discord.py's error as what it means for a delivery."""
    if isinstance(error, discord.Forbidden):
        reason = FORBIDDEN_REASONS.get(error.code, f"forbidden ({error.code}: {error.text[:100]})")
        return ChatUnavailable(reason)
    if isinstance(error, discord.NotFound):
        if error.code == UNKNOWN_CHANNEL:
            return ChatGone("unknown channel: it was deleted")
        # Any other 404 (a wrong DISCORD_API_URL, say) must never delete channels.
        return Transient(f"not found ({error.code}: {error.text[:100]})")
    if isinstance(error, discord.RateLimited):
        return RetryLater(error.retry_after)
    if isinstance(error, discord.HTTPException):
        if error.status == 429:  # discord.py gave up after five 429s in a row
            return RetryLater(_retry_after(error))
        if error.status >= 500 or error.status == 401:
            return Transient(f"Discord answered {error.status}: {error.text[:100]}")
        return Rejected(f"Discord refused the message ({error.code}): {error.text[:200]}")
    if isinstance(error, aiohttp.ConnectionTimeoutError | aiohttp.ClientConnectorError):
        return Transient(f"network: {error!r}"[:200])
    if isinstance(error, aiohttp.ServerDisconnectedError | TimeoutError):
        return OutcomeUnknown(f"no answer: {error!r}"[:200])
    if isinstance(error, aiohttp.ClientError | OSError):
        return Transient(f"network: {error!r}"[:200])
    return Transient(f"unexpected: {error!r}"[:200])


def _retry_after(error: discord.HTTPException) -> float:
    """Seconds to wait after a 429 discord.py gave up on; a 429 without headers waits 5 s."""
    headers = getattr(error.response, "headers", None) or {}
    for name in ("X-RateLimit-Reset-After", "Retry-After"):
        try:
            return float(headers.get(name, ""))
        except ValueError:
            continue
    return 5.0


# --- the client and its commands -------------------------------------------------------------


class DigestClient(discord.Client):
    """A gateway client that keeps only guilds and channels: the bot reads no messages."""

    def __init__(
        self, adapter: DiscordAdapter, *, guild_ready_timeout: float, dev_guild: int | None
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channel names and permissions; interactions need no intent
        super().__init__(
            intents=intents,
            allowed_mentions=NO_MENTIONS,
            max_messages=None,
            member_cache_flags=discord.MemberCacheFlags.none(),
            chunk_guilds_at_startup=False,
            guild_ready_timeout=guild_ready_timeout,
        )
        self.adapter = adapter
        self.tree = DigestTree(self)
        # A development server gets the commands as its own (shown at once), and none are
        # global, or that server would list each command twice.
        guild = discord.Object(dev_guild) if dev_guild is not None else None
        for spec in COMMANDS.values():
            self.tree.add_command(slash_command(spec), guild=guild)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Kicked or banned from a server, or the server was deleted (not an outage)."""
        await self.adapter.left_server(guild.id)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.adapter.back_in_server(guild.id)

    async def on_guild_available(self, guild: discord.Guild) -> None:
        """Also at start: a server that added the bot back while it was offline."""
        await self.adapter.back_in_server(guild.id)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A button pressed: vote buttons go to the core; the tree answers the rest."""
        if interaction.type is discord.InteractionType.component:
            custom_id = str((interaction.data or {}).get("custom_id", ""))
            if is_vote_data(custom_id) and await self.adapter.first_time(interaction):
                await self.adapter.vote(interaction, custom_id)


class DigestTree(app_commands.CommandTree):
    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """A slash command delivered again (the same interaction id) is not run again."""
        if interaction.type is not discord.InteractionType.application_command:
            return True
        return await adapter_of(interaction).first_time(interaction)

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        log.error("/%s failed", getattr(interaction.command, "name", "?"), exc_info=error)
        await answer_privately(interaction, OOPS)


async def answer_privately(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer: the first response, or a followup once the first went out."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)
        else:
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=NO_MENTIONS
            )
    except discord.HTTPException:
        log.warning("could not answer interaction %s", interaction.id, exc_info=True)


def adapter_of(interaction: discord.Interaction) -> DiscordAdapter:
    return interaction.client.adapter  # type: ignore[attr-defined]


def caller_of(interaction: discord.Interaction) -> Caller:
    """Who typed the command, and where: threads and forum posts are channels of their own."""
    in_dm = interaction.guild_id is None
    return Caller(
        platform="discord",
        chat_id=str(interaction.channel_id),
        chat_kind="dm" if in_dm else "group",
        chat_title=str(getattr(interaction.channel, "name", None) or ""),
        guild_id="" if in_dm else str(interaction.guild_id),
        # The user owns their DM with the bot; in a server, the member's resolved permission.
        can_manage=isinstance(interaction.channel, discord.DMChannel)
        or interaction.permissions.manage_channels,
    )


def missing_post_permissions(interaction: discord.Interaction) -> list[str]:
    """What the bot lacks to post digests where the command came from (servers only)."""
    if interaction.guild_id is None:
        return []
    have = interaction.app_permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = {
        "View Channel": have.view_channel,
        "Send Messages in Threads" if in_thread else "Send Messages": (
            have.send_messages_in_threads if in_thread else have.send_messages
        ),
        "Embed Links": have.embed_links,
    }
    return [name for name, granted in needed.items() if not granted]


# --- slash commands, made from the core's command table --------------------------------------


def slash_command(spec: Command) -> app_commands.Command:
    """`spec` as a top-level slash command for servers and the bot's DMs (not group DMs).

    A command for admins carries Discord's hint to show it only to members with Manage
    Channels; the core enforces it either way, since server admins may override the hint.
    """

    async def callback(interaction: discord.Interaction, **options: Any) -> None:
        await adapter_of(interaction).run(interaction, spec, options)

    # discord.py makes a command's options from its callback's signature.
    callback.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_ONLY)]
        + [option_parameter(argument) for argument in spec.arguments]
    )
    described = {argument.name: argument.description for argument in spec.arguments}
    offered = {
        argument.name: [app_commands.Choice(name=c.label, value=c.value) for c in argument.choices]
        for argument in spec.arguments
        if argument.choices
    }
    callback = app_commands.choices(**offered)(app_commands.describe(**described)(callback))
    command = app_commands.command(name=spec.name, description=spec.summary)(callback)
    for argument in spec.arguments:
        if argument.suggest is not None:
            command.autocomplete(argument.name)(suggestions_for(argument))
    if spec.admins_only:
        command = app_commands.default_permissions(manage_channels=True)(command)
    command = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)(command)
    return app_commands.allowed_installs(guilds=True, users=False)(command)


def option_parameter(argument: Argument) -> inspect.Parameter:
    """The callback parameter discord.py makes `argument`'s option from."""
    if argument.kind == "role":
        annotation: Any = discord.Role
    elif argument.choices:
        annotation = str
    else:
        annotation = app_commands.Range[str, 1, argument.max_length]
    default = inspect.Parameter.empty if argument.required else None
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(argument.name, keyword, annotation=annotation, default=default)


def suggestions_for(argument: Argument) -> Callable[..., Any]:
    async def suggestions(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await adapter_of(interaction).suggestions(interaction, argument, current)

    return suggestions


def option_words(
    interaction: discord.Interaction, spec: Command, options: dict[str, Any]
) -> list[str] | str:
    """The options as the words typed after the command, in the table's order (a role by its
    id), or why a role cannot be used here."""
    words: list[str] = []
    for argument in spec.arguments:
        value = options.get(argument.name)
        if value is None:
            continue
        if argument.kind == "role":  # in a DM discord.py has only its id, no Role
            if interaction.guild_id is None:
                typed = " ".join([f"/{spec.name}", *words])
                return f"Roles exist only in servers; say {typed} without a role here."
            if value.id == interaction.guild_id:
                return "Pick a role other than @everyone; nothing was changed."
            value = str(value.id)
        words.append("_".join(value.split()) if argument.one_word else value)
    return words


def choice(label: str, value: str) -> app_commands.Choice[str]:
    return app_commands.Choice(name=label[:CHOICE_TEXT_LIMIT], value=value[:CHOICE_TEXT_LIMIT])


# --- the adapter -----------------------------------------------------------------------------


class DiscordAdapter:
    """Discord as a digestbot platform: `start()` logs in, syncs commands and serves them."""

    platform = "discord"

    def __init__(
        self,
        settings: Settings,
        services: UseCases,
        *,
        reply_budget: float = 1.5,
        ready_timeout: float = 60.0,
        guild_ready_timeout: float = 2.0,
    ) -> None:
        if settings.discord_token is None:
            raise ValueError("DISCORD_TOKEN is not set")
        self.settings = settings
        self.services = services
        self.reply_budget = reply_budget
        self.ready_timeout = ready_timeout
        self.turns = ChatTurns()  # a channel's flood holds one worker thread at most
        self._client_options = {
            "guild_ready_timeout": guild_ready_timeout,
            "dev_guild": settings.discord_dev_guild,
        }
        self.client = DigestClient(self, **self._client_options)
        self.sender = DiscordSender(self.client)
        self._connection: asyncio.Task[None] | None = None

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        return render_digest(digest, title=title, public_url=self.settings.public_url)

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        """A spike alert; `mention_role_id` is the channel's `alert_role_id`, pinged alone."""
        return render_alert(alert, mention_role_id=mention_role_id)

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Log in, connect the gateway in the background, wait for READY, sync commands.

        Raises Transient while Discord cannot be reached (the caller tries again), and
        SettingsError when it refuses the token.
        """
        point_discord_py(self.settings.discord_api_url, self.settings.discord_gateway_url)
        if self.client.is_closed():  # a failed attempt before: a client is good for one
            self.client = self.sender.client = DigestClient(self, **self._client_options)
        try:
            await self.client.login(self.settings.discord_token.get_secret_value())
            await self._connect()
        except discord.LoginFailure:
            await self.stop()  # the HTTP session is open even when the token is wrong
            raise SettingsError("DISCORD_TOKEN was refused by Discord") from None
        except BaseException as error:
            await self.stop()
            failure = send_failure(error) if isinstance(error, Exception) else None
            if isinstance(failure, Transient):
                raise failure from error
            raise
        await self.sync_commands()

    async def _connect(self) -> None:
        """The gateway, in the background; returns at READY."""
        self._connection = asyncio.create_task(self.client.connect(), name="discord-gateway")
        ready = asyncio.create_task(self.client.wait_until_ready())
        done, _ = await asyncio.wait(
            {self._connection, ready},
            timeout=self.ready_timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if ready not in done:
            ready.cancel()
            failure = self._connection.exception() if self._connection in done else None
            if failure is not None:
                raise failure
            raise TimeoutError(f"Discord gateway not ready after {self.ready_timeout:.0f} s")

    async def stop(self) -> None:
        await self.client.close()
        if self._connection is not None:
            await asyncio.gather(self._connection, return_exceptions=True)
            self._connection = None

    async def sync_commands(self) -> None:
        """Upload the slash commands where their definition changed since the last sync (the
        core keeps its hash, and lets one replica do it): globally, or with DISCORD_DEV_GUILD
        to that server alone, the global ones cleared."""
        scopes: list[discord.Object | None] = [None]
        if self.settings.discord_dev_guild is not None:
            scopes.append(discord.Object(self.settings.discord_dev_guild))
        tree = self.client.tree
        for guild in scopes:
            definition = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
            scope = f"discord:guild:{guild.id}" if guild else "discord:global"
            upload = functools.partial(self._upload_commands, guild)
            try:
                outcome = await self.services.sync_commands(scope, definition, upload)
            except discord.HTTPException:
                log.exception("could not sync slash commands (%s)", scope)
                continue
            log.info("slash commands (%s): %s", scope, outcome)

    async def _upload_commands(self, guild: discord.Object | None) -> dict[str, str]:
        synced = await self.client.tree.sync(guild=guild)
        return {command.name: str(command.id) for command in synced}

    # --- presence ----------------------------------------------------------------------------

    async def left_server(self, guild_id: int) -> None:
        reason = "the bot was removed from this server"
        chat_left = self.services.chat_left
        await asyncio.to_thread(chat_left, "discord", guild_id=str(guild_id), reason=reason)

    async def back_in_server(self, guild_id: int) -> None:
        chat_returned = self.services.chat_returned
        welcomes = await asyncio.to_thread(chat_returned, "discord", guild_id=str(guild_id))
        for address, reply in welcomes:
            content, embeds = render_reply(reply)
            payload = {"content": content, "embeds": [embed.to_dict() for embed in embeds]}
            try:
                await self.sender.send(address, payload)
            except SendFailure as error:  # a courtesy: the digests come regardless
                log.warning("could not welcome channel %s: %s", address.chat_id, error)

    # --- commands ----------------------------------------------------------------------------

    async def run(
        self, interaction: discord.Interaction, spec: Command, options: dict[str, Any]
    ) -> None:
        """Run a core command for this slash command and answer it."""
        words = option_words(interaction, spec, options)
        if isinstance(words, str):
            await answer_privately(interaction, words)
            return
        caller = caller_of(interaction)
        reply = await self.handle_in_time(interaction, caller, spec.name, " ".join(words))
        if reply.digest is not None and reply.ok:
            await self.post_digest(interaction, caller, reply)
            return
        missing = missing_post_permissions(interaction) if spec.name == "follow" else []
        if reply.ok and missing:
            reply.notes.append(f"I can't post digests here yet: I need {', '.join(missing)}.")
        await self.answer(interaction, spec, reply)

    async def handle_in_time(
        self, interaction: discord.Interaction, caller: Caller, command: str, argument: str
    ) -> Reply:
        """The core's reply; the interaction is deferred when the core is slow to give it."""
        handle = self.services.commands.handle
        work = asyncio.ensure_future(self._in_turn(interaction, handle, caller, command, argument))
        try:
            return await asyncio.wait_for(asyncio.shield(work), self.reply_budget)
        except TimeoutError:
            await interaction.response.defer(ephemeral=True, thinking=True)
            return await work

    async def answer(self, interaction: discord.Interaction, spec: Command, reply: Reply) -> None:
        content, embeds = render_reply(reply)
        # What admins change is news for the channel; every other answer is for the asker.
        private = reply.private or not reply.ok or not spec.admins_only
        send = {"embeds": embeds, "allowed_mentions": NO_MENTIONS}
        if not interaction.response.is_done():
            await interaction.response.send_message(content, ephemeral=private, **send)
        elif private:
            await interaction.followup.send(content, ephemeral=True, **send)
        else:
            # The deferred answer is ephemeral; the change itself is news for the channel.
            await interaction.followup.send("Done.", ephemeral=True)
            await interaction.followup.send(content, **send)

    async def post_digest(
        self, interaction: discord.Interaction, caller: Caller, reply: Reply
    ) -> None:
        """A reply with a digest (/digest): an ephemeral "sending…", the digest posted to the
        channel, then the outcome."""
        await answer_privately(interaction, "Sending this channel's digest…")
        stored = await self.services.send_digest_now(caller, reply.digest)
        outcome = await asyncio.to_thread(self.services.manual_digest_outcome, caller)
        if outcome == "sent":
            text = f"{reply.text} Posted in {stored} message{'s' if stored != 1 else ''}."
        elif outcome.startswith("paused: "):
            text = (
                f"I could not post here: {outcome.removeprefix('paused: ')}. Digests to this "
                "channel are paused until that is fixed; any command here resumes them."
            )
        else:
            text = "Discord did not take the digest yet; I will keep trying."
        await interaction.followup.send(text, ephemeral=True, allowed_mentions=NO_MENTIONS)

    async def _in_turn(self, interaction: discord.Interaction, work: Callable, *args, **kwargs):
        """`work(*args)` in a worker thread, in the turn of the interaction's channel."""
        async with self.turns.turn(interaction.channel_id):
            return await asyncio.to_thread(work, *args, **kwargs)

    async def first_time(self, interaction: discord.Interaction) -> bool:
        """False for an interaction received before: it was handled then."""
        receive, key = self.services.inbox.receive, f"interaction:{interaction.id}"
        chat = str(interaction.channel_id or "")
        try:
            return await self._in_turn(
                interaction, receive, "discord", key, chat=chat, handled=True
            )
        except Exception:  # the store is failing: handle it anyway, unguarded
            log.warning("could not store interaction %s", interaction.id, exc_info=True)
            return True

    async def vote(self, interaction: discord.Interaction, data: str) -> None:
        """A 👍/👎 pressed: the core counts it; the toast is for the voter alone."""
        voter = Voter("discord", str(interaction.channel_id), str(interaction.user.id))
        answer = await self._in_turn(interaction, self.services.vote, voter, data)
        await answer_privately(interaction, answer.text)

    async def suggestions(
        self, interaction: discord.Interaction, argument: Argument, current: str
    ) -> list[app_commands.Choice[str]]:
        suggest = self.services.commands.suggest
        caller = caller_of(interaction)
        try:
            found = await asyncio.wait_for(
                asyncio.to_thread(suggest, caller, argument, current, CHOICES_LIMIT),
                self.reply_budget,
            )
        except TimeoutError:
            return []  # better an empty list than an autocomplete Discord gave up on
        return [choice(c.label, c.value) for c in found]


def point_discord_py(api_url: str, gateway_url: str) -> None:
    """Send discord.py's REST and gateway traffic to these URLs (they are process-wide)."""
    if api_url.rstrip("/") != DEFAULT_API_URL:
        discord.http.Route.BASE = api_url.rstrip("/")
    if gateway_url.rstrip("/") != DEFAULT_GATEWAY_URL:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url.rstrip("/"))


def build_discord(settings: Settings, services: UseCases) -> DiscordAdapter | None:
    """The Discord adapter, or None when no DISCORD_TOKEN is configured."""
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        return None
    return DiscordAdapter(settings, services)
