"""Telegram's webhook: the updates Telegram pushes, received on an aiohttp server of our own.

python-telegram-bot's webhook server needs tornado, 2.5 MiB that an idle bot would carry for
nothing; aiohttp is a dependency anyway (Discord). Updates go to the
application's queue, so they are handled exactly as polled ones are.

An update is answered 200 only once it is in the store's inbox (`accept`): Telegram never
sends it again, so it must survive a stop. One received before is answered 200 and dropped;
when the store cannot take it the answer is 503, and Telegram sends it again later.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.http_server import start_web_server

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Telegram's updates are a few kB; a message with a long text and entities stays far below.
MAX_BODY = 1024 * 1024


class WebhookReceiver:
    """Serves POST `path` on host:port; only requests carrying `secret` are accepted."""

    def __init__(
        self,
        application: Application,
        *,
        path: str,
        secret: str,
        accept: Callable[[Update, dict], Awaitable[bool]] | None = None,
    ) -> None:
        self.application = application
        self.accept = accept
        self.path = path if path.startswith("/") else f"/{path}"
        self.secret = secret.encode()
        self._runner: web.AppRunner | None = None

    def web_app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post(self.path, self._receive)
        return app

    async def start(self, host: str, port: int) -> None:
        self._runner = await start_web_server(self.web_app(), host, port)

    async def stop(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def _receive(self, request: web.Request) -> web.Response:
        # aiohttp keeps header bytes that are no UTF-8 as surrogates; they are still compared.
        given = request.headers.get(SECRET_HEADER, "").encode(errors="surrogateescape")
        if not hmac.compare_digest(given, self.secret):
            return web.Response(status=403, text="wrong or missing secret token")
        body = await request.read()  # over MAX_BODY: aiohttp answers 413 itself
        try:
            payload = json.loads(body)
            update = Update.de_json(payload, self.application.bot)
        except Exception as exc:  # not JSON, or JSON that is not an update
            log.warning("telegram: webhook refused a body that is not an update: %s", exc)
            return web.Response(status=400, text="not a Telegram update")
        try:
            new = self.accept is None or await self.accept(update, payload)
        except Exception:
            log.warning("telegram: could not store update %s", update.update_id, exc_info=True)
            return web.Response(status=503, headers={"Retry-After": "10"})
        if new:
            await self.application.update_queue.put(update)
        return web.Response(status=200)
