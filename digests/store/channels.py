"""Channels and what they follow."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlmodel import Session

from digests.store.models import Channel, Delivery, Follow, Topic


def find_channel(
    session: Session, platform: str, chat_id: str, thread_id: str = ""
) -> Channel | None:
    return session.exec(
        select(Channel).where(
            Channel.platform == platform, Channel.chat_id == chat_id, Channel.thread_id == thread_id
        )
    ).scalar_one_or_none()


def get_or_create_channel(
    session: Session,
    *,
    platform: str,
    chat_id: str,
    thread_id: str = "",
    kind: str = "",
    guild_id: str = "",
    title: str = "",
    now: datetime,
) -> Channel:
    channel = find_channel(session, platform, chat_id, thread_id)
    if channel is None:
        channel = Channel(platform=platform, chat_id=chat_id, thread_id=thread_id, created_at=now)
        session.add(channel)
    channel.kind = kind or channel.kind
    channel.guild_id = guild_id or channel.guild_id
    channel.title = title[:200] or channel.title
    session.flush()
    return channel


def follow(
    session: Session, channel: Channel, topic_id: int, *, now: datetime, mode: str = "weekly"
) -> bool:
    """Follow a topic; False when the channel already follows it."""
    if session.get(Follow, (channel.id, topic_id)) is not None:
        return False
    session.add(Follow(channel_id=channel.id, topic_id=topic_id, created_at=now, mode=mode))
    session.flush()
    return True


def set_mode(session: Session, channel: Channel, topic_id: int, mode: str) -> bool:
    """Change how often a followed topic is delivered; False when it already was so."""
    result = session.execute(
        update(Follow)
        .where(Follow.channel_id == channel.id, Follow.topic_id == topic_id, Follow.mode != mode)
        .values(mode=mode)
    )
    return result.rowcount > 0


def set_follows(session: Session, channel: Channel, topic_ids: list[int], *, now: datetime) -> None:
    """Make the channel follow exactly these topics (for configured channels like the terminal)."""
    session.execute(
        delete(Follow).where(Follow.channel_id == channel.id, Follow.topic_id.not_in(topic_ids))
    )
    for topic_id in topic_ids:
        follow(session, channel, topic_id, now=now)


def unfollow(session: Session, channel: Channel, topic_id: int) -> bool:
    """Stop following; False when the channel did not follow the topic."""
    result = session.execute(
        delete(Follow).where(Follow.channel_id == channel.id, Follow.topic_id == topic_id)
    )
    return result.rowcount > 0


def followed_slugs(session: Session, channel_id: int, *, mode: str | None = None) -> list[str]:
    """Slugs of the topics a channel follows (as `mode`, when given), in the order it followed
    them."""
    return followed_slugs_of(session, [channel_id], mode=mode).get(channel_id, [])


def followed_slugs_of(
    session: Session, channel_ids: Sequence[int], *, mode: str | None = None
) -> dict[int, list[str]]:
    """`followed_slugs` of each of these channels that follows anything, in one query."""
    statement = (
        select(Follow.channel_id, Topic.slug)
        .join(Follow, Follow.topic_id == Topic.id)
        .where(Follow.channel_id.in_(channel_ids))
        .order_by(Follow.channel_id, Follow.created_at, Topic.slug)
    )
    if mode is not None:
        statement = statement.where(Follow.mode == mode)
    found: dict[int, list[str]] = {}
    for channel_id, slug in session.execute(statement):
        found.setdefault(channel_id, []).append(slug)
    return found


def platforms_of(session: Session, channel_ids: Sequence[int]) -> dict[int, str]:
    return dict(
        session.execute(
            select(Channel.id, Channel.platform).where(Channel.id.in_(channel_ids))
        ).all()
    )


def live_followers(session: Session, mode: str, platforms: Sequence[str]) -> list[tuple]:
    """(channel id, platform, first follow) of the live channels following a topic as `mode`."""
    return session.execute(
        select(Channel.id, Channel.platform, func.min(Follow.created_at))
        .join(Follow, Follow.channel_id == Channel.id)
        .where(Follow.mode == mode, Channel.paused_reason.is_(None))
        .where(Channel.platform.in_(platforms))
        .group_by(Channel.id, Channel.platform)
    ).all()


def alert_subscribers(session: Session, slug: str, platforms: Sequence[str]) -> list[tuple]:
    """(channel id, platform, role to mention) of the live channels following a topic with
    spike alerts on."""
    return list(
        session.execute(
            select(Channel.id, Channel.platform, Channel.alert_role_id)
            .join(Follow, Follow.channel_id == Channel.id)
            .join(Topic, Topic.id == Follow.topic_id)
            .where(Topic.slug == slug, Channel.alerts_enabled, Channel.paused_reason.is_(None))
            .where(Channel.platform.in_(platforms))
        ).all()
    )


REMOVED = "removed"  # `Channel.paused_cause` while the bot is out of the chat or server


def pause(
    session: Session, channel_id: int, reason: str, *, now: datetime, cause: str = ""
) -> None:
    session.execute(
        update(Channel)
        .where(Channel.id == channel_id)
        .values(paused_reason=reason[:300], paused_at=now, paused_cause=cause)
    )


def resume(session: Session, channel: Channel) -> bool:
    """Un-pause a channel; True when it was paused."""
    if channel.paused_reason is None:
        return False
    channel.paused_reason, channel.paused_at, channel.paused_cause = None, None, ""
    session.flush()
    return True


def channels_in(
    session: Session,
    platform: str,
    *,
    chat_id: str = "",
    guild_id: str = "",
    paused_cause: str | None = None,
) -> list[Channel]:
    """The channels of a chat (each forum topic of it) or of a server, optionally only those
    paused for `paused_cause`."""
    statement = select(Channel).where(Channel.platform == platform)
    if guild_id:
        statement = statement.where(Channel.guild_id == guild_id)
    else:
        statement = statement.where(Channel.chat_id == chat_id)
    if paused_cause is not None:
        statement = statement.where(
            Channel.paused_reason.is_not(None), Channel.paused_cause == paused_cause
        )
    return list(session.exec(statement.order_by(Channel.id)).scalars())


def paused_channels(session: Session, *, limit: int) -> list[tuple[str, str, str]]:
    """(platform, chat, reason) of paused channels, up to `limit`."""
    rows = session.execute(
        select(Channel.platform, Channel.chat_id, Channel.paused_reason)
        .where(Channel.paused_reason.is_not(None))
        .limit(limit)
    ).all()
    return [tuple(row) for row in rows]


def channel_count(session: Session) -> int:
    return session.execute(select(func.count()).select_from(Channel)).scalar_one()


def paused_in_guild(session: Session, platform: str, guild_id: str) -> list[Channel]:
    if not guild_id:
        return []
    return list(
        session.exec(
            select(Channel).where(
                Channel.platform == platform,
                Channel.guild_id == guild_id,
                Channel.paused_reason.is_not(None),
            )
        ).scalars()
    )


def remove_channel(session: Session, channel_id: int) -> None:
    """Forget a channel that no longer exists, with its follows and deliveries."""
    session.execute(delete(Follow).where(Follow.channel_id == channel_id))
    session.execute(delete(Delivery).where(Delivery.channel_id == channel_id))
    session.execute(delete(Channel).where(Channel.id == channel_id))


def move_chat(session: Session, platform: str, old_chat_id: str, new_chat_id: str) -> None:
    """A chat changed its id (a Telegram group became a supergroup): keep everything."""
    taken = session.exec(
        select(Channel.id).where(Channel.platform == platform, Channel.chat_id == new_chat_id)
    ).first()
    if taken is not None:
        return
    session.execute(
        update(Channel)
        .where(Channel.platform == platform, Channel.chat_id == old_chat_id)
        .values(chat_id=new_chat_id)
    )
