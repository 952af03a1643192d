"""A channel's digest clock: weekday, local time and IANA timezone."""

from __future__ import annotations

import re
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from rapidfuzz import fuzz, process

from digests.errors import UsageError

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = re.compile(r"(?P<hour>\d{1,2}):(?P<minute>\d{2})")
USAGE = "Say /schedule WEEKDAY HH:MM [TIMEZONE], e.g. /schedule monday 09:00 Europe/Berlin."


class ScheduleError(UsageError, ValueError):
    """A schedule the user typed that cannot be used; the message says what to type."""


def parse_weekday(text: str) -> int:
    word = text.lower().strip()
    if len(word) >= 3:
        for number, name in enumerate(WEEKDAYS):
            if name.startswith(word):
                return number
    raise ScheduleError(f"“{text[:20]}” is not a weekday. {USAGE}")


def parse_time(text: str) -> str:
    match = _TIME.fullmatch(text.strip())
    if not match or int(match["hour"]) > 23 or int(match["minute"]) > 59:
        raise ScheduleError(f"“{text[:20]}” is not a time of day (00:00 to 23:59). {USAGE}")
    return f"{int(match['hour']):02d}:{match['minute']}"


def parse_timezone(text: str) -> str:
    name = text.strip()
    if name.upper() == "UTC":
        return "UTC"
    zones = _zones()
    exact = {zone.lower(): zone for zone in zones}.get(name.lower())
    if exact:
        return exact
    closest = ", ".join(suggest_timezones(name, limit=3))
    hint = f" Did you mean {closest}?" if closest else ""
    raise ScheduleError(
        f"“{name[:40]}” is not a timezone I know (use IANA names like Europe/Berlin).{hint}"
    )


def parse_schedule(argument: str) -> tuple[int, str, str]:
    """`monday 09:00 Europe/Berlin` → (0, "09:00", "Europe/Berlin"); timezone defaults to UTC."""
    parts = argument.split()
    if len(parts) not in (2, 3):
        raise ScheduleError(USAGE)
    zone = parse_timezone(parts[2]) if len(parts) == 3 else "UTC"
    return parse_weekday(parts[0]), parse_time(parts[1]), zone


def schedule_text(weekday: int, at: str, zone: str) -> str:
    return f"on {WEEKDAYS[weekday].title()}s at {at} ({zone})"


@cache
def _zones() -> tuple[str, ...]:
    zones = []
    for zone in sorted(available_timezones()):
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            continue
        zones.append(zone)
    return tuple(zones)


def suggest_timezones(query: str, limit: int = 25) -> list[str]:
    """IANA names for autocomplete: prefix and substring matches first, then fuzzy ones."""
    needle = query.strip().lower()[:64]
    zones = _zones()
    if not needle:
        return list(zones[:limit])
    direct = [z for z in zones if needle in z.lower()]
    direct.sort(key=lambda z: (not z.lower().startswith(needle), len(z), z))
    if len(direct) >= limit:
        return direct[:limit]
    fuzzy = process.extract(needle, zones, scorer=fuzz.WRatio, limit=limit, score_cutoff=60)
    for zone, _score, _index in fuzzy:
        if zone not in direct:
            direct.append(zone)
    return direct[:limit]
