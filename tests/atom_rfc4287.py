"""An Atom feed checked against RFC 4287, rule by rule, for the tests and the bench.

No package on PyPI ships Atom's schema or a validator that is kept up (feedvalidator is Python 2
and gone from Debian; feedparser reads leniently and validates nothing), so the rules are
written out here from the RFC's prose: each element's required and single children, the
constructs (text, person, date), identifiers and links as absolute IRIs once `xml:base` is
applied, and the content rules of `type`. `atom_problems` returns what breaks them, [] when
nothing does. Extension elements (other namespaces) are allowed anywhere, as section 6 says.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urljoin, urlsplit

from lxml import etree

NS = "http://www.w3.org/2005/Atom"
XHTML = "http://www.w3.org/1999/xhtml"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

TEXT_CONSTRUCTS = {"title", "subtitle", "summary", "rights"}
PERSON_CONSTRUCTS = {"author", "contributor"}
DATE_CONSTRUCTS = {"updated", "published"}
# Children of feed, entry and source: (at least, at most) of each; None is unbounded.
FEED = {
    "author": (0, None), "category": (0, None), "contributor": (0, None), "generator": (0, 1),
    "icon": (0, 1), "id": (1, 1), "link": (0, None), "logo": (0, 1), "rights": (0, 1),
    "subtitle": (0, 1), "title": (1, 1), "updated": (1, 1), "entry": (0, None),
}  # fmt: skip
ENTRY = {
    "author": (0, None), "category": (0, None), "content": (0, 1), "contributor": (0, None),
    "id": (1, 1), "link": (0, None), "published": (0, 1), "rights": (0, 1), "source": (0, 1),
    "summary": (0, 1), "title": (1, 1), "updated": (1, 1),
}  # fmt: skip
SOURCE = {name: (0, most) for name, (_, most) in FEED.items() if name != "entry"}

# RFC 3339's date-time with the upper-case T and Z RFC 4287 section 3.3 asks for.
DATE_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)
LANGUAGE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")
MEDIA_TYPE = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?")
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*")


def atom_problems(document: bytes) -> list[str]:
    """Every way `document` (an Atom feed) breaks RFC 4287; [] for a valid feed."""
    try:
        root = etree.fromstring(document, etree.XMLParser(resolve_entities=False))
    except etree.XMLSyntaxError as error:
        return [f"not well-formed XML: {error}"]
    if root.tag != f"{{{NS}}}feed":
        return [f"the root is {root.tag}, not atom:feed"]
    problems = _container(root, "feed", FEED)
    entries = root.findall(f"{{{NS}}}entry")
    if root.find(f"{{{NS}}}author") is None:
        for number, entry in enumerate(entries, start=1):
            if not _has_author(entry):
                problems.append(f"entry {number} has no author and neither has the feed")
    for number, entry in enumerate(entries, start=1):
        problems += [f"entry {number}: {p}" for p in _entry(entry)]
    problems += _repeated_entries(entries)
    if not root.findall(f"{{{NS}}}link[@rel='self']"):
        problems.append("feed: no link rel='self' (section 4.2.7.2: SHOULD)")
    return problems


def _container(element: etree._Element, name: str, allowed: dict) -> list[str]:
    """Rules shared by feed, entry and source: which children, how many, each one's own."""
    problems = _common_attributes(element, name)
    counts: dict[str, int] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue  # comments, processing instructions
        local = _atom_name(child)
        if local is None:
            continue  # an extension element
        if local not in allowed:
            problems.append(f"{name}: atom:{local} is not allowed here")
            continue
        counts[local] = counts.get(local, 0) + 1
        if local not in ("entry", "source"):
            problems += [f"{name}/{local}: {p}" for p in _child(child, local)]
    for local, (least, most) in allowed.items():
        count = counts.get(local, 0)
        if count < least or (most is not None and count > most):
            wanted = "exactly one" if least == most == 1 else f"at most {most}"
            problems.append(f"{name}: {count} atom:{local}, needs {wanted}")
    return problems + _alternate_links(element, name)


def _entry(entry: etree._Element) -> list[str]:
    problems = _container(entry, "entry", ENTRY)
    content = entry.find(f"{{{NS}}}content")
    alternate = [link for link in entry.findall(f"{{{NS}}}link") if _rel(link) == "alternate"]
    if content is None and not alternate:
        problems.append("neither atom:content nor a link rel='alternate' (section 4.1.1)")
    if content is not None:
        problems += _content(content)
        kind = content.get("type", "text")
        binary = kind not in ("text", "html", "xhtml") and not _is_xml_or_text(kind)
        if (content.get("src") is not None or binary) and entry.find(f"{{{NS}}}summary") is None:
            problems.append("content by reference or in base64 needs an atom:summary")
    source = entry.find(f"{{{NS}}}source")
    if source is not None:
        problems += _container(source, "source", SOURCE)
    return problems


def _child(element: etree._Element, local: str) -> list[str]:
    if local in TEXT_CONSTRUCTS:
        return _text_construct(element)
    if local in PERSON_CONSTRUCTS:
        return _person(element)
    if local in DATE_CONSTRUCTS:
        return _date(element.text or "")
    if local == "id":
        return _iri(element.text, base="")  # an IRI: a relative reference is none (4.2.6)
    if local in ("icon", "logo"):
        return _iri(element.text, base=_base(element))
    if local == "link":
        return _link(element)
    if local == "category":
        return [] if element.get("term") else ["a category needs a term"]
    if local == "generator":
        uri = element.get("uri")
        return _element_free(element) + (_iri(uri, base=_base(element)) if uri else [])
    return []


def _text_construct(element: etree._Element) -> list[str]:
    kind = element.get("type", "text")
    if kind in ("text", "html"):
        return _element_free(element)  # html is escaped markup: text, never elements
    if kind == "xhtml":
        return _xhtml_div(element)
    return [f"type={kind!r}: a text construct is text, html or xhtml"]


def _content(content: etree._Element) -> list[str]:
    kind = content.get("type", "text")
    if content.get("src") is not None:
        problems = _iri(content.get("src"), base=_base(content))
        if len(content) or (content.text or "").strip():
            problems.append("content with src must be empty")
        return problems
    if kind in ("text", "html"):
        return _element_free(content)
    if kind == "xhtml":
        return _xhtml_div(content)
    if not MEDIA_TYPE.fullmatch(kind):
        return [f"content type={kind!r} is neither text, html, xhtml nor a media type"]
    return []


def _person(person: etree._Element) -> list[str]:
    names = person.findall(f"{{{NS}}}name")
    problems = [] if len(names) == 1 else [f"{len(names)} atom:name, needs exactly one"]
    for local in ("uri", "email"):
        found = person.findall(f"{{{NS}}}{local}")
        if len(found) > 1:
            problems.append(f"{len(found)} atom:{local}, at most one")
    for uri in person.findall(f"{{{NS}}}uri"):
        problems += _iri(uri.text, base=_base(uri))
    for email in person.findall(f"{{{NS}}}email"):
        if not re.fullmatch(r"[^@\s]+@[^@\s]+", email.text or ""):
            problems.append(f"{email.text!r} is no e-mail address")
    known = {f"{{{NS}}}{local}" for local in ("name", "uri", "email")}
    for child in person:
        if isinstance(child.tag, str) and _atom_name(child) and child.tag not in known:
            problems.append(f"atom:{_atom_name(child)} is not allowed in a person")
    return problems + [f"name: {p}" for name in names for p in _element_free(name)]


def _date(text: str) -> list[str]:
    if not DATE_TIME.fullmatch(text):
        return [f"{text!r} is no RFC 3339 date-time with upper-case T and Z"]
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return [f"{text!r} is not on the calendar"]
    return []


def _link(link: etree._Element) -> list[str]:
    href = link.get("href")
    if href is None:
        return ["a link needs an href"]
    problems = _iri(href, base=_base(link))
    if (kind := link.get("type")) is not None and not MEDIA_TYPE.fullmatch(kind):
        problems.append(f"link type={kind!r} is no media type")
    if (language := link.get("hreflang")) is not None and not LANGUAGE_TAG.fullmatch(language):
        problems.append(f"hreflang={language!r} is no language tag")
    if (length := link.get("length")) is not None and not length.isdigit():
        problems.append(f"length={length!r} is no number of octets")
    return problems


def _alternate_links(element: etree._Element, name: str) -> list[str]:
    """Section 4.1.1: at most one alternate link per type and hreflang."""
    seen: set[tuple[str, str]] = set()
    for link in element.findall(f"{{{NS}}}link"):
        if _rel(link) == "alternate":
            key = (link.get("type", ""), link.get("hreflang", ""))
            if key in seen:
                return [f"{name}: two alternate links of type {key[0]!r}, language {key[1]!r}"]
            seen.add(key)
    return []


def _repeated_entries(entries: list[etree._Element]) -> list[str]:
    """Section 4.1.1: entries sharing an id SHOULD differ in updated."""
    stamps = [
        (entry.findtext(f"{{{NS}}}id"), entry.findtext(f"{{{NS}}}updated")) for entry in entries
    ]
    repeated = {stamp for stamp in stamps if stamps.count(stamp) > 1}
    return [f"entries repeat id {id_!r} with the same updated" for id_, _ in sorted(repeated)]


def _iri(reference: str | None, *, base: str) -> list[str]:
    """An IRI reference that, resolved against `base` (the xml:base in scope), is absolute."""
    if not reference:
        return ["an empty IRI"]
    if any(char.isspace() or char in '<>"{}|\\^`' for char in reference):
        return [f"{reference!r} is no IRI (spaces or characters IRIs exclude)"]
    resolved = urljoin(base, reference) if base else reference
    scheme = urlsplit(resolved).scheme
    if not scheme or not SCHEME.fullmatch(scheme):
        return [f"{reference!r} is relative and no xml:base makes it absolute"]
    return []


def _base(element: etree._Element) -> str:
    """The xml:base in scope: each ancestor's, resolved against its parent's."""
    bases = [e.get(XML_BASE) for e in [*reversed(list(element.iterancestors())), element]]
    base = ""
    for value in filter(None, bases):
        base = urljoin(base, value)
    return base


def _common_attributes(element: etree._Element, name: str) -> list[str]:
    language = element.get(XML_LANG)
    if language is not None and language != "" and not LANGUAGE_TAG.fullmatch(language):
        return [f"{name}: xml:lang={language!r} is no language tag"]
    return []


def _element_free(element: etree._Element) -> list[str]:
    children = [child for child in element if isinstance(child.tag, str)]
    return [f"holds the element {children[0].tag}, text only"] if children else []


def _xhtml_div(element: etree._Element) -> list[str]:
    children = [child for child in element if isinstance(child.tag, str)]
    loose = (element.text or "").strip() or any((child.tail or "").strip() for child in children)
    if len(children) != 1 or children[0].tag != f"{{{XHTML}}}div" or loose:
        return ["type='xhtml' needs exactly one xhtml:div and nothing beside it"]
    return []


def _has_author(entry: etree._Element) -> bool:
    return (
        entry.find(f"{{{NS}}}author") is not None
        or entry.find(f"{{{NS}}}source/{{{NS}}}author") is not None
    )


def _atom_name(element: etree._Element) -> str | None:
    prefix = f"{{{NS}}}"
    return element.tag[len(prefix) :] if element.tag.startswith(prefix) else None


def _rel(link: etree._Element) -> str:
    rel = link.get("rel", "alternate")
    return "alternate" if rel == "http://www.iana.org/assignments/relation/alternate" else rel


def _is_xml_or_text(media_type: str) -> bool:
    """Section 4.1.3.3: XML and text/* media types are inline, others base64."""
    essence = media_type.split(";")[0].strip().lower()
    return essence.endswith(("+xml", "/xml")) or essence.startswith("text/")
