"""Where the pages are: a catalog topic's at `/topics/SLUG`, a follow filter's (a search, an
author, a category) at `/follows/SLUG` with the slug's colon quoted, and a digest's period as
`?from=YYYY-MM-DD&to=YYYY-MM-DD`. Digests link here and the pages link to each other from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import quote

from digests.errors import UsageError
from digests.follows.filters import is_filter_slug

# Longer than any digest's period (a month); a wider range is a page nobody needs.
LONGEST_PERIOD = timedelta(days=366)
# arXiv began in 1991; the pages' date arithmetic stays far from date.min and date.max.
FIRST_DAY, LAST_DAY = date(1991, 1, 1), date(9000, 12, 31)
_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class PeriodError(UsageError, ValueError):
    """A `from`/`to` pair that names no period; the message says what is accepted."""


@dataclass(frozen=True)
class Period:
    """The days start..end, both included, as a digest's period."""

    start: date
    end: date

    @property
    def query(self) -> str:
        return f"from={self.start.isoformat()}&to={self.end.isoformat()}"


def page_path(slug: str) -> str:
    """The page of a catalog topic or of a follow filter."""
    folder = "follows" if is_filter_slug(slug) else "topics"
    return f"/{folder}/{quote(slug, safe='')}"


def page_url(public_url: str, slug: str, period: Period | None = None) -> str:
    """The page's absolute address, showing `period`'s papers when one is given."""
    url = public_url.rstrip("/") + page_path(slug)
    return f"{url}?{period.query}" if period else url


def parse_period(start: str | None, end: str | None) -> Period | None:
    """The period `?from=…&to=…` names, None when neither is given; raises PeriodError."""
    if start is None and end is None:
        return None
    if start is None or end is None:
        raise PeriodError("A period needs both from= and to=.")
    if not (_ISO_DAY.fullmatch(start) and _ISO_DAY.fullmatch(end)):
        raise PeriodError("Dates are written YYYY-MM-DD, e.g. from=2026-09-21&to=2026-09-28.")
    try:
        period = Period(date.fromisoformat(start), date.fromisoformat(end))
    except ValueError:
        raise PeriodError("That date is not on the calendar.") from None
    if period.end < period.start:
        raise PeriodError("A period's from= comes before its to=.")
    if period.start < FIRST_DAY or period.end > LAST_DAY:
        raise PeriodError(f"A period lies between {FIRST_DAY.year} and {LAST_DAY.year}.")
    if period.end - period.start > LONGEST_PERIOD:
        raise PeriodError("A period is at most a year long.")
    return period
