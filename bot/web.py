"""The topic pages on the web (WEB_PORT): `/`, `/topics/<slug>` and `/topics/<slug>.atom`.

The pages' data comes from `digests.pages`; this module only routes, renders the Jinja2
templates (autoescaped) and adds the manners of a public page: ETag and Cache-Control (304 for
an unchanged page), a Content-Security-Policy that allows no script and no inline style, and
an error page for every refusal that names what went wrong without echoing the request.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from importlib import resources

from aiohttp import web
from jinja2 import Environment, PackageLoader, select_autoescape

from bot.app import App
from digests.chat.links import discord_install_link, telegram_follow_link
from digests.pages.atom import topic_feed
from digests.pages.topic_pages import PageOutOfRange, TopicPages, suggestions
from digests.topics.catalog import UnknownTopic

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
PAGE_CACHE = "public, max-age=300"
ERROR_CACHE = "public, max-age=60"
STATIC_FILES = {"site.css": "text/css", "icon.svg": "image/svg+xml"}
SORTS = ("", "trending")
MAX_PAGE_DIGITS = 6

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class Site:
    """What the pages know of the world outside: where they are, and the bot's accounts."""

    public_url: str | None = None
    telegram_bot: str | None = None
    discord_application: str | None = None

    def follow_links(self, slug: str) -> list[tuple[str, str]]:
        """(label, URL) of each follow button the settings allow."""
        links = []
        if self.telegram_bot:
            links.append(("Follow in Telegram", telegram_follow_link(self.telegram_bot, slug)))
        if self.discord_application:
            links.append(("Add to Discord", discord_install_link(self.discord_application)))
        return links


def web_app(
    pages: TopicPages, *, clock: Callable[[], datetime], site: Site | None = None
) -> web.Application:
    """The pages as an aiohttp application (HEALTH_PORT's routes may be added to it)."""
    site = site or Site()
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
        body = templates.get_template(name).render(site=site, **context)
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
        topics = await asyncio.to_thread(pages.index, now=clock(), trending=sort == "trending")
        return html("index.html", topics=topics, trending=sort == "trending")

    async def topic(request: web.Request) -> web.Response:
        slug, number = request.match_info["slug"], _page_number(request)
        if number is None:
            return refused(400, "No such page", "The page number must be a whole number from 1.")
        try:
            page = await asyncio.to_thread(pages.topic, slug, page=number, now=clock())
        except UnknownTopic as error:
            return not_found_topic(error)
        except PageOutOfRange as error:
            return refused(404, "No such page", f"This topic's papers end on page {error.last:,}.")
        if page.topic.slug != slug:
            return _moved(f"/topics/{page.topic.slug}")
        follow = site.follow_links(page.topic.slug)
        return html("topic.html", page=page, follow=follow)

    async def feed(request: web.Request) -> web.Response:
        slug = request.match_info["slug"]
        try:
            page = await asyncio.to_thread(pages.topic, slug, page=1, now=clock())
        except UnknownTopic as error:
            return not_found_topic(error)
        if page.topic.slug != slug:
            return _moved(f"/topics/{page.topic.slug}.atom")
        base = site.public_url or _origin(request)
        page_url = f"{base}/topics/{page.topic.slug}"
        body = topic_feed(page, page_url=page_url, feed_url=f"{page_url}.atom", now=clock())
        headers = {"Cache-Control": PAGE_CACHE}
        return web.Response(body=body, content_type="application/atom+xml", headers=headers)

    def not_found_topic(error: UnknownTopic) -> web.Response:
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
        except web.HTTPMethodNotAllowed:
            response = refused(405, "Not allowed", "These pages can only be read.")
        _secure(response)
        return _conditional(request, response)

    app = web.Application(middlewares=[manners])
    app.router.add_get("/", index)
    app.router.add_get("/topics/{slug}.atom", feed)
    app.router.add_get("/topics/{slug}", topic)
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


def _page_number(request: web.Request) -> int | None:
    text = request.query.get("page", "1")
    if not text.isascii() or not text.isdigit() or len(text) > MAX_PAGE_DIGITS:
        return None
    return int(text) or None


def _moved(path: str) -> web.Response:
    return web.Response(status=301, headers={"Location": path, "Cache-Control": PAGE_CACHE})


def _origin(request: web.Request) -> str:
    """This server's address as the request names it; "" (relative links) if it is unusable."""
    try:
        return str(request.url.origin())
    except ValueError:
        return ""


def _secure(response: web.StreamResponse) -> None:
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"


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
