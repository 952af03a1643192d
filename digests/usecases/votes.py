"""Votes on papers, decided here once for every platform.

Anyone in a chat may vote on any paper a digest or alert showed there, once per paper and
topic: pressing the other button changes the vote, pressing the same button again withdraws
it. The toast says which happened and the paper's count in this chat.

A paper is *off-topic* for a channel and topic once it has at least one 👎 and more 👎 than 👍;
from then on it leaves that channel's view of the topic (later digests and alerts). Once a
channel has `MIN_VOTED_PAPERS` papers with a clear verdict, liked and disliked both among them,
its digests are ranked by a model learnt from them (`digests.feedback.ranking`) and say so.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from digests.feedback.ranking import ChannelFeedback, train
from digests.messages.vote_keys import UP, parse_vote_data, vote_key
from digests.store import channels
from digests.store import votes as store
from digests.store.votes import Tally
from digests.usecases.reports import digest_paper

MIN_VOTED_PAPERS = 10
TRAINING_PAPERS = 2_000  # the most voted-on papers a channel's model learns from
SECRET_NAME = "voter-hmac"

NOT_MINE = "This button is not one of mine; nothing was counted."
NOT_HERE = (
    "That paper was not sent to this chat, or its votes were forgotten with /forget; "
    "nothing was counted."
)


@dataclass(frozen=True)
class Voter:
    """Who pressed a vote button, and where (the chat the button's message is in)."""

    platform: str
    chat_id: str
    user_id: str
    thread_id: str = ""


@dataclass(frozen=True)
class VoteAnswer:
    text: str  # the toast shown to the voter alone
    ok: bool = True


def is_off_topic(tally: Tally) -> bool:
    return tally.down >= 1 and tally.down > tally.up


def voter_hash(secret: str, platform: str, user_id: str) -> str:
    """The voter as stored: an HMAC of the platform's user id under the install's secret.

    A plain hash would not do: Telegram user ids are integers below about 10^10, so anyone
    holding the database could hash them all in minutes and recover every voter. Without the
    secret (kept in its own table, never exported) the stored value says nothing about who
    voted, yet the same person still maps to the same value, so a vote can be changed.
    """
    message = f"{platform}:{user_id}".encode()
    return hmac.new(bytes.fromhex(secret), message, hashlib.sha256).hexdigest()


def cast_vote(session: Session, voter: Voter, data: str, *, now: datetime) -> VoteAnswer:
    """Count, change or withdraw `voter`'s vote from a button's `data`."""
    parsed = parse_vote_data(data)
    if parsed is None:
        return VoteAnswer(NOT_MINE, ok=False)
    key, value = parsed
    channel = channels.find_channel(session, voter.platform, voter.chat_id, voter.thread_id)
    offer = store.find_offer(session, channel.id, key) if channel else None
    if offer is None:
        return VoteAnswer(NOT_HERE, ok=False)
    secret = store.install_secret(session, SECRET_NAME, lambda: secrets.token_hex(32))
    who = voter_hash(secret, voter.platform, voter.user_id)
    before = store.current_vote(session, offer, who)
    after = 0 if before == value else value
    store.set_vote(session, offer, who, after, now=now)
    return VoteAnswer(_toast(before, after, store.tally(session, offer)))


def _toast(before: int, after: int, tally: Tally) -> str:
    thumb = {UP: "👍", -UP: "👎"}
    if after == 0:
        said = f"Your {thumb[before]} is withdrawn."
    elif before == 0:
        said = f"{thumb[after]} counted; press it again to withdraw."
    else:
        said = f"Changed to {thumb[after]}."
    counts = f"Here: {tally.up} 👍, {tally.down} 👎"
    if is_off_topic(tally):
        counts += " — it leaves this topic in this chat's next digests"
    return f"{said} {counts}."


def channel_feedback(session: Session, channel_id: int) -> ChannelFeedback | None:
    """The channel's off-topic papers and, with enough votes, its model; None without votes."""
    voted = store.channel_tallies(session, channel_id)
    if not voted:
        return None
    hidden = frozenset((v.arxiv_id, v.slug) for v in voted if is_off_topic(v.tally))
    # A paper's verdict over all its topics here: liked when its 👍 outnumber its 👎.
    net: dict[int, int] = {}
    counted: dict[int, int] = {}
    for v in voted:
        net[v.paper_id] = net.get(v.paper_id, 0) + v.tally.up - v.tally.down
        counted[v.paper_id] = counted.get(v.paper_id, 0) + v.tally.up + v.tally.down
    clear = sorted((p for p in net if net[p]), key=counted.__getitem__, reverse=True)
    clear = clear[:TRAINING_PAPERS]
    liked = {p for p in clear if net[p] > 0}
    model = None
    if len(clear) >= MIN_VOTED_PAPERS and 0 < len(liked) < len(clear):
        papers = store.voted_papers(session, clear)
        examples = [(digest_paper(papers[p], {}), p in liked) for p in clear if p in papers]
        model = train(examples)
    votes = sum(counted[p] for p in clear) if model else 0
    return ChannelFeedback(hidden, model, votes)


def feedback_of_channels(
    session: Session, channel_ids: Iterable[int]
) -> dict[int, ChannelFeedback]:
    """`channel_feedback` of the channels that voted among `channel_ids`, in one query for the
    many that did not."""
    voted = store.channels_with_votes(session, list(channel_ids))
    found = {channel_id: channel_feedback(session, channel_id) for channel_id in sorted(voted)}
    return {channel_id: seen for channel_id, seen in found.items() if seen is not None}


def forget(session: Session, channel_id: int) -> int:
    """Delete every vote of the channel (and its buttons' offers); how many votes."""
    return store.forget_channel(session, channel_id)


def offer_many(
    session: Session,
    shown: Sequence[tuple[int, Sequence[tuple[str, str]]]],
    *,
    now: datetime,
) -> int:
    """Record the (arXiv id, topic slug) pairs deliveries show with vote buttons, as (channel
    id, pairs), for any number of channels in a few statements."""
    return store.offer_many(session, shown, key=vote_key, now=now)
