"""Digests, spike alerts and command replies as Slack Block Kit messages.

Digests and alerts are laid out by `digests.messages.layout`, as on every platform;
`SlackMrkdwn` writes that layout in Slack's mrkdwn and `_pack` puts its blocks into messages.

Every payload is JSON for `chat.postMessage`: `{"text": fallback, "blocks": [...]}`; the
fallback is what notifications show. A part that opens with the 12-week chart also holds the
chart's description (`CHART_KEY`): the sender uploads the image with `files_upload_v2`, its
text the file's comment, and posts the part without it where files are refused.

Limits: 50 blocks a message and 3,000 characters a section. Each paper is a section (the layout
keeps a paper within `block_limit`, measured after escaping) and an actions block with its
👍/👎 buttons, whose `value` (and `action_id`) is the core's vote data
(`digests.messages.vote_keys`). A topic that goes on in the next message is headed
"NAME (continued)".

Safety: paper text comes from strangers. Every dynamic string goes through `clean_text` and
then `escape`: `&`, `<` and `>` become entities, so no text can make a link, a user or channel
mention (`<@U…>`, `<!channel>`, `<!here>`); a word joiner after "@" keeps "@channel" and
"@here" from being taken for mentions where names are linked. Link targets with `|`, `<`, `>`
or spaces are replaced by the paper's arXiv page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from digests.messages.alert import SpikeAlert, alert_chart
from digests.messages.chart_spec import CHART_KEY, digest_chart
from digests.messages.digest import Digest
from digests.messages.layout import (
    PaperVote,
    alert_layout,
    clean_text,
    digest_layout,
    link_url,
    utf16_size,
)
from digests.messages.vote_keys import DOWN, UP, vote_data
from digests.usecases.commands import FOLLOW_MODES, Choice, Reply

MESSAGE_BLOCKS = 50
SECTION_LIMIT = 3000
FALLBACK_LIMIT = 300  # characters of the notification text
BUTTON_LABEL = 75
REPLY_BUTTONS = 25  # elements of one actions block
OPTION_TEXT, OPTION_VALUE, OPTIONS = 75, 150, 100  # an external select's limits
FOLLOW_MODAL, TOPIC_INPUT, HOW_OFTEN = "follow", "topic", "how_often"
WORD_JOINER = "\u2060"
_MENTION = re.compile(r"(?<![A-Za-z0-9_])@(?=[A-Za-z0-9_])")
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def escape(text: str) -> str:
    """Text shown literally in mrkdwn: no link, no mention, no "@here"."""
    return _MENTION.sub("@" + WORD_JOINER, text.translate(_ENTITIES))


class SlackMrkdwn:
    """The `Markup` of Slack's mrkdwn."""

    indent: str = ""
    block_limit: int | None = SECTION_LIMIT

    def escape(self, text: str) -> str:
        return escape(text)

    def strong(self, markup: str) -> str:
        return f"*{markup}*"

    def aside(self, markup: str) -> str:
        return f"_{markup}_"

    def topic_line(self, name: str) -> str:
        return self.strong(name)

    def linked_title(self, number: int, title: str, url: str, arxiv_id: str) -> list[str]:
        target = link_url(url, arxiv_id, refused="|<>").replace("&", "&amp;")
        return [f"{number}. <{target}|{escape(title)}>"]

    def more(self, count: int) -> str:
        return self.aside(f"+{count:,} more in this topic")

    def link(self, markup: str, url: str) -> str:
        return f"<{url}|{markup}>"


MARKUP = SlackMrkdwn()


def section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": _fit(text)}}


def _fit(text: str) -> str:
    """Within a section's limit: whole lines dropped from the end first."""
    while utf16_size(text) > SECTION_LIMIT and "\n" in text:
        text = text.rsplit("\n", 1)[0]
    return text if utf16_size(text) <= SECTION_LIMIT else text[: SECTION_LIMIT // 2] + "…"


def message(fallback: str, blocks: list[dict]) -> dict:
    """`blocks`, and the words notifications show (mrkdwn too, so escaped as well)."""
    return {"text": escape(clean_text(fallback, FALLBACK_LIMIT)) or "…", "blocks": blocks}


def file_comment(payload: dict) -> str:
    """The words a chart is uploaded with: its part's sections (a file takes no blocks)."""
    sections = [b["text"]["text"] for b in payload.get("blocks", []) if b["type"] == "section"]
    return "\n\n".join(sections) or payload.get("text", "")


# --- digests and alerts ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    """A paper's (or a header's) blocks, never split; `resume` heads it atop a new message."""

    text: str
    resume: str = ""
    vote: PaperVote | None = None

    def blocks(self) -> list[dict]:
        return [section(self.text), *([vote_buttons(self.vote)] if self.vote else [])]


@dataclass
class _Message:
    blocks: list[dict] = field(default_factory=list)


def render_digest(digest: Digest, *, title: str, public_url: str | None = None) -> list[dict]:
    """The digest as messages of Block Kit; the first with topics is the chart and heading."""
    layout = digest_layout(digest, title, MARKUP, public_url=public_url)
    heading = "\n".join(layout.heading)
    chart = digest_chart(digest)
    units = [] if chart else [_Unit(heading)]
    for section_layout in layout.sections:
        resume = f"{MARKUP.strong(section_layout.name)} (continued)"
        pieces = zip(section_layout.blocks, section_layout.votes, strict=True)
        units += [_Unit(text, resume if n else "", vote) for n, (text, vote) in enumerate(pieces)]
    messages = [message(title, part.blocks) for part in _pack(units)]
    if chart:
        return [{**message(title, [section(heading)]), CHART_KEY: chart}, *messages]
    return messages


def render_alert(alert: SpikeAlert) -> list[dict]:
    """The 12-week chart with the headline, then the evidence and the papers."""
    layout = alert_layout(alert, MARKUP)
    fallback = f"Spike: {alert.topic.name}"
    chart = {**message(fallback, [section(layout.headline)]), CHART_KEY: alert_chart(alert)}
    units = [_Unit(text, vote=vote) for text, vote in zip(layout.blocks, layout.votes, strict=True)]
    return [chart, *(message(fallback, part.blocks) for part in _pack(units))]


def _pack(units: Iterable[_Unit]) -> list[_Message]:
    messages: list[_Message] = []
    for unit in units:
        blocks = unit.blocks()
        if not messages or len(messages[-1].blocks) + len(blocks) > MESSAGE_BLOCKS:
            opening = [section(unit.resume)] if messages and unit.resume else []
            messages.append(_Message(opening))
        messages[-1].blocks += blocks
    return messages


def vote_buttons(vote: PaperVote) -> dict:
    """👍 and 👎 under a paper, labelled with its number; the vote data is their value."""
    return {
        "type": "actions",
        "block_id": f"vote-{vote.key}",
        "elements": [
            _button(f"{thumb} {vote.number}", data, data)
            for thumb, data in (("👍", vote_data(vote.key, UP)), ("👎", vote_data(vote.key, DOWN)))
        ],
    }


def _button(label: str, action_id: str, value: str) -> dict:
    text = {"type": "plain_text", "text": clean_text(label, BUTTON_LABEL) or "…", "emoji": True}
    return {"type": "button", "text": text, "action_id": action_id, "value": value}


# --- command replies -------------------------------------------------------------------------


def render_reply(reply: Reply) -> dict:
    """A command's answer: its lines escaped, notes below, its choices as buttons each
    re-running the reply's command with the choice's value (`command:value`)."""
    lines = [*reply.text.splitlines(), *([""] if reply.notes else []), *reply.notes]
    texts = _sections([escape(clean_text(line, SECTION_LIMIT // 5)) for line in lines])
    blocks = [section(text) for text in texts[: MESSAGE_BLOCKS - 1]] or [section("…")]
    buttons = [
        _button(choice.label, f"choice-{n}", f"{reply.choice_command}:{choice.value}")
        for n, choice in enumerate(reply.choices[:REPLY_BUTTONS])
    ]
    if buttons and reply.choice_command:
        blocks.append({"type": "actions", "block_id": "choices", "elements": buttons})
    return message(reply.text.splitlines()[0] if reply.text else "…", blocks)


def _sections(lines: list[str]) -> list[str]:
    """Lines joined into as few sections as fit."""
    texts: list[str] = []
    for line in lines:
        joined = f"{texts[-1]}\n{line}" if texts else line
        if texts and utf16_size(joined) <= SECTION_LIMIT:
            texts[-1] = joined
        else:
            texts.append(line or " ")
    return [text for text in texts if text.strip()]


def parse_choice(value: str) -> tuple[str, str] | None:
    """(command, value) from a choice button's value; None for one we did not make."""
    command, colon, chosen = value.partition(":")
    return (command, chosen) if colon and command.isalpha() and chosen else None


# --- /follow's modal -------------------------------------------------------------------------


def follow_modal(channel_id: str) -> dict:
    """A topic (an external select: the app completes what is typed) and how often."""
    often = [_option(Choice(mode, mode)) for mode in FOLLOW_MODES]
    return {
        "type": "modal",
        "callback_id": FOLLOW_MODAL,
        "private_metadata": channel_id,
        "title": {"type": "plain_text", "text": "Follow a topic"},
        "submit": {"type": "plain_text", "text": "Follow"},
        "blocks": [
            _input(TOPIC_INPUT, "Topic", {"type": "external_select", "min_query_length": 0,
                                          "placeholder": {"type": "plain_text",
                                                          "text": "Start typing"}}),
            _input(HOW_OFTEN, "How often", {"type": "static_select", "options": often,
                                            "initial_option": often[0]}),
        ],
    }  # fmt: skip


def _input(action_id: str, label: str, element: dict) -> dict:
    return {
        "type": "input",
        "block_id": action_id,
        "label": {"type": "plain_text", "text": label},
        "element": {**element, "action_id": action_id},
    }


def options(choices: Iterable[Choice]) -> list[dict]:
    """Choices as an external select's options, those whose value would be cut left out."""
    fitting = [choice for choice in choices if len(choice.value) <= OPTION_VALUE]
    return [_option(choice) for choice in fitting[:OPTIONS]]


def _option(choice: Choice) -> dict:
    text = clean_text(choice.label, OPTION_TEXT) or "…"
    return {"text": {"type": "plain_text", "text": text}, "value": choice.value}


def follow_choice(view: dict) -> tuple[str, str]:
    """(topic, how often) as picked in the submitted modal; "" for what was not picked."""
    values = view.get("state", {}).get("values", {})

    def picked(action_id: str) -> str:
        selected = values.get(action_id, {}).get(action_id, {}).get("selected_option") or {}
        return str(selected.get("value", ""))

    return picked(TOPIC_INPUT), picked(HOW_OFTEN)
