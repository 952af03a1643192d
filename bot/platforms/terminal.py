"""The terminal as a platform: digests printed to standard output when no chat is configured."""

from __future__ import annotations

import sys
from typing import TextIO

from digests.delivery.sending import Address
from digests.messages.alert import SpikeAlert
from digests.messages.digest import Digest
from digests.messages.plain_text import render_alert_text, render_text

CHAT_ID = "stdout"


class TerminalSender:
    platform = "terminal"
    sends_per_second = None  # no limit to keep under

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.sent = 0

    async def send(self, address: Address, payload: dict) -> str:
        print(payload["text"], file=self.stream, flush=True)
        self.sent += 1
        return str(self.sent)


class TerminalAdapter:
    platform = "terminal"

    def __init__(self, stream: TextIO | None = None) -> None:
        self.sender = TerminalSender(stream)

    def render_alert(self, alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
        return [{"text": render_alert_text(alert)}]

    def render_digest(self, digest: Digest, *, title: str) -> list[dict]:
        return [{"text": render_text(digest, title=title, histogram=True)}]

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None
