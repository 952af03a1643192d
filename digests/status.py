"""What `digestbot status` and the health endpoint report, read from the database."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlmodel import Session

from digests.due import last_occurrence
from digests.retag import retag_status
from digests.store import deliveries
from digests.store.lease import holder_of
from digests.store.models import Channel, Delivery, Follow, IngestState, Paper, PaperTopic


@dataclass
class Status:
    last_ingest: datetime | None
    papers: int
    tagged_papers: int
    queue_depth: int
    failed_deliveries: int
    channels: int
    paused: list[tuple[str, str, str]] = field(default_factory=list)  # platform, chat, reason
    # The latest deliveries that ended failed: platform, chat, kind, period, reason.
    failures: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    next_due: list[tuple[datetime, int]] = field(default_factory=list)  # when, channels
    scheduler: str | None = None
    # While stored papers are re-tagged after a tagger change: (papers done, of how many).
    retagging: tuple[int, int] | None = None

    def to_json(self) -> dict:
        data = asdict(self)
        data["last_ingest"] = self.last_ingest.isoformat() if self.last_ingest else None
        data["next_due"] = [{"at": at.isoformat(), "channels": n} for at, n in self.next_due]
        data["paused"] = [
            dict(zip(("platform", "chat", "reason"), p, strict=True)) for p in self.paused
        ]
        fields = ("platform", "chat", "kind", "period", "reason")
        data["failures"] = [dict(zip(fields, f, strict=True)) for f in self.failures]
        return data

    def lines(self) -> list[str]:
        ingest = self.last_ingest.isoformat(timespec="minutes") if self.last_ingest else "never"
        waiting = f"deliveries waiting: {self.queue_depth:,} (failed: {self.failed_deliveries:,})"
        if self.failed_deliveries:
            waiting += "; `digestbot deliveries retry` sends the failed ones again"
        lines = [
            f"last successful ingest: {ingest}",
            f"papers stored: {self.papers:,} ({self.tagged_papers:,} tagged)",
            waiting,
        ]
        lines += [
            f"  failed {platform} {chat} {kind} {period}: {reason or 'no reason kept'}"
            for platform, chat, kind, period, reason in self.failures
        ]
        lines.append(f"channels: {self.channels:,} ({len(self.paused)} paused)")
        lines += [f"  paused {p} {chat}: {reason}" for p, chat, reason in self.paused[:10]]
        lines.append(f"scheduler: {self.scheduler or 'no replica holds the lease'}")
        if self.retagging:
            done, total = self.retagging
            lines.append(f"re-tagging after a tagger change: {done:,} of {total:,} papers")
        lines.append("next digests due:" if self.next_due else "next digests due: none")
        lines += [
            f"  {at.isoformat(timespec='minutes')}: {n:,} channel(s)" for at, n in self.next_due
        ]
        return lines


def _count(session: Session, statement) -> int:
    return session.execute(statement).scalar_one()


def read_status(session: Session, *, now: datetime, upcoming: int = 5) -> Status:
    paused = session.execute(
        select(Channel.platform, Channel.chat_id, Channel.paused_reason)
        .where(Channel.paused_reason.is_not(None))
        .limit(100)
    ).all()
    return Status(
        last_ingest=session.execute(select(func.max(IngestState.last_success_at))).scalar(),
        papers=_count(session, select(func.count()).select_from(Paper)),
        tagged_papers=_count(session, select(func.count(func.distinct(PaperTopic.paper_id)))),
        queue_depth=deliveries.queue_depth(session),
        failed_deliveries=_count(session, select(func.count()).where(Delivery.status == "failed")),
        channels=_count(session, select(func.count()).select_from(Channel)),
        paused=[tuple(row) for row in paused],
        failures=deliveries.recent_failures(session, limit=10),
        next_due=next_due(session, now=now, limit=upcoming),
        scheduler=holder_of(session, "scheduler", now=now),
        retagging=_retagging(session),
    )


def _retagging(session: Session) -> tuple[int, int] | None:
    status = retag_status(session)
    if status is None or not status.pending:
        return None
    done = session.execute(
        select(func.count()).select_from(Paper).where(Paper.id <= status.after_id)
    ).scalar_one()
    return done, _count(session, select(func.count()).select_from(Paper))


def next_due(session: Session, *, now: datetime, limit: int) -> list[tuple[datetime, int]]:
    """The next weekly digest times after `now`, with how many channels each."""
    schedules = session.execute(
        select(Channel.digest_weekday, Channel.digest_time, Channel.timezone, func.count())
        .where(Channel.paused_reason.is_(None))
        .where(Channel.id.in_(select(Follow.channel_id).where(Follow.mode == "weekly")))
        .group_by(Channel.digest_weekday, Channel.digest_time, Channel.timezone)
    ).all()
    upcoming: dict[datetime, int] = {}
    for weekday, at, zone, channels in schedules:
        due = last_occurrence("weekly", weekday, at, zone, now + timedelta(days=7)).due_at
        upcoming[due] = upcoming.get(due, 0) + channels
    return sorted(upcoming.items())[:limit]
