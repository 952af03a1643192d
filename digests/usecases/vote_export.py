"""Readers' votes as gold-set lines, so that after review they can become tagging labels.

One JSON line per paper voted on under the topic, in the format of `tests/data/gold/` that
`digestbot eval` reads (`digests.topics.evaluation.load_gold`): the paper's `id`, `title`,
`abstract`, `categories`, `published`, its `split` (from its id, as the gold set's), and
`labels` with the topic's verdict: `yes` when its 👍 outnumber its 👎 over every channel, `no`
when the 👎 do (the off-topic rule, summed), else `borderline`. `votes` keeps the counts for
the reviewer; voters are never exported, not even hashed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from sqlmodel import Session

from digests.store import votes as store

DEV_SHARE = 6  # of 10, as the gold set's split (scripts/gold_pool.py)


def split_of(arxiv_id: str) -> str:
    return "dev" if hashlib.sha256(arxiv_id.encode()).digest()[0] % 10 < DEV_SHARE else "test"


def verdict(up: int, down: int) -> str:
    if up > down:
        return "yes"
    return "no" if down > up else "borderline"


def gold_lines(session: Session, slug: str) -> Iterator[dict]:
    """The topic's voted papers as gold-set rows, by arXiv id."""
    for paper, up, down, channels in sorted(store.topic_votes(session, slug), key=_by_id):
        yield {
            "id": paper.arxiv_id,
            "title": paper.title,
            "abstract": paper.abstract,
            "categories": list(paper.categories),
            "published": paper.published_on.isoformat(),
            "split": split_of(paper.arxiv_id),
            "labels": {slug: verdict(up, down)},
            "votes": {"up": up, "down": down, "channels": channels},
        }


def _by_id(row: tuple) -> str:
    return row[0].arxiv_id
