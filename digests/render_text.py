"""Plain-text rendering of digests and momentum, for a terminal and as the base for chat renderers.

Every piece of dynamic text (titles, names, abstracts) goes through `clean_text`, which makes it a
single, bounded line with nothing a terminal would interpret. It does not escape markup: `<b>`,
`&amp;` and `@everyone` are shown as typed; chat renderers escape for their own markup.
"""

from __future__ import annotations

import re
from datetime import date

from digests.compose import Digest, DigestEntry, DigestSection, shorten
from digests.momentum import MONTHS, Momentum, histogram_lines
from digests.papers import abs_url

TITLE_LIMIT = 300
NAME_LIMIT = 120
AUTHORS_LIMIT = 200
CATEGORY_LIMIT = 40
URL_LIMIT = 300
GIST_LIMIT = 220
INDENT = "   "

_ESCAPE_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: window title, hyperlinks
    r"|\x1b[ -/]*[0-~]"  # other two-character escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# Control characters that are not whitespace (whitespace is collapsed separately), plus the
# bidirectional overrides and isolates, which would reorder the rest of the line on screen.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]")


def clean_text(s: str, limit: int) -> str:
    """`s` as one line of at most `limit` characters, without control characters or escapes."""
    text = _CONTROLS.sub("", _ESCAPE_SEQUENCES.sub("", s))
    return shorten(" ".join(text.split()), limit)


def render_text(digest: Digest, *, title: str | None = None, histogram: bool = False) -> str:
    lines = [clean_text(title or "", TITLE_LIMIT) or "Research digest", _summary(digest)]
    for section in digest.sections:
        lines += ["", *_section_lines(section, histogram)]
    return "\n".join(lines) + "\n"


def render_momentum(m: Momentum) -> str:
    """The `digestbot momentum` view: topic, momentum line and the 12-week histogram."""
    lines = [clean_text(m.topic, NAME_LIMIT), m.line, ""]
    lines += histogram_lines(m.weekly)
    return "\n".join(lines) + "\n"


def long_date(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def period_text(start: date, end: date) -> str:
    if start == end:
        return long_date(end)
    if start.year == end.year:
        return f"{MONTHS[start.month - 1]} {start.day} – {long_date(end)}"
    return f"{long_date(start)} – {long_date(end)}"


def _summary(digest: Digest) -> str:
    count = digest.paper_count
    papers = "1 new paper" if count == 1 else f"{count:,} new papers"
    topics = len(digest.sections)
    followed = "1 followed topic" if topics == 1 else f"{topics:,} followed topics"
    return f"{period_text(digest.period_start, digest.period_end)} · {papers} in {followed}"


def _section_lines(section: DigestSection, histogram: bool) -> list[str]:
    lines = [
        f"## {clean_text(section.topic.name, NAME_LIMIT)}",
        section.momentum.line,
        f"Last 12 weeks: {section.sparkline}",
    ]
    if histogram:
        lines += [INDENT + line for line in histogram_lines(section.momentum.weekly)]
    if not section.entries:
        return [*lines, "No new papers in this period."]
    for number, entry in enumerate(section.entries, start=1):
        lines += ["", *entry_lines(number, entry)]
    if section.more:
        lines += ["", f"{INDENT}+{section.more:,} more"]
    return lines


def entry_lines(number: int, entry: DigestEntry) -> list[str]:
    """One paper of a digest or alert: numbered title, link, authors · date · category, gist."""
    paper = entry.paper
    meta = [
        clean_text(entry.authors_line, AUTHORS_LIMIT),
        long_date(paper.published),
        clean_text(paper.primary_category, CATEGORY_LIMIT),
    ]
    lines = [
        f"{number}. {clean_text(paper.title, TITLE_LIMIT) or paper.arxiv_id}",
        INDENT + (clean_text(paper.url, URL_LIMIT) or abs_url(paper.arxiv_id)),
        INDENT + " · ".join(part for part in meta if part),
    ]
    if entry.also_in:
        names = ", ".join(clean_text(name, NAME_LIMIT) for name in entry.also_in)
        lines.append(f"{INDENT}also in: {names}")
    if summary := clean_text(entry.gist, GIST_LIMIT):
        lines.append(INDENT + summary)
    return lines
