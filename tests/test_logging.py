"""What `digestbot run` logs at INFO: no routine lines of the scheduler's own, every tick, and
no warning about voice from discord.py (the bot has no voice); at DEBUG the scheduler's lines
are back. Each run is a fresh interpreter: discord.py warns once per process."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import asyncio, sys
from apscheduler.schedulers.asyncio import AsyncIOScheduler
import discord
from bot.logs import configure_logging
from bot.settings import load_settings

configure_logging(load_settings(log_level=sys.argv[1]))

async def main():
    discord.Client(intents=discord.Intents(guilds=True))
    ran = asyncio.Event()
    scheduler = AsyncIOScheduler()
    scheduler.add_job(ran.set, id="tick", name="tick")
    scheduler.start()
    await asyncio.wait_for(ran.wait(), 10)
    await asyncio.sleep(0.1)  # the executor logs its second line after the job returns
    scheduler.shutdown()

asyncio.run(main())
"""


def logged(level: str) -> str:
    finished = subprocess.run(
        [sys.executable, "-c", SCRIPT, level], capture_output=True, text=True, timeout=60
    )
    assert finished.returncode == 0, finished.stderr[-2000:]
    return finished.stderr


@pytest.mark.parametrize("level", ["INFO", "WARNING"])
def test_routine_scheduler_lines_and_the_voice_warning_are_not_logged(level):
    text = logged(level)
    assert "Running job" not in text and "executed successfully" not in text
    assert "voice will NOT be supported" not in text


def test_at_debug_the_scheduler_says_what_it_runs():
    assert 'Running job "tick' in logged("DEBUG")
