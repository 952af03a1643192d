"""Momentum and digests read from the store: the queries behind what users see."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from sqlmodel import Session

from digests.messages.digest import Digest, DigestPaper, TopicRef, compose_digest
from digests.messages.tags import Lineage
from digests.store import repo
from digests.store.models import Paper
from digests.topics.catalog import TopicDef
from digests.usecases.momenta import as_topics as as_topics
from digests.usecases.momenta import day_end as day_end
from digests.usecases.momenta import day_start as day_start
from digests.usecases.momenta import followed_momentum as followed_momentum
from digests.usecases.momenta import topic_momenta as topic_momenta

if TYPE_CHECKING:
    from digests.feedback.ranking import ChannelFeedback

# A paper announced late in a period may be tagged after the period's digest went out; it is
# still news the week after, but a paper first published long before is not.
NEWS_AGE_DAYS = 7


def digest_paper(paper: Paper, scores: dict[str, float]) -> DigestPaper:
    """A stored paper as a digest shows it, with its scores per topic slug."""
    return DigestPaper(
        arxiv_id=paper.arxiv_id,
        title=paper.title,
        url=paper.abs_url,
        authors=tuple(paper.authors),
        published=paper.published_on,
        primary_category=paper.primary_category,
        abstract=paper.abstract,
        scores=scores,
    )


def build_digest(
    session: Session,
    followed: Sequence[TopicDef],
    *,
    since: date,
    until: date,
    per_topic_cap: int = 5,
    tagged_after: datetime | None = None,
    feedback: ChannelFeedback | None = None,
    ancestors: Lineage | None = None,
) -> Digest:
    """The digest for `followed` topics over the days since..until (inclusive).

    `tagged_after` narrows it to papers tagged after that moment (instant deliveries);
    `feedback`, a channel's votes, hides its off-topic papers and ranks by its model;
    `ancestors` (`digests.messages.tags.lineage`) keeps a topic's ancestors out of "also in".
    """
    rows = repo.topic_rows(session)
    known = [topic for topic in followed if topic.slug in rows]
    slug_by_id = {rows[topic.slug].id: topic.slug for topic in known}
    found = repo.tagged_papers(
        session,
        list(slug_by_id),
        tagged_from=tagged_after or day_start(since),
        tagged_to=day_end(until),
        published_from=since - timedelta(days=NEWS_AGE_DAYS),
    )
    papers = [
        digest_paper(paper, {slug_by_id[topic_id]: score for topic_id, score in scores.items()})
        for paper, scores in found
    ]
    momenta = topic_momenta(session, followed, as_of=until)
    refs = [TopicRef(topic.slug, topic.name) for topic in followed]
    hidden, preference, note = frozenset(), None, ""
    if feedback is not None:
        hidden, note = feedback.hidden, feedback.note
        if feedback.model is not None:
            preference = {paper.arxiv_id: feedback.model.score(paper) for paper in papers}
    return compose_digest(
        refs,
        papers,
        momenta,
        since,
        until,
        per_topic_cap=per_topic_cap,
        hidden=hidden,
        preference=preference,
        note=note,
        ancestors=ancestors,
    )
