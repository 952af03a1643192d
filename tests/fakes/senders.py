"""The tests' one recording sender: a `Sender` (digests.delivery.sending) that keeps what it was
given and fails as scripted, per chat."""

from __future__ import annotations

from digests.delivery.sending import Address


class RecordingSender:
    platform = "telegram"
    sends_per_second: float | None = None

    def __init__(self) -> None:
        self.sent: list[tuple[Address, dict]] = []
        self.script: dict[str, list[Exception]] = {}  # by chat id: failures raised in turn

    @property
    def received(self) -> list[tuple[str, dict]]:
        """(chat id, payload) of each part sent, in order."""
        return [(address.chat_id, payload) for address, payload in self.sent]

    async def send(self, address: Address, payload: dict) -> str:
        failures = self.script.get(address.chat_id)
        if failures:
            raise failures.pop(0)
        self.sent.append((address, payload))
        return str(len(self.sent))
