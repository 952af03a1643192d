"""What a chat platform adapter promises the outbox: a `Sender` that sends one stored part to an
`Address`, and the `SendFailure` tree its library's errors are translated into:

    SendFailure
    ├── RetryLater(seconds)   the platform said "too many requests": wait as told, send again
    ├── Transient             network trouble or a 5xx: retry with backoff while worth sending
    │   └── OutcomeUnknown    sent, but no answer came: retried once, then taken as sent
    ├── ChatUnavailable       blocked, kicked, missing access: pause the channel, keep follows
    ├── ChatGone              the channel was deleted: forget it and its follows
    ├── ChatMoved(new_id)     the chat has a new id: update it and resend there
    └── Rejected              this message is refused for good: record it, go on with the rest
        └── MediaRefused      this chat takes no images: send the part again without its chart

`digests.usecases.dispatch` decides what each failure means for the stored delivery.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol


class SendFailure(Exception):
    """Base of every failure an adapter reports; str() is a short reason."""


class RetryLater(SendFailure):
    def __init__(self, seconds: float, reason: str = "rate limited") -> None:
        super().__init__(reason)
        self.seconds = max(0.0, float(seconds))


class Transient(SendFailure):
    pass


class OutcomeUnknown(Transient):
    """The request was written but its answer never came: the message may be in the chat.
    Sending it again may double it, so it is sent again once at most."""


class ChatUnavailable(SendFailure):
    pass


class ChatGone(SendFailure):
    pass


class ChatMoved(SendFailure):
    def __init__(self, new_chat_id: str) -> None:
        super().__init__(f"chat moved to {new_chat_id}")
        self.new_chat_id = str(new_chat_id)


class Rejected(SendFailure):
    pass


class MediaRefused(Rejected):
    pass


@dataclass(frozen=True)
class Address:
    platform: str
    chat_id: str
    thread_id: str = ""


class Sender(Protocol):
    """What a chat platform adapter provides to deliver one stored part."""

    platform: str
    sends_per_second: float | None  # the platform's limit per bot, to pace sends under

    async def send(self, address: Address, payload: dict) -> str:
        """Send one part; return the platform's message id or raise a SendFailure."""
        ...


# How long a delivery stored without a window of its own (before windows were kept) is worth
# sending, and how long an on-demand digest is: the one who asked is waiting for it.
DEFAULT_WINDOW = timedelta(hours=24)
ON_DEMAND_WINDOW = timedelta(hours=1)
