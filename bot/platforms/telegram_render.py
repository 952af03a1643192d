"""Digests, spike alerts and command replies as Telegram messages in HTML parse mode.

Digests and alerts are laid out by `digests.messages.layout`, as on every platform; `TelegramHTML`
writes that layout in HTML and `_pack` puts its blocks into as few messages as fit.

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

from digests.messages.alert import SpikeAlert, alert_chart
from digests.messages.chart_spec import CHART_KEY, digest_chart
from digests.messages.digest import Digest, shorten
from digests.messages.layout import PaperVote, alert_layout, clean_text, digest_layout, utf16_size
from digests.messages.vote_keys import DOWN, UP, vote_data
from digests.usecases.commands import Choice, Reply

MESSAGE_LIMIT = 4096  # Telegram's limit for a message's text
CAPTION_LIMIT = 1024  # and for a photo's caption
CALLBACK_DATA_LIMIT = 64  # bytes
ANSWER_LIMIT = 200  # characters of a callback query's answer
PREVIEW_OFF = {"is_disabled": True}
# Telegram takes up to 100 buttons in a keyboard: two per paper.
PAPERS_PER_MESSAGE = 50
VOTE_TOPIC_CHARS = 24
WORD_JOINER = "\u2060"  # invisible, and Telegram keeps it (it strips only U+2028..U+202E)

# Where Telegram's parser (TDLib match_bot_commands / match_mentions) would start a command or
# a mention; this errs towards breaking more, since an extra invisible character is harmless.
_COMMAND = re.compile(r"(?<![A-Za-z0-9_/<>])/(?=[A-Za-z0-9_])")
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])")


def defang(text: str) -> str:
    """Keep "/command@bot" and "@user" in third-party text from becoming tappable."""
    return _MENTION.sub("@" + WORD_JOINER, _COMMAND.sub("/" + WORD_JOINER, text))


class TelegramHTML:
    """The `Markup` of Telegram's HTML parse mode."""

    indent: str = ""
    block_limit: int | None = MESSAGE_LIMIT

    def escape(self, text: str) -> str:
        return html.escape(defang(text), quote=False)

    def strong(self, markup: str) -> str:
        return f"<b>{markup}</b>"

    def aside(self, markup: str) -> str:
        return f"<i>{markup}</i>"

    def topic_line(self, name: str) -> str:
        return self.strong(name)

    def linked_title(self, number: int, title: str, url: str, arxiv_id: str) -> list[str]:
        return [f'{number}. <a href="{html.escape(url, quote=True)}">{self.escape(title)}</a>']

    def more(self, count: int) -> str:
        return self.aside(f"+{count:,} more in this topic")

    def link(self, markup: str, url: str) -> str:
        return f'<a href="{html.escape(url, quote=True)}">{markup}</a>'


MARKUP = TelegramHTML()


def message(text: str) -> dict:
    return {"text": text, "parse_mode": "HTML", "link_preview_options": dict(PREVIEW_OFF)}


# --- digests ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """A piece of a digest that is never split; `resume` heads it if it opens a message."""

    html: str
    resume: str = ""
    vote: PaperVote | None = None  # its paper, given 👍/👎 buttons under the message


@dataclass
class _Part:
    html: str
    votes: list[PaperVote]


def render_digest(digest: Digest, *, title: str, public_url: str | None = None) -> list[dict]:
    """The digest as one or more messages, each within Telegram's limit. With topics, the
    heading is the caption of their 12-week chart, like the top of a topic page; with
    `public_url`, topics link to their web pages."""
    layout = digest_layout(digest, title, MARKUP, public_url=public_url)
    heading = "\n".join(layout.heading)
    chart = digest_chart(digest)
    blocks = [] if chart else [_Block(heading)]
    for section in layout.sections:
        resume = f"{MARKUP.strong(section.name)} (continued)"
        blocks += [
            _Block(text, resume if n else "", vote)
            for n, (text, vote) in enumerate(zip(section.blocks, section.votes, strict=True))
        ]
    messages = [_with_buttons(part) for part in _pack(blocks)]
    return [{**message(heading), CHART_KEY: chart}, *messages] if chart else messages


def render_alert(alert: SpikeAlert) -> list[dict]:
    """A spike alert: the 12-week chart as a photo with the headline, then the papers."""
    layout = alert_layout(alert, MARKUP)
    photo = {**message(layout.headline), CHART_KEY: alert_chart(alert)}
    pieces = zip(layout.blocks, layout.votes, strict=True)
    return [photo] + [_with_buttons(part) for part in _pack(_Block(t, vote=v) for t, v in pieces)]


def _pack(blocks: Iterable[_Block]) -> list[_Part]:
    """Blocks joined by blank lines into as few messages as fit, in order, each with at most
    `PAPERS_PER_MESSAGE` papers to vote on."""
    parts: list[_Part] = []
    current: _Part | None = None
    for block in blocks:
        votes = [block.vote] if block.vote else []
        joined = f"{current.html}\n\n{block.html}" if current else ""
        room = current is not None and len(current.votes) + len(votes) <= PAPERS_PER_MESSAGE
        if current and room and utf16_size(joined) <= MESSAGE_LIMIT:
            current.html = joined
            current.votes += votes
            continue
        if current:
            parts.append(current)
        current = _Part(block.html, votes)
        if parts and block.resume:
            resumed = f"{block.resume}\n\n{block.html}"
            current.html = resumed if utf16_size(resumed) <= MESSAGE_LIMIT else current.html
    if current:
        parts.append(current)
    return parts


def _with_buttons(part: _Part) -> dict:
    """A message and its one inline keyboard: a row per paper, 👍 and 👎 labelled with the
    paper's number (and its topic, when the message shows papers of several topics)."""
    payload = message(part.html)
    if not part.votes:
        return payload
    several = len({vote.topic for vote in part.votes}) > 1
    rows = []
    for vote in part.votes:
        topic = f" · {shorten(vote.topic, VOTE_TOPIC_CHARS)}" if several else ""
        label = f"{vote.number}{topic}"
        rows.append(
            [
                {"text": f"👍 {label}", "callback_data": vote_data(vote.key, UP)},
                {"text": f"👎 {label}", "callback_data": vote_data(vote.key, DOWN)},
            ]
        )
    payload["reply_markup"] = {"inline_keyboard": rows}
    return payload


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
        if used + utf16_size(line) + 1 > MESSAGE_LIMIT - 2:
            kept.append("…")
            break
        kept.append(line)
        used += utf16_size(line) + 1
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
