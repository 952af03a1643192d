"""Papers as the digest sees them, written out plainly for the core's tests."""

from __future__ import annotations

from datetime import date

from digests.messages.digest import DigestPaper


def paper(
    arxiv_id: str,
    scores: dict[str, float],
    *,
    title: str = "A paper",
    abstract: str = "We study it.",
    published: date = date(2026, 9, 25),
) -> DigestPaper:
    return DigestPaper(
        arxiv_id=arxiv_id,
        title=title,
        url=f"https://arxiv.org/abs/{arxiv_id}",
        authors=("Ada Lovelace",),
        published=published,
        primary_category="cs.LG",
        abstract=abstract,
        scores=scores,
    )
