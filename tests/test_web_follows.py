"""A follow filter's page over HTTP: a search, an author or a category followed in a chat gets
the page a topic gets, at /follows/<slug>, and its Atom feed."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from lxml import etree, html
from sqlmodel import Session

from bot.web import Site
from digests.follows.filters import FilterError, FollowFilter, parse_filter
from digests.usecases.reports import topic_momenta
from tests.web_site import ATOM, HOSTILE, NOW, fetch, seed, serving, store_follow

SCRIPT_QUERY = 'query: "<script>alert(1)</script>"'
SITE = Site(telegram_bot="digest_bot", discord_application="123456789012345678")


def path(follow: FollowFilter) -> str:
    return f"/follows/{quote(follow.slug, safe='')}"


def momentum_line(engine, follow: FollowFilter) -> str:
    with Session(engine) as session:
        topic = follow.topic()
        return topic_momenta(session, [topic], as_of=NOW.date())[topic.slug].line


async def test_a_search_gets_a_page_with_its_heading_momentum_chart_and_papers(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    follow = store_follow(engine, SCRIPT_QUERY)
    async with serving(engine, catalog, unused_tcp_port, site=SITE) as base:
        status, _, body = await fetch(base + path(follow))
    assert status == 200
    page = html.fromstring(body)
    # The query is user input: shown as typed, as text.
    assert page.findtext(".//h1") == 'Search: "<script>alert(1)</script>"'
    assert "<script>" not in body
    assert page.xpath("string(//p[@class='momentum'])") == momentum_line(engine, follow)
    assert len(page.xpath("//figure//rect[@class='bar']")) == 12
    assert page.xpath("//li[@class='paper']//h3/a/text()") == [HOSTILE]
    # A follow link carries only a catalog topic: the page says what to type instead.
    assert page.xpath("string(//p[@class='typed']/code)") == f"/follow {SCRIPT_QUERY}"
    buttons = page.xpath("//a[@class='button']/text()")
    assert "Follow in Telegram" not in buttons and "Add to Discord" in buttons


async def test_an_author_page_escapes_the_name_and_pages_through_papers(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    # `author: "@everyone"` alone is refused when followed (a surname alone), so it never
    # gets a page; the nearest a chat can store is a name around it.
    with pytest.raises(FilterError):
        parse_filter('author: "@everyone"')
    follow = store_follow(engine, 'author: "Ada @everyone Lovelace"')
    searched = store_follow(engine, "query: reinforcement learning")
    async with serving(engine, catalog, unused_tcp_port, per_page=12) as base:
        _, _, author = await fetch(base + path(follow))
        _, _, first = await fetch(base + path(searched))
        _, _, third = await fetch(f"{base}{path(searched)}?page=3")
        unquoted = await fetch(f"{base}/follows/{searched.slug}")
        beyond = await fetch(f"{base}{path(searched)}?page=4")
    assert html.fromstring(author).findtext(".//h1") == "Author: Ada @everyone Lovelace"
    assert "/follow author: Ada @everyone Lovelace" in author
    listed = html.fromstring(first)
    assert listed.xpath("string(//h2[@id='papers-heading']/span)") == "30"
    assert listed.xpath("//a[@rel='next']/@href") == [f"{path(searched)}?page=2"]
    assert len(html.fromstring(third).xpath("//li[@class='paper']")) == 6
    assert unquoted[0] == 200 and "Search: reinforcement learning" in unquoted[2]
    assert beyond[0] == 404 and "end on page 3" in beyond[2]


async def test_an_unknown_follow_gets_a_404_that_says_so(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    gone = parse_filter("query: never followed")
    async with serving(engine, catalog, unused_tcp_port) as base:
        tried = [
            path(gone),
            f"{path(gone)}.atom",
            "/follows/" + quote("query:<script>alert(1)</script>", safe=""),
            "/follows/rl-for-llm-agents",  # a catalog topic is no follow
        ]
        answers = [await fetch(base + address) for address in tried]
    assert [status for status, _, _ in answers] == [404] * 4
    for _, _, body in answers:
        assert html.fromstring(body).findtext(".//h1") == "No such follow"
        assert "as long as some chat follows it" in body and "<script>" not in body


async def test_a_follow_has_an_atom_feed(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    follow = store_follow(engine, SCRIPT_QUERY)
    site = Site(public_url="https://digests.example.org/")
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        status, headers, body = await fetch(f"{base}{path(follow)}.atom")
        _, _, page = await fetch(base + path(follow))
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    feed = etree.fromstring(body.encode())
    assert feed.findtext(f"{ATOM}id") == f"https://digests.example.org{path(follow)}"
    assert feed.findtext(f"{ATOM}title") == 'Search: "<script>alert(1)</script>" — new papers'
    assert [entry.findtext(f"{ATOM}title") for entry in feed.findall(f"{ATOM}entry")] == [HOSTILE]
    assert "<script>" not in body
    assert html.fromstring(page).xpath("//link[@rel='alternate']/@href") == [f"{path(follow)}.atom"]
