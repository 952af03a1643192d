"""Digests, spike alerts and command replies as Discord messages with embeds.

Digests and alerts are laid out by `digests.messages.layout`, as on every platform;
`DiscordMarkdown` writes that layout in Discord's markdown and `_Packer` puts its blocks into
embeds.

A digest payload is JSON, stored with its delivery before anything is sent:
`{"content": str | None, "embeds": [embed.to_dict(), ...]}`; the sender rebuilds the embeds
with `discord.Embed.from_dict`. A part showing papers adds `"components"`: action rows of
👍/👎 buttons whose custom_id is the core's vote data (`digests.messages.vote_keys`). A spike alert
may add `"mention_role_id": "123"`, the one role
the sender then allows to be pinged; nothing else ever pings anyone.

Packing: the first message's content is the digest's heading; each followed topic is an embed
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

from digests.messages.alert import SpikeAlert, alert_chart
from digests.messages.chart_spec import CHART_KEY, digest_chart
from digests.messages.digest import Digest
from digests.messages.layout import PaperVote, alert_layout, clean_text, digest_layout, link_url
from digests.messages.layout import utf16_size as size
from digests.messages.vote_keys import DOWN, UP, vote_data
from digests.usecases.commands import Reply

CONTENT_LIMIT = 2000
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
MESSAGE_EMBED_CHARS = 6000  # title, description, fields, footer and author of every embed
MESSAGE_EMBEDS = 10
URL_LIMIT = 300
REPLY_LINE_LIMIT = 900  # characters before escaping, so an escaped line stays below 2,000
COLOR = 0x4F7DF3
# Discord takes 5 action rows of 5 buttons a message: two papers' 👍/👎 to a row.
PAPERS_PER_ROW = 2
PAPERS_PER_MESSAGE = 5 * PAPERS_PER_ROW
VOTE_TOPIC_CHARS = 40  # of a button's 80-character label
ZWSP = "\u200b"
# "<@id>", "<@&id>", "<#id>", "</cmd:id>", "<:emoji:id>", "<t:time>": Discord's inline syntax.
_MENTION_SYNTAX = re.compile(r"<(?=[@#/:]|a:|t:)")


def defuse_mentions(text: str) -> str:
    """Mentions, channel and command links as plain text: nothing renders as a pill or pings."""
    return escape_mentions(_MENTION_SYNTAX.sub("<" + ZWSP, text))


def markdown_safe(text: str, limit: int) -> str:
    """Dynamic text as one clean line that renders literally and pings nobody."""
    return defuse_mentions(escape_markdown(clean_text(text, limit)))


def link_text(text: str) -> str:
    """Clean text for the inside of `[...](url)`: no brackets, no URL, no markdown."""
    text = text.replace("[", "(").replace("]", ")").replace("://", ":" + ZWSP + "//")
    return defuse_mentions(escape_markdown(text, ignore_links=False))


def link_target(url: str, arxiv_id: str) -> str:
    """The paper's URL when it is a plain http(s) link, else its arXiv page.

    Parentheses are percent-encoded: a ")" would end the link's target early.
    """
    chosen = link_url(url, arxiv_id, URL_LIMIT, refused="<>")
    return chosen.replace("(", "%28").replace(")", "%29")


class DiscordMarkdown:
    """The `Markup` of Discord's markdown, in embed descriptions and message content."""

    indent: str = ""
    # A block of at most half a description leaves room for the topic's other papers.
    block_limit: int | None = DESCRIPTION_LIMIT // 2

    def escape(self, text: str) -> str:
        return defuse_mentions(escape_markdown(text))

    def strong(self, markup: str) -> str:
        return f"**{markup}**"

    def aside(self, markup: str) -> str:
        return f"*{markup}*"

    def topic_line(self, name: str) -> str:
        return ""  # the title of the topic's embed

    def linked_title(self, number: int, title: str, url: str, arxiv_id: str) -> list[str]:
        return [self.strong(f"{number}. [{link_text(title)}]({link_target(url, arxiv_id)})")]

    def more(self, count: int) -> str:
        return self.aside(f"+{count:,} more in this topic")

    def link(self, markup: str, url: str) -> str:
        return f"[{markup}]({url.replace('(', '%28').replace(')', '%29')})"


MARKUP = DiscordMarkdown()


# --- digests ---------------------------------------------------------------------------------


def render_digest(digest: Digest, *, title: str, public_url: str | None = None) -> list[dict]:
    """The digest as message payloads, each within every Discord limit, in reading order; with
    `public_url`, each topic's embed title links to the topic's web page."""
    layout = digest_layout(digest, title, MARKUP, public_url=public_url)
    packer = _Packer()
    for section in layout.sections:
        for block, vote in zip(section.blocks, section.votes, strict=True):
            packer.add(section.name, block, vote, url=section.url)
        packer.end_section()
    payloads = packer.payloads()
    payloads[0]["content"] = " · ".join(layout.heading)
    if chart := digest_chart(digest):  # shown in the first embed (see DiscordSender)
        payloads[0][CHART_KEY] = chart
    return payloads


@dataclass
class _Message:
    embeds: list[discord.Embed] = field(default_factory=list)
    used: int = 0  # embed characters so far
    votes: list[PaperVote] = field(default_factory=list)  # its papers, given 👍/👎 buttons

    def has_room(self, extra: int, new_embed: bool, vote: PaperVote | None = None) -> bool:
        count_ok = not new_embed or len(self.embeds) < MESSAGE_EMBEDS
        votes_ok = vote is None or len(self.votes) < PAPERS_PER_MESSAGE
        return count_ok and votes_ok and self.used + extra <= MESSAGE_EMBED_CHARS

    def payload(self) -> dict:
        payload = {"content": None, "embeds": [embed.to_dict() for embed in self.embeds]}
        if self.votes:
            payload["components"] = vote_rows(self.votes)
        return payload


def vote_rows(votes: list[PaperVote]) -> list[dict]:
    """Action rows of 👍/👎 buttons, two papers to a row, labelled with each paper's number
    (and its topic, when the message shows papers of several topics)."""
    several = len({vote.topic for vote in votes}) > 1
    buttons = []
    for vote in votes:
        topic = f" · {clean_text(vote.topic, VOTE_TOPIC_CHARS)}" if several else ""
        for value, thumb in ((UP, "👍"), (DOWN, "👎")):
            label = f"{thumb} {vote.number}{topic}"
            buttons.append(
                {"type": 2, "style": 2, "label": label, "custom_id": vote_data(vote.key, value)}
            )
    per_row = 2 * PAPERS_PER_ROW
    return [
        {"type": 1, "components": buttons[start : start + per_row]}
        for start in range(0, len(buttons), per_row)
    ]


class _Packer:
    """Pieces into embeds into messages, greedily, within every per-embed and per-message limit."""

    def __init__(self) -> None:
        self.messages = [_Message()]
        self.embed: discord.Embed | None = None  # the open embed, last in the last message

    def add(self, name: str, piece: str, vote: PaperVote | None = None, *, url: str = "") -> None:
        message, embed = self.messages[-1], self.embed
        joined = f"\n\n{piece}"
        if (
            embed is not None
            and size(embed.description + joined) <= DESCRIPTION_LIMIT
            and message.has_room(size(joined), new_embed=False, vote=vote)
        ):
            embed.description += joined
            message.used += size(joined)
            message.votes += [vote] if vote else []
            return
        title = name if embed is None else f"{name} (continued)"
        embed = discord.Embed(
            title=title[:TITLE_LIMIT], description=piece, color=COLOR, url=url or None
        )
        extra = size(embed.title) + size(piece)
        if message.embeds and not message.has_room(extra, new_embed=True, vote=vote):
            message = _Message()
            self.messages.append(message)
        message.embeds.append(embed)
        message.used += extra
        message.votes += [vote] if vote else []
        self.embed = embed

    def end_section(self) -> None:
        self.embed = None

    def payloads(self) -> list[dict]:
        return [message.payload() for message in self.messages]


# --- spike alerts ----------------------------------------------------------------------------


def render_alert(alert: SpikeAlert, *, mention_role_id: str = "") -> list[dict]:
    """A spike alert: its headline as content (pinging the chosen role, if any) and an embed
    with the evidence, sparkline and the papers driving the rise."""
    layout = alert_layout(alert, MARKUP)
    packer = _Packer()
    for block, vote in zip(layout.blocks, layout.votes, strict=True):
        packer.add(f"{layout.name} is spiking", block, vote)
    payloads = packer.payloads()
    role = f"<@&{mention_role_id}> " if mention_role_id.isdigit() else ""
    payloads[0]["content"] = role + layout.headline
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
