"""Author names as people type them and as arXiv lists them, made comparable.

"Sergey Levine", "S. Levine", "levine, sergey" and "Sérgey LEVINE" are one author: accents and
case are dropped, "Surname, Given" is turned around, and a given name matches its initial.
Two names match when their surnames are equal and their given names agree as far as both go
("S. Levine" matches "Sergey Levine" and "Sergey V. Levine", not "Samuel Levine"'s "Sam").
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from digests.errors import UsageError

MAX_NAME = 100  # characters
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})


class AuthorError(UsageError, ValueError):
    """A name that cannot be followed; the message says why."""


@dataclass(frozen=True)
class AuthorName:
    given: tuple[str, ...]  # lowercase, unaccented; a lone letter is an initial
    surname: str

    @property
    def key(self) -> str:
        return " ".join((*self.given, self.surname))

    def matches(self, other: AuthorName) -> bool:
        if self.surname != other.surname:
            return False
        return all(_agree(a, b) for a, b in zip(self.given, other.given, strict=False))


def _agree(a: str, b: str) -> bool:
    if len(a) == 1 or len(b) == 1:
        return a[0] == b[0]
    return a == b


def _words(text: str) -> list[str]:
    """Lowercase unaccented words; an apostrophe joins ("O'Brien" is "obrien")."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    dropped = (c for c in decomposed if c not in "'’" and not unicodedata.combining(c))
    return "".join(c if c.isalnum() else " " for c in dropped).split()


def author_name(text: str) -> AuthorName | None:
    """The comparable form of a listed name; None when it has no letters."""
    if "," in text:
        surname, _, given = text.partition(",")
        text = f"{given} {surname}"
    words = _words(text)
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    if not words:
        return None
    return AuthorName(tuple(words[:-1]), words[-1])


def parse_author(text: str) -> AuthorName:
    """A name to follow; raises AuthorError when it is too long or lacks a given name."""
    text = text.strip().strip('"“”').strip()
    if len(text) > MAX_NAME:
        raise AuthorError(f"that name is over {MAX_NAME} characters long")
    name = author_name(text)
    if name is None:
        raise AuthorError("give an author's name, e.g. author: Sergey Levine")
    if not name.given:
        raise AuthorError(
            f"“{text[:40]}” has no first name or initial; many authors share a surname "
            f"(e.g. author: S. {text[:40]})"
        )
    return name


def display_name(text: str) -> str:
    """The name as typed, in "Given Surname" order and with its spacing tidied."""
    text = text.strip().strip('"“”').strip()
    if "," in text:
        surname, _, given = text.partition(",")
        text = f"{given.strip()} {surname.strip()}"
    return " ".join(text.split())
