"""One family for every failure digestbot explains to its user in one clear line, never as a
traceback. Whether an error is told that way is decided here, by its class: the command line
(`bot/cli.py`) prints `user_text()` and exits with `exit_code`, `digestbot run` lets the family
through to the command line, and a chat command replies with `user_text()` (privately).

    DigestbotError            told in one line; exit code 1
    ├── UsageError            what was typed cannot be used (a topic, a schedule, a question,
    │                         a filter, a file's content): exit code 2, a private chat reply
    ├── ConfigurationError    a setting, the catalog or the tagger's artefact: exit code 2
    └── Unavailable           something needed is not there (the database, arXiv, a port):
                              exit code 2, or 1 for a source of papers

Errors that only ever travel inside digestbot (`SendFailure`, `PageOutOfRange`, …) are no
part of it: they are answered where they are caught.
"""

from __future__ import annotations

EXIT_FAILURE = 1
EXIT_USAGE = 2


class DigestbotError(Exception):
    """A failure whose message, one line, is all its user needs to see."""

    exit_code = EXIT_FAILURE

    def __init__(self, *args: object, exit_code: int | None = None) -> None:
        super().__init__(*args)
        if exit_code is not None:
            self.exit_code = exit_code

    def user_text(self) -> str:
        """What the user is told: the message (a line per problem, for settings)."""
        return str(self)


class UsageError(DigestbotError):
    exit_code = EXIT_USAGE


class ConfigurationError(DigestbotError):
    exit_code = EXIT_USAGE

    def user_text(self) -> str:
        return f"configuration: {self}"


class Unavailable(DigestbotError):
    exit_code = EXIT_USAGE  # as a wrong setting: nothing was done, the same command may be rerun
