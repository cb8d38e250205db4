"""PDF text read in a worker process, so that a hostile PDF costs its own paper and nothing more.

A small file can be very expensive to read: a content stream that inflates to hundreds of MB
(pymupdf then holds ~75 times that), or thousands of pages.  ``PdfWorker`` (one per fetch run,
reused from paper to paper) runs ``serve`` in a child interpreter that caps its own address space
at ``extract.memory_mb`` (``RLIMIT_AS``) before it loads pymupdf, and reads one job a line on its
stdin: a PDF's path with ``extract.max_pages`` and ``extract.max_chars``.  It answers one JSON
line: the sections, or why not.  The parent waits at most ``extract.timeout_s`` for the answer.  A
worker that runs over, runs out of memory or dies is stopped, the paper fails with one line (a
``FetchError``), and the next paper gets a fresh worker.  Only JSON comes back: nothing the
worker says is unpickled.  POSIX only (``select`` on a pipe, ``RLIMIT_AS``).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from summarizer.core.config import ExtractSettings
from summarizer.core.errors import FetchError
from summarizer.core.paper_text import PaperText

from .pdf_text import extract_pdf

START_S = 60.0  # a worker not ready (interpreter, pymupdf) after this long will not be
MAX_ANSWER_BYTES = 64 << 20  # an answer is the sections, cut well below this
# The worker imports what the parent imported: its sys.path is the parent's (as multiprocessing's spawn does).
_CHILD = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[2]); from summarizer.fetch.pdf_worker import serve; serve()"
)


class PdfWorker:
    """The run's reader of PDFs; ``extract(path)`` → ``PaperText`` or a ``FetchError`` with one line."""

    def __init__(self, settings: ExtractSettings):
        self.settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._ready = False

    def __enter__(self) -> PdfWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Start the worker now (it loads pymupdf while the first PDFs download); idempotent."""
        if self._process is not None and self._process.poll() is None:
            return
        self.close()  # a worker stopped after a paper's failure: a new one
        self._process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(self.settings.memory_mb), json.dumps(sys.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        self._ready = False

    def extract(self, path: Path) -> PaperText:
        process = self._running()
        job = {"path": str(path), "max_pages": self.settings.max_pages, "max_chars": self.settings.max_chars}
        try:
            assert process.stdin is not None
            process.stdin.write(json.dumps(job).encode("utf-8") + b"\n")
        except OSError:
            self.close()
            raise FetchError(self._gone()) from None
        answer = self._answer(self.settings.timeout_s)
        if "text" in answer:
            return PaperText.from_json(str(answer["text"]))
        if answer.get("memory"):
            self.close()
            raise FetchError(f"reading the PDF's text needs more memory than extract.memory_mb ({self._mb()}) allows")
        raise FetchError(str(answer.get("error") or "the PDF could not be read"))

    def close(self) -> None:
        """Stop the worker (it keeps nothing worth a graceful exit: killing it saves pymupdf's 0.2 s teardown)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()

    # -- the parent's side of the pipe ----------------------------------------------------------

    def _running(self) -> subprocess.Popen[bytes]:
        self.start()
        assert self._process is not None
        if not self._ready:
            not_started = f"the PDF text reader did not start (is extract.memory_mb, {self._mb()}, too small?)"
            if self._answer(START_S, not_started, not_started).get("ready") is not True:
                self.close()
                raise FetchError(not_started)
            self._ready = True
        return self._process

    def _answer(self, timeout_s: float, late: str | None = None, gone: str | None = None) -> dict[str, Any]:
        """The worker's next line, as JSON; when none comes in time (``late``) or it dies (``gone``), the worker
        is stopped and the paper fails."""
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        line = bytearray()
        while not line.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                self.close()
                raise FetchError(late or f"reading the PDF's text took longer than extract.timeout_s ({timeout_s:g} s)")
            chunk = os.read(fd, 1 << 16)
            if not chunk or len(line) + len(chunk) > MAX_ANSWER_BYTES:
                self.close()
                raise FetchError(gone or self._gone())
            line += chunk
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.close()
            raise FetchError(gone or self._gone())
        return answer

    def _gone(self) -> str:
        return (
            f"the PDF text reader stopped on this PDF (out of memory under extract.memory_mb, {self._mb()}, or a crash)"
        )

    def _mb(self) -> str:
        return f"{self.settings.memory_mb} MB"


# -- the worker's side ---------------------------------------------------------------------------


def serve() -> None:
    """The worker: cap the address space, load pymupdf, then answer one job a line until stdin closes."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever else prints goes where stderr goes (nowhere): stdout is for answers only
    _limit_memory(int(sys.argv[1]) << 20)

    def send(answer: dict[str, Any]) -> None:
        answers.write(json.dumps(answer, ensure_ascii=False) + "\n")
        answers.flush()

    import pymupdf  # noqa: F401  (loaded before the first job, while the parent still downloads)

    send({"ready": True})
    for line in sys.stdin:
        job = json.loads(line)
        try:
            text = extract_pdf(Path(job["path"]), max_pages=job["max_pages"], max_chars=job["max_chars"])
        except FetchError as exc:
            send({"error": exc.reason})
        except MemoryError:
            send({"memory": True})
            return  # what is left of the heap is not worth keeping: the next paper gets a fresh worker
        except Exception as exc:  # a bug of ours or pymupdf's on an odd file: this paper fails, the worker goes on
            send({"error": f"the PDF could not be read ({type(exc).__name__})"})
        else:
            send({"text": text.to_json()})


def _limit_memory(limit: int) -> None:
    """RLIMIT_AS, soft and hard (nothing in the worker can raise it again); POSIX, enforced by Linux."""
    import resource  # POSIX only, and the worker's alone

    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
