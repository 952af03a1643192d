"""Spike alerts: the headline, the plain-text alert, the papers it shows and its period key."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, time, timedelta

import pytest
from sqlmodel import Session

from digests.messages.alert import (
    PERIOD_KEY_LIMIT,
    SpikeAlert,
    alert_chart,
    alert_period_key,
)
from digests.messages.chart_spec import chart_panels
from digests.messages.digest import DigestEntry, TopicRef
from digests.messages.layout import headline
from digests.messages.plain_text import render_alert_text
from digests.signals.momentum import WINDOW_DAYS, compute_momentum, window_bounds
from digests.signals.spikes import SpikeSettings, TopicCounts, evaluate
from digests.store import repo
from digests.topics.catalog import TopicDef
from digests.usecases.alert_planning import build_alerts
from tests.papers import digest_paper, paper_record

AS_OF = date(2026, 9, 27)
NOW = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
NAME = "RL for LLM Agents"


def spread(count: int, first_day_ago: int) -> dict[date, int]:
    """`count` papers over 28 days, the newest `first_day_ago` days before AS_OF."""
    daily: dict[date, int] = {}
    for i in range(count):
        day = AS_OF - timedelta(days=first_day_ago + i % WINDOW_DAYS)
        daily[day] = daily.get(day, 0) + 1
    return daily


def make_alert(count, previous, total=10_000, previous_total=10_000, name=NAME, papers=()):
    daily = spread(count, 0)
    for day, n in spread(previous, WINDOW_DAYS).items():
        daily[day] = daily.get(day, 0) + n
    totals = spread(total, 0) | spread(previous_total, WINDOW_DAYS)
    momentum = compute_momentum(name, daily, totals, AS_OF)
    counts = TopicCounts("agentic-rl", name, count, previous, total, previous_total)
    decision = evaluate([counts], {}, SpikeSettings(), now=NOW)[0]
    return SpikeAlert(TopicRef("agentic-rl", name), momentum, decision, tuple(papers))


# --- the headline -----------------------------------------------------------------------------


def test_headline_reads_like_the_topic_page():
    assert headline(make_alert(70, 29)) == (
        "RL for LLM Agents is up 141% on the four weeks before — "
        "70 papers in the last four weeks, 0.7% of all new papers"
    )


def test_headline_of_a_topic_with_no_papers_before():
    assert headline(make_alert(15, 0)) == (
        "RL for LLM Agents has taken off — 15 papers in the last four weeks, "
        "none in the four weeks before, 0.2% of all new papers"
    )


def test_headline_when_only_the_share_rose():
    alert = make_alert(70, 70, total=4_000)
    assert alert.decision.alert
    assert headline(alert) == (
        "RL for LLM Agents is up ×2.5 as a share of all new papers — "
        "70 papers in the last four weeks, 1.8% of all new papers"
    )


def test_headline_of_a_tiny_share_and_a_hostile_name():
    alert = make_alert(12, 2, total=100_000, name="\x1b[31mEvil\u202e  topic\n@everyone")
    text = headline(alert)
    assert text.startswith("Evil topic @everyone is up 500% on the four weeks before")
    assert text.endswith("12 papers in the last four weeks, <0.1% of all new papers")


# --- the plain-text alert ---------------------------------------------------------------------


def test_render_alert_text_shows_evidence_histogram_and_papers():
    echo = digest_paper(
        arxiv_id="2605.12345", title="ECHO: Terminal Agents Learn World Models for Free"
    )
    hostile = digest_paper(2, title="Agents\x1b]0;pwned\x07 that \x1b[2Jlearn\u202e")
    papers = [DigestEntry(paper, (), "Ada Lovelace", paper.abstract) for paper in (echo, hostile)]
    text = render_alert_text(make_alert(70, 29, papers=papers))
    lines = text.splitlines()
    assert lines[0] == f"Spike: {headline(make_alert(70, 29))}"
    assert lines[1] == "Share of all new papers 0.29% → 0.70% (×2.4); p=2e-05, q=2e-05"
    assert lines[2].startswith("Last 12 weeks: ") and len(lines[2]) == len("Last 12 weeks: ") + 12
    assert sum(line.startswith("   Jul ") or line.startswith("   Aug ") for line in lines) >= 4
    assert "Papers driving the rise:" in lines
    assert "1. ECHO: Terminal Agents Learn World Models for Free" in lines
    assert "   https://arxiv.org/abs/2605.12345" in lines
    assert "2. Agents that learn" in lines
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert text.endswith("\n")


def test_render_alert_text_without_papers_has_no_paper_heading():
    assert "Papers driving the rise" not in render_alert_text(make_alert(70, 29))


def test_an_alert_carries_its_topics_12_week_chart():
    alert = make_alert(70, 29)
    ((title, weekly),) = chart_panels(alert_chart(alert))
    assert title == "RL for LLM Agents · papers per week"
    assert weekly == alert.momentum.weekly


# --- period keys ------------------------------------------------------------------------------


def test_alert_period_key_is_unique_per_topic_and_day_and_fits_the_column():
    assert alert_period_key("agentic-rl", AS_OF) == "spike:agentic-rl:2026-09-27"
    assert alert_period_key("agentic-rl", AS_OF) != alert_period_key("agentic-rl", NOW.date())
    assert alert_period_key("agentic-rl", AS_OF) != alert_period_key("agentic", AS_OF)
    long_a, long_b = "a" * 120 + "-one", "a" * 120 + "-two"
    key_a, key_b = alert_period_key(long_a, AS_OF), alert_period_key(long_b, AS_OF)
    assert key_a != key_b
    assert len(key_a) == len(key_b) == PERIOD_KEY_LIMIT
    assert key_a.startswith("spike:aaaa") and key_a.endswith(":2026-09-27")


# --- built from the store ---------------------------------------------------------------------

_serial = itertools.count(1)


def topic(slug: str, name: str = NAME) -> TopicDef:
    return TopicDef(slug=slug, name=name, description="")


def add_paper(session: Session, day: date, topic_id: int, score: float, title: str) -> None:
    record = paper_record(
        next(_serial),
        datetime.combine(day, time(12), tzinfo=UTC),
        title=title,
        abstract="We train language agents with reinforcement learning. It works.",
        authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
    )
    new = repo.upsert_papers(session, [record], now=NOW).new
    paper_id = next(iter(new))
    repo.write_tags(session, {paper_id: [(topic_id, score, "rules")]}, {paper_id: day}, now=NOW)


def test_build_alert_shows_the_best_recent_papers(engine):
    current_start, _, previous_start, _ = window_bounds(AS_OF)
    with Session(engine) as session:
        repo.sync_topics(session, [topic("agentic-rl"), topic("other", "Other")])
        ids = {slug: row.id for slug, row in repo.topic_rows(session).items()}
        rl = ids["agentic-rl"]
        for offset, score in enumerate([0.5, 0.9, 0.7, 0.5, 0.6, 0.9, 0.3, 0.5]):
            add_paper(
                session, current_start + timedelta(days=3 * offset), rl, score, f"New {offset}"
            )
        add_paper(session, previous_start, rl, 1.0, "Old but strong")
        add_paper(session, AS_OF + timedelta(days=1), rl, 1.0, "After as_of")
        add_paper(session, AS_OF, ids["other"], 1.0, "Another topic")
        session.commit()
        decision = evaluate(
            [TopicCounts("agentic-rl", NAME, 8, 1, 10, 2)], {}, SpikeSettings(), now=NOW
        )[0]
        (alert,) = build_alerts(session, [topic("agentic-rl")], [decision], as_of=AS_OF)

    assert (alert.topic, alert.decision) == (TopicRef("agentic-rl", NAME), decision)
    assert (alert.momentum.count, alert.momentum.previous, alert.momentum.as_of) == (8, 1, AS_OF)
    # Highest score first; equal scores newest first.
    assert [e.paper.title for e in alert.papers] == ["New 5", "New 1", "New 2", "New 4", "New 7"]
    assert alert.papers[0].authors_line == "Ada Lovelace, Alan Turing, Grace Hopper et al."
    assert alert.papers[0].paper.url.startswith("https://arxiv.org/abs/2609.")


def test_build_alerts_for_several_topics_and_refuses_unknown_ones(engine):
    with Session(engine) as session:
        repo.sync_topics(session, [topic("agentic-rl"), topic("other", "Other")])
        decisions = evaluate(
            [
                TopicCounts("agentic-rl", NAME, 0, 0, 0, 0),
                TopicCounts("other", "Other", 0, 0, 0, 0),
            ],
            {},
            SpikeSettings(),
            now=NOW,
        )
        topics = [topic("agentic-rl"), topic("other", "Other"), topic("not-stored", "Gone")]
        alerts = build_alerts(session, topics, decisions, as_of=AS_OF)
        assert [(a.topic.slug, a.papers) for a in alerts] == [("agentic-rl", ()), ("other", ())]
        with pytest.raises(ValueError, match="no topic"):
            build_alerts(session, topics[:1], decisions, as_of=AS_OF)
