"""/ask's written answer from an OpenAI-compatible endpoint (ASK_LLM_URL, ASK_LLM_MODEL).

The core decides what is asked and what of the reply is kept (`digests.ask.answering`); this
module only posts the messages to `{ASK_LLM_URL}/chat/completions` and returns the reply's text.
Any failure (unreachable, an error status, a reply of another shape, ASK_LLM_TIMEOUT passed)
is logged and gives no answer: the reader still gets the papers.
"""

from __future__ import annotations

import logging

import httpx

from bot.settings import Settings
from digests.ask.answering import AnswerWriter

log = logging.getLogger(__name__)
MAX_TOKENS = 400


def ask_writer(
    settings: Settings, *, transport: httpx.BaseTransport | None = None
) -> AnswerWriter | None:
    """The writer the settings name; None when ASK_LLM_URL is unset (then nothing is sent)."""
    if settings.ask_llm_url is None or settings.ask_llm_model is None:
        return None
    url = settings.ask_llm_url.rstrip("/") + "/chat/completions"
    headers = {}
    if settings.ask_llm_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.ask_llm_api_key.get_secret_value()}"
    client = httpx.Client(timeout=settings.ask_llm_timeout, headers=headers, transport=transport)
    model = settings.ask_llm_model

    def write(messages: list[dict[str, str]]) -> str | None:
        body = {"model": model, "messages": messages, "temperature": 0, "max_tokens": MAX_TOKENS}
        try:
            response = client.post(url, json=body)
            response.raise_for_status()
            text = response.json()["choices"][0]["message"]["content"]
        except (httpx.HTTPError, ValueError, LookupError, TypeError) as error:
            log.warning("ask: no written answer from %s: %s", url, error)
            return None
        return text if isinstance(text, str) else None

    return write
