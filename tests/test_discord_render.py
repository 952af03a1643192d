"""Digests and replies as Discord embeds: every limit kept, nothing cut mid-link, nothing pings."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import date, timedelta

import discord
import pytest

from bot.platforms.discord_render import (
    CONTENT_LIMIT,
    DESCRIPTION_LIMIT,
    MESSAGE_EMBED_CHARS,
    MESSAGE_EMBEDS,
    TITLE_LIMIT,
    link_target,
    render_alert,
    render_digest,
    render_reply,
    size,
)
from digests.messages.digest import Digest, TopicRef, compose_digest
from digests.papers.records import abs_url
from digests.signals.momentum import compute_momentum
from digests.usecases.commands import Choice, Reply
from tests.messages import LINK, spike
from tests.papers import digest_paper

AS_OF = date(2026, 9, 27)
HOSTILE = "@everyone <@&123456789012345678> **bold** [x](http://evil) ||spoiler|| `code`"
# A masked link: [text](target). Link text may hold escaped brackets but no bare ones.


def topic(n: int) -> TopicRef:
    return TopicRef(f"topic-{n}", f"Topic number {n}")


def digest(topics: int = 1, papers_each: int = 3, titles: dict[int, str] | None = None) -> Digest:
    followed = [topic(t) for t in range(topics)]
    papers = [
        digest_paper(
            n,
            title=(titles or {}).get(n) or f"A study of agents, part {n}",
            authors=("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"),
            published=AS_OF - timedelta(days=n % 6),
            primary_category="cs.LG",
            abstract="We train agents with reinforcement learning over many turns. " * 5,
            scores={ref.slug: 1.0 - n / 10_000},
        )
        for t, ref in enumerate(followed)
        for n in range(t * 1000, t * 1000 + papers_each)
    ]
    momenta = {
        ref.slug: compute_momentum(ref.name, {AS_OF: 3}, {AS_OF: 30}, AS_OF) for ref in followed
    }
    return compose_digest(
        followed, papers, momenta, AS_OF - timedelta(days=6), AS_OF, per_topic_cap=papers_each
    )


def descriptions(payloads: list[dict]) -> str:
    return "\n".join(e.get("description", "") for p in payloads for e in p["embeds"])


def assert_within_limits(payloads: list[dict]) -> None:
    for payload in payloads:
        embeds = payload["embeds"]
        assert len(embeds) <= MESSAGE_EMBEDS
        assert size(payload["content"] or "") <= CONTENT_LIMIT
        assert payload["content"] or embeds
        total = 0
        for embed in embeds:
            assert size(embed["title"]) <= TITLE_LIMIT
            assert size(embed["description"]) <= DESCRIPTION_LIMIT
            assert not embed.get("fields") and not embed.get("footer")
            total += size(embed["title"]) + size(embed["description"])
        assert total <= MESSAGE_EMBED_CHARS


def test_a_small_digest_is_one_message_with_an_embed_per_topic() -> None:
    [payload] = render_digest(digest(topics=3, papers_each=2), title="Weekly digest")
    assert payload["content"].startswith("**Weekly digest** · Sep 21 – Sep 27, 2026 · 6 new")
    assert [e["title"] for e in payload["embeds"]] == [f"Topic number {n}" for n in range(3)]
    first = payload["embeds"][0]["description"]
    assert "\nLast 12 weeks: " in first.split("\n\n")[0]  # momentum line, then sparkline
    assert "**1. [A study of agents, part 0](https://arxiv.org/abs/2609.00000)**" in first
    assert "Ada Lovelace, Alan Turing, Grace Hopper et al. · Sep 27, 2026 · cs.LG" in first


@pytest.mark.parametrize(("topics", "papers_each"), [(1, 60), (3, 25), (12, 2), (25, 8)])
def test_every_paper_appears_once_in_order_within_every_limit(
    topics: int, papers_each: int
) -> None:
    payloads = render_digest(digest(topics, papers_each), title="Weekly digest")
    assert_within_limits(payloads)
    ids = re.findall(r"abs/(\d{4}\.\d{5})\)", descriptions(payloads))
    expected = [f"2609.{t * 1000 + n:05d}" for t in range(topics) for n in range(papers_each)]
    assert ids == expected


def test_a_long_topic_continues_in_another_embed_named_after_it() -> None:
    payloads = render_digest(digest(topics=1, papers_each=60), title="Weekly digest")
    titles = [e["title"] for p in payloads for e in p["embeds"]]
    assert len(payloads) > 1 and titles[0] == "Topic number 0"
    assert set(titles[1:]) == {"Topic number 0 (continued)"}
    assert all(p["content"] is None for p in payloads[1:])


def test_eleven_topics_need_a_second_message() -> None:
    payloads = render_digest(digest(topics=11, papers_each=1), title="Weekly digest")
    assert [len(p["embeds"]) for p in payloads] == [10, 1]


def test_a_digest_without_topics_is_still_a_message() -> None:
    empty = Digest(AS_OF - timedelta(days=6), AS_OF, ())
    assert render_digest(empty, title="") == [
        {
            "content": "**Research digest** · Sep 21 – Sep 27, 2026 · 0 new papers in 0 followed "
            "topics",
            "embeds": [],
        }
    ]


def test_a_hostile_title_renders_literally_and_links_only_to_the_paper() -> None:
    [payload] = render_digest(digest(titles={0: HOSTILE}), title="@everyone **digest**")
    text = descriptions([payload])
    links = LINK.findall(text)
    assert [target for _, target in links] == [abs_url(f"2609.{n:05d}") for n in range(3)]
    shown = links[0][0]
    assert "@\u200beveryone" in shown and "<@" not in shown and "123456789012345678>" in shown
    assert "\\*\\*bold\\*\\*" in shown and "\\|\\|spoiler\\|\\|" in shown and "\\`code\\`" in shown
    assert "(x)(http:\u200b//evil)" in shown  # no brackets, no URL Discord would refuse
    assert "@everyone" not in payload["content"] and "\\*\\*digest\\*\\*" in payload["content"]


def test_a_10_kb_title_is_shortened_before_its_link_is_built() -> None:
    [payload] = render_digest(digest(titles={1: "Long " * 2_000}), title="Weekly digest")
    links = LINK.findall(descriptions([payload]))
    assert len(links) == 3 and links[1][1] == abs_url("2609.00001")
    assert links[1][0].endswith("Long…") and len(links[1][0]) <= 300


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.org/paper_(v2)", "https://example.org/paper_%28v2%29"),
        ("javascript:alert(1)", abs_url("2609.00001")),
        ("https://example.org/a b", abs_url("2609.00001")),
        ("https://example.org/<b>", abs_url("2609.00001")),
        ("https://example.org/" + "x" * 400, abs_url("2609.00001")),
    ],
)
def test_a_link_target_never_ends_early(url: str, expected: str) -> None:
    assert link_target(url, "2609.00001") == expected


def test_wide_characters_count_double_so_discord_never_sees_too_many() -> None:
    titles = {n: "🚀🧠" * 150 for n in range(60)}
    payloads = render_digest(digest(topics=1, papers_each=60, titles=titles), title="🚀")
    assert_within_limits(payloads)
    assert size("🚀") == 2 and len(LINK.findall(descriptions(payloads))) == 60


def test_payloads_are_json_and_rebuild_into_the_same_embeds() -> None:
    for payload in render_digest(digest(topics=4, papers_each=20), title="Weekly digest"):
        assert json.loads(json.dumps(payload)) == payload
        for embed in payload["embeds"]:
            assert discord.Embed.from_dict(embed).to_dict() == embed


def test_a_reply_is_escaped_and_its_choices_listed() -> None:
    reply = Reply(
        "I don't know the topic “@here **x**”. Did you mean one of these?",
        ok=False,
        choices=(Choice("RL for LLM Agents", "rl-for-llm-agents"),),
        choice_command="follow",
        notes=["Digests to #staff are paused: missing access"],
    )
    content, embeds = render_reply(reply)
    assert embeds == []
    assert "@\u200bhere" in content and "\\*\\*x\\*\\*" in content
    assert "• RL for LLM Agents — `/follow rl-for-llm-agents`" in content
    assert content.endswith("\n\nDigests to #staff are paused: missing access")


def test_a_long_reply_keeps_2000_characters_of_content_and_moves_the_rest_to_an_embed() -> None:
    lines = [f"Topic {n} — " + "a description of the topic " * 4 for n in range(60)]
    content, [embed] = render_reply(Reply("\n".join(lines)))
    assert size(content) <= CONTENT_LIMIT and content.startswith("Topic 0 — ")
    assert size(embed.description) <= DESCRIPTION_LIMIT and embed.description.endswith("…")
    shown = content + "\n" + embed.description
    assert all(f"Topic {n} — " in shown for n in range(20))




def test_a_spike_alert_pings_only_the_role_it_is_given() -> None:
    [payload] = render_alert(spike(titles=("A", "B")), mention_role_id="1200000000000000022")
    assert payload["content"].startswith("<@&1200000000000000022> **Spike:** RL for LLM Agents")
    assert payload["mention_role_id"] == "1200000000000000022"
    [embed] = payload["embeds"]
    assert embed["title"] == "RL for LLM Agents is spiking"
    assert (
        "Last 12 weeks: " in embed["description"] and len(LINK.findall(embed["description"])) == 2
    )

    [quiet] = render_alert(spike())
    assert "mention_role_id" not in quiet and "<@&" not in quiet["content"]


def test_a_spike_alert_escapes_what_strangers_wrote() -> None:
    payloads = render_alert(spike(name="@here **Agents**", titles=(HOSTILE,) * 5 + ("x" * 9000,)))
    assert_within_limits(payloads)
    assert "@here" not in payloads[0]["content"] and "\\*\\*Agents\\*\\*" in payloads[0]["content"]
    targets = [target for _, target in LINK.findall(descriptions(payloads))]
    assert targets == [abs_url(f"2609.{n:05d}") for n in range(6)]


def test_with_a_public_url_each_topic_embed_and_more_link_to_its_page_for_the_period() -> None:
    found = digest(topics=2, papers_each=3)
    search = TopicRef("author:150573fd6b9c4e25", "Author: Ada @everyone (Lovelace)")
    found = replace(found, sections=(found.sections[0], replace(found.sections[1], topic=search)))
    shorter = replace(found, sections=tuple(replace(s, more=4) for s in found.sections))
    payloads = render_digest(shorter, title="Weekly", public_url="https://digests.example.org")
    assert_within_limits(payloads)
    embeds = [embed for payload in payloads for embed in payload["embeds"]]
    period = "?from=2026-09-21&to=2026-09-27"  # the digest's days, both included
    pages = [
        f"https://digests.example.org/topics/topic-0{period}",
        f"https://digests.example.org/follows/author%3A150573fd6b9c4e25{period}",
    ]
    assert [embed["url"] for embed in embeds] == pages
    for embed, page in zip(embeds, pages, strict=True):
        assert [target for _, target in LINK.findall(embed["description"])][-1] == page
        assert f"[*+4 more in this topic*]({page})" in embed["description"]
    assert "@everyone" not in embeds[1]["title"]
    assert all("url" not in embed for embed in render_digest(found, title="W")[0]["embeds"])
