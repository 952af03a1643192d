"""Spike alerts for followed searches, authors and categories: planned, sent and remembered
exactly as a catalog topic's, for chats with /alerts on."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import pytest

from bot.app import build_app
from bot.platforms.terminal import CHAT_ID, TerminalAdapter
from bot.runner import Runtime
from bot.settings import load_settings
from digests.store import follow_filters
from digests.usecases.commands import Caller
from digests.usecases.spike_scan import scan
from tests.fakes.clock import MONDAY_9, Clock
from tests.papers import paper_record, seed_spike

TERMINAL = Caller(platform="terminal", chat_id=CHAT_ID)
FOLLOWS = {
    'query: "world model" AND agents': 'Spike: Search: "world model" AND agents is up',
    'author: "Levine, Sergey"': "Spike: Author: Sergey Levine is up",
    "category: cs.RO": "Spike: Category: cs.RO (Robotics) is up",
}


def rising_paper(n: int, published: datetime):
    return paper_record(
        n,
        published,
        title=f"World models for household agents, study {n}",
        abstract="Agents plan with a learned world model.",
        authors=("S. Lévine", "Ada Lovelace"),
        categories=("cs.RO", "cs.LG"),
    )


@pytest.fixture
def runtime(database_url, monkeypatch):
    """The terminal following the three filters (and no catalog topic) before papers arrive,
    so that ingest tags them."""
    monkeypatch.setenv("DATABASE_URL", database_url)
    clock = Clock(MONDAY_9)
    app = build_app(load_settings(), clock=clock)
    app.usecases.sync_catalog()
    for spec in FOLLOWS:
        assert app.usecases.commands.handle(TERMINAL, "follow", spec).ok
    seed_spike(app, clock(), rising_paper)  # 70 papers in four weeks against 29 before
    stream = io.StringIO()
    runtime = Runtime(app, adapters=[TerminalAdapter(stream)])
    runtime.is_leader = True
    yield runtime, clock, stream
    app.close()


async def test_a_rising_search_author_and_category_each_alert_their_follower_once(runtime):
    runtime, clock, stream = runtime
    assert runtime.usecases.plan_alerts() == 3
    await runtime.drain()
    clock.now += timedelta(hours=1)
    assert runtime.usecases.plan_alerts() == 0  # still elevated: no second alert
    out = stream.getvalue()
    for headline in FOLLOWS.values():
        assert out.count(headline) == 1, headline
    assert out.count("70 papers in the last four weeks") == 3
    assert "World models for household agents" in out  # the papers driving the rise


async def test_a_chat_with_alerts_off_hears_of_no_rising_search(runtime):
    runtime, _, stream = runtime
    reply = runtime.usecases.commands.handle(TERMINAL, "alerts", "off")
    assert reply.text == "Spike alerts are off."
    assert runtime.usecases.plan_alerts() == 0
    await runtime.drain()
    assert stream.getvalue() == ""


def test_what_chats_follow_never_changes_whether_a_catalog_topic_alerts(runtime):
    runtime, clock, _ = runtime
    settings, day = runtime.app.settings.spike, clock().date()
    with runtime.app.session() as session:
        filters = [follow.topic() for _, follow in follow_filters.all_filters(session)]
        topics = runtime.app.catalog.topics
        alone = scan(session, topics, as_of=day, settings=settings, now=clock())
        beside = scan(session, topics, as_of=day, settings=settings, now=clock(), filters=filters)
    assert beside[: len(alone)] == alone
    assert [d.alert for d in beside[len(alone) :]] == [True, True, True]
