"""One TLS context for every HTTPS client of the process.

httpx builds a context per client, loading the whole CA bundle each time: about 1 MiB of
memory per client, and the bot keeps two for Telegram alone. A context is safe to share
between clients; this one trusts what httpx's default trusts (certifi's bundle).
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
