"""Papers as the core sees them: one immutable record per arXiv paper version.

Parsers (feeds, JSON Lines) produce `PaperRecord`s; the store upserts them on the base id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

# New-style ids (0704.0001 onwards, 4 or 5 digit serial) and old-style archive ids (cs/0112017);
# both begin with the year and month the paper was first submitted.
_YYMM = r"\d\d(?:0[1-9]|1[0-2])"
_VERSION = r"(?:v(?P<version>\d+))?"
_NEW_ID = re.compile(rf"(?P<base>{_YYMM}\.\d{{4,5}}){_VERSION}")
_OLD_ID = re.compile(rf"(?P<base>[a-z][a-z\-]*(?:\.[A-Z]{{2}})?/{_YYMM}\d{{3}}){_VERSION}")
_PREFIXES = re.compile(r"^(?:https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/|oai:arxiv\.org:|arxiv:)",
                       re.IGNORECASE)

# An arXiv category id: an archive ("hep-ph", "cs") and maybe a subject class ("cs.LG",
# "cond-mat.mes-hall"). MSC and ACM class terms ("53D10, 53D15", "I.2.7") never match.
_CATEGORY_ID = re.compile(r"[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?")


class BadArxivId(ValueError):
    """Raised when a string does not contain an arXiv identifier."""


def parse_arxiv_id(raw: str) -> tuple[str, int | None]:
    """Split an arXiv identifier in any common spelling into (base id, version or None).

    Accepts `2605.12345`, `2605.12345v2`, `arXiv:2605.12345`, `oai:arXiv.org:2605.12345`,
    `http://arxiv.org/abs/2605.12345v1`, and old-style ids such as `cs/0112017v1`.
    """
    text = _PREFIXES.sub("", raw.strip()).removesuffix(".pdf")
    for pattern in (_NEW_ID, _OLD_ID):
        match = pattern.fullmatch(text)
        if match:
            version = match.group("version")
            return match.group("base"), int(version) if version else None
    raise BadArxivId(f"not an arXiv id: {raw[:80]!r}")


def id_month(arxiv_id: str) -> date:
    """The first day of the month an id was given in, the month its first version was submitted:
    May 2022 for `2205.06398`, May 2002 for `cs/0205017`."""
    digits = arxiv_id.rpartition("/")[2][:4] if "/" in arxiv_id else arxiv_id[:4]
    year, month = int(digits[:2]), int(digits[2:])
    # Old-style ids began in 1991; new-style ones in 2007.
    return date(1900 + year if year >= 91 else 2000 + year, month, 1)


def is_category_id(term: str) -> bool:
    """True for arXiv category ids ("cs.LG", "hep-ph"), false for MSC or ACM class terms."""
    return _CATEGORY_ID.fullmatch(term) is not None


def abs_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/abs/{arxiv_id}"


def pdf_url(arxiv_id: str) -> str:
    return f"https://arxiv.org/pdf/{arxiv_id}"


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are taken to be UTC; aware ones are converted to UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class PaperRecord:
    """One version of one paper, as read from a feed, the API or a file."""

    arxiv_id: str  # base id, without version
    version: int
    title: str
    abstract: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]  # the first one is the primary category
    published: datetime  # first-version date, UTC
    updated: datetime | None = None
    affiliations: tuple[str, ...] = ()
    comment: str | None = None
    doi: str | None = None
    journal_ref: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    # Tags given by an upstream system, by topic name or slug (JSON Lines import).
    upstream_topics: tuple[str, ...] = ()
    # A daily listing's item: how it was announced (new | cross | replace | replace-cross)
    # and when. Until `digests.papers.first_versions` dates them, a cross-list or replacement
    # carries the announcement as `published`, which need not be its first-version date.
    announce_type: str = ""
    announced: datetime | None = None

    @property
    def primary_category(self) -> str:
        return self.categories[0] if self.categories else ""

    @property
    def first_version_date(self) -> date:
        return self.published.date()

    @property
    def abs_url(self) -> str:
        return self.links.get("abs") or abs_url(self.arxiv_id)

    @property
    def pdf_url(self) -> str:
        return self.links.get("pdf") or pdf_url(self.arxiv_id)
