"""The Atom feeds hold to RFC 4287 (checked rule by rule by tests/atom_rfc4287.py), whatever
strangers wrote in a paper, and never name themselves by a Host header that is no address."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from urllib.parse import quote

import pytest
from lxml import etree
from sqlmodel import Session

from bot.web import Site
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records
from tests.atom_rfc4287 import atom_problems
from tests.papers import paper_record
from tests.web_site import ATOM, HOSTILE, NOW, RL, fetch, seed, serving, store_follow

STRANGE_ABSTRACT = "<b>bold</b> & ]]> </summary><script>alert(1)</script> \x0b\x1b[31m red"


def seed_strange_paper(engine, catalog) -> None:
    """A paper without authors, with markup, a CDATA end and control characters in its text."""
    record = paper_record(
        900,
        NOW - timedelta(hours=1),
        title="Agents \x1b]0;owned\x07 and <i>tools</i>",
        abstract=STRANGE_ABSTRACT,
        authors=(),
        upstream_topics=("RL for LLM Agents",),
    )
    with Session(engine) as session:
        ingest_records(session, [record], tagger=Tagger(catalog), catalog=catalog, now=NOW)
        session.commit()


@pytest.mark.parametrize("public_url", ["https://digests.example.org", None])
async def test_topic_and_follow_feeds_are_valid_atom(engine, catalog, unused_tcp_port, public_url):
    seed(engine, catalog)
    seed_strange_paper(engine, catalog)
    follow = store_follow(engine, 'query: "<script>alert(1)</script>"')
    site = Site(public_url=public_url)
    feeds = [f"/topics/{RL}.atom", f"/follows/{quote(follow.slug, safe='')}.atom"]
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        answers = [await fetch(base + address) for address in feeds]
    for status, _, body in answers:
        assert status == 200 and atom_problems(body.encode()) == []
    topic_feed = etree.fromstring(answers[0][2].encode())
    [strange] = [
        e for e in topic_feed.findall(f"{ATOM}entry") if "tools" in e.findtext(f"{ATOM}title")
    ]
    # Markup stays text for the feed reader; the control characters are gone.
    assert strange.findtext(f"{ATOM}title") == "Agents and <i>tools</i>"
    assert strange.findtext(f"{ATOM}summary").startswith("<b>bold</b> & ]]> </summary><script>")
    assert strange.findtext(f"{ATOM}author/{ATOM}name") == "Unknown"
    titles = [e.findtext(f"{ATOM}title") for e in topic_feed.findall(f"{ATOM}entry")]
    assert HOSTILE in titles


async def raw_get(port: int, path: str, host: str) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    writer.write(request.encode())
    answer = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    return int(answer.split(b" ", 2)[1]), answer


async def test_a_feed_asked_with_a_host_that_is_no_address_is_refused(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    hosts = ['x"><script>alert(1)</script>', "a b", "example.org:99999"]
    async with serving(engine, catalog, unused_tcp_port) as _:
        answers = [await raw_get(unused_tcp_port, f"/topics/{RL}.atom", host) for host in hosts]
        named = await raw_get(unused_tcp_port, f"/topics/{RL}.atom", "[::1]:8080")
    for status, answer in answers:
        assert status == 400 and b"<script>" not in answer and b"99999" not in answer
        assert b"the request&#39;s Host has none" in answer
    assert named[0] == 200 and b"<id>http://[::1]:8080/topics/" in named[1]


VALID = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>https://x.org/t</id><title>T</title>
<updated>2026-09-25T12:00:00Z</updated><link href="https://x.org/t.atom" rel="self"/>
<author><name>d</name></author><entry><id>https://arxiv.org/abs/1</id><title>a</title>
<updated>2026-09-25T12:00:00Z</updated><link href="https://arxiv.org/abs/1"/></entry></feed>"""
BROKEN = {
    "relative id": (b"<id>https://x.org/t</id>", b"<id>/t</id>"),
    "lower-case t and z": (
        b'T12:00:00Z</updated><link href="https://x',
        b't12:00:00z</updated><link href="https://x',
    ),
    "no calendar day": (
        b'2026-09-25T12:00:00Z</updated><link href="https://arxiv',
        b'2026-02-30T12:00:00Z</updated><link href="https://arxiv',
    ),
    "markup in a text title": (b"<title>a</title>", b"<title>a<b>x</b></title>"),
    "no author anywhere": (b"<author><name>d</name></author>", b""),
    "relative link": (b'<link href="https://arxiv.org/abs/1"/>', b'<link href="abs/1"/>'),
    "two titles": (b"<title>T</title>", b"<title>T</title><title>U</title>"),
    "no alternate, no content": (b'<link href="https://arxiv.org/abs/1"/>', b""),
    "content by reference without summary": (
        b'<link href="https://arxiv.org/abs/1"/>',
        b'<content src="https://arxiv.org/pdf/1" type="application/pdf"/>',
    ),
    "an element Atom lacks": (b"<title>a</title>", b"<title>a</title><abstract>x</abstract>"),
    "not well-formed": (b"<title>a</title>", b"<title>a & b</title>"),
}


@pytest.mark.parametrize("mistake", BROKEN)
def test_the_check_finds_each_broken_rule(mistake: str) -> None:
    before, after = BROKEN[mistake]
    assert atom_problems(VALID) == []
    assert VALID.count(before) == 1
    assert atom_problems(VALID.replace(before, after)) != []


def test_a_relative_link_is_fine_under_an_xml_base() -> None:
    based = VALID.replace(
        b'<link href="https://arxiv.org/abs/1"/>',
        b'<link xml:base="https://arxiv.org/" href="abs/1"/>',
    )
    assert atom_problems(based) == []
