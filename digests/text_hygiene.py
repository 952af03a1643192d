"""Text from strangers made safe in one place: what users type and what papers carry.

Control characters (C0 but tab and line breaks, DEL, C1) and the bidirectional embeddings,
overrides and isolates are never stored from a chat and never rendered from a paper: a NUL
cannot be stored by PostgreSQL and is invalid in XML, and U+202E reverses the rest of a line on
screen, so a title could pass for another. Commands refuse such text with a clear reply
(`unsafe_character`); pages, feeds and messages drop it (`without_controls`).
"""

from __future__ import annotations

import re

# Never shown and never stored.
_UNSAFE = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")
# Controls that Python counts as whitespace but XML 1.0 forbids: each becomes a space.
_SPACING = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def without_controls(text: str) -> str:
    """`text` without control characters or direction overrides; tab and line breaks stay."""
    return _SPACING.sub(" ", _UNSAFE.sub("", text))


def unsafe_character(text: str) -> str | None:
    """What the first character not to be stored in `text` is, in words; None when none is."""
    found = _UNSAFE.search(text)
    if found is None:
        return None
    character = found.group()
    code = f"U+{ord(character):04X}"
    if character == "\x00":
        return f"a NUL character ({code})"
    if _BIDI.fullmatch(character):
        return f"a text-direction control ({code})"
    return f"a control character ({code})"
