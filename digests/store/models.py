"""Every table digestbot keeps. Schema changes go through Alembic (see `migrations/`)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import JSON, Column, DateTime, Index, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel


class UTCDateTime(TypeDecorator):
    """Aware UTC datetimes on every backend (SQLite keeps no zone, so it is put back on read)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC)
            if dialect.name == "sqlite":
                value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is not None:
            value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return value


def _utc_column(**kwargs) -> Column:
    return Column(UTCDateTime(), **kwargs)


class Paper(SQLModel, table=True):
    """One row per paper, keyed on the base arXiv id; a new version updates the row."""

    __tablename__ = "paper"

    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(max_length=64, unique=True, index=True)
    version: int = 1
    title: str
    abstract: str
    authors: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    affiliations: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    categories: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    primary_category: str = Field(max_length=32, index=True)
    published: datetime = Field(sa_column=_utc_column(nullable=False))
    # The first-version date, the day momentum counts a paper on.
    published_on: date = Field(index=True)
    updated: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    abs_url: str
    pdf_url: str
    comment: str | None = None
    doi: str | None = None
    journal_ref: str | None = None
    ingested_at: datetime = Field(sa_column=_utc_column(nullable=False))
    # Search words the databases cannot compute themselves (non-ASCII title or abstract),
    # else NULL: see `digests.store.search_words`.
    search_text: str | None = None


class Topic(SQLModel, table=True):
    """A catalog topic as last synced from the catalog file(s)."""

    __tablename__ = "topic"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=128, unique=True, index=True)
    name: str = Field(max_length=256)
    description: str = ""
    parents: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Hash of the matching rules; a change means stored papers must be re-tagged.
    rules_hash: str = Field(default="", max_length=64)


class PaperTopic(SQLModel, table=True):
    """A tag: paper X is about topic Y, with a score, from a source (rules, rollup, upstream)."""

    __tablename__ = "paper_topic"
    __table_args__ = (
        # Momentum counts every topic over a date range from this index alone.
        Index("ix_paper_topic_day", "published_on", "topic_id", "paper_id"),
        # Digests pick a topic's papers tagged within a period.
        Index("ix_paper_topic_topic_tagged", "topic_id", "tagged_at"),
        # A topic's web page: its newest papers and its paper count.
        Index("ix_paper_topic_topic_day", "topic_id", "published_on", "paper_id"),
    )

    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    topic_id: int = Field(foreign_key="topic.id", primary_key=True, ondelete="CASCADE")
    source: str = Field(primary_key=True, max_length=16)  # rules | rollup | upstream
    score: float
    # Copied from the paper so that counting never needs a join.
    published_on: date
    tagged_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Channel(SQLModel, table=True):
    """A place digests go: a Telegram chat (or forum topic), a Discord channel, the terminal."""

    __tablename__ = "channel"
    __table_args__ = (
        UniqueConstraint("platform", "chat_id", "thread_id"),
        # The dispatcher finds the channels of each due schedule through this.
        Index("ix_channel_schedule", "digest_weekday", "digest_time", "timezone"),
    )

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    chat_id: str = Field(max_length=64)
    # Telegram forum topic; "" when the chat itself is meant (Discord threads are channels).
    thread_id: str = Field(default="", max_length=64)
    kind: str = Field(default="", max_length=16)  # private | group | channel | dm
    # Discord server, so that a command anywhere in it can explain a paused channel.
    guild_id: str = Field(default="", max_length=64, index=True)
    title: str = ""
    timezone: str = Field(default="UTC", max_length=64)
    digest_weekday: int = 0  # Monday
    digest_time: str = Field(default="09:00", max_length=5)
    alerts_enabled: bool = True
    alert_role_id: str = Field(default="", max_length=64)
    paused_reason: str | None = None
    paused_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    # "removed" while the bot is out of the chat or server (it resumes when the bot is back);
    # "" for a chat that refused a send (any command there resumes it).
    paused_cause: str = Field(default="", max_length=16, sa_column_kwargs={"server_default": ""})
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Follow(SQLModel, table=True):
    __tablename__ = "follow"

    channel_id: int = Field(foreign_key="channel.id", primary_key=True, ondelete="CASCADE")
    topic_id: int = Field(foreign_key="topic.id", primary_key=True, ondelete="CASCADE")
    mode: str = Field(default="weekly", max_length=16)
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class FollowFilter(SQLModel, table=True):
    """A topic that is a search, an author or an arXiv category (`digests.follows.filters`)."""

    __tablename__ = "follow_filter"

    topic_id: int = Field(foreign_key="topic.id", primary_key=True, ondelete="CASCADE")
    kind: str = Field(max_length=16)  # query | author | category
    definition: str  # canonical: equal filters, equal definitions
    shown: str  # as the channel that first followed it typed it
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Delivery(SQLModel, table=True):
    """A digest or alert for one channel and period, stored with its parts before any is sent.

    Unique per channel, kind and period, so a period is never delivered twice.
    """

    __tablename__ = "delivery"
    __table_args__ = (
        UniqueConstraint("channel_id", "kind", "period_key"),
        Index("ix_delivery_status_next", "status", "next_attempt_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    channel_id: int = Field(foreign_key="channel.id", index=True, ondelete="CASCADE")
    kind: str = Field(max_length=16)  # weekly | daily | instant | alert | manual
    period_key: str = Field(max_length=64)
    status: str = Field(default="pending", max_length=16)  # pending | sent | failed | skipped
    paper_count: int = 0
    attempts: int = 0
    last_error: str | None = None
    created_at: datetime = Field(sa_column=_utc_column(nullable=False))
    next_attempt_at: datetime = Field(sa_column=_utc_column(nullable=False))
    # Until when it is worth sending: transient failures are retried until then, not after.
    stale_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    completed_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    # Which process is sending it, until when; another replica may take over after that.
    claimed_by: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))


class DeliveryPart(SQLModel, table=True):
    """One message of a delivery, already rendered for its platform."""

    __tablename__ = "delivery_part"

    delivery_id: int = Field(foreign_key="delivery.id", primary_key=True, ondelete="CASCADE")
    seq: int = Field(primary_key=True)
    payload: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    message_id: str | None = Field(default=None, max_length=64)
    sent_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    # Set when the platform refused this part for good (e.g. a malformed message).
    error: str | None = None
    # Sends whose answer never came (sent, or not?): after two the part counts as sent.
    unknown_outcomes: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class SpikeState(SQLModel, table=True):
    """Per topic: the last spike alert and whether the topic is still elevated (hysteresis)."""

    __tablename__ = "spike_state"

    topic_id: int = Field(foreign_key="topic.id", primary_key=True, ondelete="CASCADE")
    elevated: bool = False
    alerted_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    alerted_count: int = 0
    alerted_share: float = 0.0
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Lease(SQLModel, table=True):
    """Who runs the scheduled jobs: one replica holds the lease and renews it."""

    __tablename__ = "lease"

    name: str = Field(primary_key=True, max_length=64)
    holder: str = Field(max_length=128)
    expires_at: datetime = Field(sa_column=_utc_column(nullable=False))


class IngestState(SQLModel, table=True):
    """Resumable cursors and bookkeeping, one row per key (e.g. `rss:cs.LG`, `backfill`)."""

    __tablename__ = "ingest_state"

    key: str = Field(primary_key=True, max_length=128)
    cursor: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    last_success_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
    updated_at: datetime = Field(sa_column=_utc_column(nullable=False))


class CommandSync(SQLModel, table=True):
    """The slash commands last synced to a platform scope (`discord:global`, `discord:guild:ID`):
    the hash of their definition, so an unchanged definition is not synced again."""

    __tablename__ = "command_sync"

    scope: str = Field(primary_key=True, max_length=64)
    definition_hash: str = Field(max_length=64)
    command_ids: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    synced_at: datetime = Field(sa_column=_utc_column(nullable=False))

class VoteOffer(SQLModel, table=True):
    """A paper a channel was shown with vote buttons, under one topic; `key` is what the
    buttons carry (`digests.usecases.votes.vote_key`). Votes are taken on these alone."""

    __tablename__ = "vote_offer"

    channel_id: int = Field(foreign_key="channel.id", primary_key=True, ondelete="CASCADE")
    key: str = Field(primary_key=True, max_length=16)
    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE")
    topic_id: int = Field(foreign_key="topic.id", ondelete="CASCADE")
    offered_at: datetime = Field(sa_column=_utc_column(nullable=False))


class Vote(SQLModel, table=True):
    """One reader's 👍 (+1) or 👎 (-1) on a paper under a topic in a channel. `voter` is an
    HMAC of the platform's user id (see `digests.usecases.votes.voter_hash`), never the id."""

    __tablename__ = "vote"
    __table_args__ = (Index("ix_vote_channel_topic", "channel_id", "topic_id"),)

    channel_id: int = Field(foreign_key="channel.id", primary_key=True, ondelete="CASCADE")
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    topic_id: int = Field(foreign_key="topic.id", primary_key=True, ondelete="CASCADE")
    voter: str = Field(primary_key=True, max_length=64)
    value: int
    voted_at: datetime = Field(sa_column=_utc_column(nullable=False))


class InstallSecret(SQLModel, table=True):
    """Secrets of this installation, made once on first use (e.g. the key voters are hashed
    with); kept in the database so every replica uses the same one."""

    __tablename__ = "install_secret"

    name: str = Field(primary_key=True, max_length=32)
    value: str = Field(max_length=128)


class InboundUpdate(SQLModel, table=True):
    """An update a chat platform sent (`key`: Telegram's update id or callback id, Discord's
    interaction id), stored before it is acknowledged and kept for a while after it was handled:
    an acknowledged update is handled after a restart, a resent one is known and not handled
    again. `payload` is the update as the platform sent it; `chat` orders a chat's updates."""

    __tablename__ = "inbound_update"
    __table_args__ = (
        UniqueConstraint("platform", "key", name="uq_inbound_update_key"),
        Index("ix_inbound_update_waiting", "platform", "receiver", "handled_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=16)
    key: str = Field(max_length=128)
    chat: str = Field(default="", max_length=64)
    receiver: str = Field(default="", max_length=128)  # the instance that acknowledged it
    payload: dict | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    received_at: datetime = Field(sa_column=_utc_column(nullable=False))
    handled_at: datetime | None = Field(default=None, sa_column=_utc_column(nullable=True))
