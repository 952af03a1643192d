"""How the Telegram adapter takes its updates: each once, each chat's in order, no chat
waiting on another's, nothing acknowledged lost.

PTB limits concurrent updates with a semaphore taken *before* `do_process_update`: a chat's
queued updates would hold those slots while they wait for the chat's turn, so one group's
backlog (slowed by its 20-a-minute limit) would stall every other chat. PTB's limit is left
open here, and ours is taken only once a chat's turn has come: a chat holds one slot at most.

Every update goes through the store's inbox (`digests.usecases.chat_updates`) before it is
handled: one received before is dropped (a replayed vote does not flip), and one not handled
when the bot stops is handled at the next start, in its chat's order.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from bot.platforms.turns import ChatTurns
from digests.usecases.chat_updates import UpdateInbox

log = logging.getLogger("bot.platforms.telegram")

PLATFORM = "telegram"
RUNNING = 256  # updates handled at once, each from a different chat
_UNBOUNDED = 1 << 30


def update_key(update: object) -> str | None:
    """What makes an update the same one again: a button press's callback id, else the
    update id. None for what is no Telegram update."""
    if not isinstance(update, Update):
        return None
    if update.callback_query is not None:
        return f"callback:{update.callback_query.id}"
    return f"update:{update.update_id}"


def chat_of(update: object) -> object:
    """The chat whose turn an update takes: a group's upgrade notice moves its follows to the
    supergroup, so it goes in the supergroup's turn, before the commands typed there."""
    message = getattr(update, "effective_message", None)
    if message is not None and message.migrate_to_chat_id:
        return message.migrate_to_chat_id
    return getattr(getattr(update, "effective_chat", None), "id", None)


class PerChatUpdates(BaseUpdateProcessor):
    """Each chat's updates in order, different chats' at once, each update once."""

    def __init__(self, inbox: UpdateInbox | None = None, running: int = RUNNING) -> None:
        super().__init__(_UNBOUNDED)
        self.inbox = inbox
        self._slots = asyncio.Semaphore(running)
        self._turns = ChatTurns()
        self._received: set[str] = set()  # in the inbox already: from the webhook, or waiting
        self.closing = False
        self.left = 0  # updates not handled because the bot stops; the inbox keeps them

    async def accept(self, update: Update, payload: dict) -> bool:
        """Store an update before it is acknowledged; False when it came before."""
        key = update_key(update)
        if key is None or self.inbox is None:
            return True
        receive, chat = self.inbox.receive, str(chat_of(update))
        if not await asyncio.to_thread(receive, PLATFORM, key, chat=chat, payload=payload):
            return False
        self._received.add(key)
        return True

    def waiting_updates(self, bot) -> list[Update]:
        """The updates acknowledged before the last stop and not handled, oldest first."""
        if self.inbox is None:
            return []
        found = []
        for waiting in self.inbox.waiting(PLATFORM):
            self._received.add(waiting.key)
            found.append(Update.de_json(waiting.payload, bot))
        return found

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = update_key(update)
        # The chat's turn first, before any await: a chat's updates keep their order.
        async with self._turns.turn(chat_of(update)):
            if not await self._first_time(update, key):
                coroutine.close()  # type: ignore[attr-defined]
            elif self.closing:  # left in the inbox for the next start
                coroutine.close()  # type: ignore[attr-defined]
                self.left += 1
            else:
                async with self._slots:
                    await coroutine
                await self._handled(key)

    async def _first_time(self, update: object, key: str | None) -> bool:
        if key is None or self.inbox is None or key in self._received:
            return True
        try:
            return await self.accept(update, update.to_dict())  # type: ignore[union-attr]
        except Exception:  # the store is failing: answer anyway, unguarded
            log.warning("telegram: could not store update %s", key, exc_info=True)
            return True

    async def _handled(self, key: str | None) -> None:
        if key is None or self.inbox is None:
            return
        self._received.discard(key)
        try:
            await asyncio.to_thread(self.inbox.handled, PLATFORM, [key])
        except Exception:
            log.warning("telegram: could not mark update %s handled", key, exc_info=True)

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None
