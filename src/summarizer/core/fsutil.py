"""Atomic file writes: a crash leaves the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import FileSystemError


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Read once, at import, while the process has one thread: os.umask() can only be read by setting it.
_UMASK = _current_umask()


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, fsync, then rename over ``path``.

    The file gets the mode an ordinary ``open()`` would give it (0666 less the
    umask), or keeps the mode of the file it replaces: mkstemp's 0600 would
    hide records and pages from other editors and the web server.  Any OS
    error (read-only, full, a file where a folder should be) is a
    ``FileSystemError`` naming ``path``, with the old file left as it was.
    """
    try:
        _atomic_write(path, data)
    except OSError as exc:
        raise FileSystemError(_failed_path(path, exc), exc) from None


def _failed_path(path: Path, error: OSError) -> Path:
    """The path to name: the file in the way of a folder, when that is the trouble; else ``path``."""
    if error.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            return blocker
    return path


def _atomic_write(path: Path, data: bytes) -> None:
    tmp_name = _write_temp(path, data, durable=True)
    try:
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def _write_temp(path: Path, data: bytes, *, durable: bool, folder_made: bool = False) -> str:
    """``data`` in a temporary file beside ``path``, with the mode ``path`` has or would get; its name."""
    if not folder_made:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return tmp_name


class WriteBatch:
    """Many atomic writes made durable together: all or none of them land.

    Each file goes to a temporary file beside it; ``commit`` makes them all durable with one
    sync of their file system and only then renames them into place, so a crash before the
    renames leaves every old file and a crash after leaves every new one, each whole.  One fsync
    per file costs milliseconds each on an ordinary disk (36 s of a 5,000-record import here);
    one sync for the lot costs about as much as one.  ``discard`` drops what was not committed.
    """

    def __init__(self) -> None:
        self._pending: dict[Path, tuple[str, bytes]] = {}
        self._folders: set[Path] = set()  # made (or found) already: a site has thousands of pages in a few

    def write_if_changed(self, path: Path, data: bytes) -> bool:
        pending = self._pending.get(path)
        if pending[1] == data if pending is not None else _holds(path, data):
            return False
        try:
            if path.parent not in self._folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._folders.add(path.parent)
            tmp_name = _write_temp(path, data, durable=False, folder_made=True)
        except OSError as exc:
            raise FileSystemError(_failed_path(path, exc), exc) from None
        if pending is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(pending[0])
        self._pending[path] = (tmp_name, data)
        return True

    def commit(self) -> None:
        if not self._pending:
            return
        folders = {path.parent for path in self._pending}
        try:
            _sync_file_systems(folders)
            for path, (tmp_name, _data) in list(self._pending.items()):
                try:
                    os.replace(tmp_name, path)
                except OSError as exc:
                    raise FileSystemError(path, exc) from None
                del self._pending[path]
        finally:
            self.discard()
        for folder in sorted(folders):
            _fsync_dir(folder)

    def discard(self) -> None:
        for tmp_name, _data in self._pending.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name)
        self._pending.clear()


def _sync_file_systems(folders: set[Path]) -> None:
    """Flush the file systems these folders are on: ``syncfs`` on Linux, so a busy shared machine's
    other disks are left alone; ``os.sync()`` (every file system) where there is no ``syncfs``."""
    syncfs = _libc_syncfs()
    if syncfs is None:
        os.sync()
        return
    flushed: set[int] = set()
    for folder in sorted(folders):
        fd = os.open(folder, os.O_RDONLY)
        try:
            device = os.fstat(fd).st_dev
            if device not in flushed:
                if syncfs(fd) != 0:
                    error = _errno()
                    raise FileSystemError(folder, OSError(error, os.strerror(error)))
                flushed.add(device)
        finally:
            os.close(fd)


@functools.cache
def _libc_syncfs() -> Callable[[int], int] | None:
    import ctypes  # only the commands that write many files at once pay for it

    try:
        syncfs: Callable[[int], int] = ctypes.CDLL(None, use_errno=True).syncfs
    except (AttributeError, OSError):
        return None
    return syncfs


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


# What ``_write_temp`` names a temporary file: ``.<name>.<8 random characters>.tmp`` beside its target.
_TEMP_NAME = re.compile(r"\.(?P<of>.+)\.[a-z0-9_]{8}\.tmp\Z")


def remove_leftover_temp_files(
    folder: Path,
    *,
    recursive: bool = False,
    of: str | None = None,
    skip: tuple[str, ...] = (),
    older_than_s: float | None = None,
) -> int:
    """Remove the temporary files a killed write left in ``folder`` (only ours, only of ``of`` when given).

    ``recursive`` looks in every folder below too, except the folders of ``folder`` named in ``skip``.
    Call it only while holding the lock of everything written there: another writer's file in
    flight would look the same.  Where no lock covers the folder, ``older_than_s`` leaves alone a file
    written more recently than that (an atomic write takes milliseconds).  Returns how many were removed.
    """
    if not folder.is_dir():
        return 0
    removed = 0
    for path in _temp_names(folder, recursive, skip):
        found = _TEMP_NAME.fullmatch(path.name)
        if found and (of is None or found.group("of") == of) and path.is_file() and not path.is_symlink():
            if older_than_s is not None and _age_s(path) < older_than_s:
                continue
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _temp_names(folder: Path, recursive: bool, skip: tuple[str, ...]) -> Iterator[Path]:
    if not recursive:
        yield from folder.glob(".*.tmp")
        return
    for parent, folders, names in os.walk(folder):  # links to folders are not followed
        if parent == str(folder):
            folders[:] = [name for name in folders if name not in skip]
        yield from (Path(parent, name) for name in names if name.startswith(".") and name.endswith(".tmp"))


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_create_text(path: Path, text: str) -> None:
    """Write a new file, whole or not at all; ``FileSystemError`` (EEXIST) when ``path`` already exists.

    The text goes to a temporary file that is then hard-linked to ``path``: a link never replaces an
    existing file, so a file another run (or a person) put there meanwhile is never overwritten.
    """
    try:
        tmp_name = _write_temp(path, text.encode("utf-8"), durable=True)
        try:
            os.link(tmp_name, path)
        finally:
            os.unlink(tmp_name)
    except OSError as exc:
        raise FileSystemError(path, exc) from exc
    _fsync_dir(path.parent)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically write ``data`` unless the file already holds exactly it. True if written."""
    if _holds(path, data):
        return False
    atomic_write_bytes(path, data)
    return True


def _holds(path: Path, data: bytes) -> bool:
    """True when the file at ``path`` holds exactly ``data``; False when there is none."""
    try:
        return path.read_bytes() == data
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise FileSystemError(_failed_path(path, exc), exc) from None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not every platform lets a folder be opened.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
