"""summarizer: a conference's accepted papers → Chinese digest pages."""

from .errors import (
    AuthenticationFailed,
    ConfigError,
    FetchError,
    LLMError,
    SummarizerError,
    UsageError,
)

__all__ = [
    "AuthenticationFailed",
    "ConfigError",
    "FetchError",
    "LLMError",
    "SummarizerError",
    "UsageError",
]
