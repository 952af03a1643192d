"""Sending stored deliveries through a platform `Sender`, deciding what each failure means.

Adapters translate their library's errors into the `SendFailure` tree of
`digests.delivery.sending`, which says what each failure means; this module alone acts on it:
it waits, retries, pauses, forgets or moves the channel, or records the failure.

A delivery is worth sending until its `stale_at` (a digest's grace, an alert's window): waits
and retries go on until then, whatever the number of attempts, and one that would end later
fails with the reason, for `digestbot deliveries retry` to send again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session

from digests.delivery.pacing import RequestPace
from digests.delivery.sending import (
    DEFAULT_WINDOW,
    Address,
    ChatGone,
    ChatMoved,
    ChatUnavailable,
    MediaRefused,
    OutcomeUnknown,
    Rejected,
    RetryLater,
    Sender,
    Transient,
)
from digests.health import HealthFacts
from digests.messages.chart_spec import CHART_KEY, without_chart
from digests.retry import backoff_delay
from digests.store import channels, deliveries
from digests.store import lease as leases
from digests.store.deliveries import Claimed
from digests.store.unit_of_work import unit_of_work

log = logging.getLogger(__name__)


INLINE_TRIES = 3  # transient failures retried in place before the delivery is handed back
# How long a send waits for the platform's answer. Telegram sometimes takes over 10 s to accept
# a message; giving up sooner would send it again although it went out (see OutcomeUnknown).
SEND_TIMEOUT = 30.0
MAX_BACKOFF = 300.0  # seconds: after an outage, sending resumes within about this


@dataclass
class DrainReport:
    parts_sent: int = 0
    unconfirmed: int = 0  # parts taken as sent after two sends without an answer
    delivered: int = 0
    failed: int = 0
    paused: int = 0
    removed: int = 0
    retried: int = 0


class Dispatcher:
    """Drains due deliveries with a bounded number of concurrent workers."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        senders: Mapping[str, Sender],
        *,
        clock: Callable[[], datetime],
        sleep: Callable[[float], object] = asyncio.sleep,
        worker: str = "digestbot",
        concurrency: int = 32,
        max_inline_wait: float = 120.0,
        backoff_base: float = 1.0,
        max_backoff: float = MAX_BACKOFF,
        lease: timedelta = timedelta(seconds=60),
        paces: Mapping[str, RequestPace] | None = None,
        health: HealthFacts | None = None,
    ) -> None:
        self.health = health if health is not None else HealthFacts()  # platforms up or down
        self.session_factory = session_factory
        self.senders = dict(senders)
        self.clock = clock
        self.sleep = sleep
        self.worker = worker
        self.concurrency = concurrency
        self.max_inline_wait = max_inline_wait
        self.backoff_base = backoff_base
        self.max_backoff = max_backoff
        self.lease = lease
        self.paces = dict(paces or {})  # by platform; made from the sender's rate when missing
        self.stopping = False

    def share_send_rate(self, platform: str, share: float) -> None:
        """Pace this platform's sends at `share` of its per-bot limit (see `send_rate_share`)."""
        if (pace := self._pace(platform)) is not None:
            pace.set_share(share)

    def _pace(self, platform: str) -> RequestPace | None:
        if platform not in self.paces:
            rate = getattr(self.senders.get(platform), "sends_per_second", None)
            self.paces[platform] = RequestPace(rate) if rate else None
        return self.paces[platform]

    async def drain(self) -> DrainReport:
        """Send every due delivery; returns when none is left to claim (or on stop).

        Each worker claims one delivery at a time, so a chat waiting out its own rate limit
        holds up one worker, never the others. The other workers start once the first finds
        work: an idle drain costs one query.
        """
        report = DrainReport()

        async def worker(claimed: Claimed | None) -> None:
            while claimed is not None:
                await self.deliver(claimed, report)
                claimed = self._claim()

        if (first := self._claim()) is not None:
            others = (worker(self._claim()) for _ in range(self.concurrency - 1))
            await asyncio.gather(worker(first), *others)
        return report

    def release_claims(self) -> int:
        """On start: take back what this worker had claimed before it stopped or crashed."""
        with unit_of_work(self.session_factory) as session:
            return deliveries.release_claims(session, worker=self.worker)

    def _claim(self) -> Claimed | None:
        if self.stopping:
            return None
        with unit_of_work(self.session_factory) as session:
            claimed = deliveries.claim_due(
                session,
                platforms=list(self.senders),
                now=self.clock(),
                worker=self.worker,
                limit=1,
                lease=self.lease,
            )
        return claimed[0] if claimed else None

    async def deliver(self, item: Claimed, report: DrainReport) -> None:
        address = Address(item.platform, item.chat_id, item.thread_id)
        sender = self.senders[item.platform]
        # One session for the delivery; each write in it is a transaction of its own
        # (`session.begin()`), committed at once, so other workers see a part sent right away
        # and no transaction (nor pooled connection) is held while awaiting the platform.
        with self.session_factory() as session:
            if self.clock() >= _stale_at(item):  # e.g. its chat was paused until now
                reason = item.last_error or "still waiting then"
                report.failed += self._later(session, item, 0, reason) == "failed"
                return
            with session.begin():
                parts = deliveries.unsent_parts(session, item.delivery_id)
            for seq, payload in parts:
                if self.stopping:
                    with session.begin():
                        deliveries.release(
                            session,
                            item.delivery_id,
                            retry_at=self.clock(),
                            error=None,
                            now=self.clock(),
                        )
                    return
                outcome, address = await self._send_part(
                    session, item, sender, address, seq, payload
                )
                if outcome == "lost":  # another worker sends the rest; it was logged
                    return
                if outcome not in ("sent", "refused", "unconfirmed"):
                    _count(report, outcome)
                    return
                report.parts_sent += outcome == "sent"
                report.unconfirmed += outcome == "unconfirmed"
            with session.begin():
                status = deliveries.finish(session, item.delivery_id, now=self.clock())
        report.delivered += status == "sent"
        report.failed += status == "failed"

    async def _send_part(
        self,
        session: Session,
        item: Claimed,
        sender: Sender,
        address: Address,
        seq: int,
        payload: dict,
    ) -> tuple[str, Address]:
        """Send one part, retrying in place what may be retried.

        Returns what happened (sent, refused, paused, removed, retried, failed, lost) and the
        address to use for the next part (it changes when the chat moved).
        """
        transient_failures = 0
        while True:
            # Renew the claim right before sending: a replica that lost it (it stalled past the
            # lease and another one took over) must not send the part a second time.
            with session.begin():
                renewed = deliveries.renew_claim(
                    session,
                    item.delivery_id,
                    worker=self.worker,
                    now=self.clock(),
                    lease=self.lease,
                )
            if not renewed:
                log.warning("delivery %s was taken over by another worker", item.delivery_id)
                return "lost", address
            if (pace := self._pace(item.platform)) is not None:
                await pace.wait_turn()
            try:
                message_id = await sender.send(address, payload)
            except RetryLater as exc:
                if exc.seconds > self.max_inline_wait:
                    return self._later(session, item, exc.seconds, str(exc)), address
                await self.sleep(exc.seconds)
                continue
            except Transient as exc:
                if isinstance(exc, OutcomeUnknown) and self._taken_as_sent(session, item, seq):
                    return "unconfirmed", address
                self.health.platform_down(item.platform, str(exc), now=self.clock())
                transient_failures += 1
                if transient_failures >= INLINE_TRIES:
                    delay = self._backoff(item.attempts + 1)
                    return self._later(session, item, delay, str(exc), attempt=True), address
                await self.sleep(self._backoff(transient_failures))
                continue
            except ChatMoved as exc:
                with session.begin():
                    channels.move_chat(session, address.platform, address.chat_id, exc.new_chat_id)
                address = Address(address.platform, exc.new_chat_id, address.thread_id)
                continue
            except ChatUnavailable as exc:
                with session.begin():
                    channels.pause(session, item.channel_id, str(exc), now=self.clock())
                    deliveries.hold_pending(session, [item.channel_id], str(exc))
                    deliveries.release(
                        session,
                        item.delivery_id,
                        retry_at=self.clock(),
                        error=str(exc),
                        now=self.clock(),
                    )
                return "paused", address
            except ChatGone:
                with session.begin():
                    channels.remove_channel(session, item.channel_id)
                return "removed", address
            except Rejected as exc:
                if isinstance(exc, MediaRefused) and CHART_KEY in payload:
                    log.info(
                        "delivery %s part %s goes without its chart: %s", item.delivery_id, seq, exc
                    )
                    payload = without_chart(payload)
                    continue
                log.warning("delivery %s part %s refused: %s", item.delivery_id, seq, exc)
                with session.begin():
                    deliveries.mark_part_failed(session, item.delivery_id, seq, error=str(exc))
                return "refused", address
            self.health.platform_up(item.platform)
            self._mark_sent(session, item, seq, message_id)
            return "sent", address

    def _mark_sent(self, session: Session, item: Claimed, seq: int, message_id: str) -> None:
        with session.begin():
            deliveries.mark_part_sent(
                session,
                item.delivery_id,
                seq,
                message_id=message_id,
                now=self.clock(),
                lease=self.lease,
            )

    def _taken_as_sent(self, session: Session, item: Claimed, seq: int) -> bool:
        """After a second send without an answer the part counts as sent: a third copy is
        worse than the small chance that neither arrived."""
        with session.begin():
            unanswered = deliveries.note_unknown_outcome(session, item.delivery_id, seq)
        if unanswered < 2:
            return False
        log.warning("delivery %s part %s taken as sent: no answer twice", item.delivery_id, seq)
        self._mark_sent(session, item, seq, "")
        return True

    def _later(
        self, session: Session, item: Claimed, seconds: float, error: str, attempt: bool = False
    ) -> str:
        """Hand the delivery back for `seconds`, or fail it when it would be stale by then."""
        retry_at = self.clock() + timedelta(seconds=seconds)
        give_up = retry_at >= _stale_at(item)
        with session.begin():
            deliveries.release(
                session,
                item.delivery_id,
                retry_at=retry_at,
                error=f"not sent in its window ({_stale_at(item):%Y-%m-%d %H:%M} UTC): {error}"
                if give_up
                else error,
                attempts_add=1 if attempt else 0,
                give_up=give_up,
                now=self.clock(),
            )
        return "failed" if give_up else "retried"

    def _backoff(self, failures: int) -> float:
        return backoff_delay(failures, base=self.backoff_base, cap=self.max_backoff)


def _stale_at(item: Claimed) -> datetime:
    return item.stale_at or item.created_at + DEFAULT_WINDOW


def _count(report: DrainReport, outcome: str) -> None:
    setattr(report, outcome, getattr(report, outcome) + 1)


def send_rate_share(
    session: Session, platform: str, worker: str, *, now: datetime, ttl: timedelta
) -> float:
    """This replica's share of a platform's per-bot send limit: 1/n while n replicas send.

    Each call renews this replica's presence as a sender (a lease of its own, `ttl` long) and
    counts the presences still live. A replica that dies drops out once its presence expires,
    and the others take its share back.
    """
    leases.try_acquire(session, _presence(platform, worker), worker, now=now, ttl=ttl)
    return 1.0 / max(1, leases.count_live(session, _presence(platform, ""), now=now))


def withdraw_sender(session: Session, platform: str, worker: str, *, now: datetime) -> None:
    """On a clean stop: the other replicas take this one's share back at once."""
    leases.release(session, _presence(platform, worker), worker, now=now)


def _presence(platform: str, worker: str) -> str:
    name = f"sender:{platform}:{worker}"
    if len(name) > leases.NAME_LIMIT:  # a long host name: its hash is as unique
        name = f"sender:{platform}:{hashlib.sha256(worker.encode()).hexdigest()[:24]}"
    return name
