"""Spike alerts as data, independent of any chat platform.

`digests.signals.spikes` decides which topics alert; an alert shows the topic's momentum (the
same numbers as its digest section and topic page), the decision's evidence, and the papers
driving the rise (`top_entries`); `digests.usecases.alert_planning` reads them from the store.
`digests.messages.layout` lays an alert out for every platform; `alert_chart` describes the
momentum chart for platforms with images.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date

from digests.messages.chart_spec import topic_chart
from digests.messages.digest import DigestEntry, DigestPaper, TopicRef, compose_digest
from digests.signals.momentum import Momentum, window_bounds
from digests.signals.spikes import SpikeDecision

ALERT_PAPERS = 5
PERIOD_KEY_LIMIT = 64  # Delivery.period_key


@dataclass(frozen=True)
class SpikeAlert:
    topic: TopicRef
    momentum: Momentum
    decision: SpikeDecision
    papers: tuple[DigestEntry, ...]  # the papers driving the rise, best first


def alert_chart(alert: SpikeAlert) -> dict:
    """The topic's 12-week chart, as stored with an alert's first part."""
    return topic_chart(alert.topic.name, alert.momentum.weekly)


def alert_period_key(slug: str, as_of: date) -> str:
    """`Delivery.period_key` of a topic's alert on a day, e.g. "spike:agentic-rl:2026-09-28".

    A slug too long for the column is cut and followed by a hash of the whole slug, so keys of
    different topics stay different.
    """
    key = f"spike:{slug}:{as_of.isoformat()}"
    if len(key) <= PERIOD_KEY_LIMIT:
        return key
    digest = hashlib.sha256(slug.encode()).hexdigest()[:12]
    room = PERIOD_KEY_LIMIT - len(f"spike:~{digest}:{as_of.isoformat()}")
    return f"spike:{slug[:room]}~{digest}:{as_of.isoformat()}"


def top_entries(
    topic: TopicRef, momentum: Momentum, papers: list[DigestPaper]
) -> tuple[DigestEntry, ...]:
    """Up to ALERT_PAPERS entries, highest score first, then the most recent (as in digests)."""
    start = window_bounds(momentum.as_of)[0]
    digest = compose_digest(
        [topic], papers, {topic.slug: momentum}, start, momentum.as_of, per_topic_cap=ALERT_PAPERS
    )
    return digest.sections[0].entries
