"""What every section of ``config.yaml`` is: a pydantic model that refuses unknown keys."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    # A key's docstring is its description: docs/config.md and `summarizer init`'s comments are made of them.
    model_config = ConfigDict(extra="forbid", validate_default=True, use_attribute_docstrings=True)
