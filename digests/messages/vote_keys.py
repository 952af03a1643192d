"""What a vote button carries: `v:KEY:+` or `v:KEY:-`, the same on every platform.

KEY names a paper under a topic in 12 URL-safe characters (72 bits of a SHA-256 of the arXiv id
and the topic's slug), so the data stays far under Telegram's 64 bytes of callback data and
Discord's 100 characters of custom_id, whatever the slug's length. The key is found among the
papers offered to the chat the button was pressed in (`digests.store.votes.find_offer`), so a
forged key names nothing, and a real key from another chat names nothing here either.
"""

from __future__ import annotations

import base64
import hashlib
import re

KEY_LENGTH = 12
UP, DOWN = 1, -1
_DATA = re.compile(rf"v:([A-Za-z0-9_-]{{{KEY_LENGTH}}}):([+-])")


def vote_key(arxiv_id: str, slug: str) -> str:
    digest = hashlib.sha256(f"{arxiv_id}\n{slug}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:KEY_LENGTH]


def vote_data(key: str, value: int) -> str:
    """The button's data for a 👍 (`UP`) or a 👎 (`DOWN`) on the paper `key` names."""
    return f"v:{key}:{'+' if value == UP else '-'}"


def is_vote_data(data: str) -> bool:
    """Data meant as a vote (well formed or not): the adapter hands it to the vote use case."""
    return data.startswith("v:")


def parse_vote_data(data: str) -> tuple[str, int] | None:
    """(key, UP or DOWN) from a button's data; None for anything else."""
    match = _DATA.fullmatch(data)
    if match is None:
        return None
    return match[1], UP if match[2] == "+" else DOWN
