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


# A summary's prompt besides the paper (instructions, fields, vocabulary) and a typical answer, in tokens.
PROMPT_OVERHEAD_TOKENS = 800
ANSWER_TOKENS = 400


def estimate(papers: int, *, input_token_budget: int, price_in: float, price_out: float) -> Usage:
    """What summarising ``papers`` papers would cost, roughly: each read up to ``input_token_budget`` tokens,
    at ``price_in`` and ``price_out`` USD per million tokens."""
    prompt = papers * (input_token_budget + PROMPT_OVERHEAD_TOKENS)
    completion = papers * ANSWER_TOKENS
    cost = (prompt * price_in + completion * price_out) / 1_000_000
    return Usage(llm_calls=papers, prompt_tokens=prompt, completion_tokens=completion, cost_usd=round(cost, 8))
