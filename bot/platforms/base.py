"""The one small interface every chat platform adapter implements; each is given the use
cases (`digests.usecases.UseCases`) to call."""

from __future__ import annotations

import asyncio
from typing import Protocol

from digests.delivery.sending import MediaRefused
from digests.usecases.app import Platform


class Adapter(Platform, Protocol):
    """A chat platform: receives commands, renders digests and alerts, sends stored parts."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def draw_chart(spec: dict) -> bytes:
    """A part's stored chart as PNG bytes, drawn off the event loop; MediaRefused when the
    description cannot be drawn, so the part still goes out without it."""
    from digests.messages.chart import chart_png  # Pillow loads with the first chart, not at start

    try:
        return await asyncio.to_thread(chart_png, spec)
    except ValueError as exc:
        raise MediaRefused(f"chart not drawn: {exc}") from exc
