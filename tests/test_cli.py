"""The command line as a user meets it: help, reports, errors and exit codes."""

from __future__ import annotations

import argparse
import fcntl
import importlib.metadata
import json
import os
import resource
import signal
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bot.app import build_app
from bot.cli import build_parser, main
from bot.settings import load_settings
from digests.store import channels, deliveries
from digests.store.engine import newest_migration
from tests.papers import jsonl_line

COMMANDS = [
    "demo",
    "run",
    "ingest",
    "backfill",
    "topics",
    "momentum",
    "links",
    "preview",
    "spikes",
    "status",
    "tag",
    "eval",
    "train",
    "retag",
    "deliveries",
    "feedback",
    "db",
]




@pytest.fixture
def papers_file(tmp_path: Path) -> Path:
    path = tmp_path / "papers.jsonl"
    lines = [
        jsonl_line(
            "2609.00001", "Reinforcement Learning for LLM Agents in Terminals", "2026-09-21"
        ),
        '{"id": "2609.00002", "title": broken',
        jsonl_line(
            "2609.00003",
            "Agentic RL with Group Relative Policy Optimization",
            "2026-09-22",
            topics=["Terminal Agents"],
        ),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    assert all(command in out for command in COMMANDS)


@pytest.mark.parametrize(
    "command",
    [[c] for c in COMMANDS] + [["db", "upgrade"], ["deliveries", "retry"], ["feedback", "export"]],
)
def test_every_command_has_its_own_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([*command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: digestbot" in capsys.readouterr().out


def every_command(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(words that call it, its parser) for every command and subcommand, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield (*path, name), command
                yield from every_command(command, (*path, name))


def test_every_command_and_option_explains_itself():
    commands = list(every_command(build_parser()))
    assert {words[0] for words, _ in commands} == set(COMMANDS)
    for words, command in commands:
        assert command.description, f"digestbot {' '.join(words)} has no description"
        for action in command._actions:
            if not isinstance(action, argparse._SubParsersAction):
                assert action.help, f"digestbot {' '.join(words)} {action.dest}: no help"


def test_date_options_say_they_take_a_date():
    for words, command in every_command(build_parser()):
        for action in command._actions:
            if {"--as-of", "--since"} & set(action.option_strings):
                assert action.metavar == "DATE", (words, action.option_strings)
                assert "YYYY-MM-DD" in command.format_help()


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"digestbot {importlib.metadata.version('digestbot')}\n"


def read_one_line_and_close(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """`digestbot ARGS | head -1`, made certain: the pipe holds one page, so the command is
    still writing when the reader has its line and goes away."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    command = [sys.executable, "-m", "bot", *args]
    with subprocess.Popen(command, stdout=write_end, stderr=subprocess.PIPE, cwd=cwd) as bot:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as reader:
            first_line = reader.readline()
        stderr = bot.communicate(timeout=60)[1].decode()
    return subprocess.CompletedProcess(command, bot.returncode, first_line.decode(), stderr)


@pytest.mark.parametrize("command", [["topics"], ["tag", "--file", "papers.jsonl"]])
def test_output_to_a_pipe_closed_early_ends_quietly(command, tmp_path):
    titles = [f"Reinforcement learning for LLM agents, part {i}" for i in range(400)]
    lines = [jsonl_line(f"2609.{i:05d}", t, "2026-09-21") for i, t in enumerate(titles)]
    (tmp_path / "papers.jsonl").write_text("\n".join(lines) + "\n")

    result = read_one_line_and_close(command, tmp_path)

    assert result.stdout.strip()
    assert result.stderr == ""  # no traceback, no "Exception ignored"
    assert result.returncode == 128 + signal.SIGPIPE


@pytest.mark.parametrize("url", ["nonsense://nowhere", "postgresql://nobody@127.0.0.1:1/none"])
def test_a_bad_database_url_is_one_clear_line_and_exit_code_2(url):
    result = run_cli("db", "upgrade", env={"DATABASE_URL": url})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("digestbot: ")


def test_ingest_file_reports_read_new_skipped_and_tags(env, papers_file, capsys):
    assert main(["ingest", "--file", str(papers_file)]) == 0
    out = capsys.readouterr().out
    assert "read: 3" in out and "new: 2" in out and "skipped: 1" in out
    assert "line 2" in out
    tags_added = int(out.split("tags added: ")[1].split()[0])
    assert tags_added >= 3  # ours for two papers, plus the upstream Terminal Agents tag


def test_ingesting_the_same_file_again_adds_nothing(env, papers_file, capsys):
    main(["ingest", "--file", str(papers_file)])
    capsys.readouterr()
    assert main(["ingest", "--file", str(papers_file)]) == 0
    out = capsys.readouterr().out
    assert "new: 0" in out and "unchanged: 2" in out and "tags added: 0" in out


def test_text_postgresql_refuses_skips_that_line_alone_on_every_backend(env, tmp_path, capsys):
    path = tmp_path / "papers.jsonl"
    lines = [
        jsonl_line("2609.00001", "Reinforcement learning for LLM agents", "2026-09-21"),
        jsonl_line("2609.00002", "Agents with a NUL \u0000 in the title", "2026-09-21"),
        jsonl_line("2609.00003", "Agents", "2026-09-21", abstract="half a pair: \ud800"),
        jsonl_line("2609.00004", "Tool-using LLM agents trained with RL", "2026-09-22"),
    ]
    path.write_text("\n".join(lines) + "\n")
    assert main(["ingest", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "read: 4\nnew: 2\n" in out and "skipped: 2" in out
    assert "line 2: title holds a NUL character ('\\x00'), which databases refuse" in out
    assert "line 3: abstract holds half a surrogate pair ('\\ud800')" in out
    main(["status"])
    assert "papers stored: 2 " in capsys.readouterr().out


def test_every_line_read_is_counted_once_and_implausible_dates_are_skipped(
    env, tmp_path, capsys
):
    path = tmp_path / "papers.jsonl"
    title = "Reinforcement learning for LLM agents"
    lines = [jsonl_line(f"2609.0000{n}", f"{title} {n}", "2026-09-21") for n in range(1, 5)]
    lines += [
        jsonl_line("2609.00009", title, "2026-09-20", version=1),
        jsonl_line("2609.00009", f"{title}, revised", "2026-09-20", version=3),
        jsonl_line("2609.00009", title, "2026-09-20", version=2),
        jsonl_line("2609.00010", title, "2999-01-01"),
        jsonl_line("2609.00011", title, "0001-01-01"),
        '{"id": "2609.00012", broken',
    ]
    path.write_text("\n".join(lines) + "\n")
    assert main(["ingest", "--file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "read: 10\nnew: 5\nupdated: 0\nunchanged: 0\nsuperseded: 2" in out
    assert "skipped: 3" in out
    assert "2609.00010: implausible published date 2999-01-01: in the future" in out
    assert "2609.00011: implausible published date 0001-01-01: before arXiv began" in out


def test_a_file_with_nothing_readable_exits_non_zero(env, tmp_path, capsys):
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n{also not\n")
    assert main(["ingest", "--file", str(garbage)]) != 0


def test_a_missing_file_is_one_line(env, tmp_path, capsys):
    assert main(["ingest", "--file", str(tmp_path / "missing.xml")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_an_unknown_topic_names_the_closest_ones(env, capsys):
    assert main(["momentum", "rl for agnets"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "RL for LLM Agents" in err


def test_momentum_json_has_the_documented_fields(env, papers_file, capsys):
    main(["ingest", "--file", str(papers_file)])
    capsys.readouterr()
    assert main(["momentum", "rl-for-llm-agents", "--as-of", "2026-09-28", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    documented = {"topic", "count", "previous", "total", "previous_total", "change_pct"}
    assert documented | {"share_pct", "line", "weekly"} <= set(data)
    assert data["topic"] == "RL for LLM Agents" and data["count"] == 2
    assert (data["total"], data["previous_total"]) == (2, 0)
    assert len(data["weekly"]) == 12


def test_topic_names_are_case_insensitive_in_the_cli(env, capsys):
    assert main(["momentum", "rl FOR llm AGENTS", "--as-of", "2026-09-28"]) == 0
    assert "in the last four weeks" in capsys.readouterr().out


def test_topics_search_finds_by_words(env, capsys):
    assert main(["topics", "--search", "memory", "--json"]) == 0
    names = [topic["name"] for topic in json.loads(capsys.readouterr().out)]
    assert "LLM Agent Memory" in names


def test_preview_prints_the_papers_of_the_followed_topic(env, tmp_path, capsys):
    path = tmp_path / "one.jsonl"
    # The CLI tags papers at the current time, so the paper is from yesterday.
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    path.write_text(
        jsonl_line("2609.00001", "Reinforcement Learning for LLM Agents", yesterday) + "\n"
    )
    main(["ingest", "--file", str(path)])
    capsys.readouterr()
    assert main(["preview", "--follow", "RL for LLM Agents"]) == 0
    out = capsys.readouterr().out
    assert "Reinforcement Learning for LLM Agents" in out
    assert "https://arxiv.org/abs/2609.00001" in out


def test_preview_writes_the_chart_a_chat_would_show(env, tmp_path, capsys):
    chart = tmp_path / "chart.png"
    assert (
        main(
            [
                "preview",
                "--follow",
                "RL for LLM Agents",
                "--follow",
                "llm reasoning",
                "--chart",
                str(chart),
            ]
        )
        == 0
    )
    assert chart.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"Chart written to {chart}" in capsys.readouterr().err


def test_preview_says_in_one_line_when_the_chart_cannot_be_written(env, tmp_path, capsys):
    missing = tmp_path / "no-such-folder" / "chart.png"
    assert main(["preview", "--follow", "RL for LLM Agents", "--chart", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "cannot write the chart" in err and "No such file" in err


def test_db_upgrade_reports_the_revision(env, capsys):
    assert main(["db", "upgrade"]) == 0
    assert f"revision {newest_migration()}" in capsys.readouterr().out


def spike_file(path: Path, as_of: date) -> Path:
    lines = []
    for n in range(70):
        day = as_of - timedelta(days=n % 28)
        lines.append(
            jsonl_line(
                f"2609.{n:05d}", f"Reinforcement learning for LLM agents {n}", day.isoformat()
            )
        )
    for n in range(29):
        day = as_of - timedelta(days=28 + n % 28)
        lines.append(
            jsonl_line(
                f"2608.{n:05d}", f"Reinforcement learning for LLM agents {n}", day.isoformat()
            )
        )
    for n in range(2000):
        paper = {
            "id": f"2607.{n:05d}",
            "title": f"Galaxy survey {n}",
            "abstract": "Stars.",
            "authors": ["V. Rubin"],
            "categories": ["astro-ph.CO"],
            "published": (as_of - timedelta(days=n % 56)).isoformat(),
        }
        lines.append(json.dumps(paper))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_spikes_shows_what_would_alert_and_why(env, tmp_path, capsys):
    as_of = date(2026, 9, 28)
    main(["ingest", "--file", str(spike_file(tmp_path / "spike.jsonl", as_of))])
    capsys.readouterr()
    assert main(["spikes", "--as-of", as_of.isoformat(), "--json"]) == 0
    decisions = {d["slug"]: d for d in json.loads(capsys.readouterr().out)}
    assert decisions["rl-for-llm-agents"]["alert"] is True
    assert decisions["rl-for-llm-agents"]["reason"].startswith("alert:")
    assert main(["spikes", "--as-of", as_of.isoformat()]) == 0
    assert "RL for LLM Agents: 70 vs 29 — alert" in capsys.readouterr().out


def test_status_summarises_the_store(env, papers_file, capsys):
    main(["ingest", "--file", str(papers_file)])
    capsys.readouterr()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "papers stored: 2" in out and "deliveries waiting: 0" in out


def test_run_once_with_arxiv_down_says_so_and_prints_no_digest(env):
    result = run_cli(
        "run",
        "--once",
        env={
            "DATABASE_URL": env,
            "ARXIV_API_URL": "http://127.0.0.1:9/api/query",
            "ARXIV_RSS_URL": "http://127.0.0.1:9/rss",
            "ARXIV_MAX_RETRIES": "0",
            "ARXIV_REQUEST_INTERVAL": "0",
        },
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.endswith("no digest printed\n") and "digestbot: arXiv: " in result.stderr
    assert "Traceback" not in result.stderr


def failed_delivery(database_url: str, *, reason: str, failed_at: datetime) -> None:
    app = build_app(load_settings(database_url=database_url))
    with app.session() as session:
        channel = channels.get_or_create_channel(
            session, platform="telegram", chat_id="42", now=failed_at
        )
        delivery_id = deliveries.enqueue(
            session,
            channel_id=channel.id,
            kind="weekly",
            period_key=failed_at.date().isoformat(),
            parts=[{"text": "digest"}],
            now=failed_at,
        )
        deliveries.release(
            session, delivery_id, retry_at=failed_at, error=reason, give_up=True, now=failed_at
        )
        session.commit()
    app.close()


def test_status_says_why_deliveries_failed_and_retry_queues_them_again(env, capsys):
    failed_delivery(env, reason="not sent in its window: Bad Gateway", failed_at=datetime.now(UTC))
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "deliveries waiting: 0 (failed: 1); `digestbot deliveries retry`" in out
    assert "  failed telegram 42 weekly " in out and ": not sent in its window: Bad Gateway" in out

    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    assert main(["deliveries", "retry", "--since", tomorrow]) == 0
    assert capsys.readouterr().out == "0 failed deliveries queued to be sent again\n"
    assert main(["deliveries", "retry"]) == 0
    assert capsys.readouterr().out == "1 failed delivery queued to be sent again\n"
    main(["status"])
    assert "deliveries waiting: 1 (failed: 0)\n" in capsys.readouterr().out


@pytest.mark.parametrize("missing", ["folder", "file"])
def test_status_on_a_database_that_does_not_exist_says_so_and_creates_nothing(
    tmp_path, monkeypatch, capsys, missing
):
    folder = tmp_path / "no-such-folder" if missing == "folder" else tmp_path
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{folder / 'digestbot.db'}")
    assert main(["status"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"digestbot: no database at {folder / 'digestbot.db'}: the {missing} ")
    assert len(err.splitlines()) == 1
    assert not (folder / "digestbot.db").exists() and folder.exists() == (missing == "file")


def test_a_full_disk_during_ingest_ends_in_one_line(tmp_path):
    """Tried: a 1,500-paper file into a SQLite file that may grow by 64 kB only (a file size
    limit on the process, as a full disk refuses the next write)."""
    database = tmp_path / "digestbot.db"
    env = {"DATABASE_URL": f"sqlite:///{database}"}
    assert run_cli("db", "upgrade", env=env).returncode == 0
    papers = tmp_path / "many.jsonl"
    papers.write_text(
        "\n".join(
            jsonl_line(f"2609.{n:05d}", f"Agents and tools, study {n}", "2026-09-21")
            for n in range(1, 1_501)
        )
    )
    limit = database.stat().st_size + 64 * 1024

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run(
        [sys.executable, "-m", "bot", "ingest", "--file", str(papers)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        preexec_fn=small_disk,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[-3000:]
    line = lines[0]
    assert line.startswith("digestbot: the database failed: disk I/O error"), line
