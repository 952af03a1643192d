"""The delivery layer: stored before sent, each part once, every failure handled as documented."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from digests.delivery import (
    Address,
    ChatGone,
    ChatMoved,
    ChatUnavailable,
    Dispatcher,
    MediaRefused,
    Rejected,
    RetryLater,
    Transient,
)
from digests.store import channels, deliveries
from digests.store.models import Channel, Delivery, DeliveryPart, Follow, Topic

NOW = datetime(2026, 9, 28, 9, 0, tzinfo=UTC)


class RecordingSender:
    """A platform that records what it received and fails as scripted, per chat."""

    platform = "telegram"

    def __init__(self) -> None:
        self.received: list[tuple[str, dict]] = []
        self.script: dict[str, list[Exception]] = {}

    async def send(self, address: Address, payload: dict) -> str:
        failures = self.script.get(address.chat_id)
        if failures:
            raise failures.pop(0)
        self.received.append((address.chat_id, payload))
        return str(len(self.received))


class Clock:
    def __init__(self) -> None:
        self.now = NOW
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)


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
    await dispatcher.drain()
    assert texts(sender) == ["part 2", "part 3"]


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


async def test_a_chat_that_never_answers_is_given_up_after_bounded_attempts(engine, sender, clock):
    dispatcher = Dispatcher(
        lambda: Session(engine),
        {"telegram": sender},
        clock=clock,
        sleep=clock.sleep,
        max_attempts=3,
    )
    delivery_id = enqueue(engine, make_channel(engine), parts=1)
    sender.script["-100"] = [Transient("down")] * 100
    for _ in range(10):
        clock.now += timedelta(hours=1)
        await dispatcher.drain()
    assert delivery_status(engine, delivery_id) == "failed"
    assert len(sender.script["-100"]) == 100 - 9  # three tries in each of three attempts
