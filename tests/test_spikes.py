"""Spike decisions: the test, the FDR correction, hysteresis and cooldown, and their storage."""

from __future__ import annotations

import itertools
import json
import math
from datetime import UTC, date, datetime, time, timedelta

import pytest
from sqlalchemy import select
from sqlmodel import Session

from digests.signals.momentum import window_bounds
from digests.signals.spikes import (
    SpikeMemory,
    SpikeSettings,
    TopicCounts,
    bh_adjust,
    evaluate,
    next_memory,
)
from digests.store import repo
from digests.store.models import SpikeState, Topic
from digests.topics.catalog import TopicDef
from digests.usecases.spike_scan import load_memory, record, scan, topic_counts
from tests.papers import paper_record

VOLUME = 10_000  # all new papers per 28 days, unless a test says otherwise
T0 = datetime(2026, 9, 14, 6, 0, tzinfo=UTC)
DEFAULTS = SpikeSettings()


def counts(count, previous, total=VOLUME, previous_total=VOLUME, slug="agentic-rl"):
    return TopicCounts(slug, "RL for LLM Agents", count, previous, total, previous_total)


def decide(topic: TopicCounts, memory=None, *, now=T0, settings=DEFAULTS):
    states = {topic.slug: memory} if memory else {}
    return evaluate([topic], states, settings, now=now)[0]


def upper_tail(k: int, n: int) -> float:
    """P(X ≥ k) for X ~ Binomial(n, 1/2), by hand."""
    return sum(math.comb(n, x) for x in range(k, n + 1)) / 2**n


# --- the test ---------------------------------------------------------------------------------


def test_70_against_29_with_equal_volumes_is_a_spike():
    d = decide(counts(70, 29))
    assert d.p_value == pytest.approx(upper_tail(70, 99), rel=1e-9)
    assert d.p_value == pytest.approx(2.303e-05, rel=1e-3)
    assert d.q_value == d.p_value  # one topic scanned: nothing to correct
    assert (d.alert, d.elevated, d.change_pct) == (True, True, 141)
    assert (d.share_pct, d.previous_share_pct) == (0.7, 0.29)
    assert d.share_ratio == pytest.approx(70 / 29)
    assert d.reason == "alert: share 0.29% → 0.70% (×2.4), p=2e-05, q=2e-05"


def test_6_against_2_is_below_the_minimum_and_not_significant():
    d = decide(counts(6, 2))
    assert d.p_value == pytest.approx(upper_tail(6, 8))  # 37/256
    assert not d.alert and d.q_value is None  # too few papers to enter the correction
    assert d.reason == "quiet: below the minimum of 10 papers"
    # Without the minimum, significance alone keeps it quiet.
    no_minimum = decide(counts(6, 2), settings=SpikeSettings(min_count=1))
    assert no_minimum.reason == "quiet: not significant after FDR (q=0.14)"


def test_significant_but_below_the_minimum_is_quiet():
    d = decide(counts(9, 0))
    assert d.p_value == pytest.approx(0.5**9) and d.p_value < DEFAULTS.fdr_q
    assert d.q_value is None  # too few papers to enter the correction
    assert (d.alert, d.reason) == (False, "quiet: below the minimum of 10 papers")


def test_above_the_minimum_but_not_significant_is_quiet():
    d = decide(counts(30, 20))
    assert d.p_value == pytest.approx(upper_tail(30, 50))
    assert (d.alert, d.reason) == (False, "quiet: not significant after FDR (q=0.10)")


def test_a_significant_but_small_rise_is_quiet():
    d = decide(counts(2600, 2300))
    assert d.p_value < 1e-4
    assert not d.alert
    assert d.reason == "quiet: share 23.00% → 26.00% (×1.1), less than ×1.5"


def test_a_topic_that_only_grew_with_arxiv_is_not_a_spike():
    d = decide(counts(140, 70, total=2 * VOLUME))
    assert d.change_pct == 100 and d.share_ratio == pytest.approx(1.0)
    assert d.p_value > 0.4
    assert not d.alert and d.reason.startswith("quiet: share 0.70% → 0.70% (×1.0)")


def test_a_topic_that_held_its_count_while_arxiv_shrank_is_a_spike():
    d = decide(counts(70, 70, total=VOLUME * 2 // 5))
    assert d.change_pct == 0 and d.share_ratio == pytest.approx(2.5)
    assert d.alert


def test_a_new_topic_is_judged_by_significance_too():
    d = decide(counts(15, 0))
    assert d.p_value == pytest.approx(0.5**15)
    assert (d.alert, d.share_ratio, d.change_pct) == (True, None, None)
    assert d.reason.startswith("alert: share 0% → 0.15% (new)")
    assert json.loads(json.dumps(d.to_json()))["share_ratio"] is None


def test_without_a_baseline_nothing_alerts_and_the_flag_is_kept():
    d = decide(counts(70, 0, previous_total=0))
    assert (d.alert, d.elevated, d.p_value) == (False, False, 1.0)
    assert d.reason.startswith("quiet: no baseline")
    kept = decide(counts(70, 0, previous_total=0), SpikeMemory(True, T0, 50, 0.5))
    assert (kept.alert, kept.elevated) == (False, True)


def test_a_topic_without_papers_is_quiet():
    d = decide(counts(0, 0))
    assert (d.alert, d.p_value, d.share_ratio) == (False, 1.0, None)


# --- the false-discovery correction -----------------------------------------------------------


def test_bh_adjust_matches_a_hand_computation():
    # Sorted 0.005, 0.01, 0.03, 0.04 (m = 4): p·m/rank = 0.02, 0.02, 0.04, 0.04, already monotone.
    assert bh_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert bh_adjust([]) == []


def test_a_borderline_topic_alone_alerts_but_not_among_fifty():
    borderline = counts(29, 13)
    assert decide(borderline).alert
    steady = [counts(20, 20, slug=f"steady-{i}") for i in range(49)]
    decisions = evaluate([borderline, *steady], {}, DEFAULTS, now=T0)
    first = decisions[0]
    assert 0.009 < first.p_value < 0.01
    assert not first.alert and first.reason.startswith("quiet: not significant after FDR")
    # Benjamini–Hochberg by hand: the smallest of 50 p-values is multiplied by 50 / 1.
    assert first.q_value == pytest.approx(first.p_value * 50)
    assert not any(d.alert for d in decisions)


def test_topics_with_too_few_papers_to_alert_cost_the_others_nothing():
    small = [counts(4, 2, slug=f"small-{i}") for i in range(49)]
    first = evaluate([counts(29, 13), *small], {}, DEFAULTS, now=T0)[0]
    assert first.alert and first.q_value == first.p_value


def in_a_quiet_catalog(catalog, count: int, previous: int) -> list[TopicCounts]:
    """The headline topic first, every other catalog topic populated (20 papers) and quiet:
    the same share of the 10,000 new papers as of the 9,029 before."""
    headline = counts(count, previous, 10_000, 9_029, slug="rl-for-llm-agents")
    others = [t.slug for t in catalog.topics if t.slug != headline.slug]
    return [headline, *(TopicCounts(s, s, 20, 18, 10_000, 9_029) for s in others)]


def test_the_seed_headline_alerts_even_among_a_whole_populated_and_quiet_catalog(catalog):
    scanned = in_a_quiet_catalog(catalog, 70, 29)

    first = evaluate(scanned, {}, DEFAULTS, now=T0)[0]

    assert len(scanned) == len(catalog.topics)
    assert first.p_value == pytest.approx(1.76e-4, rel=0.01)
    assert first.q_value == pytest.approx(first.p_value * len(scanned))  # the only discovery
    assert first.alert


def test_6_against_2_in_the_same_catalog_does_not_alert(catalog):
    first = evaluate(in_a_quiet_catalog(catalog, 6, 2), {}, DEFAULTS, now=T0)[0]

    assert (first.alert, first.reason) == (False, "quiet: below the minimum of 10 papers")


def test_fdr_keeps_the_strong_spikes_among_many_topics():
    steady = [counts(20, 20, slug=f"steady-{i}") for i in range(99)]
    decisions = evaluate([counts(70, 29), *steady], {}, DEFAULTS, now=T0)
    assert [d.slug for d in decisions if d.alert] == ["agentic-rl"]


# --- hysteresis and cooldown ------------------------------------------------------------------


def run(steps, settings=DEFAULTS):
    """Scan one topic on each (day, count, previous), remembering as `record` would."""
    memory = SpikeMemory()
    decisions = []
    for day, count, previous in steps:
        now = T0 + timedelta(days=day)
        decision = decide(counts(count, previous), memory, now=now, settings=settings)
        memory = next_memory(memory, decision, now)
        decisions.append(decision)
    return decisions


# day, count, previous, alert, elevated afterwards, the reason starts with
HYSTERESIS = [
    (0, 70, 29, True, True, "alert: share 0.29% → 0.70% (×2.4)"),
    (1, 80, 40, False, True, "quiet: still elevated since the alert on 2026-09-14; alerts again"),
    (7, 110, 40, False, True, "quiet: cooldown until 2026-09-28 06:00 UTC"),
    (14, 110, 40, True, True, "alert: further rise, 110 papers (70 at the alert on 2026-09-14)"),
    (21, 150, 110, False, True, "quiet: still elevated since the alert on 2026-09-28"),
    (35, 120, 110, False, False, "quiet: calmed down, share 1.10% → 1.20% (×1.1)"),
    (42, 100, 130, False, False, "quiet: share 1.30% → 1.00% (×0.8), less than ×1.5"),
    (56, 200, 100, True, True, "alert: share 1.00% → 2.00% (×2.0)"),
]


def test_hysteresis_quiet_while_elevated_again_on_a_further_rise_or_after_rearming():
    decisions = run([step[:3] for step in HYSTERESIS])
    for (day, _, _, alert, elevated, reason), decision in zip(HYSTERESIS, decisions, strict=True):
        assert (day, decision.alert, decision.elevated) == (day, alert, elevated)
        assert decision.reason.startswith(reason), (day, decision.reason)


def test_a_further_rise_that_is_not_significant_stays_quiet():
    # 110 against 90 papers: count and share are up 1.5-fold since the alert, but the rise on
    # the four weeks before could be chance (p = 0.09).
    _, further = run([(0, 70, 29), (20, 110, 90)])
    assert (further.alert, further.elevated) == (False, True)
    assert "rise not significant" in further.reason


def test_a_further_rise_of_arxiv_as_a_whole_does_not_alert_again():
    first = decide(counts(70, 29))
    memory = next_memory(SpikeMemory(), first, T0)
    later = T0 + timedelta(days=20)
    # Up 1.5-fold in count and significantly on the four weeks before, but arXiv has doubled:
    # the share is below the 0.7% of the alert.
    grown = decide(counts(110, 25, total=2 * VOLUME), memory, now=later)
    assert grown.count >= 1.5 * first.count and grown.q_value < DEFAULTS.fdr_q
    assert (grown.alert, grown.elevated) == (False, True)
    assert grown.reason.endswith("alerts again from 105 papers and a 1.05% share")


def test_a_rearmed_topic_that_spikes_again_waits_for_the_cooldown():
    decisions = run([(0, 70, 29), (3, 30, 29), (7, 90, 30), (14, 90, 30)])
    assert [(d.alert, d.elevated) for d in decisions] == [
        (True, True),
        (False, False),
        (False, False),
        (True, True),
    ]
    assert decisions[1].reason.endswith("re-armed")
    assert decisions[2].reason == "quiet: cooldown until 2026-09-28 06:00 UTC"


def test_next_memory_remembers_alerts_and_rearming_keeps_the_last_alert():
    alert = decide(counts(70, 29))
    memory = next_memory(SpikeMemory(), alert, T0)
    assert memory == SpikeMemory(True, T0, 70, 0.7)
    calm = decide(counts(30, 29), memory, now=T0 + timedelta(days=30))
    assert next_memory(memory, calm, T0) == SpikeMemory(False, T0, 70, 0.7)


# --- settings and arguments -------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"fdr_q": 0},
        {"fdr_q": 1.5},
        {"min_count": 0},
        {"rearm_share_ratio": 1.6},
        {"rearm_share_ratio": 0},
        {"realert_factor": 0.5},
        {"cooldown_days": -1},
    ],
)
def test_settings_that_make_no_sense_are_refused(changes):
    with pytest.raises(ValueError):
        SpikeSettings(**changes)


def test_evaluate_wants_an_aware_time_and_each_topic_once():
    with pytest.raises(ValueError, match="timezone"):
        evaluate([counts(70, 29)], {}, DEFAULTS, now=datetime(2026, 9, 14))
    with pytest.raises(ValueError, match="duplicate"):
        evaluate([counts(70, 29), counts(1, 1)], {}, DEFAULTS, now=T0)
    with pytest.raises(ValueError, match="negative"):
        counts(-1, 0)


# --- the store --------------------------------------------------------------------------------

AS_OF = date(2026, 9, 27)
NOW = datetime(2026, 9, 28, 6, 0, tzinfo=UTC)
_serial = itertools.count(1)


def topic(slug: str) -> TopicDef:
    return TopicDef(slug=slug, name=slug.replace("-", " ").title(), description="")


def add_papers(session: Session, day: date, count: int, topic_ids=()) -> None:
    records = [
        paper_record(next(_serial), datetime.combine(day, time(12), tzinfo=UTC))
        for _ in range(count)
    ]
    new = repo.upsert_papers(session, records, now=NOW).new
    tags = {paper_id: [(topic_id, 0.5, "rules") for topic_id in topic_ids] for paper_id in new}
    days = {paper_id: rec.first_version_date for paper_id, rec in new.items()}
    repo.write_tags(session, tags, days, now=NOW)


def store_topics(session: Session, *slugs: str) -> dict[str, int]:
    repo.sync_topics(session, [topic(slug) for slug in slugs])
    return {slug: row.id for slug, row in repo.topic_rows(session).items()}


def test_topic_counts_split_the_two_windows_at_their_edges(engine):
    current_start, _, previous_start, previous_end = window_bounds(AS_OF)
    with Session(engine) as session:
        ids = store_topics(session, "agentic-rl", "quiet-topic")
        rl = [ids["agentic-rl"]]
        add_papers(session, AS_OF, 3, rl)
        add_papers(session, current_start, 2, rl)
        add_papers(session, previous_end, 1, rl)
        add_papers(session, previous_start, 1, rl)
        add_papers(session, previous_start - timedelta(days=1), 4, rl)  # outside both
        add_papers(session, AS_OF + timedelta(days=1), 4, rl)  # after as_of
        add_papers(session, AS_OF - timedelta(days=1), 5)
        add_papers(session, previous_end - timedelta(days=2), 4)
        topics = [
            topic("agentic-rl"),
            topic("quiet-topic"),
            topic("not-stored"),
            topic("agentic-rl"),
        ]
        found = topic_counts(session, topics, as_of=AS_OF)
    assert [(c.slug, c.count, c.previous, c.total, c.previous_total) for c in found] == [
        ("agentic-rl", 5, 2, 10, 6),
        ("quiet-topic", 0, 0, 10, 6),
        ("not-stored", 0, 0, 10, 6),
    ]


def test_topic_counts_want_a_date():
    with pytest.raises(TypeError):
        topic_counts(None, [], as_of=NOW)  # type: ignore[arg-type]


def test_scan_record_and_rescan_remember_the_alert(engine):
    current_start, _, previous_start, _ = window_bounds(AS_OF)
    topics = [topic("agentic-rl"), topic("quiet-topic")]
    with Session(engine) as session:
        ids = store_topics(session, "agentic-rl", "quiet-topic")
        add_papers(session, current_start + timedelta(days=3), 30, [ids["agentic-rl"]])
        add_papers(session, previous_start + timedelta(days=3), 5, [ids["agentic-rl"]])
        add_papers(session, current_start + timedelta(days=5), 4, [ids["quiet-topic"]])
        add_papers(session, current_start + timedelta(days=6), 166)
        add_papers(session, previous_start + timedelta(days=6), 195)
        first = scan(session, topics, as_of=AS_OF, settings=DEFAULTS, now=NOW)
        record(session, first, now=NOW)
        session.commit()

    assert [(d.slug, d.alert) for d in first] == [("agentic-rl", True), ("quiet-topic", False)]
    assert first[0].share_pct == 15.0
    with Session(engine) as session:
        memory = load_memory(session)
        assert memory == {"agentic-rl": SpikeMemory(True, NOW, 30, 15.0)}  # no row for the other
        later = NOW + timedelta(days=1)
        again = scan(session, topics, as_of=AS_OF, settings=DEFAULTS, now=later)
        assert (again[0].alert, again[0].elevated) == (False, True)
        assert again[0].reason.startswith("quiet: still elevated since the alert on 2026-09-28")
        record(session, again, now=later)
        session.commit()
        assert session.get(SpikeState, ids["agentic-rl"]).updated_at == later


def test_recording_a_calm_scan_rearms_and_keeps_the_last_alert(engine):
    with Session(engine) as session:
        ids = store_topics(session, "agentic-rl")
        record(session, [decide(counts(70, 29))], now=NOW)
        calm_at = NOW + timedelta(days=30)
        calm = evaluate([counts(30, 29)], load_memory(session), DEFAULTS, now=calm_at)
        assert calm[0].reason.endswith("re-armed")
        record(session, calm, now=calm_at)
        record(session, [decide(counts(70, 29, slug="not-stored"))], now=calm_at)
        session.commit()
        row = session.execute(select(SpikeState)).scalars().one()
        assert (row.topic_id, row.elevated, row.alerted_at, row.alerted_count) == (
            ids["agentic-rl"],
            False,
            NOW,
            70,
        )
        assert row.updated_at == calm_at


def test_memory_of_a_topic_is_deleted_with_the_topic(engine):
    with Session(engine) as session:
        store_topics(session, "agentic-rl")
        record(session, [decide(counts(70, 29))], now=NOW)
        session.commit()
        session.delete(session.execute(select(Topic)).scalars().one())
        session.commit()
        assert load_memory(session) == {}
