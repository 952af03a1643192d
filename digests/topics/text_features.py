"""The terms the learned tagging tier reads from a paper: words, word pairs and categories.

Training (`digestbot train`) and tagging share this one function, so a model never
sees a term spelt differently from the way it learnt it. Words are the matcher's words
(lowercase runs of letters and digits, see `digests.topics.catalog.split_words`). Title words are
also kept apart ("t:agent"), because a title says what a paper is about more surely than a
word in its abstract. Categories become "c:cs.cv", and the primary one also "p:cs.cv".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from digests.topics.catalog import blank_separators

MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 20_000


# Byte -> itself for lowercase letters and digits, the lowercase letter for capitals, else space.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256)
)


def text_words(text: str) -> list[bytes]:
    """The words of `text` as the tagger reads them: `split_words`, as UTF-8 bytes."""
    if text.isascii():  # bytes.translate lowercases and blanks in one cheap pass
        return text.encode("ascii").translate(_ASCII_WORDS).split()
    return blank_separators(text).encode().split()


def paper_terms(title: str, abstract: str, categories: Sequence[str] | str) -> list[str]:
    """Every term of one paper, repeated as often as it occurs."""
    title_words, abstract_words = paper_words(title, abstract)
    terms = [*title_words, *abstract_words, *_pairs(title_words), *_pairs(abstract_words)]
    terms += ["t:" + word for word in title_words]
    return terms + category_terms(categories)


def paper_words(title: str, abstract: str) -> tuple[list[str], list[str]]:
    """The words of the title and of the abstract."""
    title_words, abstract_words = paper_word_bytes(title, abstract)
    return [w.decode() for w in title_words], [w.decode() for w in abstract_words]


def paper_word_bytes(title: str, abstract: str) -> tuple[list[bytes], list[bytes]]:
    """The words of the title and of the abstract as the tagger reads them (`text_words`)."""
    return (
        text_words((title or "")[:MAX_TITLE_CHARS]),
        text_words((abstract or "")[:MAX_ABSTRACT_CHARS]),
    )


def category_terms(categories: Sequence[str] | str) -> list[str]:
    """ "c:" + each category, and "p:" + the primary (first) one."""
    if isinstance(categories, str):  # "cs.CL cs.LG", as arXiv writes them
        categories = categories.split()
    cats = [c.strip().lower() for c in categories or () if isinstance(c, str) and c.strip()]
    return ["c:" + category for category in cats] + (["p:" + cats[0]] if cats else [])


def _pairs(words: list[str]) -> list[str]:
    return list(map(" ".join, itertools.pairwise(words)))
