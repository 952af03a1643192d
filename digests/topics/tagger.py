"""Tag papers with catalog topics from their title, abstract and arXiv categories.

Two tiers. The rules (this module) find every topic a paper may be about; for the topics the
learned tier knows (`digests.topics.topic_model`), a per-topic model trained on judged real papers
then decides, with a calibrated probability as the score. Topics without a model are decided
by the rules' own score and threshold.

Rules. Every phrase or pattern found is one piece of evidence, weighing 1.0 when it occurs in
the title and 0.4 when it occurs in the abstract (both: 1.4). A paper listed in one of a topic's
`field_categories` (cs.CV for Computer Vision) has evidence as strong as a title hit for that
topic alone, never for its children. An acronym ("RL", "ASR") counts only when other evidence
for its topic or one of the topic's descendants is present, so "RL" meaning radio-loud or "ASR"
meaning attack success rate is no evidence. A topic's strength is the sum of the evidence for
its own phrases and patterns, or, when larger, the strength of its `all_of` groups taken
together, which is that of the weakest group. A group is as strong as the summed evidence of
its phrases, or as its strongest "@slug": that topic's own strength, or the strongest
phrase/pattern match among the topic and its descendants. The rules' score is
1 - exp(-strength): 0.63 for a title hit, 0.33 for a single abstract mention.

Decisions. A topic with any evidence that no exclude or category gate vetoes is a candidate,
and so is a modelled topic whose descendant is one. A modelled candidate is tagged ("model")
when its probability reaches the topic's threshold and its gates (broader modelled topics'
probabilities) reach theirs, all chosen on the judged papers; a gate also passes when another
topic tagged by the model rolls up into the gate's topic. Any other candidate is
tagged ("rules") when its rules' score reaches `threshold` (0.5: a title hit or two pieces of
abstract evidence, since one mention in an abstract is no subject) and every modelled topic
above it is tagged; its name, or the head of a two-word name ("diffusion"), in the title counts
as a title hit no broader model vetoes once a parent is tagged with at least HEAD_PARENT_SCORE.
Then every ancestor of a tag is tagged too ("rollup", 0.8 of the child's score per level)
unless it has a tag of its own, or is a modelled topic whose probability is below
MODEL_ROLLUP_FLOOR.

Speed (bench/bench_tagger.py). No regex runs per phrase: the text is split into words once
and walked through a trie of phrase words (see `_Matcher`); a pattern that starts with a word
only runs when that word occurs. All-of groups are only evaluated for topics whose narrowest
group has evidence, in an order where every referenced topic comes first. Weights are added
as integer units, and each (topic, score) builds its TagScore once, as scores repeat. The
model reads the paper's terms only when a modelled topic is a candidate.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import itertools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

import numpy as np

from digests.topics.catalog import Catalog, TopicDef, normalize
from digests.topics.text_features import paper_word_bytes, text_words
from digests.topics.topic_model import TopicModel

UNIT = 0.2  # evidence is added up in integer units of this weight
TITLE_UNITS = 5  # a title hit weighs 1.0
ABSTRACT_UNITS = 2  # an abstract hit weighs 0.4
ROLLUP_DECAY = 0.8
DECISIONS = "5"  # how rules, model and roll-ups combine; part of `Tagger.version`
# A rules-only topic's head words in the title count when a parent is tagged at least this
# surely: by its model, or by the rules with a title hit and more.
HEAD_PARENT_SCORE = 0.75
# A tag rolls up into a broader modelled topic only when that topic's own model gives it at
# least this probability: a paper that applies GRPO to a task is no paper on policy
# optimization, whatever GRPO's place in the catalog.
MODEL_ROLLUP_FLOOR = 0.2
# The learned tier decides its topics on every paper of their field, not only where the rules
# find a phrase: on independently drawn pools most missed papers never became candidates.
MODEL_EVERYWHERE = True
# The second word of a two-word topic name that says what kind of thing it is, not what it is
# about: the head of "Diffusion Models" is "diffusion".
GENERIC_NAME_WORDS = frozenset({"models", "methods", "systems"})

_LEADING_WORD = re.compile(r"[A-Za-z0-9]+")

_Node = tuple[set[int], dict]  # ids of phrases ending at this word, the words that may follow
_NO_WORDS: Mapping[bytes, tuple] = MappingProxyType({})  # follows the last word of every phrase
_Group = tuple[int, tuple[int, ...]]  # key of its phrases' total, topics it refers to
_CachedTag = tuple[int, "TagScore"]  # sort key (score, then slug), the shared tag
Paper = tuple[str, str, Sequence[str]]  # title, abstract, categories


@dataclass(frozen=True, slots=True)
class TagScore:
    slug: str
    score: float  # 0 < score <= 1
    # "model" when the learned tier decided, "rules" for a direct match decided by the rules,
    # "rollup" for a parent reached through a child.
    source: str


@dataclass(frozen=True)
class TagEvidence:
    """What the tagger saw for one topic of one paper."""

    slug: str
    rules_score: float | None  # None: no evidence at all, so not even a candidate
    evidence: list[str]  # "title:phrase" / "abstract:phrase" found for the topic or below it
    probability: float | None  # the model's, when it decides this topic
    threshold: float | None
    terms: list[tuple[str, float]]  # the terms that moved the model most


SHIPPED = "shipped"


class Tagger:
    def __init__(
        self,
        catalog: Catalog,
        threshold: float = 0.5,
        model: TopicModel | Literal["shipped"] | None = SHIPPED,
        everywhere: bool | None = None,
    ) -> None:
        """`model`: the learned tier, used for the topics whose rules it was trained with; by
        default the shipped one, None for the rules alone. `everywhere`: whether the model
        decides its topics on every paper of their field (the default, MODEL_EVERYWHERE), or
        only where the rules find evidence."""
        self.everywhere = MODEL_EVERYWHERE if everywhere is None else everywhere
        if isinstance(model, str):
            model = TopicModel.shipped()
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
        self._matcher.pack()
        self._index_hierarchy()
        self._index_model(model)
        self._allowed_cache: dict[tuple[str, ...], tuple[list[bool], set[int]]] = {}
        self._rule_tags: list[dict[int, _CachedTag]] = [{} for _ in self._slugs]
        self._rollup_tags: list[dict[float, _CachedTag]] = [{} for _ in self._slugs]

    @functools.cached_property
    def version(self) -> str:
        """Changes with any rule, the model or a threshold; tags of another version are stale."""
        model = self._model.digest if self._model is not None else "no model"
        decisions = DECISIONS if self.everywhere else f"{DECISIONS}-evidence"
        parts = (decisions, self.catalog.version(), repr(self.threshold), model)
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]

    @property
    def modelled(self) -> list[str]:
        """Slugs the learned tier decides."""
        return [self._slugs[topic] for topic in self._model_topics]

    def tag(self, title: str, abstract: str, categories: Sequence[str]) -> list[TagScore]:
        """Topics for one paper, best first; odd text, markup and huge inputs are fine."""
        return self.tag_many([(title, abstract, categories)])[0]

    def tag_many(self, papers: Iterable[Paper]) -> list[list[TagScore]]:
        """Topics for each (title, abstract, categories), in order; the learned tier scores
        the papers that need it together, which is much faster than one at a time."""
        prepared = []
        for title, abstract, categories in papers:
            words = paper_word_bytes(title, abstract)
            prepared.append((*words, categories, *self._candidates_and_heads(*words, categories)))
        column = self._model_column
        asking = [
            number
            for number, (*_, candidates, _heads) in enumerate(prepared)
            if any(column[topic] >= 0 for topic in candidates)
        ]
        rows: dict[int, np.ndarray] = {}
        if asking:
            scores = self._model.probabilities_many([prepared[n][:3] for n in asking])
            rows = dict(zip(asking, scores, strict=True))
        return [
            self._decide(candidates, rows.get(n), heads)
            for n, (*_, candidates, heads) in enumerate(prepared)
        ]

    def _decide(
        self,
        candidates: dict[int, int],
        probabilities: np.ndarray | None,
        heads: tuple[int, ...] = (),
    ) -> list[TagScore]:
        """The tags, from the rules' candidates and the model's probabilities (by column)."""
        ranked: dict[int, TagScore] = {}  # sort key -> tag
        decided: dict[int, float] = {}
        column = self._model_column
        if probabilities is not None:
            accepted = {}
            # Only the few columns over their thresholds are looked at in Python.
            for col in np.flatnonzero(probabilities >= self._column_threshold).tolist():
                topic = self._column_topic[col]
                if topic in candidates:
                    accepted[topic] = float(probabilities[col])
            for topic, probability in self._through_gates(accepted, probabilities).items():
                tag = TagScore(self._slugs[topic], round(probability, 4), "model")
                ranked[self._sort_key(topic, tag.score)] = tag
                decided[topic] = tag.score
        # The rules alone never tag a paper into a subtree whose modelled root the model
        # turned down: "exploration" in an LLM paper is no RL Exploration if it is no RL.
        covered = set(decided)
        for topic in decided:
            covered.update(ancestor for ancestor, _ in self._rollups[topic])
        for topic, units in candidates.items():
            if column[topic] >= 0 or units < self._minimum:
                continue
            if all(a in covered for a in self._modelled_ancestors[topic]):
                key, tag = self._rule_tags[topic].get(units) or self._cache_rule(topic, units)
                ranked[key] = tag
                decided[topic] = tag.score
        unbacked: set[int] = set()  # tagged by its title, though a broader model said no
        for topic in heads:
            # "a Unified Diffusion Framework" in a paper confidently about generative models is
            # a diffusion paper, though no phrase of the topic's rules is in it: evidence no gate
            # of a broader model vetoes.
            if topic in decided:
                continue
            parents = self._parents[topic]
            if any(decided.get(parent, 0.0) >= HEAD_PARENT_SCORE for parent in parents):
                key, tag = self._rule_tags[topic].get(TITLE_UNITS) or self._cache_rule(
                    topic, TITLE_UNITS
                )
                ranked[key] = tag
                decided[topic] = tag.score
                if not all(a in covered for a in self._modelled_ancestors[topic]):
                    unbacked.add(topic)
        rolled: dict[int, float] = {}
        for topic, score in decided.items():
            for ancestor, factor in self._rollups[topic]:
                if column[ancestor] >= 0 and (
                    topic in unbacked
                    or (
                        probabilities is not None
                        and probabilities[column[ancestor]] < MODEL_ROLLUP_FLOOR
                    )
                ):
                    continue  # the broader model's no stands for the broader topic
                if ancestor not in decided and rolled.get(ancestor, 0.0) < score * factor:
                    rolled[ancestor] = score * factor
        rollup_tags = self._rollup_tags
        for topic, score in rolled.items():
            key, tag = rollup_tags[topic].get(score) or self._cache_rollup(topic, score)
            ranked[key] = tag
        return [ranked[key] for key in sorted(ranked)]

    def _through_gates(
        self, accepted: dict[int, float], probabilities: np.ndarray
    ) -> dict[int, float]:
        """The accepted topics whose gates pass: no RL for LLM Agents in a paper the RL model
        rules out. A gate also passes when another topic that passes rolls up into the gate's
        topic, as that topic is tagged anyway: a paper tagged LLM Agent Training is an LLM
        Agents paper for RL for LLM Agents' gate too, though LLM Agents' own model says less."""
        passed = {t: p for t, p in accepted.items() if self._gates_pass(t, probabilities, set())}
        held = [topic for topic in accepted if topic not in passed]
        while held:
            # Model columns of the topics the passed ones roll up into (a held topic is not
            # among them, so none opens its own gate).
            covered = {
                self._model_column[ancestor]
                for topic in passed
                for ancestor, _ in self._rollups[topic]
            }
            opened = [t for t in held if self._gates_pass(t, probabilities, covered)]
            if not opened:
                break
            for topic in opened:
                passed[topic] = accepted[topic]
                held.remove(topic)
        return passed

    def _gates_pass(self, topic: int, probabilities: np.ndarray, covered: set[int]) -> bool:
        for gate, level in self._model_gates[topic]:
            if probabilities[gate] >= level:
                continue
            # Rolled up into only where a roll-up would tag it (MODEL_ROLLUP_FLOOR).
            if probabilities[gate] < MODEL_ROLLUP_FLOOR or gate not in covered:
                return False
        return True

    def candidates(self, title: str, abstract: str, categories: Sequence[str]) -> dict[str, float]:
        """Topics with any unvetoed evidence, with the rules' score (whether tagged or not)."""
        found = self._candidates(*paper_word_bytes(title, abstract), categories)
        return {
            self._slugs[topic]: round(1.0 - math.exp(-units * UNIT), 4)
            for topic, units in found.items()
        }

    def explain(
        self, title: str, abstract: str, categories: Sequence[str], slug: str
    ) -> TagEvidence:
        """Why `slug` is or is not among the paper's tags, for `digestbot eval`."""
        topic = self._index[slug]
        title_words, abstract_words = paper_word_bytes(title, abstract)
        units = self._candidates(title_words, abstract_words, categories).get(topic)
        related = {topic, *self._corroborators.get(topic, ())}
        related.update(self._index[s] for s in self.catalog.descendants(slug))
        words = sorted(
            f"{where}:{self._matcher.name(evidence)}"
            for where, found in (
                ("title", self._matcher.find(title_words)),
                ("abstract", self._matcher.find(abstract_words)),
            )
            for evidence in found
            if related & set(self._related[evidence])
        )
        rules = None if units is None else round(1.0 - math.exp(-units * UNIT), 4)
        column = self._model_column[topic]
        if column < 0 or units is None:
            return TagEvidence(slug, rules, words, None, None, [])
        vector = self._model.vector(title, abstract, categories)
        row = self._model.probabilities_many([(title_words, abstract_words, categories)])[0]
        probability = float(row[column])
        terms = self._model.top_terms(vector, column)
        return TagEvidence(
            slug, rules, words, round(probability, 4), self._model_threshold[topic], terms
        )

    def _candidates(
        self, title_words: list[bytes], abstract_words: list[bytes], categories: Sequence[str]
    ) -> dict[int, int]:
        """Topic -> rules' strength in units, for topics with evidence and no veto."""
        return self._candidates_and_heads(title_words, abstract_words, categories)[0]

    def _candidates_and_heads(
        self, title_words: list[bytes], abstract_words: list[bytes], categories: Sequence[str]
    ) -> tuple[dict[int, int], tuple[int, ...]]:
        """The candidates, and the rules-only topics (with no veto) whose name or head words
        the title holds (see `_decide`)."""
        allowed, fields = self._allowed(categories)
        in_title = self._matcher.find(title_words) | fields
        in_abstract = self._matcher.find(abstract_words)
        gate_of = self._gate_of
        if not in_title and not in_abstract:
            return self._everywhere(allowed, set(), {}, categories), ()
        strength, vetoed = self._strengths(in_title, in_abstract)
        found = {
            topic: units
            for topic, units in strength.items()
            if topic not in vetoed and (gate_of[topic] < 0 or allowed[gate_of[topic]])
        }
        # A modelled topic is also a candidate through evidence for any of its descendants:
        # a paper about LLM agents may well be about LLMs, and only the model can tell.
        for topic, units in list(found.items()):
            for ancestor in self._modelled_ancestors[topic]:
                gated_out = gate_of[ancestor] >= 0 and not allowed[gate_of[ancestor]]
                if found.get(ancestor, 0) < units and ancestor not in vetoed and not gated_out:
                    found[ancestor] = units
        found = self._everywhere(allowed, vetoed, found, categories)
        heads = tuple(
            topic
            for topic in self._title_heads(title_words)
            if topic not in vetoed and (gate_of[topic] < 0 or allowed[gate_of[topic]])
        )
        return found, heads

    def _everywhere(
        self,
        allowed: list[bool],
        vetoed: set[int],
        found: dict[int, int],
        categories: Sequence[str] | str | None,
    ) -> dict[int, int]:
        """`found`, and every modelled topic its category gate lets in that no exclude vetoes,
        with no rules' strength of its own (0 units): the model decides on every paper of its
        field, so a paper in none of its phrases is not lost before it. Topics the model marks
        `everywhere=False` keep the rules as their candidate stage. A paper without categories
        has no known field: only the rules' evidence makes it a candidate (a model's prior
        alone would tag an empty note)."""
        if not self.everywhere or not self._field_topics or not categories:
            return found
        key = tuple(allowed)
        opened = self._open_models.get(key)
        if opened is None:
            gate_of = self._gate_of
            opened = self._open_models[key] = dict.fromkeys(
                (t for t in self._field_topics if gate_of[t] < 0 or allowed[gate_of[t]]), 0
            )
        merged = {**opened, **found}
        for topic in vetoed:
            if topic in opened:
                del merged[topic]
        return merged

    def open_topics(self, title: str, abstract: str, categories: Sequence[str]) -> set[str]:
        """Topics a paper's categories and excludes leave open to it, evidence or not: where
        the learned tier may decide (training proposes a topic there as the tagger does)."""
        if not categories:
            return set()
        allowed, fields = self._allowed(categories)
        title_words, abstract_words = paper_word_bytes(title, abstract)
        vetoed = self._strengths(
            self._matcher.find(title_words) | fields, self._matcher.find(abstract_words)
        )[1]
        gate_of = self._gate_of
        return {
            slug
            for topic, slug in enumerate(self._slugs)
            if topic not in vetoed and (gate_of[topic] < 0 or allowed[gate_of[topic]])
        }

    def _title_heads(self, title_words: list[bytes]) -> list[int]:
        """Rules-only topics whose name ("diffusion models") or head words ("diffusion") occur
        in the title; a name's last word may be singular or plural."""
        found = []
        for start, word in enumerate(title_words):
            for topic, words in self._heads_by_word.get(word, ()):
                end = start + len(words)
                seen = title_words[start:end]
                if (
                    tuple(seen[:-1]) == words[:-1]
                    and seen
                    and seen[-1] in (words[-1], words[-1] + b"s")
                ):
                    found.append(topic)
        return found

    def _strengths(
        self, in_title: set[int], in_abstract: set[int]
    ) -> tuple[dict[int, int], set[int]]:
        """Topic -> strength in units before threshold and gates, and the vetoed topics."""
        direct: dict[int, int] = {}
        raw: dict[int, int] = {}  # all_of group key -> units of its phrases
        vetoed: set[int] = set()
        pending: set[int] = set()  # composites to evaluate
        acronyms: dict[int, int] = {}  # topic -> units of its acronyms, until corroborated
        uses = self._uses
        for found, units in ((in_title, TITLE_UNITS), (in_abstract, ABSTRACT_UNITS)):
            for evidence in found:
                topics, keys, wakes, vetoes, abbreviates = uses[evidence]
                for topic in topics:
                    direct[topic] = direct.get(topic, 0) + units
                for key in keys:
                    raw[key] = raw.get(key, 0) + units
                if wakes:
                    pending.update(wakes)
                if vetoes:
                    vetoed.update(vetoes)
                for topic in abbreviates:
                    acronyms[topic] = acronyms.get(topic, 0) + units
        for topic, units in acronyms.items():
            if any(member in direct for member in self._corroborators[topic]):
                direct[topic] = direct.get(topic, 0) + units
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

    def _allowed(self, categories: Sequence[str]) -> tuple[list[bool], set[int]]:
        """For each distinct category gate, whether a paper with `categories` passes it; and
        the evidence ids of the topics whose field those categories define."""
        if isinstance(categories, str):  # "cs.CL cs.LG", as arXiv writes them
            categories = categories.split()
        key = tuple(categories or ())
        cached = self._allowed_cache.get(key)
        if cached is None:
            cats = [c.strip().lower() for c in key if isinstance(c, str) and c.strip()]
            allowed = [
                not cats or any(c == g or c.startswith(g + ".") for c in cats for g in gate)
                for gate in self._gates
            ]
            fields = {evidence for c in cats for evidence in self._field_evidence.get(c, ())}
            if len(self._allowed_cache) > 4096:  # a few hundred combinations occur in practice
                self._allowed_cache.clear()
            cached = self._allowed_cache[key] = (allowed, fields)
        return cached

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
        key = self._sort_key(topic, tag.score)
        cache[strength] = (key, tag)
        return key, tag

    def _sort_key(self, topic: int, score: float) -> int:
        """Orders tags by score, best first, then by slug."""
        return round((1.0 - score) * 10_000) * len(self._slugs) + self._rank[topic]

    # ------------------------------------------------------------------ building

    def _index_rules(self) -> None:
        self._direct: dict[int, list[int]] = {}  # evidence id -> topics it supports
        self._vetoes: dict[int, list[int]] = {}  # evidence id -> topics it vetoes
        self._abbreviates: dict[int, list[int]] = {}  # acronym id -> topics it may support
        self._field_evidence: dict[str, list[int]] = {}  # category -> field evidence ids
        phrase_id, pattern_id = self._matcher.phrase_id, self._matcher.pattern_id
        for topic, rules in enumerate(self.catalog.topics):
            for evidence in (*map(phrase_id, rules.phrases), *map(pattern_id, rules.patterns)):
                self._direct.setdefault(evidence, []).append(topic)
            for evidence in map(phrase_id, rules.acronyms):
                self._abbreviates.setdefault(evidence, []).append(topic)
            for evidence in (
                *map(phrase_id, rules.exclude),
                *map(pattern_id, rules.exclude_patterns),
            ):
                self._vetoes.setdefault(evidence, []).append(topic)
            if rules.field_categories:
                evidence = self._matcher.field_id(rules.slug)
                self._direct.setdefault(evidence, []).append(topic)
                for category in rules.field_categories:
                    self._field_evidence.setdefault(category.lower(), []).append(evidence)
        # An acronym of a topic counts once the topic or a descendant has other evidence.
        self._corroborators = {
            topic: (topic, *(self._index[s] for s in self.catalog.descendants(self._slugs[topic])))
            for topics in self._abbreviates.values()
            for topic in topics
        }

    def _index_model(self, model: TopicModel | None) -> None:
        """Which topics the model decides: those whose rules it was trained with."""
        self._model = model
        self._model_column = [-1] * len(self._slugs)
        self._model_threshold = [1.0] * len(self._slugs)
        self._model_topics: list[int] = []
        self._field_topics: list[int] = []  # those decided on every paper of their field
        self._open_models: dict[tuple[bool, ...], dict[int, int]] = {}
        columns = len(model.topics) if model is not None else 0
        # Per model column: the catalog topic it decides (-1: none) and its threshold (above
        # 1 where it decides none, so it never passes).
        self._column_topic = [-1] * columns
        self._column_threshold = np.full(columns, 2.0)
        self._modelled_ancestors: list[tuple[int, ...]] = [() for _ in self._slugs]
        # Per topic: (model column of a broader topic, the probability it must reach).
        self._model_gates: list[tuple[tuple[int, float], ...]] = [() for _ in self._slugs]
        if model is None:
            self._index_heads(set())
            return
        for column, trained in enumerate(model.topics):
            topic = self._index.get(trained.slug)
            if topic is not None and self.catalog.topics[topic].rules_hash() == trained.rules_hash:
                self._model_column[topic] = column
                self._model_threshold[topic] = trained.threshold
                self._model_topics.append(topic)
                self._column_topic[column] = topic
                self._column_threshold[column] = trained.threshold
                if trained.everywhere:
                    self._field_topics.append(topic)
        for topic in self._model_topics:
            self._model_gates[topic] = tuple(
                (model.column[slug], level)
                for slug, level in model.topics[self._model_column[topic]].gates
            )
        modelled = set(self._model_topics)
        self._index_heads(modelled)
        self._modelled_ancestors = [
            tuple(a for a, _ in _ancestor_levels(self.catalog, slug, self._index) if a in modelled)
            for slug in self._slugs
        ]

    def _index_heads(self, modelled: set[int]) -> None:
        """First word -> (rules-only topic with parents, its name's or head's words), and each
        topic's parents: the title evidence of `_decide`."""
        self._parents = [tuple(self._index[p] for p in t.parents) for t in self.catalog.topics]
        self._heads_by_word: dict[bytes, list[tuple[int, tuple[bytes, ...]]]] = {}
        for topic, rules in enumerate(self.catalog.topics):
            if topic in modelled or not rules.parents:
                continue
            words = text_words(rules.name)
            if words[-1].endswith(b"s") and not words[-1].endswith(b"ss"):
                words[-1] = words[-1][:-1]  # matched singular or plural
            forms = [tuple(words)]
            if len(words) == 2 and words[-1].decode() + "s" in GENERIC_NAME_WORDS:
                forms.append(tuple(words[:1]))
            for form in forms:
                self._heads_by_word.setdefault(form[0], []).append((topic, form))

    def _index_composites(self) -> None:
        """Topics with all_of groups, numbered so that referenced topics come first."""
        self._composites: list[tuple[int, list[_Group]]] = []
        self._raw: dict[int, list[int]] = {}  # evidence id -> group keys
        self._wake_by_evidence: dict[int, list[int]] = {}  # evidence id -> composites
        self._wake_by_topic: dict[int, list[int]] = {}  # referenced topic -> composites
        self._group_keys = itertools.count()
        for rules in _composite_order(self.catalog):
            self._add_composite(rules)
        # Per evidence id: (topics, group keys, composites it wakes, topics it vetoes,
        # topics it is an acronym of).
        self._uses = [
            (
                tuple(self._direct.get(evidence, ())),
                tuple(self._raw.get(evidence, ())),
                tuple(self._wake_by_evidence.get(evidence, ())),
                tuple(self._vetoes.get(evidence, ())),
                tuple(self._abbreviates.get(evidence, ())),
            )
            for evidence in range(self._matcher.size)
        ]
        # Per evidence id, every topic it may count for (explanations only).
        composite_of = {key: topic for topic, groups in self._composites for key, _ in groups}
        self._related = [
            (*topics, *abbreviates, *(composite_of[key] for key in keys))
            for topics, keys, _, _, abbreviates in self._uses
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

    def pack(self) -> None:
        """Shrinks the trie once every phrase is in: tuples for the sets of ids, and one shared
        empty map after the last words. A third of the tagger's memory, the same answers."""

        def packed(level: dict[bytes, _Node]) -> dict[bytes, tuple]:
            return {
                word: (tuple(sorted(ends)), packed(following) if following else _NO_WORDS)
                for word, (ends, following) in level.items()
            }

        self._trie = packed(self._trie)

    def name(self, evidence: int) -> str:
        """The phrase, pattern or field an id stands for."""
        if not hasattr(self, "_names"):
            self._names = {number: key for key, number in self._ids.items()}
        kind, text = self._names[evidence]
        return {"phrase": text, "pattern": f"/{text}/", "field": f"category of {text}"}[kind]

    def field_id(self, slug: str) -> int:
        """An id for "the paper is listed in a category of `slug`'s field"; never in text."""
        key = ("field", slug)
        if key not in self._ids:
            self._ids[key] = len(self._ids)
        return self._ids[key]

    def pattern_id(self, pattern: str) -> int:
        key = ("pattern", pattern)
        if key not in self._ids:
            evidence = self._ids[key] = len(self._ids)
            literal = _required_literal(pattern)
            compiled = re.compile(pattern)  # the text is lowercase already
            self._patterns.append((evidence, literal and literal.encode(), compiled))
        return self._ids[key]

    def find(self, words: list[bytes]) -> set[int]:
        """Ids of the phrases and patterns that occur in a text of `words` (`text_words`)."""
        found: set[int] = set()
        roots = list(map(self._trie.get, words))
        words = [*words, b""]  # lets a phrase walk look one word past the end
        for start in itertools.compress(range(len(roots)), roots):  # skips the rest in C
            ends, following = roots[start]
            if ends:
                found.update(ends)
            position = start + 1
            while words[position] in following:
                ends, following = following[words[position]]
                if ends:
                    found.update(ends)
                position += 1
        spaced = b" ".join(words)  # ends with a space, from the padding word
        joined = None
        for evidence, literal, pattern in self._patterns:
            if literal is None or literal in spaced:
                joined = joined or " " + spaced.decode()  # " w1 w2 ... wn "
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
