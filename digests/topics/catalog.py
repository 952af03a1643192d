"""The topic catalog: which topics exist, how they nest, and how people name them.

The shipped catalog is `digests/data/topics.toml`; its header documents the schema (phrases,
patterns, all_of groups, excludes, category gates). `Catalog.load(extra_file)` reads it and
then an operator's TOPICS_FILE, whose topics are added, or replace a shipped topic with the
same slug as a whole. Any problem raises `CatalogError` with a one-line message that names
the file and the topic.

Category gates: a topic's `categories` list arXiv categories ("cs.CL") or whole archives
("cs"). When a paper's categories are known, a gated topic is only assigned if one of them
matches; papers without categories are never gated out. A topic without its own list inherits
the union of its gated parents' gates, so the agent topics under `llm-agents` share one gate;
`["*"]` lifts an inherited gate. Gates never boost a score, they only veto.

Users name topics loosely (`/follow rl for llm agents`), so `resolve` accepts the display
name, slug or an alias with any case, spacing and punctuation, and otherwise a fuzzy match
only when it is a clear typo of a single topic. Anything else raises `UnknownTopic` or
`AmbiguousTopic` carrying suggestions; it never guesses.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rapidfuzz import fuzz, process

from digests.errors import ConfigurationError

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NON_WORD = re.compile(r"[\W_]+")
_ASCII_SEPARATORS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})

_REQUIRED = ("slug", "name", "description")
_LISTS = (
    "parents",
    "aliases",
    "phrases",
    "acronyms",
    "patterns",
    "exclude",
    "exclude_patterns",
    "categories",
    "field_categories",
)
_KNOWN_KEYS = frozenset((*_REQUIRED, *_LISTS, "all_of"))

_MAX_QUERY = 200  # longer queries are not topic names; refuse them without fuzzy work
_ACCEPT = 88.0  # fuzz.ratio a typo must reach to be accepted without asking
_MARGIN = 6.0  # ...and by how much it must beat the runner-up
_SUGGEST_FLOOR = 70.0  # average word closeness a suggestion needs
_FILLER = frozenset({"a", "an", "and", "for", "in", "of", "on", "the", "to", "with"})


def blank_separators(text: str) -> str:
    """`text` lowercased, with every character other than a letter or digit made a space."""
    text = text.lower()
    if text.isascii():  # the common case; str.translate is far faster than a regex here
        return text.translate(_ASCII_SEPARATORS)
    return _NON_WORD.sub(" ", text)


def split_words(text: str) -> list[str]:
    """Lowercase words of `text`: runs of letters and digits; everything else separates."""
    return blank_separators(text).split()


def normalize(text: str) -> str:
    """`text` as the matcher sees it: lowercase words separated by single spaces."""
    return " ".join(split_words(text))


def _key(text: str) -> str:
    return "".join(split_words(text))


@dataclass(frozen=True)
class TopicDef:
    slug: str
    name: str
    description: str
    parents: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    all_of: tuple[tuple[str, ...], ...] = ()
    exclude: tuple[str, ...] = ()
    exclude_patterns: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    acronyms: tuple[str, ...] = ()
    field_categories: tuple[str, ...] = ()

    def rules_hash(self) -> str:
        """sha256 over everything that decides which papers get this topic."""
        rules = {
            "parents": sorted(self.parents),
            "phrases": sorted(self.phrases),
            "patterns": sorted(self.patterns),
            "all_of": sorted(sorted(group) for group in self.all_of),
            "exclude": sorted(self.exclude),
            "exclude_patterns": sorted(self.exclude_patterns),
            "categories": sorted(self.categories),
        }
        # Added later: left out while empty, so that older topics keep their hash.
        if self.acronyms:
            rules["acronyms"] = sorted(self.acronyms)
        if self.field_categories:
            rules["field_categories"] = sorted(self.field_categories)
        encoded = json.dumps(rules, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(encoded).hexdigest()

    def references(self) -> set[str]:
        """Slugs named as "@slug" in `all_of`."""
        return {item[1:] for group in self.all_of for item in group if item.startswith("@")}


class CatalogError(ConfigurationError, ValueError):
    """The catalog or a TOPICS_FILE is unusable; the message is one line."""


def _shorten(query: str, limit: int = 60) -> str:
    text = " ".join("".join(c if c.isprintable() else " " for c in query[: limit * 4]).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class UnknownTopic(LookupError):
    """No topic answers to `query`; `suggestions` are the closest ones, best first."""

    kind = "unknown topic"

    def __init__(self, query: str, suggestions: Sequence[TopicDef] = ()) -> None:
        self.query = query
        self.suggestions = list(suggestions)
        message = f'{self.kind} "{_shorten(query)}"'
        if self.suggestions:
            message += " — did you mean: " + ", ".join(t.name for t in self.suggestions) + "?"
        super().__init__(message)

    def __str__(self) -> str:
        return str(self.args[0])


class AmbiguousTopic(UnknownTopic):
    """`query` fits several topics equally well; `suggestions` lists them."""

    kind = "ambiguous topic"


class Catalog:
    """An immutable, validated set of topics with lookup and name resolution."""

    def __init__(self, topics: Iterable[TopicDef], origins: Mapping[str, str] | None = None):
        """Validate links between `topics`; `origins` maps slugs to files for messages."""
        self.topics = tuple(topics)
        self._by_slug = {topic.slug: topic for topic in self.topics}
        _check_links(self.topics, self._by_slug, origins or {})
        self._keys = _name_keys(self.topics, origins or {})
        self._children: dict[str, list[str]] = {topic.slug: [] for topic in self.topics}
        for topic in self.topics:
            for parent in topic.parents:
                self._children[parent].append(topic.slug)
        self._choices = [
            (normalize(text), topic)
            for topic in self.topics
            for text in (topic.name, topic.slug, *topic.aliases)
        ]
        self._name_words = sorted({word for choice, _ in self._choices for word in choice.split()})
        self._resolved: dict[str, TopicDef | tuple[type[UnknownTopic], list[TopicDef]]] = {}

    @classmethod
    def load(cls, extra_file: str | Path | None = None) -> Catalog:
        """The shipped catalog, plus or overridden by `extra_file` (the TOPICS_FILE setting)."""
        shipped = resources.files("digests") / "data" / "topics.toml"
        merged = {t.slug: t for t in _parse(shipped.read_bytes(), "topics.toml (shipped)")}
        origins = dict.fromkeys(merged, "topics.toml (shipped)")
        if extra_file is not None:
            path = Path(extra_file)
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise CatalogError(f"{path}: cannot read: {exc.strerror or exc}") from None
            for topic in _parse(data, str(path)):
                merged[topic.slug] = topic
                origins[topic.slug] = str(path)
        return cls(merged.values(), origins)

    def get(self, slug: str) -> TopicDef:
        return self._by_slug[slug]

    def ancestors(self, slug: str) -> list[str]:
        """All transitive parents of `slug`, nearest first."""
        order: list[str] = []
        frontier = list(self._by_slug[slug].parents)
        while frontier:
            current = frontier.pop(0)
            if current not in order:
                order.append(current)
                frontier.extend(self._by_slug[current].parents)
        return order

    def descendants(self, slug: str) -> list[str]:
        """All transitive children of `slug`, nearest first."""
        order: list[str] = []
        frontier = list(self._children[slug])
        while frontier:
            current = frontier.pop(0)
            if current not in order:
                order.append(current)
                frontier.extend(self._children[current])
        return order

    def category_gate(self, slug: str) -> tuple[str, ...]:
        """Categories that gate `slug`, its own or inherited; empty when it is not gated."""
        topic = self._by_slug[slug]
        if topic.categories:
            return () if "*" in topic.categories else topic.categories
        gate: dict[str, None] = {}
        for parent in topic.parents:
            gate.update(dict.fromkeys(self.category_gate(parent)))
        return tuple(gate)

    def version(self) -> str:
        """Changes whenever any topic's rules change; stored tags older than it are stale."""
        lines = sorted(f"{topic.slug} {topic.rules_hash()}" for topic in self.topics)
        return hashlib.sha256("\n".join(lines).encode()).hexdigest()

    def resolve(self, query: str) -> TopicDef:
        """The topic `query` names, tolerating case, punctuation and small typos."""
        if len(query) > _MAX_QUERY:
            raise UnknownTopic(query)
        outcome = self._resolved.get(query)
        if outcome is None:  # fuzzy matching costs milliseconds; ingest repeats names a lot
            outcome = self._resolve(query)
            if len(self._resolved) >= 4096:
                self._resolved.clear()
            self._resolved[query] = outcome
        if isinstance(outcome, TopicDef):
            return outcome
        error, suggestions = outcome
        raise error(query, suggestions)

    def _resolve(self, query: str) -> TopicDef | tuple[type[UnknownTopic], list[TopicDef]]:
        key = _key(query)
        if not key:
            return UnknownTopic, []
        if key in self._keys:
            return self._keys[key]
        ranked = self._ratios(normalize(query))
        if ranked and ranked[0][0] >= _ACCEPT:
            close = [topic for score, topic in ranked if score >= ranked[0][0] - _MARGIN]
            return close[0] if len(close) == 1 else (AmbiguousTopic, close)
        containing = self._containing(normalize(query))
        if len(containing) > 1:
            return AmbiguousTopic, containing[:8]
        return UnknownTopic, self.suggest(query)

    def suggest(self, query: str, limit: int = 5) -> list[TopicDef]:
        """Topics whose names look most like `query`, best first; may be empty.

        Each query word is matched to its closest word in a name (typos and prefixes count),
        so "rl for agnets" finds "RL for LLM Agents" even though the whole strings differ.
        """
        words = [w for w in split_words(query[:_MAX_QUERY]) if w not in _FILLER] or split_words(
            query[:_MAX_QUERY]
        )
        if not words:
            return []
        closeness = {word: self._word_closeness(word) for word in set(words)}
        best: dict[str, float] = {}
        for choice, topic in self._choices:
            names = choice.split()
            matched = sum(max(closeness[w].get(n, 0.0) for n in names) for w in words) / len(words)
            score = matched - 2.0 * max(0, len(names) - len(words))  # prefer tighter names
            if matched >= _SUGGEST_FLOOR and score > best.get(topic.slug, -math.inf):
                best[topic.slug] = score
        ordered = sorted(best, key=lambda slug: (-best[slug], len(self._by_slug[slug].name)))
        return [self._by_slug[slug] for slug in ordered[:limit]]

    def _word_closeness(self, word: str) -> dict[str, float]:
        """How close `word` is to each word used in names (0-100); prefixes count as close."""
        scores = {
            name: score
            for name, score, _ in process.extract(
                word, self._name_words, scorer=fuzz.ratio, limit=None, score_cutoff=60
            )
        }
        if len(word) >= 3:
            scores.update({name: 95.0 for name in self._name_words if name.startswith(word)})
        scores[word] = 100.0 if word in self._name_words else scores.get(word, 0.0)
        return scores

    def search(self, query: str) -> list[TopicDef]:
        """Topics for `topics --search`: name matches first, then descriptions, then typos."""
        words = split_words(query[:_MAX_QUERY])
        if not words:
            return list(self.topics)
        scored = []
        for topic in self.topics:
            score = _search_score(topic, words)
            if score:
                scored.append((-score, len(topic.name), topic.name, topic))
        return [entry[-1] for entry in sorted(scored, key=lambda entry: entry[:3])]

    def _ratios(self, text: str) -> list[tuple[float, TopicDef]]:
        best: dict[str, float] = {}
        for choice, topic in self._choices:
            score = fuzz.ratio(text, choice)
            best[topic.slug] = max(best.get(topic.slug, 0.0), score)
        ranked = sorted(best.items(), key=lambda item: -item[1])
        return [(score, self._by_slug[slug]) for slug, score in ranked]

    def _containing(self, text: str) -> list[TopicDef]:
        """Topics whose name or alias contains `text` as whole words, shortest name first."""
        needle = f" {text} "
        hits = {topic.slug: topic for choice, topic in self._choices if needle in f" {choice} "}
        return sorted(hits.values(), key=lambda topic: (len(topic.name), topic.name))


def _search_score(topic: TopicDef, words: list[str]) -> float:
    def covers(text: str) -> bool:
        haystack = " " + normalize(text)
        return all(f" {word}" in haystack for word in words)

    names = " ".join((topic.name, topic.slug, *topic.aliases))
    if _key(" ".join(words)) in {_key(n) for n in (topic.name, topic.slug, *topic.aliases)}:
        return 100.0
    if covers(names):
        return 90.0
    if covers(f"{names} {topic.description}"):
        return 70.0
    typo = fuzz.partial_ratio(" ".join(words), normalize(topic.name))
    return typo / 2 if typo >= 85 and len(words[0]) >= 4 else 0.0


# ---------------------------------------------------------------------------- parsing


def _parse(data: bytes, label: str) -> list[TopicDef]:
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CatalogError(f"{label}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{label}: not valid TOML: {exc}") from None
    unknown = set(document) - {"topic"}
    if unknown:
        raise CatalogError(f"{label}: unknown top-level key {sorted(unknown)[0]!r}; use [[topic]]")
    tables = document.get("topic", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise CatalogError(f"{label}: 'topic' must be an array of tables ([[topic]])")
    topics: list[TopicDef] = []
    seen: set[str] = set()
    for number, table in enumerate(tables, start=1):
        where = f"{label}: topic {number}"
        if "slug" in table:
            where += f" ({_shorten(str(table['slug']), 40)})"
        topic = _topic(table, where)
        if topic.slug in seen:
            raise CatalogError(f"{where}: slug defined twice in this file")
        seen.add(topic.slug)
        topics.append(topic)
    return topics


def _topic(table: dict, where: str) -> TopicDef:
    unknown = set(table) - _KNOWN_KEYS
    if unknown:
        raise CatalogError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    for key in _REQUIRED:
        value = table.get(key)
        if not isinstance(value, str) or not value.strip() or "\n" in value:
            raise CatalogError(f"{where}: {key!r} must be a non-empty one-line string")
    fields = {key: _string_list(table.get(key, []), key, where) for key in _LISTS}
    all_of = table.get("all_of", [])
    if not isinstance(all_of, list):
        raise CatalogError(f"{where}: 'all_of' must be a list of lists of strings")
    groups = tuple(tuple(_string_list(g, "all_of group", where)) for g in all_of)
    topic = TopicDef(
        slug=table["slug"],
        name=table["name"].strip(),
        description=table["description"].strip(),
        all_of=groups,
        **fields,
    )
    _check_rules(topic, where)
    return topic


def _string_list(value: object, key: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise CatalogError(f"{where}: {key!r} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _check_rules(topic: TopicDef, where: str) -> None:
    if not _SLUG.fullmatch(topic.slug):
        raise CatalogError(f"{where}: slug {topic.slug!r} is not kebab-case (a-z, 0-9, '-')")
    if not (topic.phrases or topic.patterns or topic.all_of):
        raise CatalogError(f"{where}: needs at least one of phrases, patterns, all_of")
    if any(not group for group in topic.all_of):
        raise CatalogError(f"{where}: an all_of group is empty")
    items = [*topic.phrases, *topic.acronyms, *topic.exclude]
    items += [item for group in topic.all_of for item in group if not item.startswith("@")]
    for phrase in items:
        if not normalize(phrase):
            raise CatalogError(f"{where}: phrase {phrase!r} has no letters or digits")
    for pattern in (*topic.patterns, *topic.exclude_patterns):
        _check_pattern(pattern, where)


def _check_pattern(pattern: str, where: str) -> None:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise CatalogError(f"{where}: pattern {pattern!r} is not a valid regex: {exc}") from None
    if compiled.groups:
        raise CatalogError(f"{where}: pattern {pattern!r} has a capturing group; use (?:...)")
    if compiled.search(" "):
        raise CatalogError(f"{where}: pattern {pattern!r} matches empty text")
    if any(char.isupper() for char in re.sub(r"\\.", "", pattern)):
        raise CatalogError(f"{where}: pattern {pattern!r} has capitals; the text is lowercase")


def _check_links(
    topics: Sequence[TopicDef], by_slug: Mapping[str, TopicDef], origins: Mapping[str, str]
) -> None:
    def fail(topic: TopicDef, problem: str) -> None:
        raise CatalogError(f"{origins.get(topic.slug, 'catalog')}: topic {topic.slug}: {problem}")

    if len(by_slug) != len(topics):
        raise CatalogError("catalog: the same slug appears twice")
    for topic in topics:
        for slug in (*topic.parents, *topic.references()):
            if slug == topic.slug:
                fail(topic, "refers to itself")
            if slug not in by_slug:
                fail(topic, f"refers to unknown topic {slug!r}")
    for edges, what in ((lambda t: t.parents, "parents"), (lambda t: t.references(), "all_of")):
        cycle = _find_cycle(by_slug, edges)
        if cycle:
            fail(by_slug[cycle[0]], f"cycle through {what}: {' -> '.join(cycle)}")


def _find_cycle(
    by_slug: Mapping[str, TopicDef], edges: Callable[[TopicDef], Iterable[str]]
) -> list[str] | None:
    """A cycle along `edges` as [a, b, ..., a], if any (iterative: files may be deep)."""
    done: set[str] = set()
    for start in by_slug:
        path: list[str] = []
        stack = [(start, iter(edges(by_slug[start])))]
        on_path = {start}
        path.append(start)
        while stack:
            slug, following = stack[-1]
            nxt = next(following, None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                done.add(slug)
            elif nxt in on_path:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in done:
                stack.append((nxt, iter(edges(by_slug[nxt]))))
                on_path.add(nxt)
                path.append(nxt)
    return None


def _name_keys(topics: Sequence[TopicDef], origins: Mapping[str, str]) -> dict[str, TopicDef]:
    keys: dict[str, TopicDef] = {}
    for topic in topics:
        for text in (topic.name, topic.slug, *topic.aliases):
            other = keys.setdefault(_key(text), topic)
            if other is not topic:
                raise CatalogError(
                    f"{origins.get(topic.slug, 'catalog')}: topic {topic.slug}: "
                    f"{text!r} names topic {other.slug!r} too"
                )
    return keys
