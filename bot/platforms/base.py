"""The one small interface every chat platform adapter implements, and what it is given."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlmodel import Session

from digests.alerts import SpikeAlert
from digests.commands import Caller, CommandService, Reply
from digests.compose import Digest
from digests.delivery import ON_DEMAND_WINDOW, Dispatcher, MediaRefused, Sender
from digests.store import channels, deliveries


class Adapter(Protocol):
    """A chat platform: receives commands, renders digests, sends stored parts."""

    platform: str
    sender: Sender

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        """The digest as this platform's messages: JSON-able payloads, each within limits."""
        ...

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        """A spike alert as this platform's messages (with the chart where it can show one);
        `mention_role_id` is a role to ping, where the platform has roles."""
        ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def draw_chart(spec: dict) -> bytes:
    """A part's stored chart as PNG bytes, drawn off the event loop; MediaRefused when the
    description cannot be drawn, so the part still goes out without it."""
    from digests.chart import chart_png  # Pillow loads with the first chart, not at start

    try:
        return await asyncio.to_thread(chart_png, spec)
    except ValueError as exc:
        raise MediaRefused(f"chart not drawn: {exc}") from exc


@dataclass
class BotServices:
    """What adapters share: the command service and the delivery dispatcher."""

    commands: CommandService
    dispatcher: Dispatcher
    session_factory: Callable[[], Session]
    clock: Callable[[], datetime]

    async def send_digest_now(self, caller: Caller, reply: Reply, adapter: Adapter) -> int:
        """Store this chat's digest as a `manual` delivery and send it; returns parts stored."""
        if reply.digest is None:
            return 0
        now = self.clock()
        parts = adapter.render_digest(reply.digest, title="Your digest")
        with self.session_factory() as session:
            channel = channels.get_or_create_channel(
                session,
                platform=caller.platform,
                chat_id=caller.chat_id,
                thread_id=caller.thread_id,
                now=now,
            )
            delivery_id = deliveries.enqueue(
                session,
                channel_id=channel.id,
                kind="manual",
                period_key=f"manual:{now.isoformat(timespec='microseconds')}",
                parts=parts,
                paper_count=reply.digest.paper_count,
                now=now,
                stale_at=now + ON_DEMAND_WINDOW,
            )
            session.commit()
        if delivery_id is None:
            return 0
        await self.dispatcher.drain()
        return len(parts)
