"""The exceptions pagelab raises on purpose.

Every message names the problem and, where there is one, the fix, so a user can act on it without
reading a traceback.
"""


class PagelabError(Exception):
    """Base of every error pagelab raises deliberately (the CLI prints these without a traceback)."""

    exit_code = 1  # the CLI's exit status for this kind of error


class UsageError(PagelabError, ValueError):
    """Bad input from the user: a page size, a profile knob, a path. Raised before side effects."""

    exit_code = 2


class MissingDependencyError(PagelabError):
    """A program or package an experiment needs is not installed."""


class ServerError(PagelabError):
    """A managed database server failed to start, stopped answering, or died."""


class ParseError(PagelabError, ValueError):
    """Input that a parser cannot read at all. `line` is 1-based, or None when no line is to blame."""

    exit_code = 2  # a file the user gave that cannot be used is bad input, like a bad argument

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class StorageFault(PagelabError):
    """The storage under the work failed: a read-only filesystem, an I/O error, or no space left
    (pagelab.common.storage). The message says what was kept and what to do; the CLI saves the
    traceback into `bundle` if it can still be written, else into the user's cache directory."""

    exit_code = 4  # pagelab.cli.exits.EXIT_STORAGE

    def __init__(self, message: str, bundle=None):
        super().__init__(message)
        self.bundle = bundle
