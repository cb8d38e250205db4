"""A venue's submitted batches, in ``outputs/state/<VENUE>.json`` (its notes' in ``<VENUE>.notes.json``):
what the Batch API path resumes from.

An entry is written *before* the provider hears of its batch, with a token that is also put in
the batch's metadata, so a run killed between creating a batch and saving its id finds it again.
Each request's ``custom_id`` is ``VENUE/PAPER/PROMPT_HASH``.  The online path reads the state too,
to skip the papers waiting in a batch (``skip_batched``), so no paper is paid for twice.

A state file is trusted only when it is this venue's: its ``venue`` is the one its path names, and
every request key is that venue's, a safe paper id and a prompt hash.  Any other file (corrupt,
hand-edited, copied from another venue) is one ``RecordError``: move it aside.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from summarizer.core import limits
from summarizer.core.errors import RecordError, UsageError, clip
from summarizer.core.fsutil import atomic_write_text
from summarizer.core.ids import SAFE_ID, SAFE_PAPER_ID
from summarizer.core.records import now_iso

STATE_DIR = "state"
PROMPT_HASH = re.compile(r"^[0-9a-f]{1,64}\Z")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BatchEntry(_Model):
    token: str  # also in the batch's metadata: finds a batch whose id was never saved
    id: str | None = None
    submitted_at: str = Field(default_factory=now_iso)
    created_after: int = 0  # unix time before the create call: where to stop listing batches
    status: str = "submitting"
    completed: int = 0
    failed: int = 0
    total: int = 0
    collected: bool = False
    force: bool = False  # submitted with --force: its answers replace model drafts when collected
    requests: dict[str, str] = Field(default_factory=dict)  # custom_id -> answer-cache key, until collected


class VenueState(_Model):
    venue: str  # our venue id (the file's key)
    batches: list[BatchEntry] = Field(default_factory=list)

    def open(self) -> list[BatchEntry]:
        return [b for b in self.batches if not b.collected]

    def pending_papers(self) -> set[str]:
        return {paper for entry in self.open() for cid in entry.requests if (paper := paper_of(cid, self.venue))}

    def problem(self, venue_id: str) -> str | None:
        """Why this is not ``venue_id``'s state (another venue's, a request key not of its shape), or None."""
        if self.venue != venue_id:
            return f"its venue is {clip(repr(self.venue), limits.SHOWN_VALUE)}, not {venue_id}"
        for entry in self.batches:
            bad = next((cid for cid in entry.requests if paper_of(cid, venue_id) is None), None)
            if bad is not None:
                return f"request key {clip(repr(bad), limits.SHOWN_VALUE)} is not {venue_id}/PAPER/PROMPT_HASH"
        return None


# A task's kind → the state file's suffix: summaries keep the name they always had.
_SUFFIX = {"summary": "", "note": ".notes"}


def state_path(outputs_dir: Path, venue_id: str, kind: str = "summary") -> Path:
    if not SAFE_ID.match(venue_id):
        raise UsageError(f"not a valid venue id: {venue_id!r}")
    return outputs_dir / STATE_DIR / f"{venue_id}{_SUFFIX[kind]}.json"


def load_state(outputs_dir: Path, venue_id: str, kind: str = "summary") -> VenueState:
    path = state_path(outputs_dir, venue_id, kind)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return VenueState(venue=venue_id)
    try:
        state = VenueState.model_validate_json(data)
    except ValidationError as exc:
        raise _not_state(path, str(exc.errors()[0]["msg"])) from None
    problem = state.problem(venue_id)
    if problem is not None:
        raise _not_state(path, problem)
    return state


def _not_state(path: Path, why: str) -> RecordError:
    return RecordError(f"{path}: not a batch state file ({why}); move it aside")


def save_state(outputs_dir: Path, state: VenueState, kind: str = "summary") -> None:
    atomic_write_text(state_path(outputs_dir, state.venue, kind), state.model_dump_json(indent=1) + "\n")


def batch_rows(outputs_dir: Path, venue_id: str, kind: str = "summary") -> list[dict[str, Any]]:
    """The venue's submitted batches (of summaries, or of notes), for ``status``."""
    if not SAFE_ID.match(venue_id):  # a folder under outputs/records/ that no config names
        return []
    state = load_state(outputs_dir, venue_id, kind)
    keys = ("id", "status", "completed", "failed", "total")
    return [{k: getattr(b, k) for k in keys} for b in state.batches if b.id]


def custom_id(venue_id: str, paper_id: str, prompt_hash: str) -> str:
    return f"{venue_id}/{paper_id}/{prompt_hash}"


def paper_of(cid: str, venue_id: str) -> str | None:
    """The paper a request key names when it is ``venue_id/PAPER/PROMPT_HASH`` (a safe paper id), else None."""
    parts = cid.split("/")
    if len(parts) != 3 or parts[0] != venue_id or not SAFE_PAPER_ID.match(parts[1]) or not PROMPT_HASH.match(parts[2]):
        return None
    return parts[1]


def paper_hash(cid: Any) -> str:
    """The prompt hash a request was written with (the last part of its custom_id)."""
    return str(cid).rsplit("/", 1)[-1]
