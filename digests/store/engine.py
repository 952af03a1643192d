"""Opening the database: one engine per process, SQLite in WAL mode or PostgreSQL by URL alone."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError, SQLAlchemyError

from digests.errors import Unavailable

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
SQLITE_BUSY_MS = 10_000  # how long a statement waits for another process's write
SQLITE_MIGRATION_WAIT_MS = 30 * 60 * 1000
LOCK_SPACE = 0x64676274  # "dgbt": digestbot's PostgreSQL advisory locks taken with two keys


class DatabaseUnavailable(Unavailable, RuntimeError):
    """The database URL is malformed or the server cannot be reached; the message is one line."""


def _enable_sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.close()


def open_engine(database_url: str, *, create: bool = True) -> Engine:
    """Create an engine and check that the database answers; a SQLite file that does not
    exist is created, or with `create=False` refused (a command that only reads).

    Raises DatabaseUnavailable with a short reason on a bad URL or an unreachable server.
    """
    try:
        url = make_url(database_url)
    except ArgumentError as exc:
        raise DatabaseUnavailable(f"DATABASE_URL is not a valid database URL: {exc}") from None
    if url.drivername == "postgresql" or url.drivername == "postgres":
        url = url.set(drivername="postgresql+psycopg")
    kwargs: dict = {}
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            path = Path(url.database).expanduser()
            if create:
                _make_parent(path)
            else:
                _refuse_missing(path)
        kwargs["connect_args"] = {"timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
        kwargs["connect_args"] = {"connect_timeout": 10}
    try:
        # Errors never quote the rows they were writing: papers are long, settings secret.
        engine = create_engine(url, hide_parameters=True, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise DatabaseUnavailable(f"DATABASE_URL is not usable: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _enable_sqlite_pragmas)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except (OperationalError, SQLAlchemyError, OSError) as exc:
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc) else type(exc)
        raise DatabaseUnavailable(
            f"cannot reach the database at {url.render_as_string(hide_password=True)}: {reason}"
        ) from None
    return engine


def _refuse_missing(path: Path) -> None:
    if path.exists():
        return
    missing = "the folder" if not path.parent.is_dir() else "the file"
    where = path.parent if not path.parent.is_dir() else path
    raise DatabaseUnavailable(
        f"no database at {path}: {missing} {where} does not exist (`digestbot db upgrade` or "
        "`digestbot run` creates it); check DATABASE_URL"
    )


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseUnavailable(
            f"cannot create the folder for the SQLite file {path}: {exc.strerror or exc}"
        ) from None


def upgrade_schema(engine: Engine) -> str:
    """Apply every Alembic migration up to head; returns the revision now in force.

    Processes starting together (replicas, a release step) take turns: the first migrates,
    the others then find the schema at head and change nothing."""
    head = newest_migration()
    if _current_revision(engine) == head:
        return head  # the usual start: Alembic (11 MiB of modules) is not even loaded
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as connection:
        try:
            with connection.begin():
                _take_migration_lock(connection)
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
        finally:
            if connection.dialect.name == "sqlite":  # back to the pool with the usual wait
                connection.exec_driver_sql(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        return MigrationContext.configure(connection).get_current_revision() or ""


def newest_migration() -> str:
    """The head revision: migration files are named after their revision ("0002_...")."""
    return max(path.name.split("_", 1)[0] for path in (MIGRATIONS_DIR / "versions").glob("*.py"))


def _current_revision(engine: Engine) -> str | None:
    """The revision the database is at; None for a new database."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def _take_migration_lock(connection: Connection) -> None:
    """Held until the migration's transaction ends, so a waiting process sees its result."""
    if connection.dialect.name == "postgresql":
        # The two-key form: a key space of its own, apart from the instance locks' one key.
        connection.execute(text("SELECT pg_advisory_xact_lock(:space, 1)"), {"space": LOCK_SPACE})
    elif connection.dialect.name == "sqlite":
        # The write lock at once, not at the first write: a second process waits here for the
        # whole migration, however long a table rebuild takes, instead of the usual 10 s.
        connection.exec_driver_sql(f"PRAGMA busy_timeout={SQLITE_MIGRATION_WAIT_MS}")
        connection.exec_driver_sql("BEGIN IMMEDIATE")
