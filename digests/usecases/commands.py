"""Chat commands, decided here once for every platform.

An adapter turns a platform's update into a `Caller` plus a command name and argument, calls
`CommandService.handle`, and renders the neutral `Reply` in its own markup. Who may change what,
fuzzy topic matching and every limit live here, never in an adapter.

`COMMANDS`, the table at the end of this module, is the one list of commands: the core's
dispatch and permissions, the `/help` text, Telegram's command menu and Discord's slash
commands are all made from it. A new command is one entry there plus its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlencode

from sqlalchemy.exc import InternalError, OperationalError
from sqlmodel import Session

from digests.ask.answering import AnswerWriter, answer_messages, grounded
from digests.ask.questions import (
    EXAMPLE,
    AskResult,
    question_words,
    reply_text,
    split_ask,
)
from digests.delivery.schedule import (
    WEEKDAYS,
    parse_schedule,
    schedule_text,
    suggest_timezones,
)
from digests.errors import UsageError
from digests.follows.categories import suggest_categories
from digests.follows.filters import (
    LABELS,
    FilterError,
    is_filter_slug,
    is_filter_spec,
    parse_filter,
)
from digests.health import STORE_TROUBLE, HealthFacts, first_line
from digests.links.chat import parse_start_payload
from digests.links.pages import page_url
from digests.messages.digest import Digest
from digests.messages.tags import lineage
from digests.signals.trending import trending_key
from digests.store import channels, follow_filters, repo
from digests.store.models import Channel
from digests.store.unit_of_work import unit_of_work
from digests.text_hygiene import unsafe_character, without_controls
from digests.topics.catalog import AmbiguousTopic, Catalog, TopicDef, UnknownTopic
from digests.usecases.ask import ask_topic
from digests.usecases.digest_planning import followed_topics
from digests.usecases.follows import at_limit, store_filter, too_many
from digests.usecases.reports import build_digest, topic_momenta
from digests.usecases.votes import channel_feedback, forget

MAX_ARGUMENT = 200  # characters; longer arguments are refused, never cut and applied
CHOICE_LIMIT = 100  # characters of a value offered to pick (Discord's limit)
# On-demand commands that post much, once per chat per period. A repeat within it gets one
# short notice, then silence until the period ends: a flood of them costs the chat one message.
COOLDOWNS = {
    "digest": timedelta(minutes=10),
    "trending": timedelta(minutes=1),
    "ask": timedelta(minutes=1),
}
FOLLOW_MODES = ("weekly", "daily", "instant")


@dataclass(frozen=True)
class Caller:
    """Who typed a command, and where. `can_manage` is the platform's admin fact."""

    platform: str
    chat_id: str
    thread_id: str = ""
    chat_kind: str = "private"  # private | group | channel | dm
    chat_title: str = ""
    guild_id: str = ""
    can_manage: bool = False


@dataclass(frozen=True)
class Choice:
    label: str
    value: str


@dataclass
class Reply:
    """What to answer, as plain text; adapters escape it for their markup."""

    text: str
    ok: bool = True
    private: bool = False  # ephemeral where the platform can
    choices: tuple[Choice, ...] = ()  # offered as buttons, each re-running `choice_command`
    choice_command: str = ""
    digest: Digest | None = None
    notes: list[str] = field(default_factory=list)
    quiet: bool = False  # answer only where nobody else sees it (Discord), else not at all
    # Work left for after the transaction (a network call), which gives the final reply.
    finish: Callable[[], Reply] | None = None


# A handler gets the channel the command came from, already recorded (and resumed).
Handler = Callable[["CommandService", Session, Caller, Channel, str], Reply]
Suggester = Callable[["CommandService", Caller, str, int], list[Choice]]


@dataclass(frozen=True)
class Argument:
    """One value a command takes: typed after it in a message, or a slash command's option.

    A command receives its arguments as one string, in the table's order, separated by spaces.
    """

    name: str
    description: str
    required: bool = True
    max_length: int = MAX_ARGUMENT
    choices: tuple[Choice, ...] = ()  # the values it takes, offered as a list to pick from
    suggest: Suggester | None = None  # values offered while it is being typed
    one_word: bool = False  # spaces typed inside it become underscores (IANA timezone names)
    kind: str = "text"  # text | role (a server role, passed on as its id)


@dataclass(frozen=True)
class Command:
    """One chat command: what it is called, what it takes, who may run it, what it does."""

    name: str
    help: str  # "what it does: an example"; the part before the colon is its summary
    handler: Handler
    admins_only: bool = False  # in groups, channels and servers; a private chat is its owner's
    arguments: tuple[Argument, ...] = ()

    @property
    def summary(self) -> str:
        return self.help.split(":")[0]

    def allows(self, caller: Caller) -> bool:
        return not self.admins_only or caller.chat_kind == "private" or caller.can_manage


class Cooldowns:
    """When each chat last ran each command with a cooldown, and whether it was told to wait."""

    def __init__(self, periods: dict[str, timedelta]) -> None:
        self.periods = periods
        self._last: dict[tuple, datetime] = {}
        self._told: set[tuple] = set()

    def refusal(self, chat: tuple, command: str, now: datetime) -> Reply | None:
        """None when `command` may run now in `chat` (and it counts as run), else the notice,
        quiet after the first one of a period."""
        period = self.periods.get(command)
        if period is None:
            return None
        slot = (*chat, command)
        last = self._last.get(slot)
        if last is None or now - last >= period:
            self._forget_old(now)
            self._last[slot] = now
            self._told.discard(slot)
            return None
        told = slot in self._told
        self._told.add(slot)
        ago = round((now - last).total_seconds() / 60)
        wait = max(1, round((last + period - now).total_seconds() / 60))
        when = f"{ago} min ago" if ago else "just now"
        text = f"/{command} was used here {when}; it works again here in {wait} min."
        return Reply(text, ok=False, private=True, quiet=told)

    def forgive(self, chat: tuple, command: str) -> None:
        """`command` did not run in `chat` after all: it does not count."""
        self._last.pop((*chat, command), None)
        self._told.discard((*chat, command))

    def _forget_old(self, now: datetime) -> None:
        if len(self._last) > 10_000:
            longest = max(self.periods.values())
            self._last = {k: t for k, t in self._last.items() if now - t < longest}
            self._told &= set(self._last)


class CommandService:
    def __init__(
        self,
        session_factory: Callable[[], Session],
        catalog: Catalog,
        *,
        clock: Callable[[], datetime],
        per_topic_cap: int = 5,
        cooldowns: dict[str, timedelta] = COOLDOWNS,
        health: HealthFacts | None = None,
        public_url: str | None = None,
        answer_writer: AnswerWriter | None = None,
    ) -> None:
        self.health = health if health is not None else HealthFacts()
        self.session_factory = session_factory
        self.catalog = catalog
        self.clock = clock
        self.per_topic_cap = per_topic_cap
        self.cooldowns = Cooldowns(cooldowns)
        self.public_url = public_url  # where /ask links to all of a search's results
        self.answer_writer = answer_writer  # /ask's written answer; None: no network call

    def handle(self, caller: Caller, command: str, argument: str = "") -> Reply:
        if unsafe := unsafe_character(command + argument):
            return Reply(
                f"That message holds {unsafe}, which I cannot store; nothing was changed. "
                "Type it again without it.",
                ok=False,
                private=True,
            )
        command, argument = command.lower().strip(), " ".join(argument.split())
        spec = COMMANDS.get(command)
        if spec is None:
            return Reply(f"Unknown command /{command[:40]}. Try /help.", ok=False, private=True)
        if len(argument) > MAX_ARGUMENT:
            return Reply(
                f"That argument is too long (over {MAX_ARGUMENT} characters); nothing was changed.",
                ok=False,
                private=True,
            )
        if not spec.allows(caller):
            return Reply(_refusal(caller), ok=False, private=True)
        chat = (caller.platform, caller.chat_id, caller.thread_id)
        if refused := self.cooldowns.refusal(chat, command, self.clock()):
            return refused
        try:
            with unit_of_work(self.session_factory) as session:
                channel, notes = self._touch_channel(session, caller)
                reply = _answered(spec.handler, self, session, caller, channel, argument)
        except (OperationalError, InternalError) as error:  # a full disk, a read-only store
            self.health.store_failed(first_line(error))
            return Reply(f"Sorry: {STORE_TROUBLE}.", ok=False, private=True)
        self.health.store_written()
        if not reply.ok:  # a mistake costs no cooldown: the corrected command may run at once
            self.cooldowns.forgive(chat, command)
        if reply.finish is not None:
            reply = reply.finish()
        reply.notes[:0] = notes
        return reply

    def start_command(self, payload: str) -> str:
        """The command a Telegram `/start PAYLOAD` runs: follow for a follow link, else help.
        Adapters ask it to know whether the admin fact is needed."""
        return "follow" if parse_start_payload(payload) else "help"

    def start(self, caller: Caller, payload: str) -> Reply:
        """`/start` (Telegram): a follow link's payload follows its topic exactly as /follow
        does, with the same permissions; anything else gets the help, after a word on why
        nothing was followed when there was a payload."""
        wanted = parse_start_payload(payload)
        topic = None
        if wanted is not None:
            topic = next((t for t in self.catalog.topics if wanted.matches(t.slug)), None)
        if topic is not None:
            return self.handle(caller, "follow", topic.slug)
        reply = self.handle(caller, "help")
        if payload.strip():
            unknown = "That link names no topic I know, so nothing was followed."
            reply.text, reply.ok = f"{unknown}\n\n{reply.text}", False
        return reply

    def _touch_channel(self, session: Session, caller: Caller) -> tuple[Channel, list[str]]:
        """The channel, recorded; a command in a paused chat resumes it; notes on paused
        siblings."""
        channel = self._channel(session, caller)
        notes = []
        if channels.resume(session, channel):
            notes.append("Deliveries to this chat were paused and are now resumed.")
        for paused in channels.paused_in_guild(session, caller.platform, caller.guild_id):
            notes.append(
                f"Digests to #{paused.title or paused.chat_id} are paused: {paused.paused_reason}."
            )
        return channel, notes

    def _channel(self, session: Session, caller: Caller):
        return channels.get_or_create_channel(
            session,
            platform=caller.platform,
            chat_id=caller.chat_id,
            thread_id=caller.thread_id,
            kind=caller.chat_kind,
            guild_id=caller.guild_id,
            title=without_controls(caller.chat_title),
            now=self.clock(),
        )

    def resolve(self, query: str) -> TopicDef | Reply:
        """A topic, or a reply offering the closest ones; never a silent wrong guess."""
        if not query:
            return Reply(
                "Which topic? Pick one below or type its name.",
                ok=False,
                choices=self._topic_choices(self.catalog.topics[:10]),
            )
        try:
            return self.catalog.resolve(query)
        except AmbiguousTopic as exc:
            return Reply(
                f"“{query[:60]}” matches several topics; which one?",
                ok=False,
                choices=self._topic_choices(exc.suggestions),
            )
        except UnknownTopic as exc:
            text = f"I don't know the topic “{query[:60]}”."
            if exc.suggestions:
                text += " Did you mean one of these?"
            return Reply(text, ok=False, choices=self._topic_choices(exc.suggestions))

    @staticmethod
    def _topic_choices(topics) -> tuple[Choice, ...]:
        return tuple(Choice(topic.name, topic.slug) for topic in topics)

    def _topic_id(self, session: Session, topic: TopicDef) -> int:
        rows = repo.topic_rows(session)
        if topic.slug not in rows:
            repo.sync_topics(session, [topic])
            rows = repo.topic_rows(session)
        return rows[topic.slug].id

    def _follow(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        query, mode = split_mode(argument)
        if is_filter_spec(query):
            return self._follow_filter(session, channel, query, mode)
        topic = self.resolve(query)
        if isinstance(topic, Reply):
            topic.choice_command = "follow"
            return topic
        if at_limit(session, channel, topic.slug):
            return Reply(too_many(), ok=False, private=True)
        return self._start_following(
            session, channel, self._topic_id(session, topic), topic.name, mode
        )

    def _follow_filter(self, session: Session, channel: Channel, spec: str, mode: str) -> Reply:
        """`query: …`, `author: …`, `category: …`: follows of a search, an author, a category."""
        try:
            follow = parse_filter(spec)
        except FilterError as exc:
            choices = tuple(Choice(value, value) for value in exc.suggestions)
            return Reply(str(exc), ok=False, private=True, choices=choices, choice_command="follow")
        if at_limit(session, channel, follow.slug):
            return Reply(too_many(), ok=False, private=True)
        topic_id = store_filter(session, follow, now=self.clock())
        return self._start_following(session, channel, topic_id, follow.name, mode)

    def _start_following(
        self, session: Session, channel, topic_id: int, name: str, mode: str
    ) -> Reply:
        when = schedule_text(channel.digest_weekday, channel.digest_time, channel.timezone)
        cadence = {
            "weekly": f"The digest comes {when}.",
            "daily": f"New papers come daily at {channel.digest_time} ({channel.timezone}).",
            "instant": "New papers come right after each arXiv update.",
        }[mode]
        if channels.follow(session, channel, topic_id, now=self.clock(), mode=mode):
            return Reply(f"Following {name}. {cadence}")
        if channels.set_mode(session, channel, topic_id, mode):
            return Reply(f"Still following {name}, now {mode}. {cadence}")
        return Reply(f"This chat already follows {name}; nothing changed.")

    def _unfollow(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        followed = channels.followed_slugs(session, channel.id)
        if is_filter_slug(argument) or is_filter_spec(argument):
            return self._unfollow_filter(session, channel, argument, followed)
        topic = self.resolve(argument)
        if isinstance(topic, Reply):
            topic.choices = tuple(c for c in topic.choices if c.value in followed) or tuple(
                Choice(t.name, t.slug) for t in self._followed_topics(session, channel.id)
            )
            topic.choice_command = "unfollow"
            return topic
        if channels.unfollow(session, channel, self._topic_id(session, topic)):
            return Reply(f"Stopped following {topic.name}.")
        return Reply(f"This chat does not follow {topic.name}; nothing changed.")

    def _unfollow_filter(self, session: Session, channel, argument: str, followed) -> Reply:
        """By slug (what /unfollow's suggestions and buttons carry) or as typed to follow it."""
        slug = argument
        if is_filter_spec(argument):
            try:
                slug = parse_filter(argument).slug
            except FilterError as exc:
                return Reply(str(exc), ok=False, private=True)
        follow = follow_filters.by_slug(session, [slug]).get(slug)
        row = repo.topic_rows(session).get(slug)
        if follow is None or row is None or slug not in followed:
            return Reply("This chat does not follow that; nothing changed. See /following.")
        channels.unfollow(session, channel, row.id)
        follow_filters.forget_if_unfollowed(session, row.id)
        return Reply(f"Stopped following {follow.name}.")

    def _followed_topics(self, session: Session, channel_id: int) -> list[TopicDef]:
        return followed_topics(session, self.catalog, channel_id)

    def _following(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        topics = self._followed_topics(session, channel.id)
        if not topics:
            return Reply("This chat follows no topics yet. Try /follow RL for LLM Agents.")
        momenta = topic_momenta(session, topics, as_of=self.clock().date())
        lines = [f"{topic.name}: {momenta[topic.slug].line}" for topic in topics]
        when = schedule_text(channel.digest_weekday, channel.digest_time, channel.timezone)
        alerts = "on" if channel.alerts_enabled else "off"
        lines.append(f"Digest {when}; spike alerts {alerts}.")
        return Reply("\n".join(lines))

    def _topics(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        found = self.catalog.search(argument) if argument else list(self.catalog.topics)
        if not found:
            return Reply(f"No topic matches “{argument[:60]}”. Try /topics without words.")
        shown = found[:20]
        lines = [f"{topic.name} — {topic.description}" for topic in shown]
        if len(found) > len(shown):
            lines.append(f"… and {len(found) - len(shown)} more; add words to narrow it down.")
        return Reply(
            "\n".join(lines), choices=self._topic_choices(shown[:8]), choice_command="follow"
        )

    def _trending(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        momenta = topic_momenta(session, self.catalog.topics, as_of=self.clock().date())
        rising = [m for m in momenta.values() if m.rising]
        rising.sort(key=trending_key)
        if not rising:
            return Reply("No topic is rising right now.")
        return Reply("\n".join(f"{m.topic}: {m.line}" for m in rising[:10]))

    def _ask(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        named, question = split_ask(argument, self._names_topic)
        words = question_words(question)
        topic = self.resolve(named)
        if isinstance(topic, Reply):
            names = ", ".join(choice.label for choice in topic.choices[:5])
            text = topic.text.replace(" Did you mean one of these?", "")
            hint = f" Did you mean {names}?" if names else ""
            return Reply(f"{text}{hint} Ask as {EXAMPLE}", ok=False, private=True)
        result = ask_topic(session, topic, question, words)
        link = None
        if self.public_url and result.total > len(result.answers):
            link = f"{page_url(self.public_url, topic.slug)}?{urlencode({'q': question})}"
        reply = Reply(reply_text(result, link))
        if self.answer_writer is not None and result.answers:
            reply.finish = lambda: Reply(reply_text(result, link, self._written(result)))
        return reply

    def _written(self, result: AskResult) -> str | None:
        """An answer from the writer, kept when it cites only the papers found."""
        papers = [(answer.title, answer.abstract) for answer in result.answers]
        written = self.answer_writer(answer_messages(result.question, papers))
        return grounded(written, len(papers))

    def _names_topic(self, text: str) -> bool:
        try:
            self.catalog.resolve(text)
        except UnknownTopic:
            return False
        return True

    def _digest(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        digest = self.digest_for(session, channel.id, now=self.clock())
        if digest is None:
            return Reply("This chat follows no topics yet. Try /follow RL for LLM Agents.")
        return Reply(f"Your digest: {digest.paper_count} new papers.", digest=digest)

    def digest_for(self, session: Session, channel_id: int, *, now: datetime, days: int = 7):
        topics = self._followed_topics(session, channel_id)
        if not topics:
            return None
        until = now.date()
        return build_digest(
            session,
            topics,
            since=until - timedelta(days=days - 1),
            until=until,
            per_topic_cap=self.per_topic_cap,
            feedback=channel_feedback(session, channel_id),
            ancestors=lineage(self.catalog),
        )

    def _schedule(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        weekday, at, zone = parse_schedule(argument)
        channel.digest_weekday, channel.digest_time, channel.timezone = weekday, at, zone
        return Reply(f"The digest now comes {schedule_text(weekday, at, zone)}.")

    def _alerts(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        """`on`, `off`, or `on ROLE_ID` (Discord: a role to mention on spike alerts)."""
        switch, _, role = argument.lower().partition(" ")
        if switch not in ("on", "off") or (role and not (switch == "on" and role.isdigit())):
            return Reply("Say /alerts on or /alerts off.", ok=False, private=True)
        channel.alerts_enabled = switch == "on"
        if role:
            channel.alert_role_id = role
            return Reply("Spike alerts are on and will mention the chosen role.")
        return Reply(f"Spike alerts are {switch}.")

    def _forget(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        deleted = forget(session, channel.id)
        if not deleted:
            return Reply("This chat has no votes to forget; its buttons are reset all the same.")
        votes = "1 vote" if deleted == 1 else f"{deleted:,} votes"
        return Reply(
            f"Forgot this chat's {votes}: digests are no longer ranked or filtered by them, "
            "and buttons on earlier messages no longer count."
        )

    def _help(
        self, session: Session, caller: Caller, channel: Channel, argument: str
    ) -> Reply:
        lines = [
            "I bring arXiv research topics to this chat: a weekly digest of new papers "
            "and an alert when a topic takes off."
        ]
        lines += [f"/{command.name} — {command.help}" for command in COMMANDS.values()]
        if caller.chat_kind != "private":
            lines.append("Following, schedules and alerts are changed by admins.")
        return Reply("\n".join(lines))

    def complete_topics(self, query: str, limit: int = 25) -> list[Choice]:
        """Autocomplete over the catalog, most relevant first; a search for the typed words
        when no topic is what was typed, and arXiv's categories after `category:`."""
        query = query[:MAX_ARGUMENT]
        if is_filter_spec(query):
            return filter_choices(query, limit)
        topics = self.catalog.search(query) if query.strip() else list(self.catalog.topics)
        choices = list(self._topic_choices(topics[:limit]))
        if query.strip() and not self._names_a_topic(query):
            search = filter_choices(f"query: {query}", 1)
            choices = search + choices if not choices else choices[: limit - 1] + search
        return choices

    def _names_a_topic(self, query: str) -> bool:
        try:
            self.catalog.resolve(query)
        except (AmbiguousTopic, UnknownTopic):
            return False
        return True

    def complete_followed(self, caller: Caller, query: str, limit: int = 25) -> list[Choice]:
        with self.session_factory() as session:
            channel = channels.find_channel(
                session, caller.platform, caller.chat_id, caller.thread_id
            )
            topics = self._followed_topics(session, channel.id) if channel else []
        needle = query.lower().strip()[:MAX_ARGUMENT]
        choices = [Choice(t.name[:100], t.slug) for t in topics]
        return [c for c in choices if needle in c.label.lower() or needle in c.value][:limit]

    def suggest(
        self, caller: Caller, argument: Argument, typed: str, limit: int = 25
    ) -> list[Choice]:
        """What to offer while `argument` is being typed; nothing for an argument without."""
        if argument.suggest is None:
            return []
        return argument.suggest(self, caller, without_controls(typed[:MAX_ARGUMENT]), limit)


def filter_choices(spec: str, limit: int) -> list[Choice]:
    """What `/follow query: …`, `author: …` or `category: …` offers while being typed."""
    kind, _, value = spec.partition(":")
    kind, value = kind.strip().lower(), value.strip()
    if kind == "category":
        found = suggest_categories(value, limit)
        return [Choice(f"Category: {c} ({name})"[:100], f"category: {c}") for c, name in found]
    if not value or len(value) > CHOICE_LIMIT - len(kind) - 2:
        return []  # a Discord choice holds 100 characters; longer ones are typed in full
    return [Choice(f"{LABELS[kind]}: “{value}”", f"{kind}: {value}")]


def menu(*, managing: bool) -> list[Command]:
    """The commands a command menu offers: all of them to whoever may manage the chat (its
    admins, the owner of a private chat), else those anyone may run."""
    return [command for command in COMMANDS.values() if managing or not command.admins_only]


def split_mode(argument: str) -> tuple[str, str]:
    """`RL for LLM Agents daily` → ("RL for LLM Agents", "daily"); weekly when not given."""
    head, _, last = argument.rpartition(" ")
    if head and last.lower() in FOLLOW_MODES:
        return head, last.lower()
    return argument, "weekly"


def _refusal(caller: Caller) -> str:
    who = (
        "chat administrators"
        if caller.platform == "telegram"
        else "members who can manage this channel"
    )
    return f"Only {who} can change what this chat follows; nothing was changed."


# --- the command table -----------------------------------------------------------------------

# What is offered while an argument is being typed.


def _catalog(service: CommandService, caller: Caller, typed: str, limit: int) -> list[Choice]:
    return service.complete_topics(typed, limit)


def _followed(service: CommandService, caller: Caller, typed: str, limit: int) -> list[Choice]:
    return service.complete_followed(caller, typed, limit)


def _timezones(service: CommandService, caller: Caller, typed: str, limit: int) -> list[Choice]:
    return [Choice(zone, zone) for zone in suggest_timezones(typed, limit)]


def _same(values: tuple[str, ...]) -> tuple[Choice, ...]:
    return tuple(Choice(value, value) for value in values)


# In this order in /help, Telegram's menu and Discord's command list.
COMMANDS: dict[str, Command] = {
    command.name: command
    for command in (
        Command(
            "follow",
            "follow a topic, a search, an author or an arXiv category: /follow RL for LLM Agents, "
            '/follow query: "world model" AND (agent OR agents) NOT survey, '
            "/follow author: Sergey Levine, /follow category: cs.RO "
            "(add daily or instant for more often)",
            CommandService._follow,
            admins_only=True,
            arguments=(
                Argument(
                    "topic",
                    "A topic (start typing), or query: words, author: name, category: cs.RO",
                    suggest=_catalog,
                ),
                Argument(
                    "how_often",
                    "weekly digest (the default), daily, or instant after each arXiv update",
                    required=False,
                    choices=_same(FOLLOW_MODES),
                ),
            ),
        ),
        Command(
            "unfollow",
            "stop following a topic",
            CommandService._unfollow,
            admins_only=True,
            arguments=(
                Argument("topic", "One of the topics this channel follows", suggest=_followed),
            ),
        ),
        Command(
            "following", "the topics followed here, with their momentum", CommandService._following
        ),
        Command(
            "topics",
            "browse or search the topics: /topics memory",
            CommandService._topics,
            arguments=(Argument("query", "Words to search for, e.g. memory", required=False),),
        ),
        Command("trending", "the topics rising fastest now", CommandService._trending),
        Command("digest", "send this chat's digest now", CommandService._digest),
        Command(
            "ask",
            f"search a topic's papers: {EXAMPLE}",
            CommandService._ask,
            arguments=(
                # One word: the question follows it without a colon (`digests.ask.questions`).
                Argument(
                    "topic", "The topic to search (start typing)", suggest=_catalog, one_word=True
                ),
                Argument("question", "Your question, e.g. which papers use a world model?"),
            ),
        ),
        Command(
            "schedule",
            "when the weekly digest comes: /schedule monday 09:00 Europe/Berlin",
            CommandService._schedule,
            admins_only=True,
            arguments=(
                Argument(
                    "weekday",
                    "The day the digest comes",
                    choices=tuple(Choice(day.title(), day) for day in WEEKDAYS),
                ),
                Argument("time", "Local time of day, HH:MM (24 hours)", max_length=20),
                Argument(
                    "timezone",
                    "An IANA timezone such as Europe/Berlin; start typing",
                    max_length=64,
                    suggest=_timezones,
                    one_word=True,
                ),
            ),
        ),
        Command(
            "alerts",
            "spike alerts on or off: /alerts off",
            CommandService._alerts,
            admins_only=True,
            arguments=(
                Argument("state", "on or off", choices=_same(("on", "off"))),
                Argument(
                    "role", "A role to mention when a topic spikes", required=False, kind="role"
                ),
            ),
        ),
        Command(
            "forget",
            "delete every 👍/👎 vote of this chat, and what they changed in its digests",
            CommandService._forget,
            admins_only=True,
        ),
        Command("help", "what I can do", CommandService._help),
    )
}


def _answered(
    handler: Handler,
    service: CommandService,
    session: Session,
    caller: Caller,
    channel: Channel,
    argument: str,
) -> Reply:
    """The handler's reply; a `UsageError` (a schedule, a question, a filter that cannot be
    used) is answered with its message, to the caller alone, and what was done before it
    (the channel noted) is kept."""
    try:
        return handler(service, session, caller, channel, argument)
    except UsageError as error:
        return Reply(error.user_text(), ok=False, private=True)
