"""What model calls cost: calls, tokens and dollars, added up per paper, per run and per venue."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Usage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> None:
        self.llm_calls += other.llm_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd = round(self.cost_usd + other.cost_usd, 8)
