"""Spike detection: which topics took off, judged against the volume of all new papers.

A topic spikes when, in the last four weeks against the four weeks before,
  1. it has at least `min_count` papers,
  2. its share of all new papers rose at least `min_share_ratio`-fold, and
  3. the rise is significant: an exact conditional binomial test, corrected for the false
     discovery rate (Benjamini–Hochberg) across the topics of the scan that could alert at
     all, those with at least `min_count` papers.

The test: with k1, k0 the topic's papers in the two windows and N1, N0 all papers in them, if
the topic kept its rate relative to the volume, k1 ~ Binomial(k1 + k0, N1 / (N1 + N0)) given
k1 + k0. The p-value is the upper tail P(X ≥ k1), so a topic that only grew with arXiv as a
whole is not news.

After an alert a topic is *elevated* and stays quiet while its share ratio is above
`rearm_share_ratio`; it alerts again only after a further rise by `realert_factor` (count and
share, significant) or once it has calmed down (re-armed) and spikes anew, and never sooner
than `cooldown_days` after its last alert. docs/spikes.md gives the reasoning for each default.

Everything here is pure: `evaluate` decides on counts and memory as plain data.
`digests.usecases.spike_scan.scan` reads them from the store; its `record` writes the
decisions back to `SpikeState`. Send (queue) the alerts and `record` in one transaction, so
that an alert is neither lost nor repeated when a run dies halfway.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from digests.signals.momentum import round_half_up
from digests.signals.significance import bh_adjust, binomial_upper_tail
from digests.signals.spike_settings import SpikeSettings


@dataclass(frozen=True)
class TopicCounts:
    slug: str
    name: str
    count: int  # the topic's papers, last 28 days
    previous: int  # the topic's papers, the 28 days before
    total: int  # all papers, last 28 days
    previous_total: int  # all papers, the 28 days before

    def __post_init__(self) -> None:
        if min(self.count, self.previous, self.total, self.previous_total) < 0:
            raise ValueError(f"negative paper count for {self.slug}")


@dataclass(frozen=True)
class SpikeMemory:
    """What a scan remembers of a topic; mirrors a `SpikeState` row."""

    elevated: bool = False
    alerted_at: datetime | None = None
    alerted_count: int = 0
    alerted_share: float = 0.0  # share_pct at that alert, in percent


@dataclass(frozen=True)
class SpikeDecision:
    slug: str
    name: str
    count: int
    previous: int
    share_pct: float | None  # percent of all new papers; None without any papers
    previous_share_pct: float | None
    share_ratio: float | None  # None when the share before was zero or unknown
    change_pct: int | None  # change of the count itself; None when previous == 0
    p_value: float
    # Benjamini–Hochberg adjusted p-value over the topics that could alert; None for a topic
    # outside that family (too few papers, or no papers at all in a window).
    q_value: float | None
    alert: bool
    elevated: bool  # the topic's elevated flag after this scan
    reason: str

    def to_json(self) -> dict:
        return {
            "slug": self.slug,
            "name": self.name,
            "count": self.count,
            "previous": self.previous,
            "share_pct": self.share_pct,
            "previous_share_pct": self.previous_share_pct,
            "share_ratio": self.share_ratio,
            "change_pct": self.change_pct,
            "p_value": self.p_value,
            "q_value": self.q_value,
            "alert": self.alert,
            "elevated": self.elevated,
            "reason": self.reason,
        }


# --- pure decisions ---------------------------------------------------------------------------


def evaluate(
    counts: Sequence[TopicCounts],
    states: Mapping[str, SpikeMemory],
    settings: SpikeSettings,
    *,
    now: datetime,
) -> list[SpikeDecision]:
    """One decision per topic, in the order given; `states` is keyed by slug."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    slugs = [topic.slug for topic in counts]
    if len(set(slugs)) != len(slugs):
        raise ValueError("each topic may be scanned once; duplicate slugs would skew the FDR")
    p_values = tail_p_values(counts)
    family = [i for i, topic in enumerate(counts) if could_alert(topic, settings)]
    q_values: list[float | None] = [None] * len(counts)
    for i, q in zip(family, bh_adjust([p_values[i] for i in family]), strict=True):
        q_values[i] = q
    return [
        _decide(topic, p, q, states.get(topic.slug, SpikeMemory()), settings, now)
        for topic, p, q in zip(counts, p_values, q_values, strict=True)
    ]


def could_alert(topic: TopicCounts, settings: SpikeSettings) -> bool:
    """Whether a topic enters the correction family: a topic with fewer than `min_count`
    papers, or without papers in a window, is never alerted, so it costs the others nothing."""
    return topic.count >= settings.min_count and _has_volume(topic)


def tail_p_values(counts: Sequence[TopicCounts]) -> list[float]:
    """P(X ≥ k1) for X ~ Binomial(k1 + k0, N1 / (N1 + N0)) per topic; 1.0 with nothing to test
    (without papers in a window there is no volume to compare with)."""
    return [
        binomial_upper_tail(t.count, t.count + t.previous, t.total / (t.total + t.previous_total))
        if _has_volume(t)
        else 1.0
        for t in counts
    ]


def _has_volume(topic: TopicCounts) -> bool:
    return topic.total > 0 and topic.previous_total > 0


def next_memory(previous: SpikeMemory, decision: SpikeDecision, now: datetime) -> SpikeMemory:
    """The memory after `decision`: an alert is remembered, the elevated flag follows."""
    if decision.alert:
        return SpikeMemory(True, now, decision.count, decision.share_pct or 0.0)
    # Re-arming clears only the flag: the last alert still counts for the cooldown.
    return replace(previous, elevated=decision.elevated)


def shares_text(decision: SpikeDecision) -> str:
    """Like "0.29% → 0.70% (×2.4)", or "0% → 0.15% (new)" for a topic without papers before."""
    before = _pct(decision.previous_share_pct)
    now = _pct(decision.share_pct)
    if decision.share_ratio is None:
        return f"{before} → {now} (new)" if decision.count else f"{before} → {now}"
    return f"{before} → {now} (×{decision.share_ratio:.1f})"


def evidence_text(decision: SpikeDecision) -> str:
    """Like "p=2e-05, q=2e-05": the test's p-value and its FDR-adjusted q-value."""
    return f"p={_sci(decision.p_value)}, q={_q(decision)}"


Verdict = tuple[bool, bool, str]  # (alert, elevated afterwards, reason)


def _decide(
    topic: TopicCounts,
    p: float,
    q: float | None,
    memory: SpikeMemory,
    settings: SpikeSettings,
    now: datetime,
) -> SpikeDecision:
    measured = _measured(topic, p, q)
    if topic.previous_total == 0:
        verdict = (False, memory.elevated, "quiet: no baseline (no papers at all before)")
    elif topic.total == 0:
        verdict = (False, memory.elevated, "quiet: no papers at all in the last four weeks")
    elif memory.elevated:
        verdict = _while_elevated(topic, measured, memory, settings, now)
    else:
        verdict = _while_armed(topic, measured, memory, settings, now)
    alert, elevated, reason = verdict
    return replace(measured, alert=alert, elevated=elevated, reason=reason)


def _while_armed(
    topic: TopicCounts,
    measured: SpikeDecision,
    memory: SpikeMemory,
    settings: SpikeSettings,
    now: datetime,
) -> Verdict:
    shares = f"share {shares_text(measured)}"
    if topic.count < settings.min_count:
        return False, False, f"quiet: below the minimum of {settings.min_count} papers"
    if _rise(topic) < settings.min_share_ratio:
        return False, False, f"quiet: {shares}, less than ×{settings.min_share_ratio:g}"
    if not _significant(measured, settings):
        return False, False, f"quiet: not significant after FDR (q={_q(measured)})"
    if cooldown := _cooldown_text(memory, settings, now):
        return False, False, cooldown
    return True, True, f"alert: {shares}, {evidence_text(measured)}"


def _while_elevated(
    topic: TopicCounts,
    measured: SpikeDecision,
    memory: SpikeMemory,
    settings: SpikeSettings,
    now: datetime,
) -> Verdict:
    shares = f"share {shares_text(measured)}"
    if _rise(topic) <= settings.rearm_share_ratio:
        rearm = f"×{settings.rearm_share_ratio:g}"
        return False, False, f"quiet: calmed down, {shares} is at most {rearm}; re-armed"
    since = f"the alert on {memory.alerted_at:%Y-%m-%d}" if memory.alerted_at else "the alert"
    needed = math.ceil(round(settings.realert_factor * memory.alerted_count, 9))
    # Share as well as count, so that a rise of arXiv as a whole does not count as further news.
    share_needed = settings.realert_factor * memory.alerted_share
    if topic.count < needed or (measured.share_pct or 0.0) < share_needed:
        again = f"alerts again from {needed:,} papers and a {_pct(share_needed)} share"
        return False, True, f"quiet: still elevated since {since}; {again}"
    if not _significant(measured, settings):
        q = _q(measured)
        return False, True, f"quiet: still elevated since {since}; rise not significant (q={q})"
    if cooldown := _cooldown_text(memory, settings, now):
        return False, True, cooldown
    was = f"{memory.alerted_count:,} at {since}"
    evidence = evidence_text(measured)
    return True, True, f"alert: further rise, {topic.count:,} papers ({was}); {shares}, {evidence}"


def _significant(measured: SpikeDecision, settings: SpikeSettings) -> bool:
    return measured.q_value is not None and measured.q_value <= settings.fdr_q


def _measured(topic: TopicCounts, p: float, q: float | None) -> SpikeDecision:
    """The numbers of a decision, before any verdict."""
    share = 100 * topic.count / topic.total if topic.total else None
    before = 100 * topic.previous / topic.previous_total if topic.previous_total else None
    ratio = share / before if share is not None and before else None
    rise = (topic.count - topic.previous) * 100
    change = round_half_up(rise, topic.previous) if topic.previous else None
    return SpikeDecision(
        slug=topic.slug,
        name=topic.name,
        count=topic.count,
        previous=topic.previous,
        share_pct=share,
        previous_share_pct=before,
        share_ratio=ratio,
        change_pct=change,
        p_value=p,
        q_value=q,
        alert=False,
        elevated=False,
        reason="",
    )


def _rise(topic: TopicCounts) -> float:
    """Share now / share before (both windows have papers); infinite for a topic new to them."""
    if topic.previous == 0:
        return math.inf if topic.count else 1.0
    return (topic.count * topic.previous_total) / (topic.previous * topic.total)


def _cooldown_text(memory: SpikeMemory, settings: SpikeSettings, now: datetime) -> str:
    if memory.alerted_at is None:
        return ""
    until = memory.alerted_at + timedelta(days=settings.cooldown_days)
    return f"quiet: cooldown until {until:%Y-%m-%d %H:%M} UTC" if now < until else ""


def _pct(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == 0:
        return "0%"
    return f"{value:.2f}%" if value >= 0.1 else f"{value:.2g}%"


def _q(decision: SpikeDecision) -> str:
    return "n/a" if decision.q_value is None else _sci(decision.q_value)


def _sci(value: float) -> str:
    """p- and q-values: "0.41", "0.004", "2e-05"."""
    if value >= 0.01:
        return f"{value:.2f}"
    if value >= 0.001:
        return f"{value:.3f}"
    return f"{value:.0e}" if value > 0 else "<1e-300"
