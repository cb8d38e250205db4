"""The exceptions summarizer raises, and the exit code each one means.

    SummarizerError            base class; exit 1
    ├── UsageError             a bad command line or an unknown venue/paper; exit 2
    │   ├── NotReadyError      a command whose stage has not landed yet; exit 2
    │   └── LockedError        another run holds the venue's lock; exit 2
    ├── ConfigError            config.yaml is wrong (file and key path); exit 2
    │   └── MissingAPIKeyError the key's environment variable is unset; exit 2
    ├── RecordError            a record on disk cannot be read; exit 1
    ├── ImportFileError        a JSONL import line is wrong (line number); exit 2
    ├── FetchError             one paper could not be fetched (paper id, reason)
    └── LLMError               one model call failed (paper id, attempt, raw output)
        ├── OutputInvalidError the answer broke the schema or the house rules
        └── AuthenticationFailed the provider refused the key; stops the run; exit 2

The CLI prints ``str(error)`` on one line and exits with ``error.exit_code``;
``SUMMARIZER_DEBUG=1`` shows the traceback instead.  No message ever holds
the API key: errors name the environment variable that holds it.
"""

from __future__ import annotations


class SummarizerError(Exception):
    exit_code = 1


class UsageError(SummarizerError):
    exit_code = 2


class NotReadyError(UsageError):
    """A command exists in the CLI but its stage has not been built yet."""


class LockedError(UsageError):
    pass


class ConfigError(SummarizerError):
    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.file = file
        self.key = key
        prefix = f"{file}: " if file else ""
        where = f"{key}: " if key else ""
        super().__init__(f"{prefix}{where}{message}")


class MissingAPIKeyError(ConfigError):
    def __init__(self, env_var: str):
        self.env_var = env_var
        super().__init__(
            f"the API key is missing: set the environment variable {env_var} "
            f"(or point llm.api_key_env at the variable that holds it)"
        )


class RecordError(SummarizerError):
    pass


class ImportFileError(SummarizerError):
    exit_code = 2

    def __init__(self, file: str, line: int | None, message: str):
        self.file = file
        self.line = line
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message} (nothing from this file was imported)")


class StageError(SummarizerError):
    """A failure tied to one paper at one stage of the pipeline."""

    stage = "unknown"

    def __init__(self, reason: str, *, paper_id: str | None = None):
        self.reason = reason
        self.paper_id = paper_id
        who = f"{paper_id}: " if paper_id else ""
        super().__init__(f"{who}{reason}")


class FetchError(StageError):
    stage = "fetch"


class LLMError(StageError):
    stage = "summarize"

    def __init__(
        self,
        reason: str,
        *,
        paper_id: str | None = None,
        attempt: int | None = None,
        raw_output: str | None = None,
    ):
        self.attempt = attempt
        self.raw_output = raw_output
        self.usage: object | None = None  # a store.Usage: what the failed calls cost, set by the llm client
        super().__init__(reason, paper_id=paper_id)


class OutputInvalidError(LLMError):
    pass


class AuthenticationFailed(LLMError):
    exit_code = 2
