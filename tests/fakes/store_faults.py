"""A store whose disk stops taking writes, for the tests of what digestbot does then."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, event


@contextmanager
def read_only(engine: Engine) -> Iterator[None]:
    """Every new connection refuses writes, as a store on a full or read-only disk does."""

    def refuse_writes(connection, _record) -> None:
        if engine.dialect.name == "sqlite":
            connection.execute("PRAGMA query_only = ON")
            return
        connection.autocommit = True  # a SET inside a transaction is undone by its rollback
        connection.execute("SET default_transaction_read_only = on")
        connection.autocommit = False

    engine.dispose()
    event.listen(engine, "connect", refuse_writes)
    try:
        yield
    finally:
        event.remove(engine, "connect", refuse_writes)
        engine.dispose()
