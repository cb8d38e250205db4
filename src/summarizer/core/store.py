"""Records on disk: one JSON file per paper at ``outputs/records/<VENUE>/<ID>.json``.

The store owns every read and write of a record.  Writes are atomic and
skipped when nothing changed, so re-running a stage leaves files untouched.
A record keeps every summary version ever written; nothing is overwritten.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import ValidationError

from .errors import FileSystemError, RecordError, UnknownPaper, UsageError, clip
from .fsutil import WriteBatch, write_if_changed
from .ids import SAFE_ID, is_safe_paper_id
from .records import READABLE_SCHEMAS, Record
from .wording import validation_message

# Records read before, by path: the file's (modification time in ns, size) when read, and the record.
ParsedRecords = dict[Path, tuple[tuple[int, int], Record]]


class Store:
    """Every record of ``outputs/records/``.

    A record's path is its identity: venue and id come from the path, a file
    whose content names another venue or id is refused, and no write lands
    outside ``outputs/records/<VENUE>/``.  A corrupt or unreadable record
    blocks only itself: ``records()`` skips it, remembers it in ``corrupt``
    (warning once through ``warn``), and ``save`` never writes over it.
    """

    def __init__(self, outputs_dir: Path, *, warn: Callable[[str], None] | None = None):
        self.outputs_dir = outputs_dir
        self.root = outputs_dir / "records"
        self.corrupt: dict[Path, str] = {}  # path → why it cannot be read
        self._warn = warn
        self._batch: WriteBatch | None = None

    def venue_dir(self, venue_id: str) -> Path:
        if not SAFE_ID.match(venue_id):
            raise UsageError(f"not a valid venue id: {clip(venue_id)!r} (letters, digits, '.', '_' or '-')")
        return self.root / venue_id

    def path(self, venue_id: str, paper_id: str) -> Path:
        if not is_safe_paper_id(paper_id):
            raise UsageError(f"not a valid paper id: {clip(paper_id)!r}")
        return self.venue_dir(venue_id) / f"{paper_id}.json"

    def get(self, venue_id: str, paper_id: str) -> Record | None:
        path = self.path(venue_id, paper_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise FileSystemError(path, exc) from None
        return self._parse(path, data)

    def load(self, venue_id: str, paper_id: str) -> Record:
        record = self.get(venue_id, paper_id)
        if record is None:
            raise UnknownPaper(
                f"no record {clip(venue_id)}/{clip(paper_id)} (see: summarizer review list {clip(venue_id)})"
            )
        return record

    def save(self, record: Record) -> bool:
        """Write the record atomically; False when the file already held exactly this, or is corrupt (kept)."""
        path = self._writable(self.path(record.venue, record.id))
        if path in self.corrupt:
            return False  # never written over: its warning was given when it was found
        data = (record.model_dump_json(indent=2) + "\n").encode("utf-8")
        if self._batch is not None:
            return self._batch.write_if_changed(path, data)
        return write_if_changed(path, data)

    @contextlib.contextmanager
    def all_or_nothing(self) -> Iterator[None]:
        """Saves inside land together when the block ends, or not at all if it raises.

        For bulk writes (an import of thousands of records): one disk sync for all of them
        instead of one per file.  Reads inside the block still see the files as they were.
        """
        if self._batch is not None:
            yield
            return
        self._batch = WriteBatch()
        try:
            yield
        except BaseException:
            self._batch.discard()
            raise
        else:
            self._batch.commit()
        finally:
            self._batch = None

    def delete(self, venue_id: str, paper_id: str) -> None:
        """Remove a record that never held a summary (e.g. a list line resolved under another id)."""
        path = self._writable(self.path(venue_id, paper_id))
        if path not in self.corrupt:
            path.unlink(missing_ok=True)

    def records(self, venue_id: str, *, parsed: ParsedRecords | None = None) -> list[Record]:
        """The venue's readable records, by id; corrupt ones are skipped and remembered in ``corrupt``.

        ``parsed``: records read before, by path, with their file's modification time and size: a file
        unchanged since is not read again (the review desk lists thousands of records on every page).
        """
        folder = self.venue_dir(venue_id)
        if not folder.is_dir():
            return []
        good = []
        for path in sorted(folder.glob("*.json")):
            try:
                if parsed is not None:
                    good.append(self._parsed_again(path, parsed))
                    self.corrupt.pop(path, None)
                    continue
                good.append(self._parse(path, path.read_bytes()))
                self.corrupt.pop(path, None)  # repaired since (a long-lived store: the review desk)
            except RecordError as exc:
                self._found_corrupt(path, str(exc))
            except OSError as exc:
                self._found_corrupt(path, f"{path}: cannot be read ({exc.strerror or exc})")
        return good

    def _parsed_again(self, path: Path, parsed: ParsedRecords) -> Record:
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        before = parsed.get(path)
        if before is not None and before[0] == stamp:
            return before[1]
        record = self._parse(path, path.read_bytes())
        parsed[path] = (stamp, record)
        return record

    def corrupt_in(self, venue_id: str) -> list[Path]:
        return sorted(p for p in self.corrupt if p.parent.name == venue_id)

    def venues(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and SAFE_ID.match(p.name))

    def _found_corrupt(self, path: Path, reason: str) -> None:
        if path in self.corrupt:
            return
        self.corrupt[path] = reason
        if self._warn is not None:
            self._warn(f"skipped a corrupt record: {reason}; repair it or move it away (nothing writes over it)")

    def _writable(self, path: Path) -> Path:
        """``path``, refused unless it really lies in its venue folder: no link leads a write elsewhere."""
        expected = self.root.resolve() / path.parent.name / path.name
        if path.resolve() != expected:
            raise RecordError(
                f"{path}: leads to {path.resolve()}, outside {self.root}/{path.parent.name}/; "
                "not written (replace the link or folder link with the record itself)"
            )
        return path

    @staticmethod
    def _parse(path: Path, data: bytes) -> Record:
        try:
            raw = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordError(f"{path}: not valid JSON ({exc})") from None
        version = raw.get("schema_version") if isinstance(raw, dict) else None
        if version not in READABLE_SCHEMAS:
            readable = " and ".join(str(v) for v in READABLE_SCHEMAS)
            raise RecordError(f"{path}: schema version {version!r}, this summarizer reads {readable}")
        try:
            record = Record.model_validate(raw)
        except ValidationError as exc:
            raise RecordError(f"{path}: {validation_message(exc, top='record')}") from None
        if (record.venue, record.id) != (path.parent.name, path.stem):
            raise RecordError(
                f"{path}: holds {clip(record.venue)}/{clip(record.id)}, but its path makes it "
                f'{path.parent.name}/{path.stem} (a record\'s path is its identity): fix "venue"/"id" in the file'
            )
        return record
