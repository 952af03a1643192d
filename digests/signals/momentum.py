"""Topic momentum: how many papers a topic got in the last four weeks and how that compares.

The wording mirrors a research site's topic page:
"70 papers in the last four weeks, up 141% on the four weeks before. 0.7% of all new papers."

Everything is computed from per-day counts keyed by first-version date, so each topic costs a
fixed number of dictionary look-ups, whatever the size of the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

WINDOW_DAYS = 28
# A topic is rising (/trending, the topic index) with this many papers and a positive change.
RISING_FLOOR = 5
HISTOGRAM_WEEKS = 12
WEEK_DAYS = 7
# compute_momentum reads both 28-day windows out of the histogram's days.
assert HISTOGRAM_WEEKS * WEEK_DAYS >= 2 * WINDOW_DAYS

# Locale-independent month names: strftime("%b") would follow the process locale.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_BLOCKS = "▁▂▃▄▅▆▇█"
_BAR = "█"


@dataclass(frozen=True)
class WeekCount:
    start: date  # first day of the 7-day bucket
    end: date  # last day, inclusive
    count: int

    def to_json(self) -> dict:
        return {"start": self.start.isoformat(), "end": self.end.isoformat(), "count": self.count}


@dataclass(frozen=True)
class Momentum:
    topic: str  # display name
    as_of: date
    count: int  # last 28 days
    previous: int  # the 28 days before
    total: int  # all new papers, last 28 days: the share's denominator
    previous_total: int  # all new papers, the 28 days before
    change_pct: int | None  # None when previous == 0
    share_pct: float | None  # one decimal; None when no papers at all in the window
    line: str
    weekly: tuple[WeekCount, ...]  # HISTOGRAM_WEEKS buckets, oldest first

    @property
    def rising(self) -> bool:
        return self.count >= RISING_FLOOR and (self.change_pct or 0) > 0

    def to_json(self) -> dict:
        return {
            "topic": self.topic,
            "as_of": self.as_of.isoformat(),
            "count": self.count,
            "previous": self.previous,
            "total": self.total,
            "previous_total": self.previous_total,
            "change_pct": self.change_pct,
            "share_pct": self.share_pct,
            "line": self.line,
            "weekly": [week.to_json() for week in self.weekly],
        }


def window_bounds(as_of: date) -> tuple[date, date, date, date]:
    """(current_start, current_end, previous_start, previous_end), all inclusive."""
    current_start = as_of - timedelta(days=WINDOW_DAYS - 1)
    previous_end = current_start - timedelta(days=1)
    previous_start = previous_end - timedelta(days=WINDOW_DAYS - 1)
    return current_start, as_of, previous_start, previous_end


def histogram_start(as_of: date) -> date:
    """First day of the oldest weekly bucket; the newest bucket ends on `as_of`."""
    return as_of - timedelta(days=HISTOGRAM_WEEKS * WEEK_DAYS - 1)


def compute_momentum(
    topic: str,
    daily_counts: Mapping[date, int],
    daily_totals: Mapping[date, int],
    as_of: date,
) -> Momentum:
    """Momentum of one topic as of a day, from per-day paper counts (days outside are ignored)."""
    if isinstance(as_of, datetime):
        # Date-keyed look-ups would silently miss every day.
        raise TypeError("as_of must be a date, not a datetime")
    # One look-up per histogram day; both 28-day windows lie inside the 12 weeks.
    days = _histogram_days(as_of)
    per_day = [daily_counts.get(day, 0) for day in days]
    count = sum(per_day[-WINDOW_DAYS:])
    previous = sum(per_day[-2 * WINDOW_DAYS : -WINDOW_DAYS])
    all_per_day = [daily_totals.get(day, 0) for day in days[-2 * WINDOW_DAYS :]]
    total, previous_total = sum(all_per_day[WINDOW_DAYS:]), sum(all_per_day[:WINDOW_DAYS])
    change_pct = round_half_up((count - previous) * 100, previous) if previous else None
    share_pct = round_half_up(count * 1000, total) / 10 if total else None
    return Momentum(
        topic=topic,
        as_of=as_of,
        count=count,
        previous=previous,
        total=total,
        previous_total=previous_total,
        change_pct=change_pct,
        share_pct=share_pct,
        line=momentum_line(count, previous, share_pct),
        weekly=_weeks(days, per_day),
    )


def momentum_line(count: int, previous: int, share_pct: float | None) -> str:
    if count == 0 and previous == 0:
        return "No papers in the last four weeks or the four weeks before."
    head = "No papers" if count == 0 else papers_text(count)
    line = f"{head} in the last four weeks, {_comparison(count, previous)}."
    if count > 0 and share_pct is not None:
        line += f" {share_text(share_pct)} of all new papers."
    return line


def sparkline(counts: Sequence[int]) -> str:
    """One block per count, scaled to the largest; any non-zero count rises above the floor."""
    top = max(counts, default=0)
    return "".join(_BLOCKS[_scaled(count, top, len(_BLOCKS) - 1)] for count in counts)


def histogram_lines(weekly: Sequence[WeekCount], width: int = 30) -> list[str]:
    """A text bar chart, one aligned line per week: "Sep 01 ███████████     23"."""
    width = max(width, 1)
    top = max((week.count for week in weekly), default=0)
    digits = max((len(f"{week.count:,}") for week in weekly), default=1)
    return [
        f"{short_date(week.start)} {_BAR * _scaled(week.count, top, width):<{width}}"
        f"  {week.count:>{digits},}"
        for week in weekly
    ]


def short_date(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day:02d}"


@lru_cache(maxsize=16)
def _histogram_days(as_of: date) -> tuple[date, ...]:
    """The 12 weeks of days ending on `as_of`, oldest first; cached, as every topic uses them."""
    first = histogram_start(as_of)
    return tuple(first + timedelta(days=offset) for offset in range(HISTOGRAM_WEEKS * WEEK_DAYS))


def _weeks(days: Sequence[date], per_day: Sequence[int]) -> tuple[WeekCount, ...]:
    return tuple(
        WeekCount(days[i], days[i + WEEK_DAYS - 1], sum(per_day[i : i + WEEK_DAYS]))
        for i in range(0, len(days), WEEK_DAYS)
    )


def round_half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator to a whole number, halves away from zero (not banker's).

    Away from zero keeps "up" and "down" symmetric: +12.5% and -12.5% both show as 13%.
    """
    quotient, remainder = divmod(abs(numerator), denominator)
    if 2 * remainder >= denominator:
        quotient += 1
    return quotient if numerator >= 0 else -quotient


def _scaled(count: int, top: int, steps: int) -> int:
    if count <= 0 or top <= 0:
        return 0
    return max(1, round_half_up(count * steps, top))


def papers_text(count: int) -> str:
    """"1 paper", "70 papers", "1,234 papers"."""
    return f"{count:,} paper" if count == 1 else f"{count:,} papers"


def _comparison(count: int, previous: int) -> str:
    if previous == 0:
        return "none in the four weeks before"
    if count == previous:
        return "unchanged on the four weeks before"
    pct = round_half_up(abs(count - previous) * 100, previous)
    direction = "up" if count > previous else "down"
    # A real but tiny change should not read as "up 0%".
    amount = f"{pct:,}%" if pct else "<1%"
    return f"{direction} {amount} on the four weeks before"


def share_text(share_pct: float) -> str:
    """A share of all new papers to one decimal, "0.7%"; "<0.1%" for one that rounds to 0."""
    tenths = Decimal(str(share_pct)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    # Only called for a topic with papers, so 0.0 means "some, but under 0.05%".
    return "<0.1%" if tenths == 0 else f"{tenths:,}%"
