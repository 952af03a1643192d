"""Planning spike alerts: scan, pick the channels that want them, remember what was alerted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta

from sqlmodel import Session

from digests.feedback.ranking import ChannelFeedback
from digests.messages.alert import SpikeAlert, alert_period_key, top_entries
from digests.messages.digest import DigestPaper, TopicRef
from digests.signals.momentum import window_bounds
from digests.signals.spikes import SpikeDecision, SpikeSettings
from digests.store import channels, follow_filters, repo
from digests.topics.catalog import Catalog, TopicDef
from digests.usecases.reports import digest_paper, topic_momenta
from digests.usecases.spike_scan import record, scan
from digests.usecases.votes import feedback_of_channels

# A spike alert is news for a day; after that the next scan's momentum says more.
ALERT_WINDOW = timedelta(days=1)
# Papers are picked by first-version day, as momentum counts them; when they were tagged (say,
# the morning after `as_of`) does not matter.
_EVER = (datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC))


@dataclass(frozen=True)
class PlannedAlert:
    channel_id: int
    platform: str
    role_id: str  # a role to mention (Discord), "" for none
    period_key: str
    alert: SpikeAlert


def plan_alerts(
    session: Session,
    catalog: Catalog,
    *,
    platforms: Sequence[str],
    as_of: date,
    settings: SpikeSettings,
    now: datetime,
) -> tuple[list[SpikeDecision], list[PlannedAlert]]:
    """Scan every topic and every followed search, author and category, and for each alerting
    one the channels following it with alerts on.

    The decisions are recorded in the same transaction as the caller stores the deliveries, so
    an alert is remembered exactly when it is queued.
    """
    filters = [follow.topic() for _, follow in follow_filters.all_filters(session)]
    decisions = scan(
        session, catalog.topics, as_of=as_of, settings=settings, now=now, filters=filters
    )
    alerting = [decision for decision in decisions if decision.alert]
    planned: list[PlannedAlert] = []
    if alerting:
        alerts = build_alerts(session, [*catalog.topics, *filters], alerting, as_of=as_of)
        for alert in alerts:
            subscribers = channels.alert_subscribers(session, alert.topic.slug, platforms)
            votes = feedback_of_channels(session, [channel_id for channel_id, _, _ in subscribers])
            for channel_id, platform, role in subscribers:
                key = alert_period_key(alert.topic.slug, as_of)
                seen = without_off_topic(alert, votes.get(channel_id))
                planned.append(PlannedAlert(channel_id, platform, role, key, seen))
    record(session, decisions, now=now)
    return decisions, planned


def without_off_topic(alert: SpikeAlert, feedback: ChannelFeedback | None) -> SpikeAlert:
    """The alert as a channel sees it: without the papers it voted off the topic."""
    if feedback is None or not feedback.hidden:
        return alert
    slug = alert.topic.slug
    kept = tuple(e for e in alert.papers if (e.paper.arxiv_id, slug) not in feedback.hidden)
    return replace(alert, papers=kept)


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
        alerts.append(SpikeAlert(ref, momentum, decision, top_entries(ref, momentum, papers)))
    return alerts


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
