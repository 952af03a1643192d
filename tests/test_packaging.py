"""What a deployment reads: the license it ships under and the Procfile's processes."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_file_is_the_license_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License\n")


def procfile_processes() -> dict[str, list[str]]:
    """Process type → the command's words, without leading VAR=value assignments."""
    processes = {}
    for line in (ROOT / "Procfile").read_text().splitlines():
        if match := re.fullmatch(r"([A-Za-z0-9_-]+):\s*(.+)", line):
            words = shlex.split(match[2])
            while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
                words.pop(0)
            processes[match[1]] = words
    return processes


def test_every_procfile_process_is_a_digestbot_command():
    processes = procfile_processes()
    assert processes["release"] == ["digestbot", "db", "upgrade"]
    assert processes["worker"] == ["digestbot", "run"]
    for words in processes.values():
        assert words[0] == "digestbot"
        build_parser().parse_args(words[1:])  # exits with a usage error if it is not one
