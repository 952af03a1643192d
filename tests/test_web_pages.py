"""The topic pages over HTTP: what a reader (or a feed reader) gets, and what is refused."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from lxml import etree, html
from sqlmodel import Session

from bot.web import CSP, Site
from digests.messages.tags import lineage
from digests.usecases.commands import Caller, CommandService
from digests.usecases.reports import topic_momenta
from tests.ask_papers import ANSWER_SENTENCE, ANSWER_TITLE, QUESTION, seed_ask_papers
from tests.web_site import (
    ATOM,
    CERTAIN,
    HOSTILE,
    NOISY,
    NOW,
    RL,
    fetch,
    seed,
    seed_trending,
    serving,
)


def momentum_line(engine, catalog, slug: str = RL) -> str:
    with Session(engine) as session:
        return topic_momenta(session, catalog.topics, as_of=NOW.date())[slug].line


async def test_a_topic_page_shows_momentum_papers_and_tags(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        status, headers, body = await fetch(f"{base}/topics/{RL}")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    page = html.fromstring(body)
    assert page.findtext(".//h1") == "RL for LLM Agents"
    # The same words as the chats' momentum line.
    assert page.xpath("string(//p[@class='momentum'])") == momentum_line(engine, catalog)
    assert page.xpath("//svg[@role='img']/title") and len(page.xpath("//rect[@class='bar']")) == 12
    days = [day for day in page.xpath("//li[@class='paper']//time/@datetime")]
    assert len(days) == 20 and days == sorted(days, reverse=True)
    first = page.xpath("//li[@class='paper']")[0]
    assert first.xpath("string(.//span[@class='category'])") == "cs.LG"
    assert (
        first.xpath("string(.//p[@class='authors'])")
        == "Ada Lovelace, Alan Turing, Grace Hopper +1"
    )
    assert first.xpath(".//details/summary/text()") == ["Abstract"]
    assert f"/topics/{RL}" in first.xpath(".//ul[@class='tags']//a/@href")
    assert page.xpath("string(//h2[@id='papers-heading']/span)") == "30"


async def test_a_hostile_title_is_shown_as_text(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        pages = [await fetch(f"{base}/topics/{RL}?page={n}") for n in (1, 2)]
    bodies = "".join(body for _, _, body in pages)
    assert "<script>" not in bodies and "<b>bold" not in bodies
    titles = [
        title
        for _, _, body in pages
        for title in html.fromstring(body).xpath("//li[@class='paper']//h3/a/text()")
    ]
    assert HOSTILE in titles
    # The 10,000-character title is cut, not dropped.
    assert any(title.startswith("Long Long") and len(title) <= 500 for title in titles)


async def test_pages_follow_each_other_and_bad_page_numbers_are_refused(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port, per_page=12) as base:
        _, _, first = await fetch(f"{base}/topics/{RL}")
        _, _, third = await fetch(f"{base}/topics/{RL}?page=3")
        beyond = await fetch(f"{base}/topics/{RL}?page=4")
        tried = ["abc", "-1", "0", "9" * 40, "1e3", "<script>"]
        malformed = [await fetch(f"{base}/topics/{RL}?page={text}") for text in tried]
    assert html.fromstring(first).xpath("//a[@rel='next']/@href") == [f"/topics/{RL}?page=2"]
    assert len(html.fromstring(third).xpath("//li[@class='paper']")) == 6
    assert html.fromstring(third).xpath("//a[@rel='next']") == []
    assert beyond[0] == 404 and "end on page 3" in beyond[2]
    assert {status for status, _, _ in malformed} == {400}
    assert all("<script>" not in body for _, _, body in malformed)


async def test_an_unknown_topic_gets_404_with_the_closest_names(engine, catalog, unused_tcp_port):
    async with serving(engine, catalog, unused_tcp_port) as base:
        status, _, body = await fetch(f"{base}/topics/rl-for-llm-agnets-and-more")
        hostile = await fetch(f"{base}/topics/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
        by_name = await fetch(f"{base}/topics/RL%20for%20LLM%20Agents")
    assert status == 404
    assert f"/topics/{RL}" in html.fromstring(body).xpath("//ul[@class='suggestions']//a/@href")
    assert hostile[0] == 404 and "<script>" not in hostile[2]
    assert by_name[0] == 301 and by_name[1]["Location"] == f"/topics/{RL}"


async def test_the_index_lists_every_topic_and_sorts_by_momentum(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, listed = await fetch(f"{base}/")
        _, _, trending = await fetch(f"{base}/?sort=trending")
        refused = await fetch(f"{base}/?sort=%3Cscript%3Ealert(1)%3C/script%3E")
    names = html.fromstring(listed).xpath("//li[@class='topic']/h2/a/text()")
    assert names == [topic.name for topic in catalog.topics]
    rows = html.fromstring(trending).xpath("//li[@class='topic']")
    assert rows[0].xpath("string(h2/a)") == "RL for LLM Agents"
    assert rows[0].xpath("string(p)") == momentum_line(engine, catalog)
    assert rows[0].xpath(".//svg/title") and len(rows[0].xpath(".//rect")) == 12
    assert refused[0] == 400 and "<script>" not in refused[2] and "sort=trending" in refused[2]


async def test_pages_carry_csp_and_an_etag_answered_with_304(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, headers, body = await fetch(f"{base}/topics/{RL}")
        again = await fetch(f"{base}/topics/{RL}", **{"If-None-Match": headers["ETag"]})
        other = await fetch(f"{base}/topics/{RL}", **{"If-None-Match": '"something-else"'})
        missing = await fetch(f"{base}/no/such/page")
    assert headers["Content-Security-Policy"] == CSP and "script-src" not in CSP
    assert "public, max-age=" in headers["Cache-Control"]
    assert again[0] == 304 and again[2] == "" and again[1]["ETag"] == headers["ETag"]
    assert other[0] == 200
    # Nothing the policy would block: no script, no inline style.
    assert "<script" not in body and not re.search(r"\sstyle=", body) and "<style" not in body
    assert missing[0] == 404 and missing[1]["Content-Security-Policy"] == CSP


async def test_the_page_is_accessible_and_readable_on_a_phone(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, body = await fetch(f"{base}/topics/{RL}")
    page = html.fromstring(body)
    assert page.xpath("//meta[@name='viewport']/@content") == [
        "width=device-width, initial-scale=1"
    ]
    for landmark in ("header", "nav", "main", "footer"):
        assert page.xpath(f"//{landmark}"), landmark
    chart = page.xpath("//figure/svg")[0]
    title = chart.xpath("title")[0]
    assert chart.get("aria-labelledby") == title.get("id")
    assert "Papers per week" in title.text and "papers" in title.text


async def test_follow_buttons_appear_when_the_bot_accounts_are_known(
    engine, catalog, unused_tcp_port
):
    site = Site(telegram_bot="digest_bot", discord_application="123456789012345678")
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        _, _, body = await fetch(f"{base}/topics/{RL}")
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, plain = await fetch(f"{base}/topics/{RL}")
    buttons = dict(
        (a.text, a.get("href")) for a in html.fromstring(body).xpath("//a[@class='button']")
    )
    assert buttons["Follow in Telegram"] == f"https://t.me/digest_bot?start=follow-{RL}"
    assert buttons["Add to Discord"] == (
        "https://discord.com/oauth2/authorize?client_id=123456789012345678"
        "&scope=bot+applications.commands&permissions=274877959168"
    )
    assert "Follow in Telegram" not in plain and "Add to Discord" not in plain


async def test_the_atom_feed_lists_the_newest_papers(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    site = Site(public_url="https://digests.example.org")
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        status, headers, body = await fetch(f"{base}/topics/{RL}.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    feed = etree.fromstring(body.encode())
    assert feed.findtext(f"{ATOM}id") == f"https://digests.example.org/topics/{RL}"
    assert feed.findtext(f"{ATOM}subtitle") == momentum_line(engine, catalog)
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 20
    published = [entry.findtext(f"{ATOM}published") for entry in entries]
    assert published == sorted(published, reverse=True)
    titles = [entry.findtext(f"{ATOM}title") for entry in entries]
    # Escaped in the XML, back to the same text in a feed reader.
    assert HOSTILE in titles and "<script>" not in body


async def test_digestbot_run_serves_the_pages_and_health_on_one_port(
    engine, catalog, make_app, unused_tcp_port
):
    from bot.platforms.terminal import TerminalAdapter
    from bot.runner import Runtime

    seed(engine, catalog)
    port = {"web_port": unused_tcp_port, "health_port": unused_tcp_port}
    app = make_app(engine, settings={**port, "web_host": "127.0.0.1", "health_host": "127.0.0.1"})
    servers = await Runtime(app, adapters=[TerminalAdapter()]).start_servers()
    try:
        base = f"http://127.0.0.1:{unused_tcp_port}"
        page, health = await fetch(f"{base}/topics/{RL}"), await fetch(f"{base}/healthz")
    finally:
        for server in servers:
            await server.cleanup()
    assert len(servers) == 1
    assert page[0] == 200 and "RL for LLM Agents" in page[2]
    assert health[0] == 200 and '"status": "ok"' in health[2]


async def test_a_paper_shows_its_specific_tags_not_their_ancestors(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, body = await fetch(f"{base}/topics/{RL}")
        _, _, feed = await fetch(f"{base}/topics/{RL}.atom")
    ancestors = lineage(catalog)
    for paper in html.fromstring(body).xpath("//li[@class='paper']"):
        slugs = [
            href.removeprefix("/topics/") for href in paper.xpath(".//ul[@class='tags']//a/@href")
        ]
        assert RL in slugs and 1 <= len(slugs) <= 4
        # The page's own topic is always shown, even beside a narrower tag of the paper
        # (RL for Tool Use under RL for LLM Agents); no other shown tag is another's ancestor.
        assert not {a for slug in slugs for a in ancestors[slug]} & (set(slugs) - {RL})
    for entry in etree.fromstring(feed.encode()).iter(f"{ATOM}entry"):
        terms = [c.get("term") for c in entry.iter(f"{ATOM}category") if "." not in c.get("term")]
        assert RL in terms and "llm-agents" not in terms and len(terms) <= 4


async def test_trending_ranks_a_certain_rise_above_noisy_small_ones_as_the_chats_do(
    engine, catalog, unused_tcp_port
):
    seed_trending(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, body = await fetch(f"{base}/?sort=trending")
    names = html.fromstring(body).xpath("//li[@class='topic']/h2/a/text()")
    assert names[0] == CERTAIN  # up 200%, against 800% and 400% on 9 and 10 papers
    assert set(names[1:3]) == set(NOISY)
    service = CommandService(lambda: Session(engine), catalog, clock=lambda: NOW)
    caller = Caller(platform="telegram", chat_id="42", chat_kind="private")
    reply = service.handle(caller, "trending").text
    assert [line.split(": ")[0] for line in reply.splitlines()] == names[:3]


async def test_without_bot_accounts_a_topic_page_says_exactly_what_to_type_to_follow(
    engine, catalog, unused_tcp_port
):
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, body = await fetch(f"{base}/topics/{RL}")
        _, _, css = await fetch(f"{base}/static/site.css")
    page = html.fromstring(body)
    (button,) = page.xpath("//a[@class='button' and text()='Follow this topic']")
    (target,) = page.xpath(f"//*[@id='{button.get('href').removeprefix('#')}']")
    assert target.xpath("string(code)") == "/follow RL for LLM Agents"
    # The command is the whole of one element, which one click selects (user-select: all).
    assert re.search(r"\.typed code \{[^}]*user-select: all", css)


async def test_the_ask_box_finds_the_paper_that_answers_first_with_its_sentence(
    engine, catalog, unused_tcp_port
):
    seed_ask_papers(engine, catalog, now=NOW, filler=25)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, plain = await fetch(f"{base}/topics/{RL}")
        form = html.fromstring(plain).xpath("//form[@id='ask']")[0]
        query = urlencode({form.xpath("string(.//input/@name)"): QUESTION})
        status, _, body = await fetch(f"{base}{form.get('action')}?{query}")
        _, _, second = await fetch(f"{base}/topics/{RL}?{query}&page=2")
    assert form.get("method") == "get"
    page = html.fromstring(body)
    assert status == 200 and page.xpath("string(//input[@id='q']/@value)") == QUESTION
    assert page.xpath("string(//h2[@id='papers-heading']/span)") == "27"  # 2 + 25 of a reward
    first = page.xpath("//li[@class='paper']")[0]
    assert first.xpath("string(.//h3)") == ANSWER_TITLE
    assert first.xpath("string(.//blockquote[@class='match'])") == ANSWER_SENTENCE
    assert len(page.xpath("//li[@class='paper']")) == 20
    assert len(html.fromstring(second).xpath("//li[@class='paper']")) == 7


async def test_a_question_that_cannot_be_searched_gets_a_page_that_says_why(
    engine, catalog, unused_tcp_port
):
    seed_ask_papers(engine, catalog, now=NOW)
    tried = {
        "common words only": "q=what+is+the",
        "too long": "q=" + "reward+" * 60,
        "with a period": f"q=reward&{urlencode({'from': '2026-09-01', 'to': '2026-09-07'})}",
        "hostile": "q=%3Cscript%3Ealert(1)%3C/script%3E",
    }
    async with serving(engine, catalog, unused_tcp_port) as base:
        answers = {name: await fetch(f"{base}/topics/{RL}?{q}") for name, q in tried.items()}
        empty = await fetch(f"{base}/topics/{RL}?q=+")
        unknown = await fetch(f"{base}/topics/quantum-basket-weaving?q=reward")
    for name in ("common words only", "too long", "with a period"):
        assert answers[name][0] == 400, name
    assert "<script>alert" not in answers["hostile"][2]
    assert "No paper of RL for LLM Agents matches" in answers["hostile"][2]
    assert empty[0] == 301 and empty[1]["Location"] == f"/topics/{RL}"
    assert unknown[0] == 404
