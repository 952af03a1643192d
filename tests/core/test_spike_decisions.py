"""Spike alerts decided on counts alone: a topic's share of all new papers must rise, enough and
significantly, and an alerted topic stays quiet until there is news again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from digests.signals.spikes import SpikeMemory, SpikeSettings, TopicCounts, evaluate, next_memory

NOW = datetime(2026, 9, 28, 6, tzinfo=UTC)
SETTINGS = SpikeSettings()
# 60 papers after 20, while arXiv as a whole kept its volume: the share tripled.
TRIPLED = TopicCounts("agents", "Agents", 60, 20, 10_000, 10_000)


def decide(counts: TopicCounts, memory: SpikeMemory | None = None, now: datetime = NOW):
    (decision,) = evaluate([counts], {counts.slug: memory or SpikeMemory()}, SETTINGS, now=now)
    return decision


def test_a_topic_whose_share_tripled_on_many_papers_alerts():
    decision = decide(TRIPLED)
    assert decision.alert and decision.share_ratio == pytest.approx(3.0)


def test_a_topic_that_grew_only_as_fast_as_arxiv_does_not_alert():
    grew_with_arxiv = TopicCounts("agents", "Agents", 60, 20, 30_000, 10_000)
    assert not decide(grew_with_arxiv).alert


def test_a_topic_below_the_minimum_count_never_alerts_and_costs_the_others_nothing():
    few = TopicCounts("tiny", "Tiny", SETTINGS.min_count - 1, 0, 10_000, 10_000)
    decisions = evaluate([few, TRIPLED], {}, SETTINGS, now=NOW)
    assert [d.alert for d in decisions] == [False, True]
    assert decisions[0].q_value is None  # outside the false-discovery-rate family
    assert decisions[1].q_value == decisions[1].p_value  # a family of one needs no correction


def test_an_alerted_topic_stays_quiet_the_next_day_on_the_same_numbers():
    first = decide(TRIPLED)
    remembered = next_memory(SpikeMemory(), first, NOW)
    second = decide(TRIPLED, remembered, NOW + timedelta(days=1))
    assert remembered.elevated and remembered.alerted_count == 60
    assert not second.alert and second.elevated


def test_a_topic_that_calmed_down_and_spikes_again_waits_out_the_cooldown():
    alerted_at = NOW - timedelta(days=SETTINGS.cooldown_days - 1)
    calmed = SpikeMemory(elevated=False, alerted_at=alerted_at, alerted_count=60)
    too_soon = decide(TRIPLED, calmed)
    later = decide(TRIPLED, calmed, alerted_at + timedelta(days=SETTINGS.cooldown_days))
    assert not too_soon.alert and "cooldown" in too_soon.reason
    assert later.alert
