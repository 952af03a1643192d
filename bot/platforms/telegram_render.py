"""Digests and command replies as Telegram messages in HTML parse mode.

Every payload is a JSON-able dict for `Bot.send_message(**payload)`:
`{"text": html, "parse_mode": "HTML", "link_preview_options": {"is_disabled": True}}`, plus a
`reply_markup` dict when a reply offers buttons. Payloads of digests are stored with their
delivery before anything is sent, so they hold nothing but JSON.

Size: Telegram allows 4,096 characters of visible text. We measure the raw HTML instead, in
UTF-16 code units, and keep it within 4,096: the visible text is never longer than its HTML
(tags vanish, references shrink), and UTF-16 units are never fewer than code points, so a part
that passes here passes whichever way Telegram counts. Digests are split only between papers,
so no tag or character reference is ever cut; a topic's heading travels with its first paper.

Safety: every dynamic string goes through `clean_text` (one bounded line, no control
characters) and then `html.escape`. Paper text comes from strangers, so a word joiner is put
after "/" and "@" when a word follows: Telegram turns "/start@some_bot" into a tappable command
that members of a group send with one tap, and "@name" into a mention that notifies that user.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from digests.alerts import SpikeAlert, alert_chart, headline
from digests.chart_spec import CHART_KEY, digest_chart
from digests.commands import Choice, Reply
from digests.compose import Digest, DigestEntry, DigestSection
from digests.momentum import sparkline
from digests.papers import abs_url
from digests.render_text import clean_text, long_date, period_text
from digests.spikes import evidence_text

MESSAGE_LIMIT = 4096  # Telegram's limit for a message's text
CAPTION_LIMIT = 1024  # and for a photo's caption
CALLBACK_DATA_LIMIT = 64  # bytes
ANSWER_LIMIT = 200  # characters of a callback query's answer
PREVIEW_OFF = {"is_disabled": True}
WORD_JOINER = "\u2060"  # invisible, and Telegram keeps it (it strips only U+2028..U+202E)

# Where Telegram's parser (TDLib match_bot_commands / match_mentions) would start a command or
# a mention; this errs towards breaking more, since an extra invisible character is harmless.
_COMMAND = re.compile(r"(?<![A-Za-z0-9_/<>])/(?=[A-Za-z0-9_])")
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])")


@dataclass(frozen=True)
class Limits:
    """How much of each paper field is shown; the compact set is for oversized papers."""

    title: int
    authors: int
    gist: int
    url: int
    also_in: int  # names shown
    name: int


FULL = Limits(title=300, authors=200, gist=220, url=300, also_in=10, name=120)
# Even if every character escapes to five ("&amp;"), a compact paper under its topic heading
# stays below about 3,900 units, so it always fits one message.
COMPACT = Limits(title=120, authors=80, gist=100, url=120, also_in=3, name=40)


def size(text: str) -> int:
    """Length in UTF-16 code units, the stricter of Telegram's two ways to count."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def defang(text: str) -> str:
    """Keep "/command@bot" and "@user" in third-party text from becoming tappable."""
    return _MENTION.sub("@" + WORD_JOINER, _COMMAND.sub("/" + WORD_JOINER, text))


def safe(text: str, limit: int) -> str:
    """Dynamic text as escaped HTML: one clean line of at most `limit` characters."""
    return html.escape(defang(clean_text(text, limit)), quote=False)


def message(text: str) -> dict:
    return {"text": text, "parse_mode": "HTML", "link_preview_options": dict(PREVIEW_OFF)}


# --- digests ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """A piece of a digest that is never split; `resume` heads it if it opens a message."""

    html: str
    resume: str = ""


def render_digest(digest: Digest, *, title: str) -> list[dict]:
    """The digest as one or more messages, each within Telegram's limit. With topics, the
    heading is the caption of their 12-week chart, like the top of a topic page."""
    heading = _heading(digest, title)
    chart = digest_chart(digest)
    blocks = [] if chart else [_Block(heading)]
    for section in digest.sections:
        blocks += _section_blocks(section)
    messages = [message(text) for text in _pack(blocks)]
    return [{**message(heading), CHART_KEY: chart}, *messages] if chart else messages


def render_alert(alert: SpikeAlert) -> list[dict]:
    """A spike alert: the 12-week chart as a photo with the headline, then the papers."""
    caption = f"<b>Spike</b>: {safe(headline(alert), CAPTION_LIMIT - 40)}"
    photo = {**message(caption), CHART_KEY: alert_chart(alert)}
    lines = [
        html.escape(evidence_text(alert.decision), quote=False),
        f"Last 12 weeks: {html.escape(sparkline([w.count for w in alert.momentum.weekly]))}",
    ]
    blocks = [_Block("\n".join(lines))]
    if alert.papers:
        blocks.append(_Block("<b>Papers driving the rise</b>"))
    blocks += [_Block(_entry(n, entry, FULL)) for n, entry in enumerate(alert.papers, start=1)]
    return [photo] + [message(text) for text in _pack(blocks)]


def _heading(digest: Digest, title: str) -> str:
    count, topics = digest.paper_count, len(digest.sections)
    papers = "1 new paper" if count == 1 else f"{count:,} new papers"
    followed = "1 followed topic" if topics == 1 else f"{topics:,} followed topics"
    period = period_text(digest.period_start, digest.period_end)
    return f"<b>{safe(title, 120) or 'Research digest'}</b>\n{period} · {papers} in {followed}"


def _section_blocks(section: DigestSection) -> list[_Block]:
    name = safe(section.topic.name, FULL.name)
    head = (
        f"<b>{name}</b>\n{html.escape(section.momentum.line, quote=False)}\n"
        f"Last 12 weeks: {html.escape(section.sparkline, quote=False)}"
    )
    if not section.entries:
        return [_Block(f"{head}\nNo new papers in this period.")]
    resume = f"<b>{name}</b> (continued)"
    blocks = []
    last = len(section.entries)
    for number, entry in enumerate(section.entries, start=1):
        more = section.more if number == last else 0
        lead = f"{head}\n\n" if number == 1 else ""
        text = lead + _entry(number, entry, FULL, more)
        if size(text) > MESSAGE_LIMIT:
            # Too long for a message of its own: show less of the paper, never broken HTML.
            # The compact form with a heading stays far below the limit (see COMPACT).
            text = lead + _entry(number, entry, COMPACT, more)
        blocks.append(_Block(text, "" if lead else resume))
    return blocks


def _entry(number: int, entry: DigestEntry, limits: Limits, more: int = 0) -> str:
    paper = entry.paper
    title = safe(paper.title, limits.title) or safe(paper.arxiv_id, 40)
    meta = [
        safe(entry.authors_line, limits.authors),
        long_date(paper.published),
        safe(paper.primary_category, 40),
    ]
    lines = [
        f'{number}. <a href="{_href(paper.url, paper.arxiv_id, limits.url)}">{title}</a>',
        " · ".join(part for part in meta if part),
    ]
    if entry.also_in:
        names = [safe(name, limits.name) for name in entry.also_in[: limits.also_in]]
        hidden = len(entry.also_in) - len(names)
        lines.append(f"<i>also in: {', '.join(names)}{f' +{hidden}' if hidden else ''}</i>")
    if gist := safe(entry.gist, limits.gist):
        lines.append(gist)
    if more:
        lines.append(f"<i>+{more:,} more in this topic</i>")
    return "\n".join(lines)


def _href(url: str, arxiv_id: str, limit: int) -> str:
    """The paper's link, escaped for an attribute; its arXiv page when the URL is unusable.

    A URL is never shortened (that would break it), and only http(s) links are kept.
    """
    url = url.strip()
    usable = url.startswith(("https://", "http://")) and len(url) <= limit and url.isprintable()
    usable = usable and not any(char.isspace() for char in url)
    return html.escape(url if usable else abs_url(arxiv_id), quote=True)


def _pack(blocks: Iterable[_Block]) -> list[str]:
    """Blocks joined by blank lines into as few messages as fit, in order."""
    messages: list[str] = []
    current = ""
    for block in blocks:
        if current and size(f"{current}\n\n{block.html}") <= MESSAGE_LIMIT:
            current = f"{current}\n\n{block.html}"
            continue
        if current:
            messages.append(current)
        current = block.html
        if messages and block.resume:
            resumed = f"{block.resume}\n\n{block.html}"
            current = resumed if size(resumed) <= MESSAGE_LIMIT else current
    if current:
        messages.append(current)
    return messages


# --- command replies -------------------------------------------------------------------------


def render_reply(reply: Reply) -> dict:
    """A command's answer: escaped text, notes below it, and its choices as buttons."""
    lines = [*reply.text.splitlines(), *([""] if reply.notes else []), *reply.notes]
    text = _fit_lines([_reply_line(line) for line in lines]) or "…"
    payload = message(text)
    if keyboard := choice_keyboard(reply.choices, reply.choice_command):
        payload["reply_markup"] = keyboard
    return payload


def _reply_line(line: str) -> str:
    # Replies are our own words plus what the user typed and topic names: "/follow" in help
    # should stay tappable, so only mentions are broken up here.
    cleaned = clean_text(line, MESSAGE_LIMIT)
    return html.escape(_MENTION.sub("@" + WORD_JOINER, cleaned), quote=False)


def _fit_lines(lines: list[str]) -> str:
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + size(line) + 1 > MESSAGE_LIMIT - 2:
            kept.append("…")
            break
        kept.append(line)
        used += size(line) + 1
    return "\n".join(kept).strip()


def choice_keyboard(choices: Iterable[Choice], command: str) -> dict | None:
    """An inline keyboard, one button per row, each re-running `command` with its value."""
    rows = [
        [
            {
                "text": clean_text(choice.label, 60) or "…",
                "callback_data": choice_data(command, choice),
            }
        ]
        for choice in choices
    ]
    return {"inline_keyboard": rows} if rows and command else None


def choice_data(command: str, choice: Choice | str) -> str:
    """`command:value`, or `command#hash` of the value when that would pass 64 bytes."""
    value = choice.value if isinstance(choice, Choice) else choice
    data = f"{command}:{value}"
    if len(data.encode()) <= CALLBACK_DATA_LIMIT:
        return data
    return f"{command}#{value_hash(value)}"


def value_hash(value: str) -> str:
    """16 URL-safe characters naming a value; 96 bits make a collision negligible."""
    digest = hashlib.sha256(value.encode()).digest()[:12]
    return base64.urlsafe_b64encode(digest).decode()


def parse_choice_data(data: str, known_values: Iterable[str]) -> tuple[str, str] | None:
    """(command, value) from a button's callback data; None for data we did not make.

    A hashed value is looked up among `known_values` (the catalog's slugs, and values the
    adapter has offered), so buttons keep working across restarts.
    """
    command, colon, value = data.partition(":")
    if colon:
        return (command, value) if command and value else None
    command, sharp, wanted = data.partition("#")
    if not (sharp and command and wanted):
        return None
    return next(((command, v) for v in known_values if value_hash(v) == wanted), None)


def answer_text(reply: Reply) -> str:
    """The reply's first line, short enough for a callback query's answer."""
    first = reply.text.splitlines()[0] if reply.text else ""
    return clean_text(first, ANSWER_LIMIT)
