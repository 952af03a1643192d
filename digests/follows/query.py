"""The search language of query follows, parsed once into a tree.

    "world model" AND (agent OR agents) NOT survey

Quoted phrases and bare words are terms; terms next to each other must all match (an
implicit AND); `AND`, `OR` and `NOT` are operators only in capitals (a lowercase "or" is a
word); parentheses group. `NOT` subtracts: it needs a term beside it to subtract from, as
full-text indexes cannot list "every paper without a word".

A term matches consecutive words of a paper's title and abstract, as `search_words` splits
them: the same words every backend indexes, so a query finds the same papers in SQLite's FTS5,
PostgreSQL's tsvector and the in-memory matcher of new papers (`digests.follows.matching`).

Every mistake raises `QueryError` with a message naming the column where it is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from digests.errors import UsageError

MAX_LENGTH = 200  # characters
MAX_TERMS = 12
MAX_DEPTH = 4  # nested parentheses
_OPERATORS = ("AND", "OR", "NOT")
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
_TOKEN = re.compile(r'\s*(?:(?P<paren>[()])|"(?P<phrase>[^"]*)(?P<closed>"?)|(?P<word>[^\s()"]+))')


class QueryError(UsageError, ValueError):
    """A query that cannot be used; the message says why, and where (1-based column)."""


def search_words(text: str) -> list[str]:
    """Lowercase words of `text` without accents: runs of letters and digits.

    These are the words both backends index (FTS5 `unicode61`, PostgreSQL `simple`) and a
    query's terms are split into, so no backend stems, folds or splits differently."""
    text = text.lower()
    if text.isascii():  # the common case: one C-level pass instead of one per character
        return text.translate(_ASCII_SEPARATORS).split()
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(c if c.isalnum() else " " for c in decomposed if not unicodedata.combining(c))
    return kept.split()


def search_text(title: str, abstract: str) -> str:
    """A paper's title and abstract as the indexes store them: its search words, spaced."""
    return " ".join(search_words(f"{title}\n{abstract}"))


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]  # one word, or a phrase of consecutive words


@dataclass(frozen=True)
class All:
    include: tuple[Node, ...]  # at least one
    exclude: tuple[Node, ...] = ()


@dataclass(frozen=True)
class Any:
    options: tuple[Node, ...]


Node = Term | All | Any


@dataclass(frozen=True)
class _Token:
    kind: str  # ( ) term AND OR NOT end
    column: int
    words: tuple[str, ...] = ()
    text: str = ""


def parse(query: str) -> Node:
    """The tree of `query`; raises QueryError naming the column of the first mistake."""
    if len(query) > MAX_LENGTH:
        raise QueryError(f"the query is {len(query)} characters long; at most {MAX_LENGTH} work")
    tokens = _tokens(query)
    if sum(token.kind == "term" for token in tokens) > MAX_TERMS:
        raise QueryError(f"the query has more than {MAX_TERMS} terms; use fewer words or phrases")
    parser = _Parser(tokens)
    if tokens[0].kind == "end":
        raise QueryError("the query is empty; give words or a “quoted phrase”")
    tree = parser.any(depth=0)
    if parser.peek.kind != "end":
        raise parser.unexpected()
    return tree


def _tokens(query: str) -> list[_Token]:
    tokens, position = [], 0
    while match := _TOKEN.match(query, position):
        column = match.end() - len(match.group().lstrip()) + 1
        position = match.end()
        if match["paren"]:
            tokens.append(_Token(match["paren"], column, text=match["paren"]))
        elif match["phrase"] is not None:
            if not match["closed"]:
                raise QueryError(f"the quote at column {column} is never closed")
            tokens.append(_term(match["phrase"], column, f'"{match["phrase"]}"'))
        elif match["word"] in _OPERATORS:
            tokens.append(_Token(match["word"], column, text=match["word"]))
        else:
            tokens.append(_term(match["word"], column, match["word"]))
    tokens.append(_Token("end", len(query) + 1))
    return tokens


def _term(text: str, column: int, shown: str) -> _Token:
    words = tuple(search_words(text))
    if not words:
        raise QueryError(f"{shown[:30]} at column {column} has no letters or digits to search")
    return _Token("term", column, words, shown)


class _Parser:
    """Recursive descent: any := all (OR all)*; all := part (AND? part)*; part := NOT? atom."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens, self.at = tokens, 0

    @property
    def peek(self) -> _Token:
        return self.tokens[self.at]

    def take(self) -> _Token:
        self.at += 1
        return self.tokens[self.at - 1]

    def unexpected(self) -> QueryError:
        token = self.peek
        if token.kind == "end":
            return QueryError(f"the query ends too early, at column {token.column}")
        return QueryError(f"unexpected {token.text[:30]!r} at column {token.column}")

    def any(self, depth: int) -> Node:
        options = [self.all(depth)]
        while self.peek.kind == "OR":
            self.take()
            options.append(self.all(depth))
        return options[0] if len(options) == 1 else Any(tuple(options))

    def all(self, depth: int) -> Node:
        start = self.peek
        include, exclude = [], []
        while self.peek.kind in ("term", "(", "NOT", "AND"):
            if include or exclude:
                if self.peek.kind == "AND":
                    self.take()
            elif self.peek.kind == "AND":
                raise self.unexpected()
            negated = self.peek.kind == "NOT"
            if negated:
                self.take()
            (exclude if negated else include).append(self.atom(depth))
        if not include and not exclude:
            raise self.unexpected()
        if not include:
            raise QueryError(
                f"NOT at column {start.column} has nothing to subtract from; "
                "say what to find too, e.g. agents NOT survey"
            )
        if len(include) == 1 and not exclude:
            return include[0]
        return All(tuple(include), tuple(exclude))

    def atom(self, depth: int) -> Node:
        token = self.peek
        if token.kind == "term":
            return Term(self.take().words)
        if token.kind != "(":
            raise self.unexpected()
        if depth >= MAX_DEPTH:
            raise QueryError(
                f"the parenthesis at column {token.column} nests deeper than {MAX_DEPTH} levels"
            )
        self.take()
        inside = self.any(depth + 1)
        if self.peek.kind != ")":
            if self.peek.kind == "end":
                raise QueryError(f"the parenthesis at column {token.column} is never closed")
            raise self.unexpected()
        self.take()
        return inside


def canonical(node: Node) -> str:
    """The query written out in one standard way: equal trees, equal text (the follow's key)."""
    if isinstance(node, Term):
        return node.words[0] if len(node.words) == 1 else '"' + " ".join(node.words) + '"'
    if isinstance(node, Any):
        return " OR ".join(_grouped(option) for option in node.options)
    parts = [_grouped(part, Any) for part in node.include]
    parts += [f"NOT {_grouped(part)}" for part in node.exclude]
    return " ".join(parts)


def _grouped(node: Node, *needs_parens: type) -> str:
    text = canonical(node)
    if isinstance(node, needs_parens or (All, Any)):
        return f"({text})"
    return text


def terms(node: Node) -> list[Term]:
    if isinstance(node, Term):
        return [node]
    children = node.options if isinstance(node, Any) else node.include + node.exclude
    return [term for child in children for term in terms(child)]


def to_fts5(node: Node) -> str:
    """The query in SQLite FTS5's MATCH syntax (every term a quoted phrase of index words)."""
    if isinstance(node, Term):
        return '"' + " ".join(node.words) + '"'
    if isinstance(node, Any):
        return "(" + " OR ".join(to_fts5(option) for option in node.options) + ")"
    text = "(" + " AND ".join(to_fts5(part) for part in node.include) + ")"
    for part in node.exclude:
        text += f" NOT {to_fts5(part)}"
    return f"({text})"


def to_tsquery(node: Node) -> str:
    """The query as a PostgreSQL tsquery over the `simple` configuration's lexemes."""
    if isinstance(node, Term):
        return "(" + " <-> ".join(f"'{word}'" for word in node.words) + ")"
    if isinstance(node, Any):
        return "(" + " | ".join(to_tsquery(option) for option in node.options) + ")"
    parts = [to_tsquery(part) for part in node.include]
    parts += [f"!{to_tsquery(part)}" for part in node.exclude]
    return "(" + " & ".join(parts) + ")"
