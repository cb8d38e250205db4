"""The one place an OpenAI-compatible client is built, and the one way the API key is kept out of text.

Both clients are made with ``max_retries=0``: the SDK's own retries would stack on the run's retry
policy (``llm`` for chat completions, ``batch_api`` for the files and batches endpoints).  The
key is read from the environment variable ``llm.api_key_env`` when the client is built; a
provider's error text can echo it, so every such text goes through ``scrub`` before it is shown.
"""

from __future__ import annotations

import openai

from summarizer.core.config import LLMSettings


def chat_client(llm: LLMSettings) -> openai.AsyncOpenAI:
    """The online path's client (``MissingAPIKeyError`` first, before any work, when the key is unset)."""
    return openai.AsyncOpenAI(api_key=llm.api_key(), base_url=llm.base_url, timeout=llm.timeout_s, max_retries=0)


def batch_client(llm: LLMSettings) -> openai.OpenAI:
    """The Batch API path's client: files and batches are plain, synchronous requests."""
    return openai.OpenAI(api_key=llm.api_key(), base_url=llm.base_url, timeout=llm.timeout_s, max_retries=0)


def scrub(text: str, key: str | None) -> str:
    """``text`` with the API key replaced by ``***``: provider texts may echo it."""
    return text.replace(key, "***") if key else text
