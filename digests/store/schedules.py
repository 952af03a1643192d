"""Channels' digest schedules: the distinct schedules in use, and which channels of the current
ones have no delivery stored for their current period yet.

Each distinct schedule's current period is worked out by the caller, once, and the database
returns only the channels whose last stored period is older, so the cost follows the schedules
due and their channels, not all the channels that exist.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager

from sqlalchemy import (
    ARRAY,
    Column,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    MetaData,
    Row,
    Select,
    String,
    Table,
    and_,
    bindparam,
    cast,
    column,
    exists,
    func,
    literal_column,
    select,
)
from sqlmodel import Session

from digests.delivery.due import Schedule
from digests.store.models import Channel, Delivery, Follow


def schedules_in_use(session: Session, *, weekdays: Collection[int] | None = None) -> list[Row]:
    """Every distinct (weekday, time, zone), read from the schedule index alone (a few extra
    are harmless); only those on `weekdays` when given."""
    query = select(Channel.digest_weekday, Channel.digest_time, Channel.timezone).distinct()
    if weekdays is not None:
        query = query.where(Channel.digest_weekday.in_(weekdays))
    return session.connection().execute(query).all()


def channels_without_period(
    session: Session, keys: dict[Schedule, str], *, kind: str
) -> list[tuple[int, int, str]]:
    """(channel id, position of its schedule in `keys`, platform) of every live channel that
    follows a topic as `kind`, has one of these schedules, and no delivery of `kind` stored
    for the schedule's current period (`keys[schedule]`) or a later one."""
    connection = session.connection()
    with _current_periods(connection, keys) as current:
        return connection.execute(_not_stored_yet(current, kind)).all()


def weekly_schedule_counts(session: Session) -> list[tuple[int, str, str, int]]:
    """(weekday, time, zone, channels) of the live channels with a weekly follow."""
    return session.execute(
        select(Channel.digest_weekday, Channel.digest_time, Channel.timezone, func.count())
        .where(Channel.paused_reason.is_(None))
        .where(Channel.id.in_(select(Follow.channel_id).where(Follow.mode == "weekly")))
        .group_by(Channel.digest_weekday, Channel.digest_time, Channel.timezone)
    ).all()


def _not_stored_yet(current: FromClause, kind: str) -> Select:
    """Live channels of the current schedules without their period stored, following `kind`.

    The follow check runs last, on the few channels left: most channels of a due schedule
    have their period stored already, which one probe of the unique (channel, kind, period)
    index tells.
    """
    # Selecting an indexed column lets SQLite answer from the index alone.
    done = (
        select(Delivery.period_key)
        .where(
            Delivery.channel_id == Channel.id,
            Delivery.kind == kind,
            Delivery.period_key >= current.c.key,
        )
        .exists()
    )
    # Each channel comes back with its schedule's position in `keys`, not the schedule itself:
    # at 100,000 channels due, reading and hashing three strings apiece took a tenth of a second.
    pending = (
        select(Channel.id, current.c.position, Channel.platform)
        .join(
            current,
            and_(
                current.c.weekday == Channel.digest_weekday,
                current.c.at == Channel.digest_time,
                current.c.zone == Channel.timezone,
            ),
        )
        .where(Channel.paused_reason.is_(None), ~done)
        .cte("pending")
        # Else SQLite looks up the follows of every channel first; PostgreSQL needs no hint,
        # and would spill 100,000 due channels to disk to materialize them.
        .prefix_with("MATERIALIZED", dialect="sqlite")
    )
    following = exists().where(Follow.channel_id == pending.c.id, Follow.mode == kind)
    return select(pending).where(following)


@contextmanager
def _current_periods(connection: Connection, keys: dict[Schedule, str]) -> Iterator[FromClause]:
    """Each current schedule's period key, as rows (weekday, at, zone, key, position) to join
    channels on; `position` is the schedule's place in `keys`.

    PostgreSQL receives them as five arrays, one bound parameter each: no temporary table to
    create, fill and analyze on every tick, and no churn in its system catalogs. SQLite has no
    arrays; a temporary table costs little there, and it looks the key up per channel.
    """
    if connection.dialect.name != "postgresql":
        table = _period_table(connection, keys)
        yield table
        table.drop(connection)
        return
    # With no statistics on the arrays, PostgreSQL would rather sort every channel for a merge
    # join than probe the schedule index once per current schedule, which takes less time.
    connection.exec_driver_sql("SET LOCAL enable_mergejoin = off")
    yield _period_arrays(keys)
    connection.exec_driver_sql("SET LOCAL enable_mergejoin TO DEFAULT")  # rest of the transaction


def _period_arrays(keys: dict[Schedule, str]) -> FromClause:
    weekdays, ats, zones = zip(*keys, strict=True)
    return (
        func.unnest(
            cast(_array("weekdays", weekdays), ARRAY(Integer)),
            _array("ats", ats),
            _array("zones", zones),
            _array("keys", keys.values()),
            cast(_array("positions", range(len(keys))), ARRAY(Integer)),
        )
        .table_valued(
            column("weekday", Integer),
            column("at", String),
            column("zone", String),
            column("key", String),
            column("position", Integer),
        )
        .render_derived(name="current_period")
    )


def _array(name: str, values: Iterable[object]) -> ColumnElement:
    # Sent as one comma-separated text that the server splits: psycopg would quote a list of
    # strings one element at a time, in Python. No weekday, time, zone name or date has a comma.
    return func.string_to_array(bindparam(name, ",".join(map(str, values))), literal_column("','"))


def _period_table(connection: Connection, keys: dict[Schedule, str]) -> Table:
    table = Table(
        "current_period",
        MetaData(),
        Column("weekday", Integer, primary_key=True),
        Column("at", String(5), primary_key=True),
        Column("zone", String(64), primary_key=True),
        Column("key", String(64)),
        Column("position", Integer),
        prefixes=["TEMPORARY"],
        sqlite_with_rowid=False,  # the rows are their key
    )
    table.drop(connection, checkfirst=True)  # left over if the query failed
    table.create(connection)
    rows = [(*schedule, key, n) for n, (schedule, key) in enumerate(keys.items())]
    connection.exec_driver_sql("INSERT INTO current_period VALUES (?, ?, ?, ?, ?)", rows)
    return table
