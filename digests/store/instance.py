"""One running bot per instance name and database, held for the life of the process.

SQLite serves one `digestbot run` per file: the run holds an exclusive lock on a file beside
the database. On PostgreSQL each replica holds a session-level advisory lock named after its
INSTANCE_NAME, so two replicas can never share a name (they would both take the scheduler
lease and each other's deliveries). The operating system or the database server drops either
lock when the process dies, so a restart after a crash starts at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import os
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path

from sqlalchemy import Engine, text

from digests.errors import Unavailable


class InstanceInUse(Unavailable, RuntimeError):
    """Another live process holds this database (SQLite) or this instance name; one line."""


@contextmanager
def hold_instance(
    engine: Engine,
    name: str,
    *,
    patience: float = 3.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[None]:
    """Hold the lock for `name` on this database while the block runs. A lock still held is
    asked for again for `patience` seconds (a server may take a moment to notice that the
    last holder died), then InstanceInUse."""
    if engine.dialect.name == "sqlite" and engine.url.database in (None, "", ":memory:"):
        yield
        return
    held = ExitStack()
    for waited in itertools.count():
        try:
            held.enter_context(_lock(engine, name))
            break
        except InstanceInUse:
            if waited >= patience:
                raise
        sleep(1.0)
    with held:
        yield


def _lock(engine: Engine, name: str) -> AbstractContextManager[None]:
    if engine.dialect.name == "sqlite":
        return _file_lock(Path(engine.url.database).expanduser())
    return _advisory_lock(engine, name)


@contextmanager
def _file_lock(database: Path) -> Iterator[None]:
    """The database file itself is locked, so a symlink or a hard link to it is the same lock;
    the `.lock` file beside its real path tells the process id."""
    real = database.resolve()
    with ExitStack() as held:
        pid_file = held.enter_context(_locked(real.with_name(real.name + ".lock"), database))
        held.enter_context(_locked(real, database))
        os.ftruncate(pid_file, 0)
        os.pwrite(pid_file, f"{os.getpid()}\n".encode(), 0)
        yield


@contextmanager
def _locked(path: Path, database: Path) -> Iterator[int]:
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(path.with_name(path.name.removesuffix(".lock") + ".lock"))
            raise InstanceInUse(
                f"another digestbot run (pid {holder}) is using {database}; SQLite serves one "
                "process: stop that one first, or use PostgreSQL for several replicas"
            ) from None
        yield handle
    finally:
        os.close(handle)  # closing drops the lock


def _holder(pid_file: Path) -> str:
    try:
        return pid_file.read_text(errors="replace").strip()[:32] or "?"
    except OSError:
        return "?"


@contextmanager
def _advisory_lock(engine: Engine, name: str) -> Iterator[None]:
    key = int.from_bytes(hashlib.sha256(f"digestbot:{name}".encode()).digest()[:8], signed=True)
    with engine.connect() as connection:  # kept for the lock's life: the lock is the session's
        taken = connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key})
        held = bool(taken.scalar_one())
        connection.commit()
        if not held:
            raise InstanceInUse(
                f"INSTANCE_NAME {name!r} is in use by another running digestbot on this "
                "database; give each replica its own INSTANCE_NAME"
            )
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            connection.commit()
