"""Which channels the leader plans digests for, read from the database on each tick."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from digests.store import channels, deliveries
from digests.store.models import Topic
from digests.usecases.digest_planning import due_channels, record_skipped

MONDAY = datetime(2026, 9, 28, 9, 5, tzinfo=UTC)
# Europe moved its clocks forward the day before; Kiritimati (UTC+14) is already on Tuesday,
# and two days earlier, Pago Pago (UTC-11) was still on Friday.
AFTER_EUROPE_SPRING_FORWARD = datetime(2026, 3, 30, 10, 30, tzinfo=UTC)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def setup(engine, specs) -> dict[str, int]:
    """specs: name -> (platform, mode, weekday, time, zone, paused)."""
    ids = {}
    with Session(engine) as session:
        topic = Topic(slug="rl", name="RL")
        session.add(topic)
        session.flush()
        for name, (platform, mode, weekday, at, zone, paused) in specs.items():
            channel = channels.get_or_create_channel(
                session, platform=platform, chat_id=name, now=MONDAY - timedelta(days=30)
            )
            channel.digest_weekday, channel.digest_time, channel.timezone = weekday, at, zone
            channels.follow(session, channel, topic.id, now=MONDAY - timedelta(days=30), mode=mode)
            if paused:
                channels.pause(session, channel.id, "blocked", now=MONDAY)
            ids[name] = channel.id
        session.commit()
    return ids


def due_names(engine, ids, **kwargs) -> tuple[list[str], list[str]]:
    names = {channel_id: name for name, channel_id in ids.items()}
    with Session(engine) as session:
        decisions = due_channels(session, platforms=["telegram", "discord"], **kwargs)
    return (
        sorted(names[c] for c, _ in decisions.send),
        sorted(names[c] for c, _ in decisions.skip),
    )


def test_only_live_channels_of_the_right_mode_platform_and_time_are_due(engine):
    ids = setup(
        engine,
        {
            "utc-monday": ("telegram", "weekly", 0, "09:00", "UTC", False),
            "tokyo-monday": ("discord", "weekly", 0, "09:00", "Asia/Tokyo", False),  # 00:00 UTC
            "berlin-tuesday": ("telegram", "weekly", 1, "09:00", "Europe/Berlin", False),
            "paused": ("telegram", "weekly", 0, "09:00", "UTC", True),
            "daily-only": ("telegram", "daily", 0, "09:00", "UTC", False),
            "terminal": ("terminal", "weekly", 0, "09:00", "UTC", False),
        },
    )
    send, skip = due_names(engine, ids, kind="weekly", now=MONDAY)
    assert send == ["tokyo-monday", "utc-monday"]
    assert skip == ["berlin-tuesday"]  # last Tuesday is more than a day ago: recorded, not sent


MONDAY_AT_9 = {
    "utc": ("telegram", "weekly", 0, "09:00", "UTC", False),
    "berlin": ("telegram", "weekly", 0, "09:00", "Europe/Berlin", False),
}


def store_periods(engine, ids, last_keys) -> None:
    """The period each channel last had stored, as the dispatcher leaves it."""
    with Session(engine) as session:
        for name, key in last_keys.items():
            deliveries.enqueue(
                session, channel_id=ids[name], kind="weekly", period_key=key, parts=[], now=MONDAY
            )
        session.commit()


@pytest.mark.parametrize(
    ("now", "last_keys", "send", "skip"),
    [
        # On time: both due.
        (utc(2026, 9, 28, 9, 1), {}, ["berlin", "utc"], []),
        # Already sent this period: nothing (a restart sends nothing twice).
        (utc(2026, 9, 28, 9, 1), {"utc": "2026-09-28", "berlin": "2026-09-28"}, [], []),
        # Down for 20 hours: sent late, within the 24 h grace.
        (utc(2026, 9, 29, 5), {"utc": "2026-09-21", "berlin": "2026-09-21"}, ["berlin", "utc"], []),
        # Down for two days: skipped and recorded, not sent.
        (utc(2026, 9, 30, 12), {"utc": "2026-09-21"}, [], ["berlin", "utc"]),
        # Before Monday's time: last week's period was sent, nothing due.
        (utc(2026, 9, 28, 6), {"utc": "2026-09-21", "berlin": "2026-09-21"}, [], []),
    ],
)
def test_due_decisions_come_from_the_last_period_sent(engine, now, last_keys, send, skip):
    ids = setup(engine, MONDAY_AT_9)
    store_periods(engine, ids, last_keys)
    assert due_names(engine, ids, kind="weekly", now=now) == (send, skip)


def test_the_grace_window_is_a_setting(engine):
    ids = setup(engine, {"utc": MONDAY_AT_9["utc"]})
    now = utc(2026, 9, 28, 12)
    assert due_names(engine, ids, kind="weekly", now=now, grace=timedelta(hours=1)) == (
        [],
        ["utc"],
    )


def test_a_period_recorded_once_is_never_due_again(engine):
    ids = setup(
        engine,
        {
            "utc-monday": ("telegram", "weekly", 0, "09:00", "UTC", False),
            "berlin-tuesday": ("telegram", "weekly", 1, "09:00", "Europe/Berlin", False),
        },
    )
    with Session(engine) as session:
        decisions = due_channels(session, kind="weekly", platforms=["telegram"], now=MONDAY)
        record_skipped(session, decisions.send + decisions.skip, now=MONDAY)
        session.commit()
    assert due_names(engine, ids, kind="weekly", now=MONDAY + timedelta(hours=1)) == ([], [])
    # A week later the Monday channel is due again; Tuesday's newer period was missed.
    next_week = MONDAY + timedelta(days=7, hours=1)
    assert due_names(engine, ids, kind="weekly", now=next_week) == (
        ["utc-monday"],
        ["berlin-tuesday"],
    )


def test_a_horizon_leaves_out_schedules_handled_by_earlier_ticks(engine):
    ids = setup(
        engine,
        {
            "utc-monday": ("telegram", "weekly", 0, "09:00", "UTC", False),
            "utc-friday": ("telegram", "weekly", 4, "09:00", "UTC", False),
        },
    )
    recent = due_names(engine, ids, kind="weekly", now=MONDAY, horizon=timedelta(hours=48))
    everything = due_names(engine, ids, kind="weekly", now=MONDAY)
    assert recent == (["utc-monday"], [])
    assert everything == (["utc-monday"], ["utc-friday"])


def test_every_zone_finds_its_channels_due_within_the_horizon(engine):
    now = AFTER_EUROPE_SPRING_FORWARD
    ids = setup(
        engine,
        {
            "kiritimati-tuesday": ("telegram", "weekly", 1, "00:15", "Pacific/Kiritimati", False),
            "pago-pago-friday-late": ("discord", "weekly", 4, "23:45", "Pacific/Pago_Pago", False),
            "pago-pago-friday": ("telegram", "weekly", 4, "23:00", "Pacific/Pago_Pago", False),
            "berlin-monday-noon": ("telegram", "weekly", 0, "12:00", "Europe/Berlin", False),
            "berlin-sunday-gap": ("discord", "weekly", 6, "02:30", "Europe/Berlin", False),
            "utc-thursday": ("telegram", "weekly", 3, "09:00", "UTC", False),
            "paused": ("telegram", "weekly", 1, "00:15", "Pacific/Kiritimati", True),
            "daily-only": ("telegram", "daily", 1, "00:15", "Pacific/Kiritimati", False),
            "already-sent": ("discord", "weekly", 0, "12:00", "Europe/Berlin", False),
        },
    )
    with Session(engine) as session:
        deliveries.enqueue(
            session,
            channel_id=ids["already-sent"],
            kind="weekly",
            period_key="2026-03-30",
            parts=[],
            now=now,
        )
        session.commit()
    recent = due_names(engine, ids, kind="weekly", now=now, horizon=timedelta(hours=48))
    everything = due_names(engine, ids, kind="weekly", now=now)
    # Sent: Tuesday 00:15 in Kiritimati was 15 minutes ago; Monday noon in Berlin, summer time
    # now, was 10:00 UTC. Skipped: Friday 23:45 in Pago Pago was 47 h 45 min ago; Sunday 02:30
    # in Berlin did not exist, so it was 03:30, 33 h ago.
    assert recent == (
        ["berlin-monday-noon", "kiritimati-tuesday"],
        ["berlin-sunday-gap", "pago-pago-friday-late"],
    )
    # Friday 23:00 in Pago Pago (48 h 30 min ago) and Thursday are older than the horizon.
    assert everything == (
        ["berlin-monday-noon", "kiritimati-tuesday"],
        ["berlin-sunday-gap", "pago-pago-friday", "pago-pago-friday-late", "utc-thursday"],
    )
