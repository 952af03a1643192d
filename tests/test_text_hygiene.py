"""Text hygiene in one place: paper text carrying a control character or a direction override
is shown without it, on the pages and in the feeds, on both backends (what users type is
refused with a clear reply: `tests/test_commands.py`)."""

from __future__ import annotations

from datetime import timedelta

import aiohttp
from lxml import etree, html
from sqlmodel import Session

from bot.web import Site
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.papers import paper_record
from tests.web_site import NOW, serving

UNSAFE = "\x00\x07\x1b\x7f\x85\x9b\u202e\u2066\x0b"
ATOM = "{http://www.w3.org/2005/Atom}"


def seed_unsafe_paper(engine, catalog) -> None:
    record = paper_record(
        1,
        NOW - timedelta(days=1),
        title=f"Reverse{UNSAFE.replace(chr(0), '')} agents",
        abstract=f"We train\x07 agents\u202e with{chr(0x1F)} reinforcement\x85 learning.",
        authors=("Ada\u202e Lovelace", "Alan\x1b Turing"),
        upstream_topics=("RL for LLM Agents",),
    )
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=NOW)
        ingest_records(session, [record], tagger=tagger, catalog=catalog, now=NOW)
        session.commit()


async def read(url: str) -> bytes:
    async with aiohttp.ClientSession() as client, client.get(url) as response:
        assert response.status == 200
        return await response.read()


async def test_paper_text_with_controls_is_shown_without_them_on_the_page_and_the_feed(
    engine, catalog, unused_tcp_port
):
    seed_unsafe_paper(engine, catalog)
    site = Site(public_url="https://digests.example.org")
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        page = await read(f"{base}/topics/rl-for-llm-agents")
        feed = await read(f"{base}/topics/rl-for-llm-agents.atom")
    shown = page.decode() + feed.decode()
    assert not set(UNSAFE.replace("\x0b", "")) & set(shown)
    paper = html.fromstring(page).xpath("//li[@class='paper']")[0].text_content()
    assert "Reverse agents" in paper and "Ada Lovelace" in paper
    entry = etree.fromstring(feed).find(f"{ATOM}entry")
    summary = entry.findtext(f"{ATOM}summary")
    assert summary.split() == ["We", "train", "agents", "with", "reinforcement", "learning."]
    names = [author.findtext(f"{ATOM}name") for author in entry.findall(f"{ATOM}author")]
    assert names == ["Ada Lovelace", "Alan Turing"]
