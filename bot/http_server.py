"""Starting an aiohttp application on a host and port: the health endpoint, the topic pages
and Telegram's webhook receiver all start this way.

Every connection gets `HEAD_TIMEOUT` seconds to send a whole request head (aiohttp's
keep-alive timer, which also runs from the moment a client connects), so a client sending
its headers one byte at a time holds no connection for long. Answers aiohttp gives itself
(400 for a request it cannot parse, 500 for a handler that failed) carry the security headers
and only the status's name: never a part of the request or a traceback.
"""

from __future__ import annotations

from http import HTTPStatus

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from digests.errors import Unavailable

HEAD_TIMEOUT = 10.0  # seconds
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def secure(response: web.StreamResponse) -> None:
    response.headers.update(SECURITY_HEADERS)


class _Connection(RequestHandler):
    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        phrase = f"{status} {HTTPStatus(status).phrase}\n"
        response = super().handle_error(request, status, exc, phrase)
        if status == HTTPStatus.INTERNAL_SERVER_ERROR:
            response.text = phrase  # aiohttp's debug mode would add the traceback
        secure(response)
        return response


class _Server(web.Server):
    def __call__(self) -> RequestHandler:
        return _Connection(self, loop=self._loop, **self._kwargs)


class _Runner(web.AppRunner):
    async def _make_server(self) -> web.Server:
        made = await super()._make_server()
        return _Server(
            made.request_handler,
            request_factory=made.request_factory,
            handler_cancellation=made.handler_cancellation,
            **made._kwargs,
        )


async def start_web_server(
    app: web.Application, host: str, port: int, *, head_timeout: float = HEAD_TIMEOUT
) -> web.AppRunner:
    """Serving `app`; a port that cannot be bound raises `Unavailable` (told in one line), with
    nothing left open."""
    runner = _Runner(app, access_log=None, keepalive_timeout=head_timeout)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:
        await runner.cleanup()
        reason = error.strerror or str(error)
        raise Unavailable(f"cannot listen on {host}:{port}: {reason}") from None
    except BaseException:
        await runner.cleanup()
        raise
    return runner
