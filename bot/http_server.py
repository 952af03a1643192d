"""Starting an aiohttp application on a host and port: the health endpoint, the topic pages
and Telegram's webhook receiver all start this way."""

from __future__ import annotations

from aiohttp import web


async def start_web_server(app: web.Application, host: str, port: int) -> web.AppRunner:
    """Serving `app`; a port that cannot be bound raises, with nothing left open."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner
