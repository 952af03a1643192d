"""What the full-text indexes read of a paper: its search words, computed where they can be.

Both indexes must see exactly `digests.follows.query.search_words` of the title and abstract,
or a query would find different papers on SQLite and PostgreSQL. For ASCII text — 99.5% of
real papers — each backend computes those words itself: FTS5's `unicode61` tokenizer splits
ASCII at every character that is not a letter or a digit and lowercases it, and PostgreSQL
does the same with `lower` and `regexp_replace` (`POSTGRES_WORDS`). Only the other papers'
words (accents dropped, compatibility forms decomposed: Python's rules, not the databases')
are stored, in `paper.search_text`; for the rest it is NULL.
"""

from __future__ import annotations

from digests.follows.query import search_text

# Under the "C" collation lower() changes A-Z only and a-z is a range of bytes, whatever the
# database's locale (a Turkish one lowercases "I" to a dotless ı elsewhere).
_ASCII_WORDS = (
    """regexp_replace(lower((title || ' ' || abstract) COLLATE "C"), '[^a-z0-9]+', ' ', 'g')"""
)
# The text PostgreSQL's GIN index `ix_paper_search` turns into a `simple` tsvector; a query
# must spell it exactly so for the planner to use the index.
POSTGRES_WORDS = f"COALESCE(search_text, {_ASCII_WORDS})"
POSTGRES_VECTOR = f"to_tsvector('simple'::regconfig, {POSTGRES_WORDS})"


def sqlite_words(row: str) -> str:
    """The text SQLite's FTS5 table `paper_fts` indexes for `row` (`new` or `old` in a
    trigger)."""
    return f"COALESCE({row}.search_text, {row}.title || ' ' || {row}.abstract)"


def stored_search_text(title: str, abstract: str) -> str | None:
    """What `paper.search_text` holds: None when the indexes compute the words themselves."""
    if title.isascii() and abstract.isascii():
        return None
    return search_text(title, abstract)
