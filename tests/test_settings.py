"""Settings: every one documented in .env.example, and bad values refused with a clear line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError, load_settings

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


def test_every_setting_is_documented_in_the_env_example():
    documented = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", ENV_EXAMPLE.read_text(), re.M))
    assert {name.upper() for name in Settings.model_fields} <= documented


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


def test_tokens_never_show_in_the_settings_repr():
    settings = load_settings(telegram_token="123:secret-token")
    assert "secret-token" not in repr(settings)
