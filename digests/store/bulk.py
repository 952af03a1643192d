"""Many rows at once: items in chunks (an IN list or a batch of rows stays bounded), and an
INSERT that leaves out the rows a unique key already holds."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TypeVar

from sqlalchemy import Column, Table
from sqlalchemy.dialects import postgresql, sqlite
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
