"""A topic's page as an Atom feed (RFC 4287), so feed readers and feed bots can follow it."""

from __future__ import annotations

from datetime import UTC, datetime

from lxml import etree

from digests.pages.page_data import PaperItem, TopicPage
from digests.text_hygiene import without_controls

ATOM = "http://www.w3.org/2005/Atom"
_XML_CHARS_REFUSED = {c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)} | {0xFFFE, 0xFFFF}


def topic_feed(page: TopicPage, *, page_url: str, feed_url: str, now: datetime) -> bytes:
    """The feed of the page's papers; `page_url` and `feed_url` are absolute."""
    feed = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})
    topic = page.topic
    _text(feed, "id", page_url)
    _text(feed, "title", f"{topic.name} — new papers")
    _text(feed, "subtitle", topic.momentum.line)
    newest = max((paper.updated for paper in page.papers), default=now)
    _text(feed, "updated", _stamp(newest))
    _link(feed, page_url, "alternate", "text/html")
    _link(feed, feed_url, "self", "application/atom+xml")
    author = etree.SubElement(feed, f"{{{ATOM}}}author")
    _text(author, "name", "digestbot")
    _text(feed, "generator", "digestbot")
    for paper in page.papers:
        _entry(feed, paper)
    return etree.tostring(feed, xml_declaration=True, encoding="utf-8")


def _entry(feed: etree._Element, paper: PaperItem) -> None:
    entry = etree.SubElement(feed, f"{{{ATOM}}}entry")
    _text(entry, "id", paper.url)
    _text(entry, "title", paper.title)
    _text(entry, "published", _stamp(paper.published))
    _text(entry, "updated", _stamp(paper.updated))
    _link(entry, paper.url, "alternate", "text/html")
    for name in paper.authors or ("Unknown",):
        author = etree.SubElement(entry, f"{{{ATOM}}}author")
        _text(author, "name", name)
    if paper.category:
        etree.SubElement(entry, f"{{{ATOM}}}category", term=_xml_safe(paper.category))
    for topic in paper.topics:
        etree.SubElement(entry, f"{{{ATOM}}}category", term=topic.slug, label=_xml_safe(topic.name))
    _text(entry, "summary", paper.abstract)


def _text(parent: etree._Element, name: str, value: str) -> None:
    etree.SubElement(parent, f"{{{ATOM}}}{name}").text = _xml_safe(value)


def _link(parent: etree._Element, href: str, rel: str, kind: str) -> None:
    etree.SubElement(parent, f"{{{ATOM}}}link", href=_xml_safe(href), rel=rel, type=kind)


def _xml_safe(text: str) -> str:
    """`text` without the characters XML 1.0 cannot hold (lxml refuses them)."""
    safe = without_controls(text)
    return "".join(char for char in safe if ord(char) not in _XML_CHARS_REFUSED)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
