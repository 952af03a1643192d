"""Digests put in the store as due deliveries, for the tests and benchmarks that send them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from digests.store import channels, deliveries


def queue_digests(
    engine: Engine, chats: Iterable[int], parts: list[dict], *, now: datetime
) -> None:
    """Every Telegram chat in `chats` gets a weekly delivery of `parts`, due now."""
    with Session(engine) as session:
        for chat in chats:
            channel = channels.get_or_create_channel(
                session, platform="telegram", chat_id=str(chat), now=now
            )
            deliveries.enqueue(
                session, channel_id=channel.id, kind="weekly", period_key="w", parts=parts, now=now
            )
        session.commit()
