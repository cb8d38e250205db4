"""Every exception summarizer raises, in one tree, and the exit code each one means.

Two branches under the base class: a ``PaperError`` is one paper's failure (it
is written into that paper's record and the run goes on with the others); a
``RunError`` stops the whole run (nothing per paper would help).

    SummarizerError                base class; exit 1
    ├── RunError                   stops the run
    │   ├── UsageError             a bad command line; exit 2
    │   │   └── LockedError        another command holds the venue's or the site's lock; exit 2
    │   ├── BadRequest             names what the project does not have, or acts on a stale view; exit 2
    │   │   ├── UnknownVenue       a venue id config.yaml does not list
    │   │   ├── UnknownPaper       a paper id the venue has no record of
    │   │   ├── NothingToApprove   a paper with no summary (or not the version asked for) to approve
    │   │   ├── ChangedSince       the paper changed since the page that asked was loaded
    │   │   └── Problems           what a person typed breaks the rules, each problem listed
    │   ├── ConfigError            config.yaml is wrong (file and key path); exit 2
    │   │   ├── MissingAPIKeyError the key's environment variable is unset
    │   │   └── MissingExtra       an optional part is not installed: names the pip install
    │   ├── AuthenticationFailed   the provider refused the key; exit 2
    │   ├── BatchNotFound          the provider does not know a submitted batch; exit 2
    │   │   └── BatchFileGone      a finished batch's result file is gone (the batch is forgotten)
    │   ├── SourceError            the venue's list could not be read; exit 1
    │   │   └── SourceAuthRequired the source wants a login; exit 2
    │   ├── ImportFileError        a JSONL import line is wrong (line number); exit 2
    │   │   └── ImportProblems     several lines are wrong, every one listed
    │   ├── RecordError            a record or state file on disk cannot be read; exit 1
    │   └── FileSystemError        an OS error on a path (read-only, full, not a folder); exit 1
    └── PaperError                 one paper failed at one stage (paper id, stage); exit 1 at the end
        ├── FetchError             the paper could not be fetched
        │   └── ArxivUnavailable   the arXiv API failed for good (after its retries)
        ├── NoInput                nothing to summarise (not fetched, text missing)
        └── LLMError               the model call failed (attempt, last raw output, usage)
            └── OutputInvalidError the answer broke the schema or the house rules

    TextRejected (a ValueError, not a SummarizerError): a text — the model's
    answer, an editor's or an import's — breaks the rules; ``problems`` says
    which, in words for whoever wrote it.  Validators raise it; the LLM client
    turns it into a re-ask, then into ``OutputInvalidError``.

Foreign exceptions (the SDKs', the HTTP clients', the OS's) are turned into one
of these where they enter, with the original kept as ``__cause__``.  The CLI
prints ``str(error)`` on one line and exits with ``error.exit_code``;
``SUMMARIZER_DEBUG=1`` shows the traceback instead.  No message ever holds the
API key: errors name the environment variable that holds it.
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

from . import limits
from .sanitize import clean_line

if TYPE_CHECKING:  # store imports this module: the type only, no import at run time
    from .usage import Usage


def clip(text: str, limit: int = limits.SHOWN_ID) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut), for a readable message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SummarizerError(Exception):
    exit_code = 1


class RunError(SummarizerError):
    """An error that stops the whole run: no other paper would fare better."""


class PaperError(SummarizerError):
    """One paper failed at one stage; it is recorded with the paper and the run goes on."""

    stage = "unknown"

    def __init__(self, reason: str, *, paper_id: str | None = None):
        self.reason = reason
        self.paper_id = paper_id
        who = f"{paper_id}: " if paper_id else ""
        super().__init__(f"{who}{reason}")


class UsageError(RunError):
    exit_code = 2


class LockedError(UsageError):
    pass


class ConfigError(RunError):
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


class RecordError(RunError):
    pass


_OS_HINTS = {
    errno.EROFS: "make the folder writable",
    errno.EACCES: "make the folder writable",
    errno.EPERM: "make the folder writable",
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some disk space",
    errno.ENOTDIR: "a file is where a folder should be: move it away",
    errno.EEXIST: "a file is where a folder should be: move it away",
    errno.EISDIR: "a folder is where a file should be: move it away",
}


class FileSystemError(RunError):
    """An ``OSError`` on a path, told in one line: the path, what went wrong, what to check."""

    def __init__(self, path: str | os.PathLike[str] | None, error: OSError):
        self.path = os.fspath(path) if path is not None else None
        self.error = error
        reason = error.strerror or str(error)
        where = f"{self.path}: " if self.path else ""
        hint = _OS_HINTS.get(error.errno or 0, "check the path and its folder")
        super().__init__(f"{where}{reason} ({hint}; nothing was half written)")

    @classmethod
    def from_os_error(cls, error: OSError) -> FileSystemError:
        path = error.filename if error.filename is not None else None
        return cls(path, error)


class ImportFileError(RunError):
    exit_code = 2

    def __init__(self, file: str, line: int | None, message: str):
        self.file = file
        self.line = line
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message} (nothing from this file was imported)")


class FetchError(PaperError):
    stage = "fetch"


class NoInput(PaperError):
    """The paper has nothing the model could read (not fetched, or its extracted text is gone)."""

    stage = "summarize"


class LLMError(PaperError):
    """The model call for one paper failed; ``usage`` is what the failed calls cost (None: nothing known)."""

    stage = "summarize"

    def __init__(
        self,
        reason: str,
        *,
        paper_id: str | None = None,
        attempt: int | None = None,
        raw_output: str | None = None,
        usage: Usage | None = None,
    ):
        self.attempt = attempt
        self.raw_output = raw_output
        self.usage = usage
        super().__init__(reason, paper_id=paper_id)


class OutputInvalidError(LLMError):
    """The answer still broke the schema or the house rules when the attempts ran out."""


class AuthenticationFailed(RunError):
    """The provider refused the API key: every other paper would be refused too."""

    exit_code = 2

    def __init__(self, message: str, *, usage: Usage | None = None):
        self.usage = usage
        super().__init__(message)


class TextRejected(ValueError):
    """A text (a summary, a note; the model's, an editor's, an import's) breaks a hard rule; ``problems`` says which.

    A validator's answer to the LLM client (ask again) as much as the editor's and the import's.
    """

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


class BadRequest(RunError):
    """A request naming something the project does not have; the CLI exits 2, the desk answers 400."""

    exit_code = 2


class UnknownVenue(BadRequest):
    """A venue id that config.yaml does not list."""


class UnknownPaper(BadRequest):
    """A paper id the venue has no record of."""


class NothingToApprove(BadRequest):
    """A paper with no summary version (or not the version asked for) to approve."""


class ChangedSince(BadRequest):
    """An action based on an older view of the paper (the review desk): refused, nothing saved."""


class Problems(BadRequest):
    """What a person typed breaks the rules; ``problems`` lists each, for the form or the terminal."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


# The name summarizer is published under on the package index (``summarizer`` there is another project's);
# the import package and the command keep the name summarizer.
DISTRIBUTION = "conference-digest-zh"


def pip_install(extra: str) -> str:
    """The ``pip install`` that brings the optional part ``extra``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


class MissingExtra(ConfigError):
    """An optional part of summarizer is not installed; the message names the ``pip install`` to run."""

    def __init__(self, what: str, extra: str):
        self.extra = extra
        super().__init__(f"{what} needs the optional part [{extra}]: {pip_install(extra)}")


class BatchNotFound(RunError):
    """The provider does not know a batch this project submitted (it is forgotten, its papers submitted again)."""

    exit_code = 2


class BatchFileGone(BatchNotFound):
    """A finished batch's result file is gone from the provider (providers delete them after a retention period).

    The Batch API path catches it: the batch is forgotten and its papers can be summarised again.
    """


class SourceError(RunError):
    """The venue's list could not be read (unreachable, not the documented format); exit 1.

    The message may quote a server's words: controls are removed and it stays one bounded line.
    """

    def __init__(self, message: str):
        super().__init__(clean_line(message)[: limits.SOURCE_MESSAGE])


class SourceAuthRequired(SourceError):
    """The source wants a login (or a challenge page stood in the way); exit 2: set the credentials."""

    exit_code = 2


class ImportProblems(ImportFileError):
    """Some lines are bad: ``problems`` lists every one (``FILE:LINE: field: rule``); nothing was imported."""

    def __init__(self, file: str, problems: list[str], total: int):
        self.problems = problems
        verb = "has" if len(problems) == 1 else "have"
        super().__init__(
            file,
            None,
            f"{len(problems)} of {total} line{'' if total == 1 else 's'} {verb} problems (listed above); "
            "fix them, or import the others with --skip-invalid",
        )


class ArxivUnavailable(FetchError):
    """A request to the arXiv API failed for good (after its retries)."""
