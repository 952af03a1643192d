"""Where the 👍/👎 buttons go: each message of a digest or alert carries the buttons of its own
papers, labelled as the text numbers them, within each platform's limits."""

from __future__ import annotations

import re

from bot.platforms import discord_render, telegram_render
from digests.messages.vote_keys import parse_vote_data, vote_key
from tests.messages import EVALS, RL, digest_of, numbered, spike, visible

NUMBER = re.compile(r"^(\d+)\. ", re.M)


def telegram_rows(part: dict) -> list[list[dict]]:
    return part.get("reply_markup", {}).get("inline_keyboard", [])


def test_telegram_a_message_with_papers_of_two_topics_names_the_topic_on_each_row() -> None:
    papers = [numbered(n) for n in range(1, 3)] + [numbered(n, EVALS) for n in range(3, 5)]
    (_, part) = telegram_render.render_digest(digest_of(papers), title="Weekly digest")
    labels = [row[0]["text"] for row in telegram_rows(part)]
    assert labels == [
        "👍 1 · Agentic RL",
        "👍 2 · Agentic RL",
        "👍 1 · Evaluation",
        "👍 2 · Evaluation",
    ]
    keys = [parse_vote_data(row[1]["callback_data"]) for row in telegram_rows(part)]
    assert keys[0] == (vote_key(papers[0].arxiv_id, RL.slug), -1)


def test_telegram_every_message_carries_the_buttons_of_exactly_its_papers() -> None:
    papers = [numbered(n, abstract="Short.") for n in range(1, 121)]
    made = digest_of(papers, followed=(RL,), cap=120)
    parts = telegram_render.render_digest(made, title="Weekly digest")
    assert len(parts) >= 3
    buttons = 0
    for part in parts[1:]:
        rows = telegram_rows(part)
        assert len(rows) <= telegram_render.PAPERS_PER_MESSAGE  # 100 buttons at most
        numbers = NUMBER.findall(visible(part))
        assert [row[0]["text"] for row in rows] == [f"👍 {n}" for n in numbers]
        buttons += len(rows)
    assert buttons == 120


def test_discord_ten_papers_to_a_message_in_five_rows_of_four_buttons() -> None:
    papers = [numbered(n, abstract="Short.") for n in range(1, 24)]
    parts = discord_render.render_digest(digest_of(papers, followed=(RL,)), title="Weekly digest")
    assert [len(p["components"]) for p in parts] == [5, 5, 2]
    assert all(len(row["components"]) <= 4 for p in parts for row in p["components"])
    for part in parts:
        text = "\n".join(e["description"] for e in part["embeds"])
        numbers = re.findall(r"^\*\*(\d+)\. \[", text, re.M)
        labels = [b["label"] for row in part["components"] for b in row["components"]]
        assert labels[::2] == [f"👍 {n}" for n in numbers]


def test_an_alerts_papers_have_buttons_and_its_evidence_none() -> None:
    alert = spike(titles=("<b>One</b> @everyone", "Two"))
    photo, part = telegram_render.render_alert(alert)
    assert "reply_markup" not in photo
    assert [row[0]["text"] for row in telegram_rows(part)] == ["👍 1", "👍 2"]
    (payload,) = discord_render.render_alert(alert)
    labels = [b["label"] for row in payload["components"] for b in row["components"]]
    assert labels == ["👍 1", "👎 1", "👍 2", "👎 2"]
