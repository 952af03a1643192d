"""Updates from chat platforms, each handled once: the use cases over the store's inbox
(`digests.store.inbox`) that adapters call before and after handling an update."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from digests.store import inbox
from digests.store.unit_of_work import SessionFactory, unit_of_work

# A handled update is remembered this long: Telegram resends an unacknowledged webhook update
# for about a day, and a replayed request is recognised as long.
REMEMBERED = timedelta(days=2)


@dataclass(frozen=True)
class Waiting:
    """An update received and not handled yet, as the platform sent it."""

    key: str
    chat: str
    payload: dict | None


class UpdateInbox:
    """`receiver` names this process (INSTANCE_NAME): after a restart it handles what it had
    acknowledged, while other replicas go on with their own."""

    def __init__(
        self, session_factory: SessionFactory, *, clock: Callable[[], datetime], receiver: str
    ) -> None:
        self.session_factory, self.clock, self.receiver = session_factory, clock, receiver

    def receive(
        self,
        platform: str,
        key: str,
        *,
        chat: str = "",
        payload: dict | None = None,
        handled: bool = False,
    ) -> bool:
        """Keep the update; False when it was received before (it is not to be handled).
        An update handled at once (`handled`) is only remembered, not kept for a restart."""
        with unit_of_work(self.session_factory) as session:
            return inbox.receive(
                session,
                platform,
                key,
                chat=chat,
                payload=payload,
                receiver=self.receiver,
                handled=handled,
                now=self.clock(),
            )

    def handled(self, platform: str, keys: Sequence[str]) -> None:
        with unit_of_work(self.session_factory) as session:
            inbox.handled(session, platform, keys, now=self.clock())

    def waiting(self, platform: str) -> list[Waiting]:
        with unit_of_work(self.session_factory) as session:
            rows = inbox.waiting(session, platform, self.receiver)
            return [Waiting(row.key, row.chat, row.payload) for row in rows]

    def forget_handled(self) -> int:
        with unit_of_work(self.session_factory) as session:
            return inbox.forget_handled(session, before=self.clock() - REMEMBERED)
