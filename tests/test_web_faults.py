"""The web server under hostile or faulty requests: what aiohttp answers itself carries the
security headers and echoes nothing, a slow client is cut off, and caches get what they need."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from aiohttp import web

from bot.http_server import SECURITY_HEADERS, start_web_server
from bot.web import Site, web_app
from digests.errors import Unavailable
from tests.web_site import NOW, RL, fetch, seed, serving


async def raw_exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    try:
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


def head_and_body(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    return status, dict(line.split(": ", 1) for line in lines), body


async def test_a_method_the_pages_refuse_is_answered_405_with_allow(
    engine, catalog, unused_tcp_port
):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port):
        answer = await raw_exchange(
            unused_tcp_port,
            f"DELETE /topics/{RL} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".encode(),
        )
    status, headers, _ = head_and_body(answer)
    assert status.startswith("HTTP/1.1 405")
    assert set(headers["Allow"].split(", ")) == {"GET", "HEAD"}


async def test_a_request_the_server_cannot_parse_gets_400_with_security_headers_and_no_echo(
    engine, catalog, unused_tcp_port
):
    """Tried: a method with a control character, a request line with markup, a header with
    no colon."""
    tried = [
        b"GE\x01T /<script>x</script> HTTP/1.1\r\nHost: a\r\n\r\n",
        b"GET /<script>x</script> HTTP/7.3<b>\r\nHost: a\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a\r\n<script>no colon</script>\r\n\r\n",
    ]
    async with serving(engine, catalog, unused_tcp_port):
        answers = [await raw_exchange(unused_tcp_port, request) for request in tried]
    for answer in answers:
        status, headers, body = head_and_body(answer)
        assert status.split()[1] == "400", answer[:80]
        assert all(headers.get(name) == value for name, value in SECURITY_HEADERS.items())
        assert body == b"400 Bad Request\n"


class FailingPages:
    """Pages whose store fails with a message that must not reach the reader."""

    def index(self, **_):
        raise RuntimeError("password=hunter2 at db.internal")


async def test_a_page_that_fails_answers_500_with_security_headers_and_no_detail(
    unused_tcp_port,
):
    app = web_app(FailingPages(), clock=lambda: NOW)
    runner = await start_web_server(app, "127.0.0.1", unused_tcp_port)
    try:
        answer = await raw_exchange(
            unused_tcp_port, b"GET / HTTP/1.1\r\nHost: a\r\nAccept: text/html\r\n\r\n"
        )
    finally:
        await runner.cleanup()
    status, headers, body = head_and_body(answer)
    assert status.startswith("HTTP/1.1 500")
    assert all(headers.get(name) == value for name, value in SECURITY_HEADERS.items())
    assert b"hunter2" not in body and b"Traceback" not in body


async def test_a_client_sending_its_headers_one_byte_at_a_time_is_cut_off(unused_tcp_port):
    app = web.Application()
    runner = await start_web_server(app, "127.0.0.1", unused_tcp_port, head_timeout=1.0)
    reader, writer = await asyncio.open_connection("127.0.0.1", unused_tcp_port)
    started, closed_after = time.monotonic(), None
    try:
        for byte in b"GET / HTTP/1.1\r\nX-Slow: " + b"a" * 100:
            writer.write(bytes([byte]))
            try:
                await writer.drain()
                if await asyncio.wait_for(reader.read(1), 0.2) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except ConnectionError:
                closed_after = time.monotonic() - started
                break
    finally:
        writer.close()
        await runner.cleanup()
    assert closed_after is not None and closed_after < 5


async def test_the_atom_feed_named_after_the_host_varies_by_host(engine, catalog, unused_tcp_port):
    seed(engine, catalog)
    async with serving(engine, catalog, unused_tcp_port) as base:
        _, by_host, _ = await fetch(f"{base}/topics/{RL}.atom")
    site = Site(public_url="https://digests.example.org")
    async with serving(engine, catalog, unused_tcp_port, site=site) as base:
        _, by_setting, _ = await fetch(f"{base}/topics/{RL}.atom")
    assert "Host" in by_host.get("Vary", "") and "public" in by_host["Cache-Control"]
    assert "Host" not in by_setting.get("Vary", "")


async def test_a_port_already_in_use_is_told_in_one_line(unused_tcp_port):
    taken = socket.socket()
    taken.bind(("127.0.0.1", unused_tcp_port))
    taken.listen()
    try:
        with pytest.raises(Unavailable) as raised:
            await start_web_server(web.Application(), "127.0.0.1", unused_tcp_port)
    finally:
        taken.close()
    told = raised.value.user_text()
    assert told.startswith(f"cannot listen on 127.0.0.1:{unused_tcp_port}: ")
    assert "\n" not in told and "Traceback" not in told
