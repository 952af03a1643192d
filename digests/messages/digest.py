"""A digest as data, independent of any chat platform.

`compose_digest` takes the papers newly tagged in a period (the caller selects them) and lays them
out per followed topic: each paper once, under its strongest followed topic, ranked and capped.
Renderers (plain text, Discord, Telegram) turn a `Digest` into messages.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date

from digests.messages.tags import shown_tags
from digests.signals.momentum import Momentum, sparkline


@dataclass(frozen=True)
class DigestPaper:
    arxiv_id: str
    title: str
    url: str
    authors: tuple[str, ...]
    published: date
    primary_category: str
    abstract: str
    scores: Mapping[str, float]  # topic slug -> tag score, for the followed topics it matched


@dataclass(frozen=True)
class TopicRef:
    slug: str
    name: str


@dataclass(frozen=True)
class DigestEntry:
    paper: DigestPaper
    also_in: tuple[str, ...]  # display names of the other followed topics it matched
    authors_line: str  # "A. One, B. Two, C. Three et al."
    gist: str


@dataclass(frozen=True)
class DigestSection:
    topic: TopicRef
    momentum: Momentum
    sparkline: str
    entries: tuple[DigestEntry, ...]
    more: int  # papers beyond the cap


@dataclass(frozen=True)
class Digest:
    period_start: date
    period_end: date  # inclusive
    sections: tuple[DigestSection, ...]  # one per followed topic, in follow order
    note: str = ""  # how a channel's votes ranked it: "Ranked by this channel's 14 votes"

    @property
    def paper_count(self) -> int:
        return sum(len(section.entries) + section.more for section in self.sections)

    @property
    def is_empty(self) -> bool:
        return self.paper_count == 0


def compose_digest(
    followed: Sequence[TopicRef],
    papers: Iterable[DigestPaper],
    momenta: Mapping[str, Momentum],
    period_start: date,
    period_end: date,
    per_topic_cap: int = 5,
    *,
    hidden: Collection[tuple[str, str]] = frozenset(),
    preference: Mapping[str, float] | None = None,
    note: str = "",
    ancestors: Mapping[str, Collection[str]] | None = None,
) -> Digest:
    """Group `papers` under `followed` topics; `momenta` is keyed by topic slug.

    Each paper is listed "also in" its other followed topics that `shown_tags` shows: with
    `ancestors` (slug -> its ancestors' slugs), never an ancestor of its section's topic or of
    another one listed, and at most three.

    A channel's votes adjust it: `hidden` (arXiv id, slug) pairs are left out of that topic,
    and `preference` (arXiv id -> the channel model's score) ranks each topic's papers first.
    """
    if period_end < period_start:
        raise ValueError(f"period ends ({period_end}) before it starts ({period_start})")
    topics = _unique_topics(followed)
    missing = [topic.slug for topic in topics if topic.slug not in momenta]
    if missing:
        raise ValueError(f"no momentum for followed topics: {', '.join(missing)}")
    order = {topic.slug: index for index, topic in enumerate(topics)}
    placed: dict[str, list[tuple[DigestPaper, tuple[str, ...]]]] = {s: [] for s in order}
    for paper in _merge_duplicates(papers):
        matched = [s for s in paper.scores if s in order and (paper.arxiv_id, s) not in hidden]
        matched.sort(key=order.__getitem__)
        if not matched:
            continue
        # max() keeps the first of equal scores, so ties go to the earlier-followed topic.
        home = max(matched, key=paper.scores.__getitem__)
        scores = {slug: paper.scores[slug] for slug in matched}
        shown = shown_tags(scores, ancestors or {}, home=home)
        also_in = tuple(topics[order[slug]].name for slug in shown if slug != home)
        placed[home].append((paper, also_in))
    sections = tuple(
        _section(topic, placed[topic.slug], momenta[topic.slug], per_topic_cap, preference or {})
        for topic in topics
    )
    return Digest(period_start, period_end, sections, note if preference else "")


def authors_line(authors: Sequence[str], shown: int = 3) -> str:
    """Names joined by commas; past `shown` of them: "A. One, B. Two, C. Three et al."."""
    names = [" ".join(name.split()) for name in authors]
    names = [name for name in names if name]
    line = ", ".join(names[: max(shown, 1)])
    return f"{line} et al." if len(names) > max(shown, 1) else line


def gist(abstract: str, limit: int = 200) -> str:
    """The first sentence or so of an abstract, on one line, at most `limit` characters."""
    text = " ".join(abstract.split())
    for end in _sentence_ends(text):
        # A very short opening sentence says little; take the next one too.
        if end >= limit // 3:
            text = text[:end]
            break
    return shorten(text, limit)


def sentences(text: str) -> list[str]:
    """The sentences of `text` (abbreviations and initials do not end one), on one line each."""
    text = " ".join(text.split())
    found, start = [], 0
    for end in _sentence_ends(text):
        found.append(text[start:end])
        start = end + 1
    found.append(text[start:])
    return [sentence for sentence in found if sentence]


def shorten(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters at a word boundary, marking the cut with "…"."""
    if len(text) <= limit:
        return text
    if limit < 2:
        return "…"[:limit]
    space = text.rfind(" ", 0, limit)
    # Without a word boundary in the second half, cutting mid-word loses less.
    cut = text[:space] if space > limit // 2 else text[: limit - 1]
    return (cut.rstrip(" ,;:.-–—(") or cut) + "…"


def _section(
    topic: TopicRef,
    papers: list[tuple[DigestPaper, tuple[str, ...]]],
    momentum: Momentum,
    cap: int,
    preference: Mapping[str, float],
) -> DigestSection:
    papers.sort(
        key=lambda item: (-preference.get(item[0].arxiv_id, 0.0), *_rank(item[0], topic.slug))
    )
    shown = papers[: max(cap, 0)]
    entries = tuple(
        DigestEntry(paper, also_in, authors_line(paper.authors), gist(paper.abstract))
        for paper, also_in in shown
    )
    counts = [week.count for week in momentum.weekly]
    return DigestSection(topic, momentum, sparkline(counts), entries, len(papers) - len(shown))


def _unique_topics(followed: Sequence[TopicRef]) -> list[TopicRef]:
    by_slug: dict[str, TopicRef] = {}
    for topic in followed:
        by_slug.setdefault(topic.slug, topic)
    return list(by_slug.values())


def _rank(paper: DigestPaper, slug: str) -> tuple[float, int, str]:
    return (-paper.scores[slug], -paper.published.toordinal(), paper.arxiv_id)


def _merge_duplicates(papers: Iterable[DigestPaper]) -> list[DigestPaper]:
    """One paper per arXiv id, with each topic's best score (the store may send a row per tag)."""
    merged: dict[str, DigestPaper] = {}
    for paper in papers:
        seen = merged.get(paper.arxiv_id)
        if seen is None:
            merged[paper.arxiv_id] = paper
            continue
        scores = dict(seen.scores)
        for slug, score in paper.scores.items():
            scores[slug] = max(score, scores.get(slug, score))
        merged[paper.arxiv_id] = replace(seen, scores=scores)
    return list(merged.values())


_CANDIDATE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "al.", "vs.", "cf.", "fig.", "figs.", "eq.", "eqs.", "sec.", "ref."}
    | {"refs.", "approx.", "resp.", "no.", "dr.", "prof."}
)


def _sentence_ends(text: str) -> Iterable[int]:
    """Offsets just after each sentence-ending punctuation mark (abbreviations skipped)."""
    for match in _CANDIDATE_END.finditer(text):
        word = text[text.rfind(" ", 0, match.start()) + 1 : match.start()].lower()
        initial = len(word) == 2 and word[0].isalpha()  # "J. Smith"
        if word not in _ABBREVIATIONS and not initial:
            yield match.start()
