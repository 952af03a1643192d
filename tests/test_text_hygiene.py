"""Text hygiene in one place: a NUL, a control character or a direction override that a user
types is refused with a clear reply, and paper text carrying them is shown without them, on the
pages and in the feeds, on both backends."""

from __future__ import annotations

import itertools
from datetime import timedelta

import aiohttp
import pytest
from lxml import etree, html
from sqlmodel import Session, select

from bot.web import Site
from digests.chat.commands import Caller, CommandService
from digests.papers.ingest import ingest_records, sync_catalog
from digests.store.models import Channel
from digests.topics.tagger import Tagger
from tests.papers import paper_record
from tests.web_site import NOW, serving

PRIVATE = Caller(platform="telegram", chat_id="42", chat_kind="private")
UNSAFE = "\x00\x07\x1b\x7f\x85\x9b\u202e\u2066\x0b"
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def service(engine, catalog) -> CommandService:
    ticks = itertools.count()
    return CommandService(
        lambda: Session(engine, expire_on_commit=False),
        catalog,
        clock=lambda: NOW + timedelta(seconds=next(ticks)),
    )


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        ("query: agent\x00model", "a NUL character (U+0000)"),
        ("query: agent\x07model", "a control character (U+0007)"),
        ("author: \u202eenivel", "a text-direction control (U+202E)"),
        ("RL for LLM\x9b Agents", "a control character (U+009B)"),
    ],
)
def test_a_follow_holding_a_control_character_is_refused_and_nothing_is_stored(
    service, typed, named
):
    reply = service.handle(PRIVATE, "follow", typed)
    assert not reply.ok
    assert reply.text.startswith(f"That message holds {named}, which I cannot store")
    assert "nothing was changed" in reply.text
    assert "no topics yet" in service.handle(PRIVATE, "following").text


def test_a_chat_title_with_controls_is_stored_without_them(service, engine):
    group = Caller(
        platform="telegram", chat_id="-7", chat_kind="group", chat_title="Lab\u202e\x07 chat"
    )
    service.handle(group, "following")
    with Session(engine) as session:
        titles = [channel.title for channel in session.exec(select(Channel))]
    assert titles == ["Lab chat"]


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
