"""The layout of digests and spike alerts, decided once for every platform.

A digest reads: a heading (its title, then "period · N new papers in M followed topics"), then
for each followed topic a header (name, momentum line, 12-week sparkline) and its papers, each a
numbered linked title, authors · date · category, the other followed topics it is in and the gist
of its abstract; "+N more" is the last line of the topic's last paper. An alert reads: "Spike:"
and its headline, the evidence and sparkline, then "Papers driving the rise:" and the papers.

This module decides those lines, their order, how much third-party text is shown and which link
a paper gets. A `Markup` (plain text in `render_text`, Telegram HTML and Discord markdown in the
adapters) only writes them: escaping, emphasis, the linked title. Layouts are made of blocks that
a platform packs into messages and never splits. A topic's header travels with its first paper;
a paper whose block would outgrow `Markup.block_limit` is shown with less of every field
(`COMPACT`), so truncation never cuts a paper, a tag or a link.

Every piece of third-party text goes through `clean_text`, which makes it a single bounded line
with nothing a terminal would interpret; the markup escapes it for its own syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Protocol

from digests.links.pages import Period, page_url
from digests.messages.digest import Digest, DigestEntry, DigestSection, shorten
from digests.messages.vote_keys import vote_key
from digests.papers.records import abs_url
from digests.signals.momentum import MONTHS, histogram_lines, papers_text, share_text, sparkline
from digests.signals.spikes import evidence_text, shares_text
from digests.text_hygiene import without_controls

if TYPE_CHECKING:
    from digests.messages.alert import SpikeAlert

HEADING_LIMIT = 120  # characters of a digest's title
LINE_LIMIT = 500  # of our own lines (momentum, evidence, headline); none is ever this long
CATEGORY_LIMIT = 40
URL_LIMIT = 300


@dataclass(frozen=True)
class Limits:
    """How much of each paper field is shown, in characters before escaping."""

    title: int
    authors: int
    gist: int
    url: int  # a longer URL is not shortened (that would break it): the arXiv page is linked
    name: int
    also_in: int  # topic names shown; the others are counted


FULL = Limits(title=300, authors=200, gist=220, url=URL_LIMIT, name=120, also_in=10)
# Even if every character escapes to five (Telegram's "&amp;"), a compact paper under its topic's
# header stays below about 3,900 UTF-16 units, so it fits any platform's block limit.
COMPACT = Limits(title=120, authors=80, gist=100, url=120, name=40, also_in=3)


class Markup(Protocol):
    """How one platform writes the lines this module decides."""

    indent: str  # before every line of a paper but its first
    block_limit: int | None  # the largest block, in UTF-16 units, a message takes

    def escape(self, text: str) -> str:
        """Clean text (see `clean_text`) shown literally in this markup."""
        ...

    def strong(self, markup: str) -> str: ...

    def aside(self, markup: str) -> str: ...

    def topic_line(self, name: str) -> str:
        """The line naming a topic atop its header; "" where the platform names it elsewhere."""
        ...

    def linked_title(self, number: int, title: str, url: str, arxiv_id: str) -> list[str]:
        """The paper's number and title linked to `url`, the address `link_url` chose (`arxiv_id`
        for a platform that refuses more of it); `title` is clean text, not yet escaped."""
        ...

    def more(self, count: int) -> str:
        """The line closing a topic's last paper: how many more papers the topic has."""
        ...

    def link(self, markup: str, url: str) -> str:
        """`markup` linked to `url`, a plain http(s) address of our own (a topic's page)."""
        ...


@dataclass(frozen=True)
class SectionLayout:
    name: str  # the topic's name, escaped
    blocks: tuple[str, ...]  # the header with the first paper, then one block per paper
    url: str = ""  # the topic's web page, when PUBLIC_URL is set
    votes: tuple[PaperVote | None, ...] = ()  # each block's paper, for its vote buttons


@dataclass(frozen=True)
class PaperVote:
    """The paper of a block, for a platform's 👍/👎 buttons: its number in the text, the key
    its buttons carry (`digests.messages.vote_keys`) and its topic's name (clean, not escaped)."""

    number: int
    key: str
    topic: str


@dataclass(frozen=True)
class DigestLayout:
    heading: tuple[str, ...]  # the title, then the period and counts (and how it was ranked)
    sections: tuple[SectionLayout, ...]


@dataclass(frozen=True)
class AlertLayout:
    name: str  # the topic's name, escaped
    headline: str  # "Spike: …"
    blocks: tuple[str, ...]  # the evidence, then the papers (the first under their heading)
    votes: tuple[PaperVote | None, ...] = ()  # each block's paper, for its vote buttons


def digest_layout(
    digest: Digest,
    title: str,
    markup: Markup,
    *,
    histogram: bool = False,
    public_url: str | None = None,
) -> DigestLayout:
    """The digest's lines in `markup`; `histogram` adds the 12 weekly bars under each header;
    with `public_url` each topic's name and "+N more" link to the topic's (or the follow
    filter's) web page showing the digest's period."""
    heading = markup.escape(clean_text(title, HEADING_LIMIT)) or "Research digest"
    summary = f"{period_text(digest.period_start, digest.period_end)} · {_counts(digest)}"
    period = Period(digest.period_start, digest.period_end)
    sections = tuple(
        _section(section, markup, histogram, public_url, period) for section in digest.sections
    )
    note = (_line(digest.note, markup),) if digest.note else ()
    return DigestLayout((markup.strong(heading), summary, *note), sections)


def alert_layout(alert: SpikeAlert, markup: Markup, *, histogram: bool = False) -> AlertLayout:
    """The alert's lines in `markup`; `histogram` adds a block of the 12 weekly bars."""
    decision, weekly = alert.decision, alert.momentum.weekly
    evidence = f"Share of all new papers {shares_text(decision)}; {evidence_text(decision)}"
    spark = sparkline([week.count for week in weekly])
    blocks = [f"{_line(evidence, markup)}\n{_sparkline(spark, markup)}"]
    if histogram:
        blocks.append("\n".join(markup.indent + line for line in histogram_lines(weekly)))
    lead = f"{markup.strong('Papers driving the rise:')}\n\n"
    blocks += [
        _paper_block(number, entry, markup, lead=lead if number == 1 else "")
        for number, entry in enumerate(alert.papers, start=1)
    ]
    spike = f"{markup.strong('Spike:')} {_line(headline(alert), markup)}"
    topic = clean_text(alert.topic.name, FULL.name)
    votes = [None] * (len(blocks) - len(alert.papers))
    votes += [_vote(n, e, alert.topic.slug, topic) for n, e in enumerate(alert.papers, start=1)]
    name = _topic_name(alert.topic.name, markup)
    return AlertLayout(name, spike, tuple(blocks), tuple(votes))


def headline(alert: SpikeAlert) -> str:
    """The alert in one line, from the momentum numbers, e.g. "RL for LLM Agents is up 141% on
    the four weeks before — 70 papers in the last four weeks, 0.7% of all new papers"."""
    m = alert.momentum
    name = clean_text(alert.topic.name, FULL.name) or alert.topic.slug
    papers = f"{papers_text(m.count)} in the last four weeks"
    share = (
        f", {share_text(m.share_pct)} of all new papers"
        if m.count and m.share_pct is not None
        else ""
    )
    if m.previous == 0:
        return f"{name} has taken off — {papers}, none in the four weeks before{share}"
    if m.change_pct is not None and m.change_pct > 0:
        return f"{name} is up {m.change_pct:,}% on the four weeks before — {papers}{share}"
    # All of arXiv shrank more than the topic: its count did not rise, its share did.
    ratio = alert.decision.share_ratio
    grown = f" ×{ratio:.1f}" if ratio else ""
    return f"{name} is up{grown} as a share of all new papers — {papers}{share}"


def link_url(url: str, arxiv_id: str, limit: int = URL_LIMIT, refused: str = "") -> str:
    """The paper's URL when it is a plain http(s) link of at most `limit` characters without
    any of `refused`, else its arXiv page."""
    url = url.strip()
    plain = url.startswith(("https://", "http://")) and len(url) <= limit and url.isprintable()
    plain = plain and not any(char.isspace() or char in refused for char in url)
    return url if plain else abs_url(clean_text(arxiv_id, 60).replace(" ", ""))


def utf16_size(text: str) -> int:
    """Length in UTF-16 code units: never fewer than the code points a platform may count."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


# --- text as users see it ----------------------------------------------------------------------

_ESCAPE_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window title, hyperlinks
    r"|\x1b[ -/]*[0-~]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)


def clean_text(s: str, limit: int) -> str:
    """`s` as one line of at most `limit` characters, without control characters or escapes."""
    text = without_controls(_ESCAPE_SEQUENCES.sub("", s))
    return shorten(" ".join(text.split()), limit)


def long_date(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def period_text(start: date, end: date) -> str:
    if start == end:
        return long_date(end)
    if start.year == end.year:
        return f"{MONTHS[start.month - 1]} {start.day} – {long_date(end)}"
    return f"{long_date(start)} – {long_date(end)}"


# --- the pieces --------------------------------------------------------------------------------


def _topic_name(name: str, markup: Markup) -> str:
    return markup.escape(clean_text(name, FULL.name)) or "Topic"


def _paper_block(
    number: int,
    entry: DigestEntry,
    markup: Markup,
    *,
    more: int = 0,
    lead: str = "",
    more_url: str = "",
) -> str:
    """One paper after `lead` (its topic's header), compact if it would outgrow a block."""
    block = lead + _paper(number, entry, markup, FULL, more, more_url)
    if markup.block_limit is not None and utf16_size(block) > markup.block_limit:
        block = lead + _paper(number, entry, markup, COMPACT, more, more_url)
    return block


def _counts(digest: Digest) -> str:
    count, topics = digest.paper_count, len(digest.sections)
    papers = "1 new paper" if count == 1 else f"{count:,} new papers"
    followed = "1 followed topic" if topics == 1 else f"{topics:,} followed topics"
    return f"{papers} in {followed}"


def _section(
    section: DigestSection,
    markup: Markup,
    histogram: bool,
    public_url: str | None,
    period: Period,
) -> SectionLayout:
    name = _topic_name(section.topic.name, markup)
    url = page_url(public_url, section.topic.slug, period) if public_url else ""
    header = [
        markup.topic_line(markup.link(name, url) if url else name),
        _line(section.momentum.line, markup),
        _sparkline(section.sparkline, markup),
    ]
    if histogram:
        header += [markup.indent + line for line in histogram_lines(section.momentum.weekly)]
    head = "\n".join(line for line in header if line)
    if not section.entries:
        return SectionLayout(name, (f"{head}\nNo new papers in this period.",), url, (None,))
    last = len(section.entries)
    blocks = tuple(
        _paper_block(
            number,
            entry,
            markup,
            more=section.more if number == last else 0,
            lead=f"{head}\n\n" if number == 1 else "",
            more_url=url,
        )
        for number, entry in enumerate(section.entries, start=1)
    )
    topic = clean_text(section.topic.name, FULL.name)
    votes = tuple(
        _vote(number, entry, section.topic.slug, topic)
        for number, entry in enumerate(section.entries, start=1)
    )
    return SectionLayout(name, blocks, url, votes)


def _vote(number: int, entry: DigestEntry, slug: str, topic: str) -> PaperVote:
    return PaperVote(number, vote_key(entry.paper.arxiv_id, slug), topic)


def _paper(
    number: int, entry: DigestEntry, markup: Markup, limits: Limits, more: int, more_url: str = ""
) -> str:
    """Numbered linked title, authors · date · category, also-in topics, gist, "+N more"."""
    paper = entry.paper
    title = clean_text(paper.title, limits.title) or clean_text(paper.arxiv_id, 40) or "paper"
    url = link_url(paper.url, paper.arxiv_id, limits.url)
    first, *lines = markup.linked_title(number, title, url, paper.arxiv_id)
    meta = [
        clean_text(entry.authors_line, limits.authors),
        long_date(paper.published),
        clean_text(paper.primary_category, CATEGORY_LIMIT),
    ]
    lines.append(" · ".join(markup.escape(part) for part in meta if part))
    if entry.also_in:
        shown = entry.also_in[: limits.also_in]
        names = [markup.escape(clean_text(name, limits.name)) for name in shown]
        hidden = len(entry.also_in) - len(names)
        lines.append(markup.aside(f"also in: {', '.join(names)}{f' +{hidden}' if hidden else ''}"))
    if gist := markup.escape(clean_text(entry.gist, limits.gist)):
        lines.append(gist)
    if more:
        lines.append(markup.link(markup.more(more), more_url) if more_url else markup.more(more))
    return "\n".join([first, *(markup.indent + line for line in lines)])


def _line(text: str, markup: Markup) -> str:
    return markup.escape(clean_text(text, LINE_LIMIT))


def _sparkline(spark: str, markup: Markup) -> str:
    return f"Last 12 weeks: {_line(spark, markup)}"
