"""The unit of work: one transaction, committed by its owner and by nobody else.

Storage functions read and write through the session they are given and never commit; the
caller decides how much work is one transaction by the block it opens here. Code that keeps one
session across several transactions (the dispatcher, a delivery at a time) opens each with
SQLAlchemy's own `with session.begin():`, which commits the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlmodel import Session

SessionFactory = Callable[[], Session]


@contextmanager
def unit_of_work(sessions: SessionFactory) -> Iterator[Session]:
    """A session whose work is committed when the block ends, and rolled back if it raises."""
    with sessions() as session:
        yield session
        session.commit()
