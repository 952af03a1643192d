"""The topic pages on the web (WEB_PORT): `/`, `/topics/<slug>` and `/topics/<slug>.atom`, and
the same for each follow filter at `/follows/<slug>` (`?from=…&to=…` shows a digest's period).

The pages' data comes from `digests.pages`; this module only routes, renders the Jinja2
templates (autoescaped) and adds the manners of a public page: ETag and Cache-Control (304 for
an unchanged page), a Content-Security-Policy that allows no script and no inline style, and
an error page for every refusal that names what went wrong without echoing the request.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from importlib import resources
from typing import Protocol
from urllib.parse import quote

from aiohttp import web
from jinja2 import Environment, PackageLoader, select_autoescape

from bot.app import App
from bot.http_server import SECURITY_HEADERS, secure
from digests.ask.questions import AskError
from digests.links.chat import discord_install_link, telegram_follow_link
from digests.links.pages import Period, PeriodError, parse_period
from digests.pages.atom import topic_feed
from digests.pages.page_data import PageOutOfRange, TopicPage, UnknownFollow, suggestions
from digests.topics.catalog import UnknownTopic
from digests.usecases.topic_pages import TopicPages

CSP = SECURITY_HEADERS["Content-Security-Policy"]
PAGE_CACHE = "public, max-age=300"
ERROR_CACHE = "public, max-age=60"
STATIC_FILES = {"site.css": "text/css", "icon.svg": "image/svg+xml"}
SORTS = ("", "trending")
MAX_PAGE_DIGITS = 6
# The pages read the store in threads of their own, so a burst of readers never takes the
# threads chat commands are answered in; beyond PAGE_BACKLOG pages in hand, 503.
PAGE_THREADS = 4
PAGE_BACKLOG = 256
BUSY_RETRY_SECONDS = 5
MAX_QUESTION = 200  # characters of `?q=…`, as a chat's /ask takes
# A Host header the feed may name itself by: a host name or a bracketed IPv6, and a port.
_HOST = re.compile(r"((?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}|\[[0-9A-Fa-f:.]+\])(:[0-9]+)?")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class PageReader(Protocol):
    """`TopicPages.topic` or `TopicPages.follow`."""

    def __call__(
        self, slug: str, *, page: int, now: datetime, period: Period | None = None
    ) -> TopicPage: ...


@dataclass(frozen=True)
class Site:
    """What the pages know of the world outside: where they are, and the bot's accounts."""

    public_url: str | None = None
    telegram_bot: str | None = None
    discord_application: str | None = None

    def follow_links(self, page: TopicPage) -> list[tuple[str, str]]:
        """(label, URL) of each follow button the settings allow. A follow link carries a
        catalog topic only (`digests.links.chat`): a filter's page says what to type instead."""
        links = []
        if self.telegram_bot and not page.typed:
            link = telegram_follow_link(self.telegram_bot, page.topic.slug)
            links.append(("Follow in Telegram", link))
        if self.discord_application:
            links.append(("Add to Discord", discord_install_link(self.discord_application)))
        return links


class _Busy(Exception):
    """More pages in hand than PAGE_BACKLOG."""


class PageReaders:
    """The pages' own bounded thread pool, and how many pages it has in hand."""

    def __init__(self, threads: int = PAGE_THREADS, backlog: int = PAGE_BACKLOG) -> None:
        self.backlog, self.in_hand = backlog, 0
        self.pool = ThreadPoolExecutor(threads, thread_name_prefix="pages")

    async def read(self, work: Callable, *args, **kwargs):
        if self.in_hand >= self.backlog:
            raise _Busy
        self.in_hand += 1
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.pool, partial(work, *args, **kwargs))
        finally:
            self.in_hand -= 1

    async def close(self, app: web.Application) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def web_app(
    pages: TopicPages,
    *,
    clock: Callable[[], datetime],
    site: Site | None = None,
    readers: PageReaders | None = None,
) -> web.Application:
    """The pages as an aiohttp application (HEALTH_PORT's routes may be added to it)."""
    site = site or Site()
    readers = readers or PageReaders()
    templates = Environment(
        loader=PackageLoader("bot", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    static = {
        name: resources.files("bot").joinpath("static", name).read_bytes() for name in STATIC_FILES
    }

    def html(name: str, status: int = 200, cache: str = PAGE_CACHE, **context) -> web.Response:
        return response(render(name, **context), status, cache)

    def render(name: str, **context) -> str:
        return templates.get_template(name).render(site=site, **context)

    def response(body: str, status: int = 200, cache: str = PAGE_CACHE) -> web.Response:
        return web.Response(
            text=body, status=status, content_type="text/html", headers={"Cache-Control": cache}
        )

    def refused(status: int, title: str, message: str, **context) -> web.Response:
        return html("error.html", status, ERROR_CACHE, title=title, message=message, **context)

    async def index(request: web.Request) -> web.Response:
        sort = request.query.get("sort", "")
        if sort not in SORTS:
            message = "Topics can be sorted by momentum: ?sort=trending."
            return refused(400, "Unknown order", message)
        trending = sort == "trending"

        def index_page() -> str:  # read and rendered in the pages' threads, not the loop
            topics = pages.index(now=clock(), trending=trending)
            return render("index.html", topics=topics, trending=trending)

        return response(await readers.read(index_page))

    async def topic(request: web.Request) -> web.Response:
        if "q" in request.query:
            return await asked(request)
        return await topic_or_follow(request, pages.topic)

    async def asked(request: web.Request) -> web.Response:
        """A topic's papers that match `?q=…`, most relevant first."""
        slug, number, question = (
            request.match_info["slug"],
            _page_number(request),
            _question(request),
        )
        if number is None:
            return refused(400, "No such page", "The page number must be a whole number from 1.")
        if question is None:
            message = f"Ask in words, at most {MAX_QUESTION} characters, and without from= or to=."
            return refused(400, "No such question", message)
        if not question:
            return _moved(f"/topics/{quote(slug, safe='')}")

        def answered() -> tuple[TopicPage, str]:  # in the pages' threads, as every page
            page = pages.ask(slug, question=question, page=number, now=clock())
            if page.topic.slug != slug:
                return page, ""  # moved: answered with its new address
            return page, render("topic.html", page=page, follow=site.follow_links(page))

        try:
            page, body = await readers.read(answered)
        except AskError:
            message = "That question has no word to search for; use the words a paper would."
            return refused(400, "Nothing to search for", message)
        except UnknownTopic as error:
            return not_found(error)
        except PageOutOfRange as error:
            return refused(404, "No such page", f"These papers end on page {error.last:,}.")
        if not body:
            return _moved(page.topic.path + page.page_query(page.page))
        return response(body)

    async def follow(request: web.Request) -> web.Response:
        return await topic_or_follow(request, pages.follow)

    async def topic_or_follow(request: web.Request, read: PageReader) -> web.Response:
        slug, number = request.match_info["slug"], _page_number(request)
        if number is None:
            return refused(400, "No such page", "The page number must be a whole number from 1.")

        def shown(period: Period | None) -> tuple[TopicPage, str]:
            page = read(slug, page=number, now=clock(), period=period)
            if page.topic.slug != slug:
                return page, ""  # moved: answered with its new address
            return page, render("topic.html", page=page, follow=site.follow_links(page))

        try:
            period = parse_period(request.query.get("from"), request.query.get("to"))
            page, body = await readers.read(shown, period)
        except PeriodError as error:
            return refused(400, "No such period", str(error))
        except (UnknownTopic, UnknownFollow) as error:
            return not_found(error)
        except PageOutOfRange as error:
            return refused(404, "No such page", f"These papers end on page {error.last:,}.")
        if not body:
            again = page.period or page.page > 1
            return _moved(page.topic.path + (page.page_query(page.page) if again else ""))
        return response(body)

    async def topic_atom(request: web.Request) -> web.Response:
        return await feed(request, pages.topic)

    async def follow_atom(request: web.Request) -> web.Response:
        return await feed(request, pages.follow)

    async def feed(request: web.Request, read: PageReader) -> web.Response:
        slug, base = request.match_info["slug"], site.public_url or _origin(request)

        def feed_of() -> tuple[TopicPage, bytes]:
            page = read(slug, page=1, now=clock())
            if page.topic.slug != slug or base is None:
                return page, b""
            page_url = base.rstrip("/") + page.topic.path
            return page, topic_feed(
                page, page_url=page_url, feed_url=f"{page_url}.atom", now=clock()
            )

        try:
            page, body = await readers.read(feed_of)
        except (UnknownTopic, UnknownFollow) as error:
            return not_found(error)
        if page.topic.slug != slug:
            return _moved(f"{page.topic.path}.atom")
        if base is None:
            message = "The feed's links need this site's address, and the request's Host has none."
            return refused(400, "No address", message)
        headers = {"Cache-Control": PAGE_CACHE}
        if not site.public_url:
            headers["Vary"] = "Host"  # the feed's ids follow the Host header
        return web.Response(body=body, content_type="application/atom+xml", headers=headers)

    def not_found(error: UnknownTopic | UnknownFollow) -> web.Response:
        if isinstance(error, UnknownFollow):
            message = (
                "No search, author or category is followed at this address: a follow's page "
                "lasts as long as some chat follows it."
            )
            return refused(404, "No such follow", message)
        close = suggestions(error)
        return refused(404, "No such topic", "No topic has that name.", suggestions=close)

    async def static_file(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in static:
            return refused(404, "Not found", "There is no page at this address.")
        headers = {"Cache-Control": "public, max-age=86400"}
        return web.Response(body=static[name], content_type=STATIC_FILES[name], headers=headers)

    @web.middleware
    async def manners(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPNotFound:
            response = refused(404, "Not found", "There is no page at this address.")
        except _Busy:  # rendered once: a burst costs the event loop as little as can be
            response = web.Response(body=busy, status=503, content_type="text/html")
            response.headers["Retry-After"] = str(BUSY_RETRY_SECONDS)
            response.headers["Cache-Control"] = "no-store"
        except web.HTTPMethodNotAllowed as error:
            response = refused(405, "Not allowed", "These pages can only be read.")
            response.headers["Allow"] = ", ".join(sorted(error.allowed_methods))
        secure(response)
        return _conditional(request, response)

    message = "Many readers at once: this page will be back in a few seconds."
    busy = render("error.html", title="Busy", message=message).encode()
    app = web.Application(middlewares=[manners])
    app.on_cleanup.append(readers.close)
    app.router.add_get("/", index)
    app.router.add_get("/topics/{slug}.atom", topic_atom)
    app.router.add_get("/topics/{slug}", topic)
    app.router.add_get("/follows/{slug}.atom", follow_atom)
    app.router.add_get("/follows/{slug}", follow)
    app.router.add_get("/static/{name}", static_file)
    return app


def topic_pages_app(app: App) -> web.Application:
    """The pages of `app`'s store and catalog, with the follow buttons its settings allow."""
    settings = app.settings
    application = settings.discord_application_id
    site = Site(
        public_url=settings.public_url,
        telegram_bot=settings.telegram_bot_username,
        discord_application=None if application is None else str(application),
    )
    return web_app(TopicPages(app.session, app.catalog), clock=app.clock, site=site)


def _question(request: web.Request) -> str | None:
    """`?q=…` on one line; None when it is too long or comes with a period."""
    question = " ".join(request.query.get("q", "").split())
    if len(question) > MAX_QUESTION or "from" in request.query or "to" in request.query:
        return None
    return question


def _page_number(request: web.Request) -> int | None:
    text = request.query.get("page", "1")
    if not text.isascii() or not text.isdigit() or len(text) > MAX_PAGE_DIGITS:
        return None
    return int(text) or None


def _moved(path: str) -> web.Response:
    return web.Response(status=301, headers={"Location": path, "Cache-Control": PAGE_CACHE})


def _origin(request: web.Request) -> str | None:
    """This server's address as the request's Host names it; None when that is no host name
    (an Atom id must be an absolute IRI). Set PUBLIC_URL not to depend on the Host at all."""
    if not _HOST.fullmatch(request.host):
        return None
    try:
        return str(request.url.origin())
    except ValueError:  # a port past 65535
        return None


def _conditional(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """An ETag on every page with a body; 304 when the reader already holds it."""
    if response.status != 200 or not isinstance(response, web.Response) or response.body is None:
        return response
    body = response.body if isinstance(response.body, bytes) else response.text.encode()
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    response.headers["ETag"] = etag
    held = [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]
    if etag in held or "*" in held:
        not_modified = web.Response(status=304, headers={"ETag": etag})
        for name in ("Cache-Control", "Content-Security-Policy"):
            not_modified.headers[name] = response.headers[name]
        return not_modified
    return response
