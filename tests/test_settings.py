"""Settings: every one documented in .env.example, and bad values refused with a clear line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.settings import SettingsError, load_settings, setting_names

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


def test_every_setting_is_documented_in_the_env_example():
    documented = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", ENV_EXAMPLE.read_text(), re.M))
    assert set(setting_names()) <= documented


def test_the_env_example_loads_as_it_is(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(ENV_EXAMPLE.read_text())
    settings = load_settings()
    assert settings.arxiv_request_interval == 3 and settings.telegram_token is None


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("arxiv_page_size", 5000, "ARXIV_PAGE_SIZE"),
        ("arxiv_categories", "", "ARXIV_CATEGORIES"),
        ("telegram_webhook_listen", "nonsense", "TELEGRAM_WEBHOOK_LISTEN"),
        ("topics_file", "/no/such/topics.toml", "TOPICS_FILE"),
        ("health_port", 70000, "HEALTH_PORT"),
    ],
)
def test_a_bad_value_is_refused_naming_the_setting(name, value, complaint):
    with pytest.raises(SettingsError, match=complaint):
        load_settings(**{name: value})


def test_spike_settings_are_read_under_their_spike_names(monkeypatch):
    monkeypatch.setenv("SPIKE_FDR_Q", "0.01")
    monkeypatch.setenv("SPIKE_COOLDOWN_DAYS", "30")
    spike = load_settings().spike
    assert (spike.fdr_q, spike.cooldown_days, spike.min_count) == (0.01, 30, 10)


@pytest.mark.parametrize(
    ("settings", "complaint"),
    [
        (
            {"SPIKE_MIN_SHARE_RATIO": "1.3", "SPIKE_REARM_SHARE_RATIO": "1.4"},
            "SPIKE_REARM_SHARE_RATIO: must not exceed SPIKE_MIN_SHARE_RATIO (1.3)",
        ),
        ({"SPIKE_FDR_Q": "1"}, "SPIKE_FDR_Q: Input should be less than 1"),
        (
            {"SCHEDULER_LEASE_SECONDS": "10", "SCHEDULER_TICK_SECONDS": "15"},
            "SCHEDULER_LEASE_SECONDS (10) must exceed SCHEDULER_TICK_SECONDS (15)",
        ),
    ],
)
def test_settings_that_disagree_are_refused_at_load_naming_them(settings, complaint, monkeypatch):
    for name, value in settings.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as refused:
        load_settings()
    assert str(refused.value).startswith(complaint)


def test_tokens_never_show_in_the_settings_repr():
    settings = load_settings(telegram_token="123:secret-token")
    assert "secret-token" not in repr(settings)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DATABASE_URL", "mysql://digestbot@db.example.org/digestbot"),
        ("LOG_LEVEL", "verbose"),
        ("SPIKE_REARM_SHARE_RATIO", "2"),
        ("TELEGRAM_API_URL", "api.telegram.org"),
        ("DISCORD_GATEWAY_URL", "https://gateway.discord.gg"),
    ],
)
def test_at_start_a_bad_setting_is_one_line_naming_it_and_exit_code_2(
    name, value, monkeypatch, tmp_path, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(name, value)
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and name in err and "Traceback" not in err


def test_a_sqlite_path_that_cannot_be_created_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "papers").write_text("a file, not a folder")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'papers' / 'digestbot.db'}")
    assert main(["db", "upgrade"]) == 2  # `status` never creates a database
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot create the folder" in err


def test_a_misspelt_setting_in_the_env_file_is_warned_about_with_the_closest_name(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "DATABSE_URL=sqlite:///elsewhere.db\nTELEGRAM_TOKN=1:x\nEDITOR=vim\nLOG_LEVEL=INFO\n"
    )
    assert main(["topics", "--search", "memory"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 2  # EDITOR is nobody's misspelling; LOG_LEVEL is a setting
    assert "DATABSE_URL is not a setting; did you mean DATABASE_URL?" in warnings[0]
    assert "did you mean TELEGRAM_TOKEN?" in warnings[1]
