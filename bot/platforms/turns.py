"""Turns per chat: a chat's work runs one piece at a time, so a chat flooding the bot holds
one of the shared worker threads at most and every other chat's work starts at once."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class ChatTurns:
    def __init__(self) -> None:
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._waiting: Counter[Hashable] = Counter()

    @asynccontextmanager
    async def turn(self, chat: Hashable) -> AsyncIterator[None]:
        """The chat's turn, in the order asked for; other chats' turns do not wait for it."""
        self._waiting[chat] += 1
        try:
            async with self._locks.setdefault(chat, asyncio.Lock()):
                yield
        finally:
            self._waiting[chat] -= 1
            if not self._waiting[chat]:
                del self._waiting[chat], self._locks[chat]
