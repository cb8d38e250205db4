"""summarizer: a conference's accepted papers → Chinese digest pages."""

from summarizer.core.errors import AuthenticationFailed, ConfigError, FetchError, LLMError, SummarizerError, UsageError

__all__ = [
    "AuthenticationFailed",
    "ConfigError",
    "FetchError",
    "LLMError",
    "SummarizerError",
    "UsageError",
]
