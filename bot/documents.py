"""Reading a document of papers from a file, gunzipped when it is gzip (arXiv dumps and corpora
often are), for the commands that read files."""

from __future__ import annotations

import gzip
from pathlib import Path

from digests.errors import DigestbotError


def read_document(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip (arXiv dumps and corpora often are)."""
    try:
        data = path.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise DigestbotError(f"cannot read {path}: {reason}") from None


def open_document(path: Path):
    """The file as a binary stream, gunzipped as it is read when it is gzip."""
    stream = path.open("rb")
    if stream.peek(2)[:2] != b"\x1f\x8b":
        return stream
    return gzip.GzipFile(fileobj=stream, mode="rb")
