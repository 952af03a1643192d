"""`digestbot run` serving a store, and Debian's Chromium driven by Playwright: what the tests of
the pages in a real browser share (their `browser` fixture is in tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine

from digests.store.engine import open_engine, upgrade_schema

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
START_SECONDS = 60.0


def chromium_or_skip() -> str:
    if Path(CHROMIUM).is_file() and shutil.which(CHROMIUM):
        return CHROMIUM
    if os.environ.get("CI") == "true":
        pytest.fail(f"no Chromium at {CHROMIUM}: .ci/run installs Debian's chromium")
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium to run the browser tests)")


sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is a test dependency")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, bot: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if bot.poll() is not None:
            raise AssertionError(f"digestbot run exited: {bot.stderr.read().decode()[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"digestbot run did not listen on {port} within {timeout:g} s")


def sqlite_store(folder: Path) -> tuple[str, Engine]:
    """A new SQLite store in `folder`, migrated: its URL and an engine."""
    url = f"sqlite:///{folder / 'digestbot.db'}"
    engine = open_engine(url)
    upgrade_schema(engine)
    return url, engine


@contextmanager
def digestbot_run(folder: Path, database_url: str, **settings: str) -> Iterator[str]:
    """`digestbot run` serving the store at `database_url` with `settings` added, until the
    block ends; yields the pages' base URL."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "DISCORD_"))},
        "DATABASE_URL": database_url,
        "WEB_PORT": str(port),
        "WEB_HOST": "127.0.0.1",
        "ARXIV_API_URL": "http://127.0.0.1:9/api",  # nothing listens: no ingest leaves the host
        "ARXIV_RSS_URL": "http://127.0.0.1:9/rss",
        **settings,
    }
    command = [sys.executable, "-m", "bot", "run"]
    with subprocess.Popen(command, cwd=folder, env=env, stderr=subprocess.PIPE) as bot:
        try:
            wait_for_port(port, bot, START_SECONDS)
            yield f"http://127.0.0.1:{port}"
        finally:
            bot.terminate()
            bot.wait(timeout=30)


class Visit:
    """A page opened in a fresh tab, with every console error and alert it caused."""

    def __init__(self, browser, url: str, *, width: int = 1200) -> None:
        self.tab = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.tab.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.tab.on("pageerror", lambda error: self.errors.append(str(error)))
        self.tab.on(
            "dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss())
        )
        self.response = self.tab.goto(url, wait_until="load")

    def shoot(self, folder: Path, name: str) -> Path:
        path = folder / f"{name}.png"
        self.tab.screenshot(path=str(path), full_page=True)
        return path


@contextmanager
def chromium() -> Iterator:
    """Headless Chromium, closed when the block ends."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium_or_skip(), args=["--no-sandbox"]
        )
        yield browser
        browser.close()
