"""The provider's files and batches endpoints (OpenAI's Batch API and its compatible peers).

Every call's error becomes one line: a 404 means the provider has no batch endpoint (summarise
online instead), a 401 names the key's variable, anything else says the submitted batches are
saved and how to resume.  Two 404s mean something else: a batch the provider does not know
(``BatchNotFound``) and a result file it has deleted (``BatchFileGone``).  The provider's own words
are bounded and inert before they are shown.

A result file is read as bytes and split on ``\n`` only, as JSONL is: an answer may hold U+2028 or
U+2029, where ``str.splitlines`` (and the SDK's ``iter_lines``) would break its line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, TypeVar

import httpx2
import openai

from summarizer.core.config import LLMSettings
from summarizer.core.errors import BatchFileGone, BatchNotFound, RunError, UsageError
from summarizer.core.sanitize import clean_line, terminal_safe

from .llm import key_refused
from .provider import batch_client, scrub

ENDPOINT: Final = "/v1/chat/completions"
WINDOW: Final = "24h"
TERMINAL = ("completed", "failed", "expired", "cancelled")

T = TypeVar("T")


@dataclass(frozen=True)
class BatchLimits:
    """One batch's limits (OpenAI's Batch guide), and when a batch past its window counts as stuck."""

    max_requests: int = 50_000
    max_bytes: int = 200 * 1024 * 1024
    # A batch still running this long after its window closed is stuck (it happens: "stuck in finalizing"
    # incidents): cancel it, keep what it finished, and let the next run submit the rest.
    stuck_after_s: float = 3600


class BatchAPI:
    """The files and batches endpoints, with errors turned into one line each."""

    def __init__(self, llm: LLMSettings, venue_id: str):
        self.llm = llm
        self.venue_id = venue_id
        self.client = batch_client(llm)
        # No retry on create: without an idempotency key a retried create can make a second batch.
        # A create that failed midway is found by its token on the next run, or submitted again.
        self.once = self.client.with_options(max_retries=0)

    def call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except openai.APIError as exc:
            raise self.error(what, exc) from exc

    def error(self, what: str, exc: openai.APIError) -> RunError:
        if isinstance(exc, openai.NotFoundError):
            return UsageError(
                f"the provider at {self.llm.base_url} has no batch endpoint (HTTP 404 on {what}): "
                f"summarise online instead: summarizer summarize {self.venue_id} (without --batch)"
            )
        if isinstance(exc, openai.AuthenticationError):
            return key_refused(self.llm)
        reason = provider_words(scrub(exc.message, self.client.api_key))
        return RunError(
            f"the batch API at {self.llm.base_url} failed on {what} ({reason}); the submitted batches are saved: "
            f"run `summarizer summarize {self.venue_id} --batch` again to resume"
        )

    def lines(self, file_id: str) -> Iterator[str]:
        """A result file, streamed and split on ``\n`` only; ``BatchFileGone`` when the provider has deleted it."""
        try:
            with self.client.files.with_streaming_response.content(file_id) as response:
                yield from split_lines(response.iter_bytes())
        except openai.NotFoundError as exc:
            raise BatchFileGone(
                f"its result file is gone from the provider (HTTP 404 on /files/{shown_id(file_id)}/content; "
                "providers delete a batch's files after a while)"
            ) from exc
        except openai.APIError as exc:
            raise self.error("/files", exc) from exc
        except httpx2.HTTPError as exc:  # the connection broke while the file streamed in (the SDK's own client)
            raise RunError(
                f"the download of a batch's results from {self.llm.base_url} broke off ({type(exc).__name__}); "
                f"what was read is saved: run `summarizer summarize {self.venue_id} --batch` again to resume"
            ) from exc

    def upload(self, name: str, data: IO[bytes]) -> str:
        file = self.call(
            "/files", lambda: self.client.files.create(file=(name, data, "application/jsonl"), purpose="batch")
        )
        return file.id

    def create(self, file_id: str, metadata: dict[str, str]) -> Any:
        return self.call(
            "/batches",
            lambda: self.once.batches.create(
                input_file_id=file_id, endpoint=ENDPOINT, completion_window=WINDOW, metadata=metadata
            ),
        )

    def find(self, token: str, created_after: int) -> Any:
        """The provider's batch carrying ``token`` in its metadata, newest first, back to ``created_after``."""
        try:
            for batch in self.client.batches.list(limit=100):
                if (batch.metadata or {}).get("summarizer_token") == token:
                    return batch
                if whole_count(batch.created_at) < created_after:
                    return None
        except openai.NotFoundError:  # no batch listing (or no batch endpoint): nothing to find
            return None
        except openai.APIError as exc:
            raise self.error("/batches", exc) from exc
        return None

    def retrieve(self, batch_id: str) -> Any:
        """The batch now; ``BatchNotFound`` when the provider does not know it (HTTP 404)."""
        try:
            return self.client.batches.retrieve(batch_id)
        except openai.NotFoundError as exc:
            raise BatchNotFound(
                f"the provider at {self.llm.base_url} does not know batch {shown_id(batch_id)} (HTTP 404): it is "
                f"forgotten; run `summarizer summarize {self.venue_id} --batch` to submit its papers again"
            ) from exc
        except openai.APIError as exc:
            raise self.error("/batches", exc) from exc

    def cancel(self, batch_id: str) -> None:
        self.call("/batches", lambda: self.client.batches.cancel(batch_id))

    def delete_file(self, file_id: str) -> None:
        """Best effort: a file left behind costs nothing but the provider's storage."""
        with contextlib.suppress(openai.OpenAIError):
            self.client.files.delete(file_id)


def split_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """JSONL bytes → its lines, split on ``\n`` only (never on U+2028, U+2029 or \r); a line not UTF-8 is ""."""
    pending = bytearray()
    for chunk in chunks:
        first, *rest = chunk.split(b"\n")
        pending += first
        for piece in rest:
            yield _decoded(pending)
            pending = bytearray(piece)
    if pending:
        yield _decoded(pending)


def _decoded(line: bytearray) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:  # skipped: its paper gets "no result" and is asked again
        return ""


def shown_id(batch_id: object) -> str:
    """A batch id (the provider's words) as the terminal may show it."""
    return terminal_safe(str(batch_id))[:200]


def whole_count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def provider_words(text: Any) -> str:
    """A provider's words, bounded and inert on the terminal and in a record."""
    return clean_line(str(text))[:300]
