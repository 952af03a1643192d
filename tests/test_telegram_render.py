"""Telegram HTML rendering: digests split at paper boundaries within limits, escaped, inert."""

from __future__ import annotations

import re
from datetime import date

import pytest

from bot.platforms.telegram_render import (
    CAPTION_LIMIT,
    MESSAGE_LIMIT,
    WORD_JOINER,
    choice_data,
    parse_choice_data,
    render_digest,
    render_reply,
)
from digests.messages.chart_spec import CHART_KEY, chart_panels
from digests.messages.digest import TopicRef
from digests.papers.records import abs_url
from digests.usecases.commands import Choice, Reply
from tests.fakes.telegram_html import parse_telegram_html, utf16_length, validate_telegram_html
from tests.messages import EVALS, RL, digest_of, numbered, visible
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
SEARCH = TopicRef("query:a072a3fc3e4d59ae", 'Search: "<script>alert(1)</script>"')
BLOCK = re.compile(
    r"Weekly digest\n.+"  # the digest's heading
    r"|(Agentic RL|Evaluation)\n.+\nLast 12 weeks: .+"  # a topic's heading
    r"|(Agentic RL|Evaluation) \(continued\)"
    r"|\d+\. Paper number \d+\n.+\n.+"  # a whole paper
)
HOSTILE = "<b>bold</b> & <script>x</script> @channel /start@digest_test_bot"








def assert_sendable(parts: list[dict]) -> None:
    """What Telegram checks: valid HTML, at most 4,096 characters however counted."""
    for part in parts:
        assert validate_telegram_html(part["text"]) is None, part["text"]
        assert utf16_length(part["text"]) <= (CAPTION_LIMIT if CHART_KEY in part else MESSAGE_LIMIT)
        assert utf16_length(visible(part)) <= MESSAGE_LIMIT
        assert part["parse_mode"] == "HTML"
        assert part["link_preview_options"] == {"is_disabled": True}


def test_a_small_digest_is_its_chart_under_the_heading_then_one_message_of_papers() -> None:
    papers = [numbered(1, scores={RL.slug: 0.9, EVALS.slug: 0.5}), numbered(2, topic=EVALS)]
    chart, part = render_digest(digest_of(papers), title="Weekly digest")
    assert_sendable([chart, part])
    assert [title for title, _ in chart_panels(chart[CHART_KEY])] == [
        f"{RL.name} · papers per week",
        f"{EVALS.name} · papers per week",
    ]
    caption = parse_telegram_html(chart["text"])[0]
    assert len(chart["text"]) <= CAPTION_LIMIT
    assert caption.splitlines() == [
        "Weekly digest",
        "Sep 21 – Sep 27, 2026 · 2 new papers in 2 followed topics",
    ]
    text, entities = parse_telegram_html(part["text"])
    lines = text.splitlines()
    assert "1. Paper number 1" in lines
    assert "Ada One, Bo Two, Cy Three et al. · Sep 27, 2026 · cs.LG" in lines
    assert "also in: Evaluation" in lines
    assert any(line.startswith("Last 12 weeks: ") for line in lines)
    links = [e["url"] for e in entities if e["type"] == "text_link"]
    assert links == [abs_url("2609.00001"), abs_url("2609.00002")]


def test_a_long_digest_is_split_between_papers_never_inside_one() -> None:
    papers = [numbered(n) for n in range(80)] + [numbered(100 + n, topic=EVALS) for n in range(40)]
    parts = render_digest(digest_of(papers), title="Weekly digest")
    assert len(parts) > 3
    assert_sendable(parts)
    texts = [visible(part) for part in parts]
    for text in texts:
        # Every block is a heading or a whole paper (number and title, details, gist).
        for block in text.split("\n\n"):
            assert BLOCK.fullmatch(block), block
    joined = "\n\n".join(texts)
    for n in [*range(80), *range(100, 140)]:
        assert joined.count(f"Paper number {n}\n") == 1


def test_a_topic_heading_travels_with_its_first_paper() -> None:
    papers = [numbered(n) for n in range(30)] + [numbered(100 + n, topic=EVALS) for n in range(30)]
    parts = [visible(p) for p in render_digest(digest_of(papers), title="Weekly digest")]
    assert len(parts) > 2
    heading = re.compile(r"(Agentic RL|Evaluation)\n.+\nLast 12 weeks: .+")
    for number, text in enumerate(parts):
        blocks = text.split("\n\n")
        for block, following in zip(blocks, [*blocks[1:], None], strict=True):
            if heading.fullmatch(block):
                assert following is not None and following.startswith("1. Paper number")
        if number and not heading.fullmatch(blocks[0]):
            assert re.fullmatch(r"(Agentic RL|Evaluation) \(continued\)", blocks[0])


def test_a_paper_too_long_for_one_message_is_shortened_not_cut() -> None:
    huge = {
        "title": "&" * 10_000,
        "authors": tuple("&" * 300 for _ in range(50)),
        "abstract": "& " * 10_000,
        "primary_category": "&" * 500,
        "url": "https://example.org/?" + "&" * 3000,
    }
    followed = [TopicRef(f"t{n}", "&" * 200) for n in range(12)]
    scores = {topic.slug: 0.5 for topic in followed} | {followed[0].slug: 0.9}
    digest = digest_of([digest_paper(1, **huge, scores=scores)], followed=followed)
    parts = render_digest(digest, title="&" * 5_000)
    assert_sendable(parts)
    text, entities = parse_telegram_html("".join(p["text"] for p in parts))
    assert "1. &&&" in text and "…" in text
    assert [e["url"] for e in entities if e["type"] == "text_link"] == [abs_url("2609.00001")]


def test_emoji_count_double_so_a_message_stays_within_utf16_units() -> None:
    papers = [numbered(n, title="😀" * 150) for n in range(40)]
    parts = render_digest(digest_of(papers), title="Weekly digest")
    assert_sendable(parts)
    assert len(parts) > 1


def test_hostile_titles_show_as_text_and_cannot_command_or_mention() -> None:
    chart, part = render_digest(digest_of([numbered(1, title=HOSTILE)]), title="<i>Digest</i> & co")
    assert_sendable([chart, part])
    assert visible(chart).startswith("<i>Digest</i> & co\n")
    text, entities = parse_telegram_html(part["text"])
    shown = text.replace(WORD_JOINER, "")
    assert "1. <b>bold</b> & <script>x</script> @channel /start@digest_test_bot" in shown
    # Telegram would make "/start@digest_test_bot" a tappable command and "@channel" a mention;
    # a word joiner right after "/" and "@" stops both.
    assert f"/{WORD_JOINER}start@digest_test_bot" in text and f"@{WORD_JOINER}channel" in text
    assert "</b>" in text  # "/" after "<" starts no command, so it is left alone
    assert {e["type"] for e in entities} <= {"bold", "text_link", "italic"}
    assert next(e for e in entities if e["type"] == "bold")["offset"] == 0  # only our headings


@pytest.mark.parametrize(
    "url",
    [
        'https://arxiv.org/abs/1"><b>x</b>',
        "javascript:alert(1)",
        "https://arxiv.org/abs/ with spaces",
        "https://example.org/" + "a" * 400,
    ],
)
def test_an_unusable_or_hostile_url_falls_back_to_the_arxiv_page(url: str) -> None:
    _, part = render_digest(digest_of([numbered(1, url=url)]), title="Digest")
    assert_sendable([part])
    _, entities = parse_telegram_html(part["text"])
    [link] = [e["url"] for e in entities if e["type"] == "text_link"]
    assert link == (url if url.startswith('https://arxiv.org/abs/1"') else abs_url("2609.00001"))


def test_a_section_without_papers_says_so_and_more_papers_are_counted() -> None:
    digest = digest_of([numbered(n) for n in range(8)], cap=5)
    _, part = render_digest(digest, title="Digest")
    text = visible(part)
    assert "+3 more in this topic" in text
    assert "Evaluation\n" in text and "No new papers in this period." in text


def test_a_reply_is_escaped_with_its_notes_below() -> None:
    reply = Reply("I don't know the topic “<b>x</b> & @alice”.", notes=["Resumed."])
    payload = render_reply(reply)
    assert validate_telegram_html(payload["text"]) is None
    assert (
        visible(payload) == f"I don't know the topic “<b>x</b> & @{WORD_JOINER}alice”.\n\nResumed."
    )
    assert "reply_markup" not in payload


def test_commands_in_our_own_help_stay_tappable() -> None:
    payload = render_reply(Reply("/follow — follow a topic: /follow RL for LLM Agents"))
    assert visible(payload) == "/follow — follow a topic: /follow RL for LLM Agents"


def test_an_overlong_reply_is_cut_at_a_line_within_the_limit() -> None:
    payload = render_reply(Reply("\n".join(f"line {n} & more" for n in range(2_000))))
    assert utf16_length(payload["text"]) <= MESSAGE_LIMIT
    assert validate_telegram_html(payload["text"]) is None
    assert visible(payload).endswith("\n…")


def test_choices_become_buttons_whose_data_fits_64_bytes_and_resolves_back() -> None:
    long_slug = "a-topic-with-a-slug-so-long-that-it-does-not-fit-" + "x" * 40
    choices = (Choice("RL for LLM Agents", "rl-for-llm-agents"), Choice("Long one", long_slug))
    payload = render_reply(Reply("Which one?", ok=False, choices=choices, choice_command="follow"))
    rows = payload["reply_markup"]["inline_keyboard"]
    data = [row[0]["callback_data"] for row in rows]
    assert [row[0]["text"] for row in rows] == ["RL for LLM Agents", "Long one"]
    assert data[0] == "follow:rl-for-llm-agents"
    assert all(len(d.encode()) <= 64 for d in data)
    known = ["rl-for-llm-agents", long_slug, "other"]
    assert [parse_choice_data(d, known) for d in data] == [
        ("follow", "rl-for-llm-agents"),
        ("follow", long_slug),
    ]
    assert parse_choice_data(choice_data("follow", "never-offered-" + "y" * 60), known) is None
    assert parse_choice_data("garbage", known) is None


def test_choices_without_a_command_offer_no_buttons() -> None:
    payload = render_reply(Reply("Pick", choices=(Choice("A", "a"),)))
    assert "reply_markup" not in payload


def test_with_a_public_url_topics_and_more_link_to_their_pages_for_the_period() -> None:
    papers = [numbered(n) for n in range(1, 8)] + [numbered(n, SEARCH) for n in range(8, 15)]
    _, *parts = render_digest(
        digest_of(papers, followed=(RL, SEARCH), cap=5),
        title="Weekly digest",
        public_url="https://digests.example.org",
    )
    assert_sendable(parts)
    period = "?from=2026-09-21&to=2026-09-27"  # the digest's days, both included
    topic = f"https://digests.example.org/topics/{RL.slug}{period}"
    search = f"https://digests.example.org/follows/query%3Aa072a3fc3e4d59ae{period}"
    links = [
        (text[entity["offset"] : entity["offset"] + entity["length"]], entity["url"])
        for text, entities in (parse_telegram_html(part["text"]) for part in parts)
        for entity in entities
        if entity["type"] == "text_link" and "arxiv.org" not in entity["url"]
    ]
    assert links == [
        ("Agentic RL", topic),
        ("+2 more in this topic", topic),
        (SEARCH.name, search),
        ("+2 more in this topic", search),
    ]
    _, plain = render_digest(digest_of(papers, followed=(RL,), cap=5), title="Weekly digest")
    assert "/topics/" not in plain["text"] and "/follows/" not in plain["text"]
