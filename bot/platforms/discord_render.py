"""Digests and command replies as Discord messages with embeds.

A digest payload is JSON, stored with its delivery before anything is sent:
`{"content": str | None, "embeds": [embed.to_dict(), ...]}`; the sender rebuilds the embeds
with `discord.Embed.from_dict`. A spike alert may add `"mention_role_id": "123"`, the one role
the sender then allows to be pinged; nothing else ever pings anyone.

Layout: the first message's content is the digest's heading; each followed topic is an embed
titled with its name, whose description holds the momentum line, the sparkline and the papers.
A topic that outgrows an embed (or the message) continues in another embed titled
"NAME (continued)". Papers are never split; every limit below is checked while packing.

Sizes are measured in UTF-16 code units, never fewer than the code points Discord counts, so a
message that passes here passes on Discord whichever way it counts.

Safety: paper text comes from strangers. Every dynamic string goes through `clean_text` (one
bounded line, no control characters), `escape_markdown` and `escape_mentions`. Inside a masked
link `[title](url)` square brackets would end the link text early and let a title smuggle its
own link, so they become parentheses; "://" gets a zero-width space, since Discord refuses to
render a masked link whose text looks like a URL. Titles are cut by `clean_text` before the
link is built, so no cut ever lands inside a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import discord
from discord.utils import escape_markdown, escape_mentions

from digests.alerts import SpikeAlert, alert_chart, headline
from digests.chart_spec import CHART_KEY, digest_chart
from digests.commands import Reply
from digests.compose import Digest, DigestEntry, DigestSection
from digests.momentum import sparkline
from digests.papers import abs_url
from digests.render_text import clean_text, long_date, period_text
from digests.spikes import evidence_text, shares_text

CONTENT_LIMIT = 2000
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELDS_LIMIT = 25
FIELD_NAME_LIMIT = 256
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
MESSAGE_EMBED_CHARS = 6000  # title, description, fields, footer and author of every embed
MESSAGE_EMBEDS = 10
URL_LIMIT = 300
REPLY_LINE_LIMIT = 900  # characters before escaping, so an escaped line stays below 2,000
COLOR = 0x4F7DF3
ZWSP = "\u200b"
# "<@id>", "<@&id>", "<#id>", "</cmd:id>", "<:emoji:id>", "<t:time>": Discord's inline syntax.
_MENTION_SYNTAX = re.compile(r"<(?=[@#/:]|a:|t:)")


@dataclass(frozen=True)
class Limits:
    """How much of each paper field is shown, in characters before escaping."""

    title: int
    authors: int
    gist: int
    name: int
    also_in: int  # topic names shown


FULL = Limits(title=300, authors=200, gist=220, name=120, also_in=5)
# Even if every character were escaped, a compact paper stays far below an embed's description.
COMPACT = Limits(title=120, authors=80, gist=100, name=40, also_in=2)


def size(text: str) -> int:
    """Length in UTF-16 code units: the stricter of the two ways to count characters."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def defuse_mentions(text: str) -> str:
    """Mentions, channel and command links as plain text: nothing renders as a pill or pings."""
    return escape_mentions(_MENTION_SYNTAX.sub("<" + ZWSP, text))


def markdown_safe(text: str, limit: int) -> str:
    """Dynamic text as one clean line that renders literally and pings nobody."""
    return defuse_mentions(escape_markdown(clean_text(text, limit)))


def link_text(text: str, limit: int) -> str:
    """Text for the inside of `[...](url)`: no brackets, no URL, no markdown."""
    cleaned = clean_text(text, limit).replace("[", "(").replace("]", ")")
    cleaned = cleaned.replace("://", ":" + ZWSP + "//")
    return defuse_mentions(escape_markdown(cleaned, ignore_links=False))


def link_target(url: str, arxiv_id: str) -> str:
    """The paper's URL when it is a plain http(s) link, else its arXiv page.

    Parentheses are percent-encoded: a ")" would end the link's target early.
    """
    url = url.strip()
    plain = url.startswith(("https://", "http://")) and len(url) <= URL_LIMIT
    plain = plain and url.isprintable() and not any(c.isspace() or c in "<>" for c in url)
    chosen = url if plain else abs_url(clean_text(arxiv_id, 60).replace(" ", ""))
    return chosen.replace("(", "%28").replace(")", "%29")


# --- digests ---------------------------------------------------------------------------------


def render_digest(digest: Digest, *, title: str) -> list[dict]:
    """The digest as message payloads, each within every Discord limit, in reading order."""
    packer = _Packer()
    for section in digest.sections:
        name = markdown_safe(section.topic.name, FULL.name) or "Topic"
        for piece in _section_pieces(section):
            packer.add(name, piece)
        packer.end_section()
    payloads = packer.payloads()
    payloads[0]["content"] = _heading(digest, title)
    if chart := digest_chart(digest):  # shown in the first embed (see DiscordSender)
        payloads[0][CHART_KEY] = chart
    return payloads


def _heading(digest: Digest, title: str) -> str:
    count, topics = digest.paper_count, len(digest.sections)
    papers = "1 new paper" if count == 1 else f"{count:,} new papers"
    followed = "1 followed topic" if topics == 1 else f"{topics:,} followed topics"
    period = period_text(digest.period_start, digest.period_end)
    name = markdown_safe(title, 200) or "Research digest"
    return f"**{name}** · {period} · {papers} in {followed}"


def _section_pieces(section: DigestSection) -> list[str]:
    """The topic's header, then one piece per paper; pieces are never split."""
    header = (
        f"{markdown_safe(section.momentum.line, 500)}\n"
        f"Last 12 weeks: {markdown_safe(section.sparkline, 100)}"
    )
    if not section.entries:
        return [f"{header}\n\n*No new papers in this period.*"]
    pieces = [header]
    last = len(section.entries)
    for number, entry in enumerate(section.entries, start=1):
        more = section.more if number == last else 0
        piece = paper_block(number, entry, FULL, more)
        if size(piece) > DESCRIPTION_LIMIT // 2:
            piece = paper_block(number, entry, COMPACT, more)
        pieces.append(piece)
    return pieces


def paper_block(number: int, entry: DigestEntry, limits: Limits, more: int = 0) -> str:
    """One paper: linked title, authors · date · category, also-in topics, gist."""
    paper = entry.paper
    title = link_text(paper.title, limits.title) or link_text(paper.arxiv_id, 40) or "paper"
    meta = [
        markdown_safe(entry.authors_line, limits.authors),
        long_date(paper.published),
        markdown_safe(paper.primary_category, 40),
    ]
    lines = [
        f"**{number}. [{title}]({link_target(paper.url, paper.arxiv_id)})**",
        " · ".join(part for part in meta if part),
    ]
    if entry.also_in:
        names = [markdown_safe(name, limits.name) for name in entry.also_in[: limits.also_in]]
        hidden = len(entry.also_in) - len(names)
        lines.append(f"*also in: {', '.join(names)}{f' +{hidden}' if hidden else ''}*")
    if gist := markdown_safe(entry.gist, limits.gist):
        lines.append(gist)
    if more:
        lines.append(f"*+{more:,} more in this topic*")
    return "\n".join(lines)


@dataclass
class _Message:
    embeds: list[discord.Embed] = field(default_factory=list)
    used: int = 0  # embed characters so far

    def has_room(self, extra: int, new_embed: bool) -> bool:
        count_ok = not new_embed or len(self.embeds) < MESSAGE_EMBEDS
        return count_ok and self.used + extra <= MESSAGE_EMBED_CHARS


class _Packer:
    """Pieces into embeds into messages, greedily, within every per-embed and per-message limit."""

    def __init__(self) -> None:
        self.messages = [_Message()]
        self.embed: discord.Embed | None = None  # the open embed, last in the last message

    def add(self, name: str, piece: str) -> None:
        message, embed = self.messages[-1], self.embed
        joined = f"\n\n{piece}"
        if (
            embed is not None
            and size(embed.description + joined) <= DESCRIPTION_LIMIT
            and message.has_room(size(joined), new_embed=False)
        ):
            embed.description += joined
            message.used += size(joined)
            return
        title = name if embed is None else f"{name} (continued)"
        embed = discord.Embed(title=title[:TITLE_LIMIT], description=piece, color=COLOR)
        extra = size(embed.title) + size(piece)
        if message.embeds and not message.has_room(extra, new_embed=True):
            message = _Message()
            self.messages.append(message)
        message.embeds.append(embed)
        message.used += extra
        self.embed = embed

    def end_section(self) -> None:
        self.embed = None

    def payloads(self) -> list[dict]:
        return [
            {"content": None, "embeds": [embed.to_dict() for embed in message.embeds]}
            for message in self.messages
        ]


# --- spike alerts ----------------------------------------------------------------------------


def render_alert(alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
    """A spike alert: its headline as content (pinging the chosen role, if any) and an embed
    with the evidence, sparkline and the papers driving the rise."""
    decision = alert.decision
    name = markdown_safe(alert.topic.name, FULL.name) or "Topic"
    evidence = (
        f"Share of all new papers {shares_text(decision)}; {evidence_text(decision)}\n"
        f"Last 12 weeks: {sparkline([week.count for week in alert.momentum.weekly])}"
    )
    packer = _Packer()
    packer.add(f"{name} is spiking", markdown_safe(evidence, 500))
    for number, entry in enumerate(alert.papers, start=1):
        packer.add(f"{name} is spiking", paper_block(number, entry, FULL))
    payloads = packer.payloads()
    role = f"<@&{mention_role_id}> " if mention_role_id.isdigit() else ""
    payloads[0]["content"] = f"{role}**Spike:** {markdown_safe(headline(alert), 500)}"
    payloads[0][CHART_KEY] = alert_chart(alert)
    if role:
        payloads[0]["mention_role_id"] = mention_role_id
    return payloads


# --- command replies -------------------------------------------------------------------------


def render_reply(reply: Reply) -> tuple[str, list[discord.Embed]]:
    """A command's answer: escaped content within 2,000 characters, overflow in an embed."""
    lines = [_reply_line(line) for line in reply.text.splitlines()]
    if reply.choices and reply.choice_command:
        lines += [
            f"• {markdown_safe(choice.label, 100)} — `/{reply.choice_command} {choice.value}`"
            for choice in reply.choices
            if "`" not in choice.value
        ]
    if reply.notes:
        lines += ["", *(_reply_line(note) for note in reply.notes)]
    content, rest = _fit(lines, CONTENT_LIMIT)
    if not rest:
        return content or "…", []
    description, dropped = _fit(rest, DESCRIPTION_LIMIT - 2)
    if dropped:
        description += "\n…"
    return content or "…", [discord.Embed(description=description, color=COLOR)]


def _reply_line(line: str) -> str:
    return defuse_mentions(escape_markdown(clean_text(line, REPLY_LINE_LIMIT)))


def _fit(lines: Iterable[str], limit: int) -> tuple[str, list[str]]:
    """The leading lines that fit `limit` joined by newlines, and the lines left over."""
    lines = list(lines)
    kept: list[str] = []
    used = 0
    for index, line in enumerate(lines):
        extra = size(line) + (1 if kept else 0)
        if used + extra > limit:
            return "\n".join(kept), lines[index:]
        kept.append(line)
        used += extra
    return "\n".join(kept), []
