"""Who may write what: one command at a time per venue, and per site folder.

The CLI (its ``Context``), the review desk and the demo take these locks; the
stages (fetch, summarize, import, build) never do, so a lock is taken in one
place and a stage can be called under any combination of them.  A lock held
by another command is refused at once, not queued, and the message names the
holder (pid, command line, since when).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from .errors import LockedError
from .fsutil import remove_leftover_temp_files
from .records import now_iso
from .store import Store

log = logging.getLogger(__name__)


@contextlib.contextmanager
def venue(store: Store, venue_id: str) -> Iterator[Store]:
    """Hold the venue's lock (``outputs/records/.<VENUE>.lock``); yields the store."""
    folder = store.venue_dir(venue_id)  # a valid venue id: it names the lock file
    with _held(store.root, f".{venue_id}", f"another summarizer command is working on {venue_id}"):
        # Whoever holds the lock is the venue's only writer: a temporary file there is a killed run's.
        remove_leftover_temp_files(folder)
        remove_leftover_temp_files(store.outputs_dir / "state", of=f"{venue_id}.json")
        yield store


def site_folder(outputs_dir: Path, *, drafts: bool) -> Path:
    return outputs_dir / ("preview" if drafts else "site")


@contextlib.contextmanager
def site(outputs_dir: Path, *, drafts: bool) -> Iterator[Path]:
    """Hold the lock of ``outputs/site`` (or ``outputs/preview`` with ``drafts``); yields the folder."""
    folder = site_folder(outputs_dir, drafts=drafts)
    with _held(outputs_dir, f".{folder.name}", f"another summarizer command is building {folder}"):
        # A killed build's, as for a venue; not in MkDocs' own output (``site/``), which no command here writes.
        remove_leftover_temp_files(folder, recursive=True, skip=("site",))
        yield folder


def wait_for(
    lock: Callable[[], contextlib.AbstractContextManager[object]], wait_s: float, poll_s: float = 0.2
) -> contextlib.ExitStack:
    """Enter ``lock()``, retrying for up to ``wait_s`` while another command holds it (a desk click waits a little)."""
    deadline = time.monotonic() + wait_s
    while True:
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(lock())
            return stack
        except LockedError:
            stack.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(poll_s)


@contextlib.contextmanager
def _held(folder: Path, name: str, busy: str) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    lock_path = folder / f"{name}.lock"
    holder_path = folder / f"{name}.lock.holder"
    lock = FileLock(str(lock_path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        try:
            holder = f"; held by {holder_path.read_text(encoding='utf-8').strip()}"
        except OSError:
            holder = ""
        raise LockedError(f"{busy} (lock: {lock_path}{holder}); wait for it to finish, then run this again") from None
    try:
        # Who holds it, for the message above; the OS lock itself dies with the process.
        command = " ".join(["summarizer", *sys.argv[1:]])[:200]
        holder_path.write_text(f"pid {os.getpid()}, `{command}`, since {now_iso()}\n", encoding="utf-8")
        log.debug("holding %s", lock_path)
        yield
    finally:
        holder_path.unlink(missing_ok=True)
        lock.release()
