"""A digest's "+N more" opens the topic's page for the digest's period: `?from=…&to=…` lists
the papers that digest counted and says which period it shows; a bad period is refused."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

from lxml import html
from sqlmodel import Session

from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records
from tests.papers import paper_record
from tests.web_site import NOW, RL, fetch, seed, serving, store_follow

THIS_WEEK = "from=2026-09-21&to=2026-09-27"  # NOW's papers were ingested on the 25th
TWO_WEEKS_AGO = "from=2026-09-07&to=2026-09-13"


def seed_two_weeks_ago(engine, catalog, count: int = 4) -> None:
    """`count` papers on RL for LLM Agents, published and ingested two weeks before NOW."""
    earlier = NOW - timedelta(days=14)
    records = [
        paper_record(
            100 + n,
            earlier - timedelta(days=1),
            title=f"Older agent study {n}",
            upstream_topics=("RL for LLM Agents",),
        )
        for n in range(count)
    ]
    with Session(engine) as session:
        ingest_records(session, records, tagger=Tagger(catalog), catalog=catalog, now=earlier)
        session.commit()


def titles(body: str) -> list[str]:
    return html.fromstring(body).xpath("//li[@class='paper']//h3/a/text()")


async def test_a_period_lists_the_papers_its_digest_counted(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    seed_two_weeks_ago(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port, per_page=12) as base:
        _, _, latest = await fetch(f"{base}/topics/{RL}")
        _, _, older = await fetch(f"{base}/topics/{RL}?{TWO_WEEKS_AGO}")
        _, _, this_week = await fetch(f"{base}/topics/{RL}?{THIS_WEEK}")
        _, _, second = await fetch(f"{base}/topics/{RL}?{THIS_WEEK}&page=2")
        empty = await fetch(f"{base}/topics/{RL}?from=2026-08-01&to=2026-08-07")
        by_name = await fetch(f"{base}/topics/RL%20for%20LLM%20Agents?{THIS_WEEK}")
    assert sorted(titles(older)) == [f"Older agent study {n}" for n in range(4)]
    page = html.fromstring(older)
    assert page.xpath("string(//h2[@id='papers-heading'])") == "Papers of Sep 7 – Sep 13, 2026 4"
    assert page.xpath("//p[@class='period']/a/@href") == [f"/topics/{RL}"]
    assert html.fromstring(latest).xpath("string(//h2[@id='papers-heading']/span)") == "34"
    this_page = html.fromstring(this_week)
    assert this_page.xpath("string(//h2[@id='papers-heading']/span)") == "30"
    assert not any(title.startswith("Older") for title in titles(this_week) + titles(second))
    # Pages of a period stay in the period.
    next_page = f"/topics/{RL}?{THIS_WEEK}&page=2"
    assert this_page.xpath("//a[@rel='next']/@href") == [next_page]
    assert html.fromstring(second).xpath("//a[@rel='prev']/@href") == [
        f"/topics/{RL}?{THIS_WEEK}&page=1"
    ]
    assert empty[0] == 200 and "No papers in this period." in empty[2]
    assert by_name[0] == 301 and by_name[1]["Location"] == f"/topics/{RL}?{THIS_WEEK}&page=1"


async def test_a_follow_page_shows_a_period_too(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    seed_two_weeks_ago(engine, catalog)
    follow = store_follow(engine, 'query: "older agent study"')
    address = f"/follows/{quote(follow.slug, safe='')}"
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, _, older = await fetch(f"{base}{address}?{TWO_WEEKS_AGO}")
        _, _, this_week = await fetch(f"{base}{address}?{THIS_WEEK}")
    assert len(titles(older)) == 4 and titles(this_week) == []
    assert "Papers of Sep 7 – Sep 13, 2026" in older


async def test_a_bad_period_is_refused_without_echoing_it(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    tried = {
        "from=2026-02-30&to=2026-03-06": "not on the calendar",
        "from=2026-9-21&to=2026-9-27": "YYYY-MM-DD",
        "from=%3Cscript%3Ealert(1)%3C/script%3E&to=2026-09-27": "YYYY-MM-DD",
        "from=%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%96-09-21&to=2026-09-27": "YYYY-MM-DD",  # ２０２６
        "from=20260921&to=20260927": "YYYY-MM-DD",
        "from=2026-09-21": "both from= and to=",
        "to=2026-09-27": "both from= and to=",
        "from=2026-09-27&to=2026-09-21": "comes before",
        "from=2024-01-01&to=2026-09-27": "at most a year",
        f"from={'9' * 5000}&to=2026-09-27": "YYYY-MM-DD",
    }
    async with serving(engine, catalog, unused_tcp_port) as base:
        answers = {query: await fetch(f"{base}/topics/{RL}?{query}") for query in tried}
    for query, (status, _, body) in answers.items():
        assert status == 400, query
        assert tried[query] in body, query
        assert "<script>" not in body and "9999" not in body and "２０２６" not in body, query


async def test_a_period_at_the_ends_of_the_calendar_is_refused_not_a_server_error(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    follow = store_follow(engine, 'query: "agent study"')
    pages = [f"/topics/{RL}", f"/follows/{quote(follow.slug, safe='')}"]
    tried = ["from=0001-01-01&to=0001-01-02", "from=9999-12-30&to=9999-12-31"]
    async with serving(engine, catalog, unused_tcp_port) as base:
        answers = [await fetch(f"{base}{page}?{query}") for page in pages for query in tried]
    for status, _, body in answers:
        assert status == 400
        assert "A period lies between 1991 and 9000." in body
