"""Logging for the long-running bot: one format, and no secret in any line at any level.

Libraries log what they see: httpx logs every request URL, and a Telegram bot's URL carries its
token (`/bot<TOKEN>/sendMessage`); python-telegram-bot quotes a rejected token in its error.
So the handler's formatter redacts the whole formatted line, traceback included, instead of
trusting each logger to leave secrets out.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterable

from bot.settings import Settings

REDACTED = "[redacted]"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Token shapes, for secrets nobody told us about: Telegram's `123456789:AA…` (35 characters
# after the colon) and Discord's three dot-separated base64 parts.
TOKEN_SHAPES = re.compile(
    r"\b\d{6,}:[A-Za-z0-9_-]{30,}|\b[A-Za-z0-9_-]{23,}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}"
)
# Loggers that say at INFO what only matters when debugging (httpx: one line per request;
# APScheduler's executor: two lines per routine job, every tick).
CHATTY = {
    "httpx": logging.WARNING,
    "alembic": logging.WARNING,
    "apscheduler.executors.default": logging.WARNING,
}
# Warnings that are no news here, by logger: the bot has no voice, so discord.py's note that
# voice is not supported says nothing.
NO_NEWS = {"discord.client": "voice will NOT be supported"}


class Redactor:
    """Replaces each known secret, and anything shaped like a bot token, with [redacted]."""

    def __init__(self, secrets: Iterable[str]) -> None:
        # Longest first, so a secret containing another is replaced whole.
        self.secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return TOKEN_SHAPES.sub(REDACTED, text)


class RedactingFormatter(logging.Formatter):
    def __init__(self, redact: Redactor, fmt: str = FORMAT) -> None:
        super().__init__(fmt)
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(super().format(record))


class _Without(logging.Filter):
    """Drops the records whose message holds `words`."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words

    def filter(self, record: logging.LogRecord) -> bool:
        return self.words not in record.getMessage()


def configure_logging(settings: Settings) -> Redactor:
    """Send every log line, redacted, to standard error at LOG_LEVEL."""
    redact = Redactor(settings.secrets())
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(redact))
    logging.basicConfig(level=settings.log_level, handlers=[handler], force=True)
    logging.captureWarnings(True)  # library warnings go through the same handler
    debugging = settings.log_level == "DEBUG"
    for name, level in CHATTY.items():
        logging.getLogger(name).setLevel(logging.NOTSET if debugging else level)
    for name, words in NO_NEWS.items():
        logger = logging.getLogger(name)
        if not any(isinstance(known, _Without) for known in logger.filters):
            logger.addFilter(_Without(words))
    # A drain still running when the next one is due is expected; don't warn about it.
    logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)
    return redact
