"""What an idle bot carries: the HTTP server and its friends load only when HTTP is served."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SERVING_ONLY = (
    "aiohttp.web",
    "prometheus_client",
    "jinja2",
    "tornado",
    "bot.web",
    "bot.health",
    "bot.http_server",
)


def test_a_polling_bot_without_health_or_web_port_loads_no_http_server():
    # In a fresh interpreter, the modules `digestbot run` imports to poll Telegram and
    # connect to Discord; the server parts are imported by `start_servers` or webhook mode.
    script = textwrap.dedent(
        f"""
        import sys
        import bot.cli, bot.runner, bot.app, bot.platforms.telegram, bot.platforms.discord
        print(sorted(name for name in {SERVING_ONLY!r} if name in sys.modules))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
