"""`digestbot --version`, `--help` and `COMMAND --help` answer without loading the application:
people type them by hand and in shell loops, so they must not pay for the database layer,
NumPy or the chat libraries. Each runs in a fresh interpreter under `python -X importtime`,
which names every module imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.cli import BY_NAME

HEAVY = ("sqlalchemy", "sqlmodel", "numpy", "discord", "telegram", "slack_sdk", "slack_bolt")


def imported_modules(*args: str) -> tuple[set[str], subprocess.CompletedProcess]:
    finished = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in finished.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return modules, finished


def heavy_among(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize("args", [["--version"], ["--help"]])
def test_version_and_help_import_nothing_heavy(args):
    modules, finished = imported_modules(*args)
    assert finished.returncode == 0, finished.stderr[-500:]
    assert finished.stdout.startswith("digestbot" if args == ["--version"] else "usage:")
    assert "bot.cli" in modules  # the probe sees our imports at all
    assert heavy_among(modules) == []


def test_every_command_help_imports_nothing_heavy():
    """One interpreter per command: each COMMAND --help answers from the parser alone."""
    loaded = {}
    for command in BY_NAME:
        modules, finished = imported_modules(command, "--help")
        assert finished.returncode == 0, (command, finished.stderr[-500:])
        assert finished.stdout.startswith("usage: digestbot " + command)
        loaded[command] = heavy_among(modules)
    assert loaded == {command: [] for command in BY_NAME}


def test_momentum_of_a_catalog_topic_counts_without_the_orm(tmp_path, monkeypatch):
    """`digestbot momentum TOPIC` is typed in loops: it reads three counts with SQLAlchemy
    Core and loads neither SQLModel's mapped classes, the tagger (NumPy) nor a chat library."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/store.db")
    monkeypatch.setenv("LOG_LEVEL", "WARNING")
    migrated = subprocess.run(
        [sys.executable, "-m", "bot", "db", "upgrade"], capture_output=True, text=True, timeout=120
    )
    assert migrated.returncode == 0, migrated.stderr[-500:]
    modules, finished = imported_modules("momentum", "RL for LLM Agents", "--as-of", "2026-03-01")
    assert finished.returncode == 0, finished.stderr[-500:]
    assert finished.stdout.startswith("RL for LLM Agents\nNo papers in the last four weeks")
    assert "sqlalchemy.engine" in modules  # it did read the store
    assert [m for m in heavy_among(modules) if not m.startswith("sqlalchemy")] == []
    assert "sqlalchemy.orm" not in modules
