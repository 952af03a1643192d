"""`digestbot run` wiring on the terminal platform: due digests, no doubles, catch-up."""

from __future__ import annotations

import asyncio
import io
import logging
import threading
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from bot.app import build_app
from bot.platforms.terminal import TerminalAdapter
from bot.runner import Runtime, follow_on_terminal
from bot.settings import load_settings
from digests.store.models import Delivery, Paper, PaperTopic, Topic
from digests.topics.tagger import Tagger
from digests.usecases.ingest import NOTHING_ANNOUNCED, ingest_records, sync_catalog
from digests.usecases.retag import retag_status
from tests.fakes.arxiv_docs import paper
from tests.fakes.arxiv_server import FakeArxiv
from tests.fakes.clock import MONDAY_9, Clock
from tests.papers import paper_record, seed_spike


@pytest.fixture
def runtime(database_url, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", database_url)
    clock = Clock(MONDAY_9 - timedelta(days=3))
    app = build_app(load_settings(terminal_follows="RL for LLM Agents"), clock=clock)
    app.usecases.sync_catalog()
    with app.session() as session:
        records = [paper_record(n, clock() - timedelta(days=1)) for n in range(1, 4)]
        ingest_records(session, records, tagger=app.tagger, catalog=app.catalog, now=clock())
        session.commit()
    follow_on_terminal(app)
    stream = io.StringIO()
    yield Runtime(app, adapters=[TerminalAdapter(stream)]), clock, stream
    app.close()


def another_replica(make_app, runtime: Runtime) -> Runtime:
    """A second `digestbot run` on the same database, printing nowhere."""
    settings = {"instance_name": "another-replica"}
    app = make_app(runtime.app.engine, settings=settings, clock=runtime.clock)
    return Runtime(app, adapters=[TerminalAdapter(io.StringIO())])


async def test_the_weekly_digest_is_printed_when_due_and_only_once(runtime):
    runtime, clock, stream = runtime
    await runtime.lead()
    await runtime.drain()
    assert stream.getvalue() == ""  # Friday: not due yet
    clock.now = MONDAY_9 + timedelta(minutes=1)
    await runtime.lead()
    await runtime.drain()
    await runtime.lead()
    await runtime.drain()
    out = stream.getvalue()
    assert out.count("Weekly digest") == 1
    assert "study 1" in out and "in the last four weeks" in out


async def test_the_bot_stays_responsive_while_the_leader_plans_digests(runtime, monkeypatch):
    # Planning is held until the event loop itself lets it go: run on the loop, it would wait
    # for the loop, which could not run until it returned.
    runtime, clock, stream = runtime
    clock.now = MONDAY_9 + timedelta(minutes=1)
    started, released = threading.Event(), threading.Event()
    held = []
    plan_digests = runtime.usecases.plan_digests

    def held_until_released(*args, **kwargs):
        started.set()
        held.append(released.wait(timeout=5))
        return plan_digests(*args, **kwargs)

    monkeypatch.setattr(runtime.usecases, "plan_digests", held_until_released)
    leading = asyncio.create_task(runtime.lead())
    assert await asyncio.to_thread(started.wait, 5)
    released.set()  # the loop runs while the planning waits
    await leading
    await runtime.drain()
    assert held[0] is True
    assert stream.getvalue().count("Weekly digest") == 1


async def test_a_digest_missed_during_downtime_is_sent_late_within_the_grace(runtime):
    runtime, clock, stream = runtime
    clock.now = MONDAY_9 + timedelta(hours=20)
    await runtime.lead()
    await runtime.drain()
    assert stream.getvalue().count("Weekly digest") == 1


async def test_a_digest_missed_beyond_the_grace_is_skipped_and_recorded(runtime):
    runtime, clock, stream = runtime
    clock.now = MONDAY_9 + timedelta(days=2)
    await runtime.lead()
    await runtime.drain()
    assert stream.getvalue() == ""
    with Session(runtime.app.engine) as session:
        statuses = session.exec(select(Delivery.status)).all()
    assert statuses == ["skipped"]


async def test_only_the_lease_holder_plans_digests(runtime, make_app):
    runtime, clock, stream = runtime
    other = another_replica(make_app, runtime)
    clock.now = MONDAY_9 + timedelta(minutes=1)
    await runtime.lead()
    await runtime.drain()
    await other.lead()
    await other.drain()
    assert runtime.is_leader and not other.is_leader
    assert stream.getvalue().count("Weekly digest") == 1


def send_share(runtime: Runtime) -> float:
    return runtime.metrics.send_share["terminal"]


async def test_replicas_split_each_platforms_send_limit_and_a_stopped_one_gives_it_back(
    runtime, make_app
):
    runtime, _, _ = runtime
    other = another_replica(make_app, runtime)
    await runtime.lead()
    assert send_share(runtime) == 1.0
    await other.lead()
    await runtime.lead()
    assert send_share(runtime) == send_share(other) == 0.5
    await other.stop()
    await runtime.lead()
    assert send_share(runtime) == 1.0


async def test_a_spiking_topic_alerts_its_followers_once(runtime):
    runtime, clock, stream = runtime
    clock.now = MONDAY_9
    seed_spike(runtime.app, clock.now)
    runtime.is_leader = True
    assert runtime.usecases.plan_alerts() == 1
    await runtime.drain()
    clock.now += timedelta(hours=1)
    assert runtime.usecases.plan_alerts() == 0  # still elevated: no second alert
    out = stream.getvalue()
    assert out.count("Spike: RL for LLM Agents is up") == 1
    assert "in the last four weeks" in out and "Papers driving the rise" in out


async def test_a_day_without_announcements_is_logged_at_info_as_such(
    database_url, monkeypatch, caplog
):
    async with FakeArxiv(listing=[]) as arxiv:
        monkeypatch.setenv("DATABASE_URL", database_url)
        settings = load_settings(
            arxiv_rss_url=arxiv.rss_url, arxiv_api_url=arxiv.api_url, arxiv_request_interval=0
        )
        app = build_app(settings, clock=Clock(MONDAY_9))
        runtime = Runtime(app, adapters=[TerminalAdapter(io.StringIO())])
        with caplog.at_level(logging.INFO, logger="digestbot"):
            await runtime.ingest()
        app.close()

    [record] = [r for r in caplog.records if r.name == "digestbot"]
    assert (record.levelno, record.getMessage()) == (logging.INFO, f"ingest: {NOTHING_ANNOUNCED}")


async def test_the_leader_retags_stored_papers_in_the_background_after_a_tagger_change(
    database_url, monkeypatch
):
    monkeypatch.setenv("DATABASE_URL", database_url)
    clock = Clock(MONDAY_9)
    app = build_app(load_settings(), clock=clock)
    older = Tagger(app.catalog, model=None)
    with app.session() as session:
        sync_catalog(session, catalog=app.catalog, tagger=older, now=clock())
        records = [paper_record(n, clock() - timedelta(days=1)) for n in range(1, 8)]
        ingest_records(session, records, tagger=older, catalog=app.catalog, now=clock())
        session.commit()
    assert app.usecases.sync_catalog().pending  # the app's tagger is another one
    runtime = Runtime(app, adapters=[TerminalAdapter(io.StringIO())])
    await runtime.retag()  # not the leader yet: nothing happens
    with app.session() as session:
        assert retag_status(session).after_id == 0
    await runtime.lead()
    for _ in range(10):  # bounded: seven papers take one batch
        await runtime.retag()
        with app.session() as session:
            if not retag_status(session).pending:
                break
    with app.session() as session:
        status = retag_status(session)
    assert not status.pending and status.version == app.tagger.version
    app.close()


async def test_the_running_bot_holds_the_tagger_only_while_it_ingests(database_url, monkeypatch):
    """An idle bot does not keep the learned model in memory; each ingest loads it again and
    tags exactly as a tagger held for good would."""
    title = "Reinforcement learning for LLM agents with multi-turn tool use"
    abstract = "We train language model agents with reinforcement learning on web tasks."
    listing = [paper(n, title=f"{title} {n}", abstract=abstract) for n in (1, 2)]
    async with FakeArxiv(listing=listing[:1]) as arxiv:
        monkeypatch.setenv("DATABASE_URL", database_url)
        settings = load_settings(
            arxiv_rss_url=arxiv.rss_url, arxiv_api_url=arxiv.api_url, arxiv_request_interval=0
        )
        app = build_app(settings, clock=Clock(MONDAY_9), tagger_on_demand=True)
        app.usecases.sync_catalog()  # as `digestbot run` starts
        assert not app.tagger.held  # loaded once at start for its version, then let go
        runtime = Runtime(app, adapters=[TerminalAdapter(io.StringIO())])
        await runtime.ingest()
        assert not app.tagger.held
        arxiv.listing = listing
        await runtime.ingest()
        assert not app.tagger.held
        with app.session() as session:
            stored = session.execute(select(Paper.arxiv_id, Paper.title)).all()
            pairs = session.execute(
                select(Paper.arxiv_id, Topic.slug)
                .join(PaperTopic, PaperTopic.paper_id == Paper.id)
                .join(Topic, Topic.id == PaperTopic.topic_id)
            ).all()
        app.close()

    tagged: dict[str, set[str]] = {}
    for arxiv_id, slug in pairs:
        tagged.setdefault(arxiv_id, set()).add(slug)

    held_for_good = Tagger(app.catalog)
    expected = {
        arxiv_id: {t.slug for t in held_for_good.tag(title, abstract, ["cs.LG", "cs.AI"])}
        for arxiv_id, title in stored
    }
    assert len(expected) == 2 and all("rl-for-llm-agents" in slugs for slugs in expected.values())
    assert tagged == expected
