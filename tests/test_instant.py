"""Instant follows, on SQLite and PostgreSQL: after an ingest, a chat that follows a topic
`instant` gets the papers tagged since its last batch, each once, and nothing when nothing is
new. Chats that follow the same topics since the same moment share one digest; the others get
their own."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from bot.app import App
from bot.platforms.telegram import build_telegram
from digests.store import channels
from digests.store.models import Delivery, DeliveryPart
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.app import UseCases
from digests.usecases.commands import Caller
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.papers import paper_record

NOW = datetime(2026, 9, 28, 12, 0, tzinfo=UTC)
GROUP = Caller(platform="telegram", chat_id="-100", chat_kind="group", can_manage=True)
OTHER = Caller(platform="telegram", chat_id="-200", chat_kind="group", can_manage=True)
WEEKLY = Caller(platform="telegram", chat_id="-300", chat_kind="group", can_manage=True)


@pytest.fixture
def clock() -> list[datetime]:
    return [NOW]


@pytest.fixture
def services(make_app: Callable[..., App], engine: Engine, clock: list[datetime]) -> UseCases:
    app = make_app(engine, clock=lambda: clock[0], settings={"telegram_token": "1:test"})
    app.usecases.add_platform(build_telegram(app.settings, app.usecases))  # renders only
    return app.usecases


def ingest(engine: Engine, catalog: Catalog, numbers: list[int], *, at: datetime) -> None:
    """Papers on RL for LLM Agents (titles "... study N"), listed and tagged at `at`; the
    tests plan a minute later, as the scheduler does after an ingest."""
    records = [paper_record(n, at - timedelta(hours=3)) for n in numbers]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=at)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=at)
        session.commit()


def instant_batches(engine: Engine, caller: Caller) -> list[str]:
    """The text of each instant batch stored for the chat, oldest first."""
    with Session(engine) as session:
        channel = channels.find_channel(session, caller.platform, caller.chat_id)
        rows = session.exec(
            select(Delivery.id, DeliveryPart.payload)
            .join(DeliveryPart, DeliveryPart.delivery_id == Delivery.id)
            .where(Delivery.channel_id == channel.id, Delivery.kind == "instant")
            .order_by(Delivery.id, DeliveryPart.seq)
        ).all()
    batches: dict[int, str] = {}
    for delivery_id, payload in rows:
        batches[delivery_id] = batches.get(delivery_id, "") + payload["text"]
    return list(batches.values())


def follow(services: UseCases, caller: Caller, what: str) -> None:
    assert services.commands.handle(caller, "follow", what).ok


def test_an_instant_follower_gets_each_new_paper_once(
    services: UseCases, engine: Engine, catalog: Catalog, clock: list[datetime]
) -> None:
    follow(services, GROUP, "rl for llm agents instant")
    follow(services, WEEKLY, "rl for llm agents")
    ingest(engine, catalog, [1, 2], at=NOW + timedelta(hours=1))
    clock[0] = NOW + timedelta(hours=1, minutes=1)
    assert services.plan_instant() == 1  # the weekly follower waits for its week

    clock[0] = NOW + timedelta(hours=2)
    assert services.plan_instant() == 0  # nothing new since

    ingest(engine, catalog, [3], at=NOW + timedelta(hours=3))
    clock[0] = NOW + timedelta(hours=3, minutes=1)
    assert services.plan_instant() == 1
    first, second = instant_batches(engine, GROUP)
    assert "study 1" in first and "study 2" in first and "study 3" not in first
    assert "study 3" in second and "study 1" not in second and "study 2" not in second
    assert instant_batches(engine, WEEKLY) == []


def test_instant_followers_of_other_topics_or_since_later_get_their_own_papers(
    services: UseCases, engine: Engine, catalog: Catalog, clock: list[datetime]
) -> None:
    # Four chats planned in one run: two share a digest, the third follows a
    # broader topic, and a fourth started following after the first papers came.
    follow(services, GROUP, "rl for llm agents instant")
    follow(services, OTHER, "rl for llm agents instant")
    follow(services, WEEKLY, "llm agents instant")
    ingest(engine, catalog, [1], at=NOW + timedelta(hours=1))
    late = Caller(platform="telegram", chat_id="-400", chat_kind="group", can_manage=True)
    clock[0] = NOW + timedelta(hours=2)
    follow(services, late, "rl for llm agents instant")
    ingest(engine, catalog, [2], at=NOW + timedelta(hours=3))
    clock[0] = NOW + timedelta(hours=3, minutes=1)
    assert services.plan_instant() == 4

    (group,), (other,), (broader,), (joined,) = (
        instant_batches(engine, caller) for caller in (GROUP, OTHER, WEEKLY, late)
    )
    assert group == other and "study 1" in group and "study 2" in group
    assert "LLM Agents" in broader and "RL for LLM Agents" not in broader
    assert "study 2" in joined and "study 1" not in joined
