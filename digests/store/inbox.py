"""The inbox of updates chat platforms sent (`InboundUpdate`): received once, handled once.

`receive` is the door: an update is written before the platform is told it arrived, and one
already written (Telegram resending it, a replayed request) is not let in again. `handled`
marks it done; `waiting` gives back, in arrival order, the updates a stopped process had
received but not handled.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from digests.store.bulk import insert_new
from digests.store.models import InboundUpdate

_TABLE = InboundUpdate.__table__  # type: ignore[attr-defined]


def receive(
    session: Session,
    platform: str,
    key: str,
    *,
    chat: str = "",
    payload: dict | None = None,
    receiver: str = "",
    handled: bool = False,
    now: datetime,
) -> bool:
    """Store the update (as handled already with `handled`); False when an update with this
    key was received before."""
    row = {
        "platform": platform,
        "key": key,
        "chat": chat[:64],
        "receiver": receiver,
        "payload": payload,
        "received_at": now,
        "handled_at": now if handled else None,
    }
    written = session.execute(
        insert_new(session, _TABLE, ["platform", "key"], _TABLE.c.id).values(row)
    )
    return written.first() is not None


def handled(session: Session, platform: str, keys: Sequence[str], *, now: datetime) -> None:
    session.execute(
        update(InboundUpdate)
        .where(col(InboundUpdate.platform) == platform, col(InboundUpdate.key).in_(keys))
        .values(handled_at=now)
    )


def waiting(session: Session, platform: str, receiver: str) -> list[InboundUpdate]:
    """The updates `receiver` acknowledged and did not handle, oldest first."""
    query = (
        select(InboundUpdate)
        .where(
            InboundUpdate.platform == platform,
            InboundUpdate.receiver == receiver,
            col(InboundUpdate.handled_at).is_(None),
        )
        .order_by(col(InboundUpdate.id))
    )
    return list(session.exec(query))


def forget_handled(session: Session, *, before: datetime) -> int:
    """Delete the updates handled before `before`; returns how many."""
    gone = session.execute(delete(InboundUpdate).where(col(InboundUpdate.handled_at) < before))
    return gone.rowcount or 0
