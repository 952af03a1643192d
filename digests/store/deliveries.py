"""Deliveries: written with their parts before anything is sent, then marked part by part.

Like every storage function, these never commit: each call site's unit of work does, and a
write that must be seen by other workers at once (a claim, a part sent) is one of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, select, update
from sqlmodel import Session

from digests.store.bulk import insert_new
from digests.store.models import Channel, Delivery, DeliveryPart

_DELIVERIES = Delivery.__table__
_PARTS = DeliveryPart.__table__


@dataclass(frozen=True)
class Claimed:
    """A delivery one worker now owns, with where it goes."""

    delivery_id: int
    channel_id: int
    platform: str
    chat_id: str
    thread_id: str
    attempts: int
    created_at: datetime
    stale_at: datetime | None  # None for deliveries stored before windows were kept
    last_error: str | None


@dataclass(frozen=True)
class NewDelivery:
    """A delivery to store: a channel's digest or alert for one period, already rendered."""

    channel_id: int
    kind: str
    period_key: str
    parts: list[dict]
    paper_count: int = 0
    stale_at: datetime | None = None


def enqueue(
    session: Session,
    *,
    channel_id: int,
    kind: str,
    period_key: str,
    parts: list[dict],
    paper_count: int = 0,
    now: datetime,
    stale_at: datetime | None = None,
) -> int | None:
    """Store a delivery and its parts, worth sending until `stale_at`; None when this
    channel already has this period."""
    new = NewDelivery(channel_id, kind, period_key, parts, paper_count, stale_at)
    return enqueue_many(session, [new], now=now)[0]


def enqueue_many(
    session: Session, new: Sequence[NewDelivery], *, now: datetime
) -> list[int | None]:
    """Store deliveries and their parts, a few statements for any number: each one's id, in
    order, or None where its channel has that period already (stored before, or earlier in
    `new`). A delivery without parts is stored as skipped."""
    if not new:
        return []
    rows = [
        {
            "channel_id": item.channel_id,
            "kind": item.kind,
            "period_key": item.period_key,
            "status": "pending" if item.parts else "skipped",
            "paper_count": item.paper_count,
            "attempts": 0,
            "created_at": now,
            "next_attempt_at": now,
            "stale_at": item.stale_at,
            "completed_at": None if item.parts else now,
        }
        for item in new
    ]
    columns = _DELIVERIES.c
    new_rows = insert_new(
        session,
        _DELIVERIES,
        ["channel_id", "kind", "period_key"],
        columns.id,
        columns.channel_id,
        columns.kind,
        columns.period_key,
    )
    written = session.execute(new_rows, rows)
    ids = {(channel, kind, period): id_ for id_, channel, kind, period in written}
    found = [ids.pop((item.channel_id, item.kind, item.period_key), None) for item in new]
    parts = [
        {"delivery_id": delivery_id, "seq": seq, "payload": payload}
        for delivery_id, item in zip(found, new, strict=True)
        if delivery_id is not None
        for seq, payload in enumerate(item.parts)
    ]
    if parts:
        session.execute(insert(_PARTS), parts)
    return found


def claim_due(
    session: Session,
    *,
    platforms: list[str],
    now: datetime,
    worker: str,
    limit: int = 100,
    lease: timedelta = timedelta(seconds=60),
) -> list[Claimed]:
    """Take up to `limit` due deliveries for this worker, skipping rows another worker holds.

    On PostgreSQL rows are locked with FOR UPDATE SKIP LOCKED, so replicas never claim the same
    delivery; the lease lets another worker take over if this one dies.
    """
    statement = (
        select(
            Delivery.id,
            Delivery.channel_id,
            Delivery.attempts,
            Delivery.created_at,
            Delivery.stale_at,
            Delivery.last_error,
            Channel.platform,
            Channel.chat_id,
            Channel.thread_id,
        )
        .join(Channel, Channel.id == Delivery.channel_id)
        .where(Delivery.status == "pending", Delivery.next_attempt_at <= now)
        .where((Delivery.lease_until.is_(None)) | (Delivery.lease_until < now))
        .where(Channel.paused_reason.is_(None), Channel.platform.in_(platforms))
        .order_by(Delivery.next_attempt_at, Delivery.id)
        .limit(limit)
    )
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True, of=Delivery)
    rows = session.execute(statement).all()
    if rows:
        session.execute(
            update(Delivery)
            .where(Delivery.id.in_([row.id for row in rows]))
            .values(claimed_by=worker, lease_until=now + lease)
        )
    return [
        Claimed(
            r.id,
            r.channel_id,
            r.platform,
            r.chat_id,
            r.thread_id,
            r.attempts,
            r.created_at,
            r.stale_at,
            r.last_error,
        )
        for r in rows
    ]


def unsent_parts(session: Session, delivery_id: int) -> list[tuple[int, dict]]:
    rows = session.execute(
        select(DeliveryPart.seq, DeliveryPart.payload)
        .where(DeliveryPart.delivery_id == delivery_id)
        .where(DeliveryPart.sent_at.is_(None), DeliveryPart.error.is_(None))
        .order_by(DeliveryPart.seq)
    )
    return [(row.seq, row.payload) for row in rows]


def mark_part_sent(
    session: Session,
    delivery_id: int,
    seq: int,
    *,
    message_id: str,
    now: datetime,
    lease: timedelta = timedelta(seconds=60),
) -> None:
    """Record a sent part, and keep the delivery's lease while its worker is making progress."""
    session.execute(
        update(DeliveryPart)
        .where(DeliveryPart.delivery_id == delivery_id, DeliveryPart.seq == seq)
        .values(message_id=message_id[:64], sent_at=now)
    )
    session.execute(
        update(Delivery)
        .where(Delivery.id == delivery_id, Delivery.claimed_by.is_not(None))
        .values(lease_until=now + lease)
    )


def renew_claim(
    session: Session, delivery_id: int, *, worker: str, now: datetime, lease: timedelta
) -> bool:
    """Extend this worker's claim; False when another worker holds the delivery now."""
    renewed = session.execute(
        update(Delivery)
        .where(Delivery.id == delivery_id, Delivery.claimed_by == worker)
        .where(Delivery.status == "pending")
        .values(lease_until=now + lease)
    ).rowcount
    return renewed > 0


def release_claims(session: Session, *, worker: str) -> int:
    """On start: take back what this instance had claimed before it stopped or crashed."""
    result = session.execute(
        update(Delivery)
        .where(Delivery.claimed_by == worker, Delivery.status == "pending")
        .values(lease_until=None, claimed_by=None)
    )
    return result.rowcount


def note_unknown_outcome(session: Session, delivery_id: int, seq: int) -> int:
    """Record a send of this part whose answer never came; returns how many there were."""
    session.execute(
        update(DeliveryPart)
        .where(DeliveryPart.delivery_id == delivery_id, DeliveryPart.seq == seq)
        .values(unknown_outcomes=DeliveryPart.unknown_outcomes + 1)
    )
    count = session.execute(
        select(DeliveryPart.unknown_outcomes).where(
            DeliveryPart.delivery_id == delivery_id, DeliveryPart.seq == seq
        )
    ).scalar_one()
    return count


def mark_part_failed(session: Session, delivery_id: int, seq: int, *, error: str) -> None:
    session.execute(
        update(DeliveryPart)
        .where(DeliveryPart.delivery_id == delivery_id, DeliveryPart.seq == seq)
        .values(error=error[:500])
    )


def finish(session: Session, delivery_id: int, *, now: datetime) -> str:
    """Close a delivery whose parts are all done: `sent`, or `failed` if a part was refused
    (its reason becomes the delivery's `last_error`)."""
    refused = session.execute(
        select(DeliveryPart.seq, DeliveryPart.error)
        .where(DeliveryPart.delivery_id == delivery_id, DeliveryPart.error.is_not(None))
        .order_by(DeliveryPart.seq)
    ).first()
    values: dict = {"status": "failed" if refused else "sent", "completed_at": now}
    if refused:
        values["last_error"] = f"part {refused.seq + 1} refused: {refused.error}"[:500]
    session.execute(
        update(Delivery)
        .where(Delivery.id == delivery_id)
        .values(**values, lease_until=None, claimed_by=None)
    )
    return values["status"]


def release(
    session: Session,
    delivery_id: int,
    *,
    retry_at: datetime,
    error: str | None,
    attempts_add: int = 0,
    give_up: bool = False,
    now: datetime,
) -> None:
    """Hand a delivery back: to be retried at `retry_at`, or failed for good."""
    values: dict = {
        "next_attempt_at": retry_at,
        "lease_until": None,
        "claimed_by": None,
        "attempts": Delivery.attempts + attempts_add,
    }
    if error:
        values["last_error"] = error[:500]
    if give_up:
        values.update(status="failed", completed_at=now)
    session.execute(update(Delivery).where(Delivery.id == delivery_id).values(**values))


def requeue_failed(
    session: Session, *, since: datetime | None, now: datetime, window: timedelta
) -> int:
    """Send the deliveries that ended failed (since a time) again, each worth sending for
    `window` from now; their refused parts are tried again too. Returns how many."""
    statement = select(Delivery.id).where(Delivery.status == "failed")
    if since is not None:
        statement = statement.where(Delivery.completed_at >= since)
    ids = list(session.execute(statement).scalars())
    for chunk in (ids[start : start + 500] for start in range(0, len(ids), 500)):
        session.execute(
            update(DeliveryPart)
            .where(DeliveryPart.delivery_id.in_(chunk), DeliveryPart.error.is_not(None))
            .values(error=None)
        )
        session.execute(
            update(Delivery)
            .where(Delivery.id.in_(chunk))
            .values(
                status="pending",
                attempts=0,
                next_attempt_at=now,
                stale_at=now + window,
                completed_at=None,
            )
        )
    return len(ids)


def hold_pending(session: Session, channel_ids: list[int], reason: str) -> int:
    """Mark the channels' waiting deliveries as held (paused channels are never claimed): the
    reason is kept, and is what a delivery that goes stale meanwhile fails with."""
    if not channel_ids:
        return 0
    return session.execute(
        update(Delivery)
        .where(Delivery.channel_id.in_(channel_ids), Delivery.status == "pending")
        .values(last_error=f"held while paused: {reason}"[:500])
    ).rowcount


def held_count(session: Session) -> int:
    """Deliveries waiting for a paused channel to come back."""
    return session.execute(
        select(func.count())
        .select_from(Delivery)
        .join(Channel, Channel.id == Delivery.channel_id)
        .where(Delivery.status == "pending", Channel.paused_reason.is_not(None))
    ).scalar_one()


def recent_failures(session: Session, *, limit: int) -> list[tuple]:
    """The latest deliveries that ended failed: (platform, chat, kind, period, reason)."""
    return [
        tuple(row)
        for row in session.execute(
            select(
                Channel.platform,
                Channel.chat_id,
                Delivery.kind,
                Delivery.period_key,
                Delivery.last_error,
            )
            .join(Channel, Channel.id == Delivery.channel_id)
            .where(Delivery.status == "failed")
            .order_by(Delivery.completed_at.desc(), Delivery.id.desc())
            .limit(limit)
        )
    ]


def failed_count(session: Session) -> int:
    return session.execute(select(func.count()).where(Delivery.status == "failed")).scalar_one()


def last_created(session: Session, *, kind: str) -> dict[int, datetime]:
    """When each channel's latest delivery of `kind` was stored."""
    return dict(
        session.execute(
            select(Delivery.channel_id, func.max(Delivery.created_at))
            .where(Delivery.kind == kind)
            .group_by(Delivery.channel_id)
        ).all()
    )


def latest_status(session: Session, channel_id: int, *, kind: str) -> str | None:
    """The status of the channel's latest delivery of `kind`; None when it has none."""
    return session.execute(
        select(Delivery.status)
        .where(Delivery.channel_id == channel_id, Delivery.kind == kind)
        .order_by(Delivery.id.desc())
        .limit(1)
    ).scalar_one_or_none()


def queue_depth(session: Session) -> int:
    return session.execute(
        select(func.count()).select_from(Delivery).where(Delivery.status == "pending")
    ).scalar_one()


def forget_finished(session: Session, *, before: datetime) -> int:
    """Delete finished deliveries created before a time; the latest period per channel and
    kind is kept, since due-ness is derived from it."""
    latest = (
        select(func.max(Delivery.id)).group_by(Delivery.channel_id, Delivery.kind).scalar_subquery()
    )
    old = select(Delivery.id).where(
        Delivery.status != "pending", Delivery.created_at < before, Delivery.id.not_in(latest)
    )
    ids = list(session.execute(old).scalars())
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        session.execute(delete(DeliveryPart).where(DeliveryPart.delivery_id.in_(chunk)))
        session.execute(delete(Delivery).where(Delivery.id.in_(chunk)))
    return len(ids)
