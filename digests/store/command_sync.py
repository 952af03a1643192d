"""The slash commands last synced to each platform scope, by the hash of their definition."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from digests.store.models import CommandSync


def synced_hash(session: Session, scope: str) -> str | None:
    row = session.get(CommandSync, scope)
    return row.definition_hash if row else None


def record(
    session: Session, scope: str, definition_hash: str, command_ids: dict, *, now: datetime
) -> None:
    row = session.get(CommandSync, scope) or CommandSync(scope=scope, definition_hash="")
    row.definition_hash, row.command_ids, row.synced_at = definition_hash, command_ids, now
    session.add(row)
    session.flush()
