"""What `digestbot status` and the health endpoint report, read from the database."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlmodel import Session

from digests.delivery.due import last_occurrence
from digests.store import channels, deliveries, repo, schedules
from digests.store.lease import holder_of
from digests.usecases.retag import retag_status


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
    held: int = 0  # deliveries waiting for their paused channel to come back
    store_problem: str | None = None  # why a write was refused, when `status` tried one

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
        lines = [f"store: cannot be written: {self.store_problem}"] if self.store_problem else []
        lines += [
            f"last successful ingest: {ingest}",
            f"papers stored: {self.papers:,} ({self.tagged_papers:,} tagged)",
            waiting,
        ]
        lines += [
            f"  failed {platform} {chat} {kind} {period}: {reason or 'no reason kept'}"
            for platform, chat, kind, period, reason in self.failures
        ]
        held = f"; {self.held:,} deliveries held for them" if self.held else ""
        lines.append(f"channels: {self.channels:,} ({len(self.paused)} paused{held})")
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


def read_status(session: Session, *, now: datetime, upcoming: int = 5) -> Status:
    return Status(
        last_ingest=repo.last_ingest_success(session),
        papers=repo.paper_count(session),
        tagged_papers=repo.tagged_paper_count(session),
        queue_depth=deliveries.queue_depth(session),
        failed_deliveries=deliveries.failed_count(session),
        channels=channels.channel_count(session),
        paused=channels.paused_channels(session, limit=100),
        failures=deliveries.recent_failures(session, limit=10),
        next_due=next_due(session, now=now, limit=upcoming),
        scheduler=holder_of(session, "scheduler", now=now),
        retagging=_retagging(session),
        held=deliveries.held_count(session),
    )


def _retagging(session: Session) -> tuple[int, int] | None:
    status = retag_status(session)
    if status is None or not status.pending:
        return None
    return repo.papers_up_to(session, status.after_id), repo.paper_count(session)


def next_due(session: Session, *, now: datetime, limit: int) -> list[tuple[datetime, int]]:
    """The next weekly digest times after `now`, with how many channels each."""
    upcoming: dict[datetime, int] = {}
    for weekday, at, zone, count in schedules.weekly_schedule_counts(session):
        due = last_occurrence("weekly", weekday, at, zone, now + timedelta(days=7)).due_at
        upcoming[due] = upcoming.get(due, 0) + count
    return sorted(upcoming.items())[:limit]
