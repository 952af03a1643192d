"""Reader feedback: the papers offered for votes in each channel, the votes, and the install
secret voters are hashed with."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from digests.store.bulk import chunks, insert_new
from digests.store.models import InstallSecret, Paper, Topic, Vote, VoteOffer

_CHUNK = 500
_CHANNELS_PER_INSERT = 1_000
_OFFERS = VoteOffer.__table__


@dataclass(frozen=True)
class Offer:
    channel_id: int
    paper_id: int
    topic_id: int
    arxiv_id: str
    slug: str


@dataclass(frozen=True)
class Tally:
    up: int
    down: int


@dataclass(frozen=True)
class VotedPaper:
    paper_id: int
    arxiv_id: str
    slug: str
    tally: Tally


def install_secret(session: Session, name: str, make: Callable[[], str]) -> str:
    """The secret called `name`, made by `make()` and stored on first use. Replicas making it
    at once agree: the first insert wins and the others read it."""
    found = session.get(InstallSecret, name)
    if found is not None:
        return found.value
    try:
        with session.begin_nested():
            session.add(InstallSecret(name=name, value=make()))
    except IntegrityError:
        pass
    return session.get(InstallSecret, name, populate_existing=True).value


def offer_many(
    session: Session,
    shown: Sequence[tuple[int, Sequence[tuple[str, str]]]],
    *,
    key: Callable[[str, str], str],
    now: datetime,
) -> int:
    """Record that each channel of `shown` was shown its (arXiv id, topic slug) pairs with
    buttons whose key is `key(arxiv_id, slug)`, for any number of channels in a few
    statements; pairs offered before or unknown are skipped. Returns the offers recorded."""
    papers = _ids(session, Paper.arxiv_id, Paper.id, {a for _, pairs in shown for a, _ in pairs})
    topics = _ids(session, Topic.slug, Topic.id, {s for _, pairs in shown for _, s in pairs})
    # A pair offered before, or twice among these, is left out.
    statement = insert_new(session, _OFFERS, ["channel_id", "key"], _OFFERS.c.key)
    added = 0
    # In slices: a broadcast's offers (a million at 100,000 channels) never all in memory.
    for channels in chunks(shown, _CHANNELS_PER_INSERT):
        rows = [
            {
                "channel_id": channel_id,
                "key": key(arxiv_id, slug),
                "paper_id": papers[arxiv_id],
                "topic_id": topics[slug],
                "offered_at": now,
            }
            for channel_id, pairs in channels
            for arxiv_id, slug in pairs
            if arxiv_id in papers and slug in topics
        ]
        if rows:
            added += len(session.execute(statement, rows).all())
    return added


def _ids(session: Session, name_column, id_column, names: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for chunk in chunks(sorted(names), _CHUNK):
        rows = session.execute(select(name_column, id_column).where(name_column.in_(chunk)))
        found.update((name, row_id) for name, row_id in rows)
    return found


def find_offer(session: Session, channel_id: int, key: str) -> Offer | None:
    row = session.execute(
        select(VoteOffer.paper_id, VoteOffer.topic_id, Paper.arxiv_id, Topic.slug)
        .join(Paper, Paper.id == VoteOffer.paper_id)
        .join(Topic, Topic.id == VoteOffer.topic_id)
        .where(VoteOffer.channel_id == channel_id, VoteOffer.key == key)
    ).first()
    return None if row is None else Offer(channel_id, *row)


def current_vote(session: Session, offer: Offer, voter: str) -> int:
    """The voter's +1 or -1 on the offer's paper and topic, 0 for none."""
    found = session.get(Vote, (offer.channel_id, offer.paper_id, offer.topic_id, voter))
    return found.value if found is not None else 0


def set_vote(session: Session, offer: Offer, voter: str, value: int, *, now: datetime) -> None:
    """Store the voter's vote (+1 or -1), or withdraw it (0)."""
    key = (offer.channel_id, offer.paper_id, offer.topic_id, voter)
    found = session.get(Vote, key)
    if value == 0:
        if found is not None:
            session.delete(found)
    elif found is None:
        session.add(Vote(**dict(zip(_VOTE_KEY, key, strict=True)), value=value, voted_at=now))
    else:
        found.value, found.voted_at = value, now
    session.flush()


_VOTE_KEY = ("channel_id", "paper_id", "topic_id", "voter")


def tally(session: Session, offer: Offer) -> Tally:
    rows = dict(
        session.execute(
            select(Vote.value, func.count())
            .where(
                Vote.channel_id == offer.channel_id,
                Vote.paper_id == offer.paper_id,
                Vote.topic_id == offer.topic_id,
            )
            .group_by(Vote.value)
        ).all()
    )
    return Tally(up=rows.get(1, 0), down=rows.get(-1, 0))


def channel_tallies(session: Session, channel_id: int) -> list[VotedPaper]:
    """Every paper and topic the channel voted on, with its 👍 and 👎 counts."""
    rows = session.execute(
        select(
            Vote.paper_id,
            Paper.arxiv_id,
            Topic.slug,
            func.sum(func.abs(Vote.value) + Vote.value) / 2,  # the +1s
            func.sum(func.abs(Vote.value) - Vote.value) / 2,  # the -1s
        )
        .join(Paper, Paper.id == Vote.paper_id)
        .join(Topic, Topic.id == Vote.topic_id)
        .where(Vote.channel_id == channel_id)
        .group_by(Vote.paper_id, Paper.arxiv_id, Topic.slug)
    )
    return [
        VotedPaper(paper_id, arxiv_id, slug, Tally(int(up), int(down)))
        for paper_id, arxiv_id, slug, up, down in rows
    ]


def channels_with_votes(session: Session, channel_ids: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for chunk in chunks(sorted(set(channel_ids)), _CHUNK):
        query = select(Vote.channel_id).where(Vote.channel_id.in_(chunk)).distinct()
        found.update(session.execute(query).scalars())
    return found


def voted_papers(session: Session, paper_ids: Sequence[int]) -> dict[int, Paper]:
    found: dict[int, Paper] = {}
    for chunk in chunks(sorted(set(paper_ids)), _CHUNK):
        rows = session.execute(select(Paper).where(Paper.id.in_(chunk)))
        found.update((paper.id, paper) for paper in rows.scalars())
    return found


def topic_votes(session: Session, slug: str) -> list[tuple[Paper, int, int, int]]:
    """Every paper voted on under the topic, in any channel: (paper, 👍, 👎, channels)."""
    rows = session.execute(
        select(
            Vote.paper_id,
            func.sum(func.abs(Vote.value) + Vote.value) / 2,
            func.sum(func.abs(Vote.value) - Vote.value) / 2,
            func.count(func.distinct(Vote.channel_id)),
        )
        .join(Topic, Topic.id == Vote.topic_id)
        .where(Topic.slug == slug)
        .group_by(Vote.paper_id)
    ).all()
    papers = voted_papers(session, [row[0] for row in rows])
    return [
        (papers[paper_id], int(up), int(down), int(channels))
        for paper_id, up, down, channels in rows
        if paper_id in papers
    ]


def forget_channel(session: Session, channel_id: int) -> int:
    """Delete the channel's votes and offers (its old buttons stop working); the votes
    deleted."""
    deleted = session.execute(delete(Vote).where(Vote.channel_id == channel_id)).rowcount
    session.execute(delete(VoteOffer).where(VoteOffer.channel_id == channel_id))
    return deleted or 0
