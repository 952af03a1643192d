"""Tag papers with catalog topics from their title, abstract and arXiv categories.

Scoring. Every phrase or pattern found is one piece of evidence, weighing 1.0 when it occurs
in the title and 0.4 when it occurs in the abstract (both: 1.4). A topic's strength is the sum
of the evidence for its own phrases and patterns, or, when larger, the strength of its
`all_of` groups taken together, which is that of the weakest group. A group is as strong as
the summed evidence of its phrases, or as its strongest "@slug": that topic's own strength,
or the strongest phrase/pattern match among the topic and its descendants. The score is
1 - exp(-strength): 0.63 for a title hit, 0.33 for a single abstract mention. Topics at or
above the threshold (0.3) become "rules" tags unless an exclude or a category gate vetoes
them; then every ancestor of a tag is tagged too ("rollup", 0.8 of the child's score per
level) unless it has a "rules" tag of its own.

Speed (bench/bench_tagger.py). No regex runs per phrase: the text is split into words once
and walked through a trie of phrase words (see `_Matcher`); a pattern that starts with a word
only runs when that word occurs. All-of groups are only evaluated for topics whose narrowest
group has evidence, in an order where every referenced topic comes first. Weights are added
as integer units, and each (topic, score) builds its TagScore once, as scores repeat.
"""

from __future__ import annotations

import heapq
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from digests.catalog import Catalog, TopicDef, blank_separators, normalize

UNIT = 0.2  # evidence is added up in integer units of this weight
TITLE_UNITS = 5  # a title hit weighs 1.0
ABSTRACT_UNITS = 2  # an abstract hit weighs 0.4
ROLLUP_DECAY = 0.8
MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 20_000

# Byte -> itself for lowercase letters and digits, the lowercase letter for capitals, else space.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256)
)
_LEADING_WORD = re.compile(r"[A-Za-z0-9]+")

_Node = tuple[set[int], dict]  # ids of phrases ending at this word, the words that may follow
_Group = tuple[int, tuple[int, ...]]  # key of its phrases' total, topics it refers to
_CachedTag = tuple[int, "TagScore"]  # sort key (score, then slug), the shared tag


@dataclass(frozen=True, slots=True)
class TagScore:
    slug: str
    score: float  # 0 < score <= 1
    source: str  # "rules" for a direct match, "rollup" for a parent reached through a child


class Tagger:
    def __init__(self, catalog: Catalog, threshold: float = 0.3) -> None:
        if not 0 < threshold < 1:
            raise ValueError(f"threshold must be between 0 and 1, not {threshold!r}")
        self.catalog = catalog
        self.threshold = threshold
        # The threshold as a strength in units, so that most topics need no exp().
        self._minimum = -math.log(1.0 - threshold) / UNIT
        self._slugs = [topic.slug for topic in catalog.topics]
        self._index = {slug: i for i, slug in enumerate(self._slugs)}
        self._matcher = _Matcher()
        self._index_rules()
        self._index_composites()
        self._index_hierarchy()
        self._allowed_cache: dict[tuple[str, ...], list[bool]] = {}
        self._rule_tags: list[dict[int, _CachedTag]] = [{} for _ in self._slugs]
        self._rollup_tags: list[dict[float, _CachedTag]] = [{} for _ in self._slugs]

    def tag(self, title: str, abstract: str, categories: Sequence[str]) -> list[TagScore]:
        """Topics for one paper, best first; odd text, markup and huge inputs are fine."""
        in_title = self._matcher.find((title or "")[:MAX_TITLE_CHARS])
        in_abstract = self._matcher.find((abstract or "")[:MAX_ABSTRACT_CHARS])
        if not in_title and not in_abstract:
            return []
        strength, vetoed = self._strengths(in_title, in_abstract)
        allowed = self._allowed(categories)
        minimum, gate_of, rule_tags = self._minimum, self._gate_of, self._rule_tags
        ranked: dict[int, TagScore] = {}  # sort key -> tag
        rules: dict[int, float] = {}
        for topic, units in strength.items():
            if units >= minimum and topic not in vetoed:
                gate = gate_of[topic]
                if gate < 0 or allowed[gate]:
                    key, tag = rule_tags[topic].get(units) or self._cache_rule(topic, units)
                    ranked[key] = tag
                    rules[topic] = tag.score
        rolled: dict[int, float] = {}
        for topic, score in rules.items():
            for ancestor, factor in self._rollups[topic]:
                if ancestor not in rules and rolled.get(ancestor, 0.0) < score * factor:
                    rolled[ancestor] = score * factor
        rollup_tags = self._rollup_tags
        for topic, score in rolled.items():
            key, tag = rollup_tags[topic].get(score) or self._cache_rollup(topic, score)
            ranked[key] = tag
        return [ranked[key] for key in sorted(ranked)]

    def _strengths(
        self, in_title: set[int], in_abstract: set[int]
    ) -> tuple[dict[int, int], set[int]]:
        """Topic -> strength in units before threshold and gates, and the vetoed topics."""
        direct: dict[int, int] = {}
        raw: dict[int, int] = {}  # all_of group key -> units of its phrases
        vetoed: set[int] = set()
        pending: set[int] = set()  # composites to evaluate
        uses = self._uses
        for found, units in ((in_title, TITLE_UNITS), (in_abstract, ABSTRACT_UNITS)):
            for evidence in found:
                topics, keys, wakes, vetoes = uses[evidence]
                for topic in topics:
                    direct[topic] = direct.get(topic, 0) + units
                for key in keys:
                    raw[key] = raw.get(key, 0) + units
                if wakes:
                    pending.update(wakes)
                if vetoes:
                    vetoed.update(vetoes)
        # What an "@topic" reference sees: the strongest direct match at or under the topic,
        # or the topic's own all_of result.
        support: dict[int, int] = {}
        for topic, value in direct.items():
            if topic not in vetoed:
                for member in self._lineage[topic]:
                    if support.get(member, 0) < value:
                        support[member] = value
                pending.update(self._wake_by_lineage[topic])
        queue = sorted(pending)  # composite numbers follow the order of their references
        while queue:
            number = heapq.heappop(queue)
            topic, groups = self._composites[number]
            value = _weakest(groups, raw, support)
            if value > direct.get(topic, 0):
                direct[topic] = value
                if topic not in vetoed and value > support.get(topic, 0):
                    support[topic] = value
                    for later in self._wake_by_topic.get(topic, ()):
                        if later not in pending:
                            pending.add(later)
                            heapq.heappush(queue, later)
        return direct, vetoed

    def _allowed(self, categories: Sequence[str]) -> list[bool]:
        """For each distinct category gate, whether a paper with `categories` passes it."""
        if isinstance(categories, str):  # "cs.CL cs.LG", as arXiv writes them
            categories = categories.split()
        key = tuple(categories or ())
        allowed = self._allowed_cache.get(key)
        if allowed is None:
            cats = [c.strip().lower() for c in key if isinstance(c, str) and c.strip()]
            allowed = [
                not cats or any(c == g or c.startswith(g + ".") for c in cats for g in gate)
                for gate in self._gates
            ]
            if len(self._allowed_cache) > 4096:  # a few hundred combinations occur in practice
                self._allowed_cache.clear()
            self._allowed_cache[key] = allowed
        return allowed

    # Each (topic, strength) builds its TagScore once, with an integer that sorts it by score
    # and then slug: scores repeat a lot, and frozen dataclasses are slow to build.

    def _cache_rule(self, topic: int, units: int) -> _CachedTag:
        score = 1.0 - math.exp(-units * UNIT)
        return self._cache(self._rule_tags[topic], units, topic, score, "rules")

    def _cache_rollup(self, topic: int, score: float) -> _CachedTag:
        return self._cache(self._rollup_tags[topic], score, topic, score, "rollup")

    def _cache(
        self, cache: dict, strength: float, topic: int, score: float, source: str
    ) -> _CachedTag:
        if len(cache) > 1_000:  # strengths repeat, so this only guards against odd inputs
            cache.clear()
        tag = TagScore(self._slugs[topic], round(score, 4), source)
        key = round((1.0 - tag.score) * 10_000) * len(self._slugs) + self._rank[topic]
        cache[strength] = (key, tag)
        return key, tag

    # ------------------------------------------------------------------ building

    def _index_rules(self) -> None:
        self._direct: dict[int, list[int]] = {}  # evidence id -> topics it supports
        self._vetoes: dict[int, list[int]] = {}  # evidence id -> topics it vetoes
        phrase_id, pattern_id = self._matcher.phrase_id, self._matcher.pattern_id
        for topic, rules in enumerate(self.catalog.topics):
            for evidence in (*map(phrase_id, rules.phrases), *map(pattern_id, rules.patterns)):
                self._direct.setdefault(evidence, []).append(topic)
            for evidence in (
                *map(phrase_id, rules.exclude),
                *map(pattern_id, rules.exclude_patterns),
            ):
                self._vetoes.setdefault(evidence, []).append(topic)

    def _index_composites(self) -> None:
        """Topics with all_of groups, numbered so that referenced topics come first."""
        self._composites: list[tuple[int, list[_Group]]] = []
        self._raw: dict[int, list[int]] = {}  # evidence id -> group keys
        self._wake_by_evidence: dict[int, list[int]] = {}  # evidence id -> composites
        self._wake_by_topic: dict[int, list[int]] = {}  # referenced topic -> composites
        self._group_keys = itertools.count()
        for rules in _composite_order(self.catalog):
            self._add_composite(rules)
        # Per evidence id: (topics, group keys, composites it wakes, topics it vetoes).
        self._uses = [
            (
                tuple(self._direct.get(evidence, ())),
                tuple(self._raw.get(evidence, ())),
                tuple(self._wake_by_evidence.get(evidence, ())),
                tuple(self._vetoes.get(evidence, ())),
            )
            for evidence in range(self._matcher.size)
        ]

    def _add_composite(self, rules: TopicDef) -> None:
        number = len(self._composites)
        groups: list[_Group] = []
        # Narrowest group first: a composite is only looked at when that one has evidence.
        for group in sorted(rules.all_of, key=self._breadth):
            key = next(self._group_keys)
            references = tuple(self._index[item[1:]] for item in group if item.startswith("@"))
            phrases = [self._matcher.phrase_id(i) for i in group if not i.startswith("@")]
            for evidence in phrases:
                self._raw.setdefault(evidence, []).append(key)
            if not groups:
                for evidence in phrases:
                    self._wake_by_evidence.setdefault(evidence, []).append(number)
                for referenced in references:
                    self._wake_by_topic.setdefault(referenced, []).append(number)
            groups.append((key, references))
        self._composites.append((self._index[rules.slug], groups))

    def _breadth(self, group: Sequence[str]) -> int:
        """A rough guess of how many papers a group matches, to pick the narrowest one."""
        breadth = 0
        for item in group:
            if item.startswith("@"):
                breadth += 1 + len(self.catalog.descendants(item[1:]))
            else:
                breadth += 3 if " " not in normalize(item) else 1
        return breadth

    def _index_hierarchy(self) -> None:
        catalog, index = self.catalog, self._index
        referenced = {r for _, groups in self._composites for _, refs in groups for r in refs}
        # Per topic: itself and its ancestors that all_of groups refer to, and the composites
        # a match of the topic wakes up through them.
        self._lineage = [
            tuple(index[s] for s in (slug, *catalog.ancestors(slug)) if index[s] in referenced)
            for slug in self._slugs
        ]
        self._wake_by_lineage = [
            tuple({c for member in line for c in self._wake_by_topic.get(member, ())})
            for line in self._lineage
        ]
        self._rollups = [
            tuple((ancestor, ROLLUP_DECAY**level) for ancestor, level in levels)
            for levels in (_ancestor_levels(catalog, slug, index) for slug in self._slugs)
        ]
        gates = [tuple(c.lower() for c in catalog.category_gate(slug)) for slug in self._slugs]
        self._gates = sorted({gate for gate in gates if gate})
        self._gate_of = [self._gates.index(gate) if gate else -1 for gate in gates]
        alphabetical = {slug: rank for rank, slug in enumerate(sorted(self._slugs))}
        self._rank = [alphabetical[slug] for slug in self._slugs]


def _weakest(groups: list[_Group], raw: dict[int, int], support: dict[int, int]) -> int:
    """Strength of an all_of rule: its weakest group, each as strong as its best evidence."""
    weakest = 0
    for number, (key, references) in enumerate(groups):
        value = raw.get(key, 0)
        for referenced in references:
            held = support.get(referenced, 0)
            if held > value:
                value = held
        if not value:
            return 0
        if not number or value < weakest:
            weakest = value
    return weakest


class _Matcher:
    """Assigns ids to phrases and patterns and finds which of them occur in a text.

    Phrases live in a trie of words: word -> (ids of phrases ending here, next words). One
    C-level `map` looks every word of the text up at the root; only the words that start a
    phrase are walked in Python, which finds every phrase at every start, nested ones too.
    """

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], int] = {}
        self._trie: dict[bytes, _Node] = {}
        self._patterns: list[tuple[int, bytes | None, re.Pattern[str]]] = []

    @property
    def size(self) -> int:
        """How many ids have been handed out."""
        return len(self._ids)

    def phrase_id(self, phrase: str) -> int:
        key = ("phrase", normalize(phrase))
        if key not in self._ids:
            evidence = self._ids[key] = len(self._ids)
            *leading, last = key[1].encode().split()
            for ending in (last, last + b"s"):  # the plural is matched too
                level = self._trie
                for word in leading:
                    level = level.setdefault(word, (set(), {}))[1]
                level.setdefault(ending, (set(), {}))[0].add(evidence)
        return self._ids[key]

    def pattern_id(self, pattern: str) -> int:
        key = ("pattern", pattern)
        if key not in self._ids:
            evidence = self._ids[key] = len(self._ids)
            literal = _required_literal(pattern)
            compiled = re.compile(pattern)  # the text is lowercase already
            self._patterns.append((evidence, literal and literal.encode(), compiled))
        return self._ids[key]

    def find(self, text: str) -> set[int]:
        """Ids of the phrases and patterns that occur in `text`."""
        if text.isascii():  # bytes.translate lowercases and blanks in one cheap pass
            spaced = text.encode("ascii").translate(_ASCII_WORDS)
        else:
            spaced = blank_separators(text).encode()
        words = spaced.split()
        found: set[int] = set()
        roots = list(map(self._trie.get, words))
        words.append(b"")  # lets a phrase walk look one word past the end
        for start in itertools.compress(range(len(roots)), roots):  # skips the rest in C
            ends, following = roots[start]
            if ends:
                found |= ends
            position = start + 1
            while words[position] in following:
                ends, following = following[words[position]]
                if ends:
                    found |= ends
                position += 1
        joined = None
        for evidence, literal, pattern in self._patterns:
            if literal is None or literal in spaced:
                joined = joined or " " + b" ".join(words).decode()  # " w1 w2 ... wn "
                if pattern.search(joined):
                    found.add(evidence)
        return found


def _composite_order(catalog: Catalog) -> list[TopicDef]:
    order: list[TopicDef] = []
    placed: set[str] = set()

    def place(topic: TopicDef) -> None:
        if topic.slug not in placed:
            placed.add(topic.slug)
            for slug in sorted(topic.references()):
                place(catalog.get(slug))
            if topic.all_of:
                order.append(topic)

    for topic in catalog.topics:
        place(topic)
    return order


def _ancestor_levels(catalog: Catalog, slug: str, index: dict[str, int]) -> list[tuple[int, int]]:
    levels: dict[str, int] = {}
    frontier = [(parent, 1) for parent in catalog.get(slug).parents]
    while frontier:
        current, level = frontier.pop(0)
        if current not in levels:
            levels[current] = level
            frontier += [(parent, level + 1) for parent in catalog.get(current).parents]
    return [(index[ancestor], level) for ancestor, level in levels.items()]


def _required_literal(pattern: str) -> str | None:
    """Letters that every match of `pattern` starts with, if it has any."""
    depth, escaped, in_class = 0, False, False
    for char in pattern:  # a top-level "|" means no single prefix is required
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            return None
    literal = _LEADING_WORD.match(pattern)
    if literal is None:
        return None
    text = literal.group(0)
    if pattern[literal.end() : literal.end() + 1] in ("?", "*", "{"):
        text = text[:-1]  # the quantifier makes the last character optional
    return text.lower() or None
