"""Benchmark: resident memory of `digestbot run` when idle with both chat adapters configured.

    .venv/bin/python bench/bench_idle_memory.py [--samples 10]

Starts the fake Telegram and Discord servers from the test suite on 127.0.0.1, then
`digestbot db upgrade` and `digestbot run` as subprocesses, as the Procfile's release and worker
steps, with both tokens pointing at them and a fresh SQLite database.
Once the Telegram adapter is long-polling and the Discord client has identified on the gateway,
it samples the process's VmRSS once a second and prints the median (and the peak).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.discord_server import FakeDiscord  # noqa: E402
from tests.fakes.telegram_server import FakeTelegram  # noqa: E402


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def measure(samples: int) -> list[float]:
    async with FakeTelegram() as telegram, FakeDiscord() as discord:
        with tempfile.TemporaryDirectory() as folder:
            env = {
                **os.environ,
                "DATABASE_URL": f"sqlite:///{folder}/idle.db",
                "TELEGRAM_TOKEN": telegram.token,
                "TELEGRAM_API_URL": telegram.api_url.removesuffix("/bot"),
                "DISCORD_TOKEN": discord.token,
                "DISCORD_API_URL": discord.api_url,
                "DISCORD_GATEWAY_URL": discord.gateway_url,
                "ARXIV_API_URL": "http://127.0.0.1:9/api",
                "ARXIV_RSS_URL": "http://127.0.0.1:9",
                "LOG_LEVEL": "WARNING",
            }
            # As the Procfile deploys: the release step migrates, then `run` starts at head.
            subprocess.run([sys.executable, "-m", "bot", "db", "upgrade"], env=env, check=True)
            bot = subprocess.Popen([sys.executable, "-m", "bot", "run"], env=env, cwd=folder)
            try:
                await discord.wait_for("identify", timeout=60)
                while not any(method == "getUpdates" for method, _ in telegram.calls):
                    await asyncio.sleep(0.1)
                await asyncio.sleep(3)  # let start-up work (catalog sync, command sync) settle
                readings = []
                for _ in range(samples):
                    readings.append(rss_mib(bot.pid))
                    await asyncio.sleep(1)
                return readings
            finally:
                bot.terminate()
                await asyncio.to_thread(bot.wait, 15)  # the fakes keep answering meanwhile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    args = parser.parse_args()
    readings = asyncio.run(measure(args.samples))
    print(
        f"digestbot run, idle, Telegram + Discord configured: RSS median "
        f"{statistics.median(readings):.1f} MiB, peak {max(readings):.1f} MiB "
        f"({len(readings)} samples)"
    )


if __name__ == "__main__":
    main()
