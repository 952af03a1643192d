"""Wall time of commands typed by hand: `--version`, `--help`, `topics`, `momentum TOPIC`.

    .venv/bin/python bench/bench_cli_startup.py [--repeat 7] [--store FILE.db] [--python PY]

Each command runs as `PY -m bot ...` in a fresh process, in an empty folder (no `.env`), against
a SQLite store of the real 2025 corpus (`../shared/data/arxiv-real/ai-2025.jsonl.gz`, 40,717
papers). The store is built once with `digestbot ingest --file` unless `--store` names one that
exists (it is kept there for the next run). `--python` runs another checkout's interpreter
(its own venv), to measure before and after in one sitting. Prints the median of the runs.
Floors: `--version` and `--help` 0.15 s, `momentum` 0.6 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL = REPO.parent / "shared" / "data" / "arxiv-real" / "ai-2025.jsonl.gz"
TOPIC = "rl-for-llm-agents"
AS_OF = "2025-12-31"
COMMANDS = {
    "--version": (["--version"], 0.15),
    "--help": (["--help"], 0.15),
    "topics": (["topics"], None),
    f"momentum {TOPIC}": (["momentum", TOPIC, "--as-of", AS_OF], 0.6),
}


def timed(python: str, args: list[str], env: dict[str, str], folder: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "bot", *args],
        env=env,
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def build_store(python: str, store: Path, env: dict[str, str], folder: str) -> None:
    print(f"building {store} from {REAL.name} ...", file=sys.stderr)
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "bot", "ingest", "--file", str(REAL)],
        env=env,
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print(f"built in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--store", type=Path, help="SQLite file to use (built when missing)")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the checkout")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="digestbot-cli-") as folder:
        store = (args.store or Path(folder) / "store.db").resolve()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{store}", "LOG_LEVEL": "WARNING"}
        if not store.exists():
            build_store(args.python, store, env, folder)
        timed(args.python, ["--version"], env, folder)  # warm the file cache
        print(f"{args.python}: median of {args.repeat} runs, store {store.name}")
        for name, (command, floor) in COMMANDS.items():
            runs = [timed(args.python, command, env, folder) for _ in range(args.repeat)]
            median = statistics.median(runs)
            verdict = (
                ""
                if floor is None
                else (f"  ({'meets' if median <= floor else 'misses'} the {floor} s floor)")
            )
            print(f"  digestbot {name:<28} {median:6.3f} s{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
