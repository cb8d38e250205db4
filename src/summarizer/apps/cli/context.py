"""What every command shares: the settings (loaded on first use), one store, the locks.

``--help`` imports only click and rich: the settings' pydantic, yaml and filelock (about 0.1 s)
are imported when a command first needs them, here and in ``commands``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

import summarizer.apps.cli.console as console
from summarizer.core.errors import UsageError

if TYPE_CHECKING:
    from summarizer.core.config import Settings
    from summarizer.core.store import Store
    from summarizer.pipeline import VenueRun


class Context:
    """Settings are loaded on first use, so ``--help`` works without a config file.

    ``on_work_start`` is called once, when the command's real work begins (its settings loaded):
    the process entry point uses it to turn the garbage collector back on after start-up.
    """

    def __init__(self, config_path: str | None, on_work_start: Callable[[], None] = lambda: None):
        self.config_path = config_path
        self.on_work_start = on_work_start
        self._settings: Settings | None = None
        self._store: Store | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from summarizer.core.config_file import load_settings  # start-up: see the module doc

            self._settings = load_settings(self.config_path)
            for line in self._settings.deprecations:
                console.warn(f"{self._settings.config_file.name}: {line}")
            self.on_work_start()
        return self._settings

    @property
    def store(self) -> Store:
        """One store per command: the corrupt records it skips are reported once and set the exit code."""
        if self._store is None:
            from summarizer.core.store import Store  # start-up: see the module doc

            self._store = Store(self.settings.outputs_dir, warn=console.warn)
        return self._store

    @property
    def corrupt(self) -> int:
        return len(self._store.corrupt) if self._store is not None else 0

    # The one place commands take locks (the desk and the demo use the same ``locks`` module).
    @contextlib.contextmanager
    def locked(self, venue_id: str) -> Iterator[Store]:
        """The store, holding the venue's lock: a configured venue, one writing command at a time."""
        self.settings.venue(venue_id)
        from summarizer.core import locks  # start-up: see the module doc

        with locks.venue(self.store, venue_id) as store:
            yield store

    @contextlib.contextmanager
    def locked_venues(self, venue_ids: Iterable[str]) -> Iterator[Store]:
        """Every venue's lock, or none: all are held before anything is written."""
        with contextlib.ExitStack() as held:
            for venue_id in sorted(set(venue_ids)):
                held.enter_context(self.locked(venue_id))
            yield self.store

    def venue_run(self, venue_id: str, *, limit: int | None = None, batch: bool = False, wait: bool = True) -> VenueRun:
        """The pipeline's run of a configured venue, its bars and reports drawn in the terminal."""
        self.settings.venue(venue_id)
        from summarizer.pipeline import VenueRun  # start-up: see the module doc

        return VenueRun(
            self.settings,
            self.store,
            venue_id,
            batch=batch,
            wait=wait,
            limit=limit,
            progress=console.PROGRESS,
            on_report=console.print_report,
        )

    def reaching_out(self) -> contextlib.AbstractContextManager[bool]:
        """For a command that reaches arXiv or the model: when the config chooses the demo's offline stand-ins
        (``stand_ins: demo``), they answer instead (``apps.demo.stand_ins``), for as long as the block runs;
        yields whether they do."""
        from summarizer.apps.demo.stand_ins import in_demo_folder  # start-up: see the module doc

        return in_demo_folder(self.settings, console.info, console.warn)

    def site_locked(self, *, drafts: bool) -> contextlib.AbstractContextManager[Path]:
        """The lock of ``outputs/site`` (``outputs/preview`` with ``drafts``): one build of a folder at a time."""
        from summarizer.core import locks  # start-up: see the module doc

        return locks.site(self.settings.outputs_dir, drafts=drafts)


pass_ctx = click.make_pass_decorator(Context)


def split_ref(ref: str) -> tuple[str, str]:
    venue_id, sep, paper_id = ref.partition("/")
    if not sep or not venue_id or not paper_id:
        raise UsageError(f"expected VENUE/ID, got {ref!r} (e.g. ICML2026/2501.12948)")
    return venue_id, paper_id


def tell(lines: list[str]) -> None:
    """What a review action did (its ``Done.lines``), one info line each."""
    for line in lines:
        console.info(line)


def finish(ok: bool) -> None:
    if not ok:
        sys.exit(1)
