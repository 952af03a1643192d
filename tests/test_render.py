"""One layout on every platform: the terminal, Telegram and Discord show the same topics and
papers in the same order, escape what strangers wrote, and split only between whole papers."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from bot.platforms import discord_render, telegram_render
from bot.platforms.discord_render import ZWSP
from bot.platforms.telegram_render import WORD_JOINER
from digests.messages.alert import SpikeAlert
from digests.messages.digest import Digest, TopicRef
from digests.messages.plain_text import render_alert_text, render_text
from digests.papers.records import abs_url
from tests.fakes.telegram_html import parse_telegram_html, validate_telegram_html
from tests.messages import EVALS, LINK, RL, digest_of, numbered, spike

QUIET = TopicRef("quiet", "Quiet topic")
TOPIC_LINE = re.compile(r"(?:## )?(Agentic RL|Evaluation|Quiet topic)")
TITLE = re.compile(r"\**(\d+)\. \[?(Paper number \d+|[A-Z])\b")
MORE = re.compile(r"\+([\d,]+) more")
DETAILS = re.compile(r"^Ada One, Bo Two, Cy Three et al\. · Sep 27, 2026 · ", re.M)
GIST = re.compile(r"^We study agents, case \d+\.", re.M)


def telegram_messages(parts: list[dict]) -> list[str]:
    for part in parts:
        assert validate_telegram_html(part["text"]) is None, part["text"]
    return [parse_telegram_html(part["text"])[0] for part in parts]


def discord_messages(payloads: list[dict]) -> list[str]:
    """The content, then each embed as its title over its description."""
    return [
        text
        for payload in payloads
        for text in [
            payload["content"] or "",
            *(f"{e['title']}\n{e['description']}" for e in payload["embeds"]),
        ]
        if text
    ]


DIGEST_MESSAGES: dict[str, Callable[[Digest], list[str]]] = {
    "text": lambda digest: [render_text(digest, title="Weekly digest")],
    "telegram": lambda digest: telegram_messages(
        telegram_render.render_digest(digest, title="Weekly digest")
    ),
    "discord": lambda digest: discord_messages(
        discord_render.render_digest(digest, title="Weekly digest")
    ),
}
ALERT_MESSAGES: dict[str, Callable[[SpikeAlert], list[str]]] = {
    "text": lambda alert: [render_alert_text(alert)],
    "telegram": lambda alert: telegram_messages(telegram_render.render_alert(alert)),
    "discord": lambda alert: discord_messages(discord_render.render_alert(alert)),
}


def outline(messages: list[str]) -> list[tuple[str, ...]]:
    """Topics, numbered papers, "+N more" and empty topics, in reading order."""
    found: list[tuple[str, ...]] = []
    for line in "\n".join(messages).splitlines():
        line = line.strip()
        if topic := TOPIC_LINE.fullmatch(line):
            found.append(("topic", topic[1]))
        elif title := TITLE.match(line):
            found.append(("paper", title[1], title[2]))
        elif more := MORE.search(line):
            found.append(("more", more[1]))
        elif line == "No new papers in this period.":
            found.append(("none",))
    return found


def test_every_platform_shows_the_same_topics_papers_and_more_counts_in_order() -> None:
    papers = [numbered(n) for n in range(7)] + [numbered(100 + n, topic=EVALS) for n in range(2)]
    digest = digest_of(papers, followed=(RL, EVALS, QUIET), cap=4)
    outlines = {name: outline(render(digest)) for name, render in DIGEST_MESSAGES.items()}
    assert outlines["text"] == [
        ("topic", "Agentic RL"),
        *(("paper", str(n + 1), f"Paper number {n}") for n in range(4)),
        ("more", "3"),
        ("topic", "Evaluation"),
        ("paper", "1", "Paper number 100"),
        ("paper", "2", "Paper number 101"),
        ("topic", "Quiet topic"),
        ("none",),
    ]
    assert outlines["telegram"] == outlines["text"]
    assert outlines["discord"] == outlines["text"]


def test_every_platform_shows_an_alert_in_the_same_order() -> None:
    alert = spike(titles=("A", "B", "C"))
    for name, render in ALERT_MESSAGES.items():
        lines = "\n".join(render(alert)).replace("**", "").splitlines()
        spike_line = next(n for n, line in enumerate(lines) if line.startswith("Spike: "))
        share = next(n for n, line in enumerate(lines) if line.startswith("Share of all new"))
        heading = lines.index("Papers driving the rise:")
        titles = [line for line in lines if TITLE.match(line)]
        assert spike_line < share < heading < lines.index(titles[0]), name
        assert [TITLE.match(title)[2] for title in titles] == ["A", "B", "C"], name


def assert_whole_papers(text: str) -> None:
    """Each paper in a message has its title, its details and its gist in that message."""
    titles = [line for line in text.splitlines() if TITLE.match(line)]
    assert len(titles) == len(DETAILS.findall(text)) == len(GIST.findall(text))


@pytest.mark.parametrize("platform", ["telegram", "discord"])
def test_a_long_digest_is_split_between_whole_papers(platform: str) -> None:
    papers = [numbered(n) for n in range(70)] + [numbered(100 + n, topic=EVALS) for n in range(30)]
    digest = digest_of(papers)
    messages = DIGEST_MESSAGES[platform](digest)
    assert len(messages) > 2
    for text in messages:
        assert_whole_papers(text)
    assert outline(messages) == outline(DIGEST_MESSAGES["text"](digest))


@pytest.mark.parametrize("platform", ["telegram", "discord"])
def test_a_paper_too_big_for_its_platform_is_shown_shorter_and_whole(platform: str) -> None:
    followed = [TopicRef(f"t{n}", "*&" * 100) for n in range(12)]
    scores = {topic.slug: 0.5 for topic in followed} | {followed[0].slug: 0.9}
    big = {
        "title": "Paper number 1 " + "*&" * 5_000,
        "abstract": "We study agents, case 1. " + "*& " * 5_000,
        "scores": scores,
    }
    digest = digest_of([numbered(1, **big), numbered(2, scores=scores)], followed=followed)
    messages = DIGEST_MESSAGES[platform](digest)
    assert outline(messages) == outline(DIGEST_MESSAGES["text"](digest))
    for text in messages:
        assert_whole_papers(text)
    # Of the eleven other topics each paper names three, its most specific tags (docs/web.md).
    also_in = re.compile(r"also in: (.*)")
    for text in (DIGEST_MESSAGES["text"](digest)[0], "\n".join(messages)):
        assert [line.count(",") for line in also_in.findall(text)] == [2, 2]


HOSTILE = {
    "html": "<script>alert(1)</script> & <b>bold</b> &amp;",
    "mentions": "@everyone @here <@&123456789012345678> /start@digest_test_bot",
    "markdown": "**bold** __under__ ||spoiler|| `code` ~~gone~~ # heading",
}


def literal_on_discord(markdown: str) -> str:
    """What Discord shows of escaped text: no backslash escapes, no zero-width spaces."""
    return re.sub(r"\\(\S)", r"\1", markdown).replace(ZWSP, "")


@pytest.mark.parametrize("hostile", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_titles_show_literally_and_do_nothing_on_every_platform(hostile: str) -> None:
    digest = digest_of([numbered(1, title=hostile, authors=(hostile,), abstract=hostile)])
    alert = spike(titles=(hostile,))
    [text] = DIGEST_MESSAGES["text"](digest)
    assert f"1. {hostile}" in text.splitlines()
    assert f"1. {hostile}" in render_alert_text(alert).splitlines()

    for parts in (
        telegram_render.render_digest(digest, title="D"),
        telegram_render.render_alert(alert),
    ):
        assert_inert_on_telegram(parts, hostile)

    for payloads in (
        discord_render.render_digest(digest, title="D"),
        discord_render.render_alert(alert),
    ):
        assert_inert_on_discord(payloads, hostile)


def assert_inert_on_telegram(parts: list[dict], hostile: str) -> None:
    shown = []
    for part in parts:
        text, entities = parse_telegram_html(part["text"])
        shown += text.replace(WORD_JOINER, "").splitlines()
        assert {e["type"] for e in entities} <= {"bold", "italic", "text_link"}
        links = [e["url"] for e in entities if e["type"] == "text_link"]
        assert all(link.startswith("https://arxiv.org/abs/") for link in links)
        # Telegram would make these tappable; a word joiner after "/" and "@" stops it.
        assert not re.search(r"(?<![\w<])[@/]\w", text)
    assert f"1. {hostile}" in shown


def assert_inert_on_discord(payloads: list[dict], hostile: str) -> None:
    texts = discord_messages(payloads)
    joined = "\n".join(texts)
    for markup in ("@everyone", "@here", "<@&", "**bold**", "||spoiler||", "`code`", "~~gone~~"):
        assert markup not in joined
    targets = [target for _, target in LINK.findall(joined)]
    assert targets and all(target.startswith(abs_url("")) for target in targets)
    assert f"1. [{hostile}]" in literal_on_discord(joined)
