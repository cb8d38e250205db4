"""Atomic file writes: a crash leaves the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import tempfile
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
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically write ``data`` unless the file already holds exactly it. True if written."""
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise FileSystemError(_failed_path(path, exc), exc) from None
    atomic_write_bytes(path, data)
    return True


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
