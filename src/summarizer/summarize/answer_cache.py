"""The answer cache: parsed answers in ``cache/llm/<aa>/<key>.json``, so a re-run makes no call.

The key is (base_url, model, prompt-template hash, response-schema version, the messages' hash),
never the API key (``task.cache_key``); summaries and notes differ in their templates and schema, so
their keys never meet.  An entry is what the task keeps of an answer, the model, the prompt hash
and the usage; a hit is checked again by the task before it is used.  Entries are written
atomically.  A missing entry is a miss; one that cannot be read for another reason (a permission
problem) is an error, not a miss that silently costs money.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from summarizer.core.cache_layout import CacheLayout
from summarizer.core.errors import FileSystemError
from summarizer.core.fsutil import atomic_write_text, remove_leftover_temp_files
from summarizer.core.records import now_iso
from summarizer.core.usage import Usage

STALE_TEMP_S = 3600


class AnswerCache:
    """Parsed answers in ``cache/llm/<aa>/<key>.json``; written atomically, never holding the API key."""

    def __init__(self, cache_dir: Path):
        self.layout = CacheLayout(cache_dir)
        self.root = self.layout.answers()

    def remove_leftover_temp_files(self) -> int:
        """A killed run's half-written entries: commands on other venues share the cache and hold no lock
        over it, so only files older than any write in flight are removed."""
        return remove_leftover_temp_files(self.root, recursive=True, older_than_s=STALE_TEMP_S)

    def path(self, key: str) -> Path:
        return self.layout.answer(key)

    def get(self, key: str) -> dict[str, Any] | None:
        """The cached answer; None when there is none or it is garbled (it is asked again and rewritten).

        Any other OS error (a permission problem, a folder where the file should be) is a
        ``FileSystemError``: a cache that silently misses makes every paper paid for again.
        """
        path = self.path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):  # no such entry (a file in the way cannot hold one)
            return None
        except OSError as exc:
            raise FileSystemError(path, exc) from exc
        except ValueError:  # truncated or not JSON (UnicodeDecodeError included)
            return None
        return data if isinstance(data, dict) else None

    def put(
        self,
        key: str,
        answer: dict[str, Any],
        model: str,
        prompt_hash: str,
        usage: Usage,
        *,
        latency_s: float | None = None,
    ) -> None:
        """Keep an answer; ``latency_s`` (how long the model took, when measured) lets a re-run report it."""
        entry = {**answer, "model": model, "prompt_hash": prompt_hash, "usage": usage.model_dump()}
        entry["created_at"] = now_iso()
        if latency_s is not None:
            entry["latency_s"] = round(latency_s, 3)
        atomic_write_text(self.path(key), json.dumps(entry, ensure_ascii=False, indent=1) + "\n")
