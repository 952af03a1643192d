"""The topic pages in a real browser: `digestbot run` serves a seeded SQLite store, Debian's
Chromium (headless, driven by Playwright) loads the pages.

What a reader would notice: the momentum line and the titles are on the page, the chart is
drawn, links and follow buttons go where they should, the page raises no console error (a
blocked style or script under the Content-Security-Policy would), and a paper titled
`<script>alert(1)</script>` is shown as text and runs nothing. One screenshot per page is kept
under the test's temporary folder (or WEB_SCREENSHOTS, when set) for review.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlmodel import Session

from digests.follows.filters import parse_filter
from digests.topics.catalog import Catalog
from digests.usecases.reports import topic_momenta
from tests.web_browser import Visit, chromium_or_skip, digestbot_run, sqlite_store
from tests.web_site import HOSTILE, seed, store_follow

RL = "rl-for-llm-agents"
BOT = "digest_bot"
APPLICATION = "123456789012345678"
SCRIPT_QUERY = 'query: "<script>alert(1)</script>"'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """`digestbot run` on a seeded store with one search followed; yields (base URL, today's
    momentum line of RL, the search's)."""
    chromium_or_skip()
    folder = tmp_path_factory.mktemp("web-run")
    url, engine = sqlite_store(folder)
    catalog = Catalog.load()
    now = datetime.now(UTC)
    seed(engine, catalog, now=now)
    search = store_follow(engine, SCRIPT_QUERY, now=now).topic()
    with Session(engine) as session:
        momenta = topic_momenta(session, [*catalog.topics, search], as_of=now.date())
    line, search_line = momenta[RL].line, momenta[search.slug].line
    engine.dispose()
    with digestbot_run(
        folder, url, TELEGRAM_BOT_USERNAME=BOT, DISCORD_APPLICATION_ID=APPLICATION
    ) as base:
        yield base, line, search_line


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("WEB_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_a_topic_page_in_chromium(browser, site, screenshots):
    base, line, _ = site
    visit = Visit(browser, f"{base}/topics/{RL}")
    tab = visit.tab
    assert visit.response.status == 200
    assert tab.locator("h1").inner_text() == "RL for LLM Agents"
    assert tab.locator("section p.momentum").inner_text() == line
    chart = tab.locator("figure svg[role=img]")
    box = chart.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 20
    assert tab.locator("figure svg rect.bar").count() == 12
    assert tab.locator("li.paper h3 a").count() == 20
    assert tab.get_by_role("link", name=re.compile(r"^Agent study number \d+$")).count() >= 10
    follow = tab.get_by_role("link", name="Follow in Telegram")
    assert follow.get_attribute("href") == f"https://t.me/{BOT}?start=follow-{RL}"
    install = tab.get_by_role("link", name="Add to Discord")
    assert f"client_id={APPLICATION}" in install.get_attribute("href")
    # The folded abstract opens like any <details>.
    first = tab.locator("li.paper details").first
    assert not first.locator("p").is_visible()
    first.locator("summary").click()
    assert first.locator("p").is_visible()
    visit.shoot(screenshots, "topic")
    assert visit.errors == [] and visit.dialogs == []


def test_a_hostile_title_renders_as_text(browser, site, screenshots):
    base, _, _ = site
    visit = Visit(browser, f"{base}/topics/{RL}", width=390)  # a phone's width
    tab = visit.tab
    assert tab.get_by_role("link", name=HOSTILE, exact=True).count() == 1
    assert tab.evaluate("document.scripts.length") == 0
    # Readable on a phone: nothing wider than the screen.
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    visit.shoot(screenshots, "topic-phone")
    assert visit.errors == [] and visit.dialogs == []


def test_the_index_links_to_topic_pages_and_sorts_by_momentum(browser, site, screenshots):
    base, line, _ = site
    visit = Visit(browser, f"{base}/")
    tab = visit.tab
    assert tab.locator("li.topic").count() > 100
    tab.get_by_role("link", name="by momentum").click()
    tab.wait_for_url(f"{base}/?sort=trending")
    top = tab.locator("li.topic").first
    assert top.locator("h2").inner_text() == "RL for LLM Agents"
    assert top.locator("p.momentum").inner_text() == line
    assert top.locator("svg[role=img] rect").count() == 12
    visit.shoot(screenshots, "index")
    top.locator("h2 a").click()
    tab.wait_for_url(f"{base}/topics/{RL}")
    assert visit.errors == [] and visit.dialogs == []


def test_an_unknown_topic_offers_the_closest_and_the_feed_is_atom(browser, site, screenshots):
    base, _, _ = site
    visit = Visit(browser, f"{base}/topics/rl-for-llm-agnets-and-more")
    tab = visit.tab
    assert visit.response.status == 404
    suggestion = tab.locator("ul.suggestions a", has_text="RL for LLM Agents")
    assert suggestion.get_attribute("href") == f"/topics/{RL}"
    visit.shoot(screenshots, "not-found")
    # The 404 itself is the only error Chromium reports.
    assert all("404" in error for error in visit.errors)
    feed = tab.request.get(f"{base}/topics/{RL}.atom")
    assert feed.status == 200 and b'<feed xmlns="http://www.w3.org/2005/Atom"' in feed.body()


def test_a_search_follow_has_a_page_of_its_own(browser, site, screenshots):
    base, _, line = site
    address = f"{base}/follows/" + quote(parse_filter(SCRIPT_QUERY).slug, safe="")
    visit = Visit(browser, address)
    tab = visit.tab
    assert visit.response.status == 200
    # The query a chat typed is the heading, as text: nothing of it runs.
    assert tab.locator("h1").inner_text() == 'Search: "<script>alert(1)</script>"'
    assert tab.evaluate("document.scripts.length") == 0
    assert tab.locator("section p.momentum").inner_text() == line
    assert tab.locator("figure svg rect.bar").count() == 12
    assert tab.get_by_role("link", name=HOSTILE, exact=True).count() == 1
    assert tab.get_by_role("link", name="Follow in Telegram").count() == 0
    assert tab.locator("p.typed code").inner_text() == f"/follow {SCRIPT_QUERY}"
    feed = tab.get_by_role("link", name="Atom feed")
    assert feed.get_attribute("href") == address.removeprefix(base) + ".atom"
    visit.shoot(screenshots, "follow")
    assert visit.errors == [] and visit.dialogs == []
