"""Spike alerts as data, independent of any chat platform.

`digests.signals.spikes` decides which topics alert; this module gathers what an alert shows: the
topic's momentum (the same numbers as its digest section and topic page), the decision's
evidence, and the papers driving the rise. `digests.messages.layout` lays an alert out for every
platform; `alert_chart` describes the momentum chart for platforms with images.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlmodel import Session

from digests.messages.chart_spec import topic_chart
from digests.messages.digest import DigestEntry, DigestPaper, TopicRef, compose_digest
from digests.messages.reports import digest_paper, topic_momenta
from digests.signals.momentum import Momentum, window_bounds
from digests.signals.spikes import SpikeDecision
from digests.store import repo
from digests.topics.catalog import TopicDef

ALERT_PAPERS = 5
PERIOD_KEY_LIMIT = 64  # Delivery.period_key
# Papers are picked by first-version day, as momentum counts them; when they were tagged (say,
# the morning after `as_of`) does not matter.
_EVER = (datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC))


@dataclass(frozen=True)
class SpikeAlert:
    topic: TopicRef
    momentum: Momentum
    decision: SpikeDecision
    papers: tuple[DigestEntry, ...]  # the papers driving the rise, best first


def build_alerts(
    session: Session,
    topics: Sequence[TopicDef],
    decisions: Sequence[SpikeDecision],
    *,
    as_of: date,
) -> list[SpikeAlert]:
    """An alert for each decision, its topic found in `topics` by slug; momentum is read once."""
    by_slug = {topic.slug: topic for topic in topics}
    missing = [decision.slug for decision in decisions if decision.slug not in by_slug]
    if missing:
        raise ValueError(f"no topic for decisions: {', '.join(missing)}")
    chosen = [by_slug[decision.slug] for decision in decisions]
    momenta = topic_momenta(session, chosen, as_of=as_of)
    rows = repo.topic_rows(session)
    alerts = []
    for topic, decision in zip(chosen, decisions, strict=True):
        ref = TopicRef(topic.slug, topic.name)
        row = rows.get(topic.slug)
        momentum = momenta[topic.slug]
        papers = _recent_papers(session, row.id, topic.slug, as_of) if row else []
        alerts.append(SpikeAlert(ref, momentum, decision, _top(ref, momentum, papers)))
    return alerts


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


def _recent_papers(session: Session, topic_id: int, slug: str, as_of: date) -> list[DigestPaper]:
    """The topic's papers first published in the last four weeks as of `as_of`."""
    window_start = window_bounds(as_of)[0]
    found = repo.tagged_papers(
        session,
        [topic_id],
        tagged_from=_EVER[0],
        tagged_to=_EVER[1],
        published_from=window_start,
    )
    return [
        digest_paper(paper, {slug: max(scores.values())})
        for paper, scores in found
        if paper.published_on <= as_of
    ]


def _top(topic: TopicRef, momentum: Momentum, papers: list[DigestPaper]) -> tuple[DigestEntry, ...]:
    """Up to ALERT_PAPERS entries, highest score first, then the most recent (as in digests)."""
    start = window_bounds(momentum.as_of)[0]
    digest = compose_digest(
        [topic], papers, {topic.slug: momentum}, start, momentum.as_of, per_topic_cap=ALERT_PAPERS
    )
    return digest.sections[0].entries
