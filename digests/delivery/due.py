"""Which digests are due now, derived from each channel's clock and the last period sent.

Nothing here is kept in memory between runs: given the schedules, the last period each channel
received and the time, the answer is the same after a restart, on any replica.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from itertools import repeat
from zoneinfo import ZoneInfo

DEFAULT_GRACE = timedelta(hours=24)
# Since 1900, every zone in the time zone database has kept within these offsets from UTC.
_FURTHEST_BEHIND, _FURTHEST_AHEAD = timedelta(hours=12), timedelta(hours=14)

Schedule = tuple[int, str, str]  # weekday (0 = Monday), "HH:MM" local, IANA zone name


@dataclass(frozen=True)
class Occurrence:
    """One scheduled digest: its period key, when it was due (UTC) and the days it covers."""

    kind: str  # weekly | daily
    key: str  # the local date it was due, e.g. "2026-09-28"
    due_at: datetime
    period_start: date
    period_end: date  # inclusive


@dataclass
class DueDecisions:
    send: list[tuple[int, Occurrence]]
    skip: list[tuple[int, Occurrence]]  # missed by more than the grace: recorded, not sent


@lru_cache(maxsize=4096)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@lru_cache(maxsize=2048)
def _time_of_day(at: str) -> time:
    hour, minute = (int(part) for part in at.split(":"))
    return time(hour, minute)


def last_occurrence(kind: str, weekday: int, at: str, zone_name: str, now: datetime) -> Occurrence:
    """The most recent scheduled time at or before `now` (a wall-clock time in the zone).

    Local wall-clock times follow DST: "Monday 09:00 Europe/Berlin" is 07:00 UTC in summer
    and 08:00 UTC in winter. A time skipped by a DST jump happens an hour later that day.
    """
    zone = _zone(zone_name)
    today = now.astimezone(zone).date()
    day, due_at = _latest(kind, weekday, _time_of_day(at), zone, today, now)
    step = 7 if kind == "weekly" else 1
    period_end = day - timedelta(days=1)
    return Occurrence(
        kind, day.isoformat(), due_at, period_end - timedelta(days=step - 1), period_end
    )


def period_keys(
    kind: str, schedules: Iterable[Schedule], now: datetime, *, since: datetime | None = None
) -> dict[Schedule, str]:
    """Each schedule's `last_occurrence` key, leaving out schedules last due before `since`.

    Tens of thousands of schedules share a few hundred zones, so each zone's local date is
    worked out once.
    """
    by_zone: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for weekday, at, zone_name in schedules:
        by_zone[zone_name].append((weekday, at))
    keys = {}
    for zone_name, clocks in by_zone.items():
        zone = _zone(zone_name)
        today = now.astimezone(zone).date()
        for weekday, at in clocks:
            day, due_at = _latest(kind, weekday, _time_of_day(at), zone, today, now)
            if since is None or due_at >= since:
                keys[(weekday, at, zone_name)] = day.isoformat()
    return keys


def weekdays_due_between(since: datetime, now: datetime) -> set[int]:
    """The weekdays of the weekly schedules that can fall between `since` and `now`, any zone.

    A schedule's local date is its UTC date shifted by at most the widest UTC offsets, so a
    query can leave out the other weekdays before any local time is worked out.
    """
    first = (since.astimezone(UTC) - _FURTHEST_BEHIND).date()
    last = (now.astimezone(UTC) + _FURTHEST_AHEAD).date()
    days = min((last - first).days + 1, 7)
    return {(first + timedelta(days=n)).weekday() for n in range(days)}


def _latest(
    kind: str, weekday: int, at: time, zone: ZoneInfo, today: date, now: datetime
) -> tuple[date, datetime]:
    """The local day and UTC instant of the latest occurrence; `today` is `now`'s local date."""
    step = 7 if kind == "weekly" else 1
    back = (today.weekday() - weekday) % 7 if kind == "weekly" else 0
    day = today - timedelta(days=back)
    due = datetime.combine(day, at, tzinfo=zone)
    if due > now:
        day -= timedelta(days=step)
        due = datetime.combine(day, at, tzinfo=zone)
    return day, _to_utc(due)


def _to_utc(moment: datetime) -> datetime:
    # A wall time inside a DST gap converts to the instant an hour later, as documented.
    return moment.astimezone(UTC)


def split_due(
    rows: Iterable[tuple[int, int]],
    schedules: Sequence[Schedule],
    *,
    kind: str,
    now: datetime,
    grace: timedelta = DEFAULT_GRACE,
) -> DueDecisions:
    """Split channels into those whose latest period is due now and those that missed it by
    more than `grace`; rows are (channel id, position of its schedule in `schedules`).

    Channels are grouped by schedule first, so 100,000 channels cost an append apiece and
    one occurrence and verdict per schedule.
    """
    ids_by_schedule: list[list[int]] = [[] for _ in schedules]
    for channel_id, position in rows:
        ids_by_schedule[position].append(channel_id)
    decisions = DueDecisions([], [])
    for schedule, ids in zip(schedules, ids_by_schedule, strict=True):
        if ids:
            occurrence = last_occurrence(kind, *schedule, now)
            late = now - occurrence.due_at > grace
            (decisions.skip if late else decisions.send).extend(zip(ids, repeat(occurrence)))
    return decisions
