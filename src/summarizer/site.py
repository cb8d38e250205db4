"""Site stage: MkDocs digest pages from the records. Arrives with issue #5."""

from __future__ import annotations

from dataclasses import dataclass, field

from .config import Settings
from .console import info
from .errors import NotReadyError
from .store import Store


@dataclass
class BuildReport:
    root: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    def print(self) -> None:
        info(f"built {self.root}: {len(self.written)} pages written, {len(self.unchanged)} unchanged")


def build_site(settings: Settings, store: Store, venues: list[str] | None, *, drafts: bool) -> BuildReport:
    raise NotReadyError("build is not built yet (issue #5)")
