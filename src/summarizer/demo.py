"""`summarizer demo`: the real pipeline on a bundled sample venue. Arrives with issue #7."""

from __future__ import annotations

from .errors import NotReadyError


def run_demo() -> None:
    raise NotReadyError("demo is not built yet (issue #7)")
