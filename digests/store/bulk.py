"""Many rows at once: items in chunks (an IN list or a batch of rows stays bounded), an
INSERT that leaves out the rows a unique key already holds, and INSERTs of many rows through
the driver (`insert_rows`, `insert_returning`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

from sqlalchemy import JSON, Column, Table, insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.dml import Insert
from sqlmodel import Session

T = TypeVar("T")


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last one shorter), read lazily."""
    items = iter(items)
    while chunk := list(itertools.islice(items, size)):
        yield chunk


def insert_new(session: Session, table: Table, unique: list[str], *returning: Column) -> Insert:
    """An INSERT into `table` for the session's database that leaves out every row whose
    `unique` columns a stored row holds already (or a row before it in the same statement),
    and returns `returning` of the rows it wrote: a many-row insert's rowcount is not known
    on PostgreSQL. Of the table, not the ORM class, which would send a statement per row."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(table).on_conflict_do_nothing(index_elements=unique).returning(*returning)


# Rows per multi-row INSERT on SQLite: 500 papers' 18 values stay far below its variable limit.
_ROWS_PER_STATEMENT = 500


def insert_rows(
    session: Session, table: Table, columns: Sequence[str], rows: Iterable[Sequence]
) -> None:
    """INSERT `rows` (values in the order of `columns`) through the driver's executemany on
    the session's connection. Each value is converted by its column type's own bind
    processor, so the database stores what a Core INSERT would store; SQLAlchemy's handling
    of every row's parameters, which cost more than the database's work, is left out."""
    connection = session.connection()
    compiled = insert(table).compile(dialect=connection.dialect, column_keys=list(columns))
    values = _bound(connection.dialect, table, columns, rows)
    if compiled.positional:
        order = [list(columns).index(name) for name in compiled.positiontup]
        in_order = order == list(range(len(columns)))
        params = values if in_order else [tuple(row[i] for i in order) for row in values]
    else:
        params = [dict(zip(columns, row, strict=True)) for row in values]
    if params:
        connection.exec_driver_sql(compiled.string, params)


def insert_returning(
    session: Session,
    table: Table,
    columns: Sequence[str],
    rows: Sequence[Sequence],
    returning: Sequence[str],
) -> list[tuple]:
    """INSERT `rows` as `insert_rows` does and return `returning` of each row written.

    On SQLite, in multi-row statements written here: a statement per row would also write
    the full-text index (filled by a trigger) once per row, twice its cost. Elsewhere it is
    SQLAlchemy's own many-row INSERT … RETURNING."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        statement = insert(table).returning(*(table.c[name] for name in returning))
        found = session.execute(statement, [dict(zip(columns, row, strict=True)) for row in rows])
        return [tuple(row) for row in found]
    quote = connection.dialect.identifier_preparer.quote
    head = f"INSERT INTO {quote(table.name)} ({', '.join(map(quote, columns))}) VALUES "
    group = f"({', '.join('?' * len(columns))})"
    tail = f" RETURNING {', '.join(map(quote, returning))}"
    found = []
    for batch in chunks(_bound(connection.dialect, table, columns, rows), _ROWS_PER_STATEMENT):
        sql = head + ", ".join([group] * len(batch)) + tail
        flat = [value for row in batch for value in row]
        found += connection.exec_driver_sql(sql, tuple(flat)).all()
    return [tuple(row) for row in found]


def _bound(
    dialect: Dialect, table: Table, columns: Sequence[str], rows: Iterable[Sequence]
) -> list[tuple]:
    """`rows` with each value as the driver takes it, converted column by column."""
    by_column = list(zip(*rows, strict=True)) or [() for _ in columns]
    converted = []
    for name, values in zip(columns, by_column, strict=True):
        kind = table.c[name].type
        process = kind.dialect_impl(dialect).bind_processor(dialect)
        if process is not None and not isinstance(kind, JSON):
            process = _memoized(process)  # dates and times repeat across a batch's rows
        converted.append(values if process is None else list(map(process, values)))
    return list(zip(*converted, strict=True))


def _memoized(process: Callable) -> Callable:
    cache: dict = {}

    def convert(value):
        key = (type(value), value)
        if key not in cache:
            cache[key] = process(value)
        return cache[key]

    return convert
