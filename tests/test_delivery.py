"""The delivery layer: stored before sent, each part once, every failure handled as documented."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from digests.delivery.sending import (
    Address,
    ChatGone,
    ChatMoved,
    ChatUnavailable,
    MediaRefused,
    OutcomeUnknown,
    Rejected,
    RetryLater,
    Transient,
)
from digests.health import problems
from digests.store import channels, deliveries
from digests.store.models import Channel, Delivery, DeliveryPart, Follow, Topic
from digests.usecases.dispatch import Dispatcher
from tests.fakes.clock import Clock
from tests.fakes.senders import RecordingSender

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sender() -> RecordingSender:
    return RecordingSender()


@pytest.fixture
def dispatcher(engine, sender, clock) -> Dispatcher:
    return Dispatcher(
        lambda: Session(engine), {"telegram": sender}, clock=clock, sleep=clock.sleep, concurrency=4
    )


def make_channel(engine, chat_id: str = "-100") -> int:
    with Session(engine) as session:
        channel = channels.get_or_create_channel(
            session, platform="telegram", chat_id=chat_id, kind="group", now=NOW
        )
        topic = Topic(slug="rl", name="RL")
        session.add(topic)
        session.flush()
        channels.follow(session, channel, topic.id, now=NOW)
        session.commit()
        return channel.id


def enqueue(engine, channel_id: int, parts: int = 3, period: str = "2026-W40") -> int | None:
    with Session(engine) as session:
        delivery_id = deliveries.enqueue(
            session,
            channel_id=channel_id,
            kind="weekly",
            period_key=period,
            parts=[{"text": f"part {n}"} for n in range(parts)],
            now=NOW,
        )
        session.commit()
        return delivery_id


def texts(sender: RecordingSender) -> list[str]:
    return [payload["text"] for _, payload in sender.received]


def delivery_status(engine, delivery_id: int) -> str:
    with Session(engine) as session:
        return session.get(Delivery, delivery_id).status


async def test_a_period_is_stored_once_however_often_it_is_enqueued(engine):
    channel_id = make_channel(engine)
    assert enqueue(engine, channel_id) is not None
    assert enqueue(engine, channel_id) is None


async def test_a_batch_stores_the_new_periods_and_leaves_out_those_a_channel_has(
    engine, dispatcher, sender
):
    # Stored before the batch, and twice within it: each period is stored once, its parts too.
    first = make_channel(engine, "-100")
    with Session(engine) as session:
        second = channels.get_or_create_channel(
            session, platform="telegram", chat_id="-200", kind="group", now=NOW
        ).id
        session.commit()
    assert enqueue(engine, first, period="2026-W40") is not None

    def weekly(channel_id: int, period: str, text: str) -> deliveries.NewDelivery:
        return deliveries.NewDelivery(channel_id, "weekly", period, [{"text": text}])

    batch = [
        weekly(first, "2026-W40", "again"),
        weekly(first, "2026-W41", "next week"),
        weekly(second, "2026-W40", "other chat"),
        weekly(second, "2026-W40", "twice"),
        deliveries.NewDelivery(second, "weekly", "2026-W39", parts=[]),
    ]
    with Session(engine) as session:
        ids = deliveries.enqueue_many(session, batch, now=NOW)
        session.commit()
    assert [id_ is not None for id_ in ids] == [False, True, True, False, True]
    assert delivery_status(engine, ids[4]) == "skipped"  # nothing to send for that period
    await dispatcher.drain()
    sent = sorted(texts(sender))
    assert sent == ["next week", "other chat", "part 0", "part 1", "part 2"]


async def test_every_part_is_sent_once_in_order(engine, dispatcher, sender):
    delivery_id = enqueue(engine, make_channel(engine))
    report = await dispatcher.drain()
    await dispatcher.drain()
    assert texts(sender) == ["part 0", "part 1", "part 2"]
    assert (report.parts_sent, report.delivered) == (3, 1)
    assert delivery_status(engine, delivery_id) == "sent"


async def test_a_restart_resumes_at_the_first_unsent_part(engine, dispatcher, sender):
    delivery_id = enqueue(engine, make_channel(engine), parts=4)
    with Session(engine) as session:
        for seq in (0, 1):
            deliveries.mark_part_sent(session, delivery_id, seq, message_id="m", now=NOW)
        session.commit()
    await dispatcher.drain()
    assert texts(sender) == ["part 2", "part 3"]


async def test_a_worker_that_stalled_past_its_lease_leaves_the_rest_to_the_one_that_took_over(
    engine, dispatcher, sender, clock
):
    delivery_id = enqueue(engine, make_channel(engine), parts=3)
    send = sender.send

    async def stall_after_the_first_part(address: Address, payload: dict) -> str:
        message_id = await send(address, payload)
        if len(sender.received) == 1:  # stalled: the lease runs out and another worker claims it
            clock.now += timedelta(minutes=5)
            with Session(engine) as session:
                deliveries.claim_due(session, platforms=["telegram"], now=clock(), worker="other")
                session.commit()
        return message_id

    sender.send = stall_after_the_first_part
    report = await dispatcher.drain()
    assert texts(sender) == ["part 0"]
    assert (report.parts_sent, report.delivered, report.failed) == (1, 0, 0)
    assert delivery_status(engine, delivery_id) == "pending"


async def test_retry_after_is_waited_as_told_then_the_part_is_sent(
    engine, dispatcher, sender, clock
):
    enqueue(engine, make_channel(engine), parts=1)
    sender.script["-100"] = [RetryLater(7)]
    await dispatcher.drain()
    assert clock.slept == [7] and texts(sender) == ["part 0"]


async def test_a_blocked_chat_is_paused_with_its_follows_kept(engine, dispatcher, sender):
    channel_id = make_channel(engine)
    delivery_id = enqueue(engine, channel_id)
    sender.script["-100"] = [ChatUnavailable("bot was blocked by the user")]
    report = await dispatcher.drain()
    with Session(engine) as session:
        channel = session.get(Channel, channel_id)
        assert channel.paused_reason == "bot was blocked by the user"
        assert session.exec(select(Follow)).scalars().all()
    assert report.paused == 1 and delivery_status(engine, delivery_id) == "pending"


async def test_a_paused_chat_gets_its_digest_once_it_is_resumed(engine, dispatcher, sender):
    channel_id = make_channel(engine)
    enqueue(engine, channel_id)
    sender.script["-100"] = [ChatUnavailable("kicked")]
    await dispatcher.drain()
    await dispatcher.drain()
    assert texts(sender) == []
    with Session(engine) as session:
        channels.resume(session, session.get(Channel, channel_id))
        session.commit()
    await dispatcher.drain()
    assert texts(sender) == ["part 0", "part 1", "part 2"]


async def test_a_deleted_channel_is_forgotten_with_its_follows(engine, dispatcher, sender):
    channel_id = make_channel(engine)
    enqueue(engine, channel_id)
    sender.script["-100"] = [ChatGone("Unknown Channel")]
    report = await dispatcher.drain()
    with Session(engine) as session:
        assert session.get(Channel, channel_id) is None
        assert session.exec(select(Follow)).scalars().all() == []
    assert report.removed == 1


async def test_a_migrated_chat_keeps_its_digest_under_the_new_id(engine, dispatcher, sender):
    channel_id = make_channel(engine, "-100")
    enqueue(engine, channel_id)
    sender.script["-100"] = [ChatMoved("-1009999")]
    await dispatcher.drain()
    assert [chat for chat, _ in sender.received] == ["-1009999"] * 3
    with Session(engine) as session:
        assert session.get(Channel, channel_id).chat_id == "-1009999"


async def test_a_refused_part_is_recorded_and_the_rest_still_sent(engine, dispatcher, sender):
    delivery_id = enqueue(engine, make_channel(engine))
    sender.script["-100"] = [Rejected("message is too long")]
    await dispatcher.drain()
    await dispatcher.drain()
    assert texts(sender) == ["part 1", "part 2"]
    with Session(engine) as session:
        errors = session.exec(select(DeliveryPart.error).order_by(DeliveryPart.seq)).scalars()
    assert list(errors) == ["message is too long", None, None]
    assert delivery_status(engine, delivery_id) == "failed"


async def test_a_chat_refusing_images_gets_the_part_without_its_chart_and_nothing_else_lost(
    engine, dispatcher, sender
):
    channel_id = make_channel(engine)
    with Session(engine) as session:
        chart = {"panels": [{"title": "RL", "weeks": [["2026-09-21", 4]]}]}
        parts = [{"text": "heading", "chart": chart}, {"text": "papers"}]
        delivery_id = deliveries.enqueue(
            session, channel_id=channel_id, kind="weekly", period_key="w", parts=parts, now=NOW
        )
        session.commit()
    sender.script["-100"] = [MediaRefused("not enough rights to send photos to the chat")]
    report = await dispatcher.drain()
    assert [payload for _, payload in sender.received] == [{"text": "heading"}, {"text": "papers"}]
    assert report.paused == 0 and delivery_status(engine, delivery_id) == "sent"


async def test_an_image_refusal_for_a_part_without_a_chart_is_a_plain_refusal(
    engine, dispatcher, sender
):
    delivery_id = enqueue(engine, make_channel(engine), parts=2)
    sender.script["-100"] = [MediaRefused("no media here")]
    await dispatcher.drain()
    assert texts(sender) == ["part 1"]
    assert delivery_status(engine, delivery_id) == "failed"


async def test_network_errors_are_retried_with_backoff(engine, dispatcher, sender, clock):
    enqueue(engine, make_channel(engine), parts=1)
    sender.script["-100"] = [Transient("connection reset"), Transient("timeout")]
    await dispatcher.drain()
    assert texts(sender) == ["part 0"]
    assert len(clock.slept) == 2 and clock.slept[1] > clock.slept[0] * 0.6


class DownSender(RecordingSender):
    """A platform down (answering `failure`) until `clock.now` reaches `up_at`."""

    def __init__(self, clock: Clock, up_at: datetime, failure: Exception) -> None:
        super().__init__()
        self.clock, self.up_at, self.failure, self.calls = clock, up_at, failure, 0
        self.sent_at: list[datetime] = []

    async def send(self, address: Address, payload: dict) -> str:
        self.calls += 1
        if self.clock.now < self.up_at:
            raise self.failure
        self.sent_at.append(self.clock.now)
        return await super().send(address, payload)


async def run_scheduler(dispatcher: Dispatcher, clock: Clock, *, hours: float) -> None:
    """Drain every minute of the clock for `hours`."""
    end = clock.now + timedelta(hours=hours)
    while clock.now < end:
        await dispatcher.drain()
        clock.now += timedelta(minutes=1)


def down_until(engine, clock: Clock, up_at: datetime, **options) -> tuple[Dispatcher, DownSender]:
    sender = DownSender(clock, up_at, Transient("Bad Gateway"))
    dispatcher = Dispatcher(
        lambda: Session(engine),
        {"telegram": sender},
        clock=clock,
        sleep=clock.sleep,
        concurrency=1,
        **options,
    )
    return dispatcher, sender


def enqueue_weekly(engine, channel_id: int, *, stale_at: datetime) -> int:
    with Session(engine) as session:
        parts = [{"text": "part 0"}, {"text": "part 1"}]
        delivery_id = deliveries.enqueue(
            session,
            channel_id=channel_id,
            kind="weekly",
            period_key="2026-09-28",
            parts=parts,
            now=NOW,
            stale_at=stale_at,
        )
        session.commit()
    return delivery_id


def last_error(engine, delivery_id: int) -> str:
    with Session(engine) as session:
        return session.get(Delivery, delivery_id).last_error


async def test_an_outage_is_waited_out_for_as_long_as_the_digest_is_worth_sending(engine, clock):
    dispatcher, sender = down_until(engine, clock, NOW + timedelta(hours=3))
    delivery_id = enqueue_weekly(engine, make_channel(engine), stale_at=NOW + timedelta(hours=24))

    await run_scheduler(dispatcher, clock, hours=3.5)

    assert texts(sender) == ["part 0", "part 1"]
    assert delivery_status(engine, delivery_id) == "sent"
    assert sender.calls > 20  # far more tries than a fixed number of attempts allowed
    # The backoff is capped at five minutes: sending resumes soon after the outage.
    assert sender.sent_at[0] - sender.up_at <= timedelta(minutes=6)


async def test_a_delivery_still_failing_when_its_window_closes_fails_saying_why(engine, clock):
    dispatcher, sender = down_until(engine, clock, NOW + timedelta(days=30))
    delivery_id = enqueue_weekly(engine, make_channel(engine), stale_at=NOW + timedelta(hours=2))

    await run_scheduler(dispatcher, clock, hours=2.5)

    assert delivery_status(engine, delivery_id) == "failed" and texts(sender) == []
    assert last_error(engine, delivery_id) == (
        "not sent in its window (2026-09-28 11:00 UTC): Bad Gateway"
    )
    calls = sender.calls
    await run_scheduler(dispatcher, clock, hours=1)
    assert sender.calls == calls  # nothing more is tried


async def test_a_failed_delivery_requeued_by_the_operator_is_sent(engine, clock):
    dispatcher, sender = down_until(engine, clock, NOW + timedelta(hours=3))
    delivery_id = enqueue_weekly(engine, make_channel(engine), stale_at=NOW + timedelta(hours=1))
    await run_scheduler(dispatcher, clock, hours=3)
    assert delivery_status(engine, delivery_id) == "failed"

    with Session(engine) as session:
        requeued = deliveries.requeue_failed(
            session, since=NOW, now=clock.now, window=timedelta(hours=24)
        )
        session.commit()
    await run_scheduler(dispatcher, clock, hours=0.1)

    assert requeued == 1 and texts(sender) == ["part 0", "part 1"]
    assert delivery_status(engine, delivery_id) == "sent"


async def test_a_delivery_whose_window_closed_while_its_chat_was_paused_is_not_sent(
    engine, dispatcher, sender, clock
):
    channel_id = make_channel(engine)
    delivery_id = enqueue_weekly(engine, channel_id, stale_at=NOW + timedelta(hours=24))
    sender.script["-100"] = [ChatUnavailable("bot was blocked by the user")]
    await dispatcher.drain()  # pauses the chat
    clock.now += timedelta(days=3)
    with Session(engine) as session:
        channels.resume(session, session.get(Channel, channel_id))
        session.commit()

    report = await dispatcher.drain()

    assert texts(sender) == [] and report.failed == 1
    assert last_error(engine, delivery_id) == (
        "not sent in its window (2026-09-29 09:00 UTC): bot was blocked by the user"
    )


class NoAnswerSender(RecordingSender):
    """Every send goes out, but the first `silent` answers never come back."""

    def __init__(self, silent: int) -> None:
        super().__init__()
        self.silent = silent

    async def send(self, address: Address, payload: dict) -> str:
        self.sent.append((address, payload))
        if self.silent:
            self.silent -= 1
            raise OutcomeUnknown("no answer within the send timeout")
        return str(len(self.sent))


@pytest.mark.parametrize(
    ("silent", "copies", "unknown", "unconfirmed"),
    [
        (1, ["part 0", "part 0", "part 1"], [1, 0], 0),
        (2, ["part 0", "part 0", "part 1"], [2, 0], 1),
        (5, ["part 0", "part 0", "part 1", "part 1"], [2, 2], 2),
    ],
)
async def test_a_send_without_an_answer_is_sent_again_once_at_most(
    engine, clock, silent, copies, unknown, unconfirmed
):
    sender = NoAnswerSender(silent)
    dispatcher = Dispatcher(
        lambda: Session(engine), {"telegram": sender}, clock=clock, sleep=clock.sleep
    )
    delivery_id = enqueue(engine, make_channel(engine), parts=2)

    report = await dispatcher.drain()

    assert texts(sender) == copies  # one extra copy of a part at most
    assert delivery_status(engine, delivery_id) == "sent"
    assert report.unconfirmed == unconfirmed
    with Session(engine) as session:
        recorded = session.exec(select(DeliveryPart.unknown_outcomes).order_by(DeliveryPart.seq))
        assert list(recorded.scalars()) == unknown


async def test_a_platform_down_longer_than_its_retry_window_is_a_health_problem_until_it_sends(
    engine, clock
):
    dispatcher, _ = down_until(engine, clock, NOW + timedelta(hours=1))
    enqueue_weekly(engine, make_channel(engine), stale_at=NOW + timedelta(hours=24))

    await run_scheduler(dispatcher, clock, hours=0.25)
    (problem,) = problems(dispatcher.health, now=clock.now)
    assert problem.startswith("telegram unreachable for 1") and problem.endswith("Bad Gateway")
    await run_scheduler(dispatcher, clock, hours=1)
    assert problems(dispatcher.health, now=clock.now) == []
