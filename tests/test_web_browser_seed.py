"""The seed page's promises in a real browser: specific tags, trending by evidence, the ask box,
and screenshots at desktop and phone widths (docs/web.md shows them).

`digestbot run` serves a SQLite store of eight weeks of real papers (the bundled corpus' Nov 3 –
Dec 28, 2025, moved to end today) with their real, nested tags, and over them a known large rise
(World Model Learning, 20 → 60 more papers) and two noisy small ones (1 → 9, 2 → 10 more).
Chromium (headless, Playwright) loads the pages. Screenshots go to WEB_SCREENSHOTS when set,
else the test's temporary folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlmodel import Session

from bot.demo import load_corpus
from digests.messages.tags import lineage
from digests.signals.trending import JUDGED_FLOOR
from digests.topics.catalog import Catalog
from digests.topics.tagger import Tagger
from digests.usecases.ingest import ingest_records, sync_catalog
from tests.web_browser import Visit, chromium_or_skip, digestbot_run, sqlite_store
from tests.web_site import CERTAIN, NOISY, seed_trending

RL = "rl-for-llm-agents"
REAL_WEEKS = (date(2025, 11, 3), date(2025, 12, 28))
# A question with a known answer among the real papers: MolAct (arXiv 2512.20135).
QUESTION = "molecular editing property optimization"
ANSWER = "MolAct: An Agentic RL Framework for Molecular Editing and Property Optimization"
WIDTHS = {"desktop": 1200, "phone": 390}


def seed_real_weeks(engine, catalog: Catalog, *, now: datetime) -> None:
    """The bundled corpus' papers of REAL_WEEKS, moved by whole days to end on `now`'s day."""
    first, last = REAL_WEEKS
    shift = now.date() - last
    records = [
        replace(record, published=record.published + shift)
        for record in load_corpus()
        if first <= record.first_version_date <= last
    ]
    tagger = Tagger(catalog)
    with Session(engine) as session:
        sync_catalog(session, catalog=catalog, tagger=tagger, now=now)
        ingest_records(session, records, tagger=tagger, catalog=catalog, now=now)
        session.commit()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    chromium_or_skip()
    folder = tmp_path_factory.mktemp("web-seed")
    url, engine = sqlite_store(folder)
    catalog = Catalog.load()
    now = datetime.now(UTC)
    seed_real_weeks(engine, catalog, now=now)
    seed_trending(engine, catalog, now=now)
    engine.dispose()
    with digestbot_run(folder, url) as base:
        yield base


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("WEB_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def ask_url(site: str) -> str:
    return f"{site}/topics/{RL}?q={QUESTION.replace(' ', '+')}"


def test_each_paper_shows_at_most_four_tags_and_no_ancestor_of_another(browser, site):
    ancestors = lineage(Catalog.load())
    shown = []
    for url in (f"{site}/topics/{RL}", f"{site}/topics/{RL}?page=2"):
        visit = Visit(browser, url)
        for paper in visit.tab.locator("li.paper").all():
            hrefs = paper.locator("ul.tags a").evaluate_all("links => links.map(a => a.href)")
            shown.append([href.rsplit("/topics/", 1)[1] for href in hrefs])
        assert visit.errors == []
    assert len(shown) == 40
    for slugs in shown:
        assert RL in slugs and len(slugs) <= 4, slugs
        # The page's own topic is always shown; no other tag is an ancestor of one shown.
        others = [slug for slug in slugs if slug != RL]
        assert not {a for slug in slugs for a in ancestors[slug]} & set(others), slugs
    assert sum(len(slugs) > 1 for slugs in shown) >= 10, shown  # specific tags of their own


def test_trending_puts_the_certain_rise_before_the_noisy_small_ones(browser, site):
    visit = Visit(browser, f"{site}/")
    visit.tab.get_by_role("link", name="by momentum").click()
    visit.tab.wait_for_url(f"{site}/?sort=trending")
    names = visit.tab.locator("li.topic h2").all_inner_texts()
    lines = visit.tab.locator("li.topic p.momentum").all_inner_texts()
    noisy = min(names.index(name) for name in NOISY)
    assert names.index(CERTAIN) < noisy
    # Every topic ranked before the noisy ones has enough papers to judge its rise by.
    assert all(int(line.split()[0].replace(",", "")) >= JUDGED_FLOOR for line in lines[:noisy])
    assert visit.errors == []


def test_the_ask_box_finds_the_known_paper_first(browser, site):
    visit = Visit(browser, f"{site}/topics/{RL}")
    tab = visit.tab
    tab.get_by_role("link", name="Ask about this topic").click()
    tab.locator("#q").fill(QUESTION)
    tab.get_by_role("button", name="Ask").click()
    tab.wait_for_url(ask_url(site))
    first = tab.locator("li.paper").first
    assert first.locator("h3").inner_text() == ANSWER
    assert "molecular editing" in first.locator("blockquote.match").inner_text().lower()
    assert tab.locator("#q").input_value() == QUESTION
    assert visit.errors == []  # the form's GET is allowed by the CSP (form-action 'self')


def capture(visit: Visit, path: Path, width: int, *, start_at: str = "") -> None:
    """A screenshot of the page from `start_at` (or its top), a screenful and a half tall."""
    tab = visit.tab
    top = max(0, tab.locator(start_at).bounding_box()["y"] - 16) if start_at else 0
    height = min(1400 if width > 600 else 1500, tab.evaluate("document.body.scrollHeight") - top)
    clip = {"x": 0, "y": top, "width": width, "height": height}
    tab.screenshot(path=str(path), full_page=True, clip=clip)


@pytest.mark.parametrize("width", WIDTHS)
def test_index_topic_and_ask_pages_fit_the_screen_and_are_captured(
    browser, site, screenshots, width
):
    pages = {  # name: (address, where its screenshot starts)
        "index": (f"{site}/?sort=trending", ""),
        "topic": (f"{site}/topics/{RL}", ""),
        "ask": (ask_url(site), "#ask"),
    }
    for name, (url, start_at) in pages.items():
        visit = Visit(browser, url, width=WIDTHS[width])
        assert visit.response.status == 200
        assert visit.tab.evaluate("document.documentElement.scrollWidth") <= WIDTHS[width]
        capture(visit, screenshots / f"{name}-{width}.png", WIDTHS[width], start_at=start_at)
        assert visit.errors == [] and visit.dialogs == []
