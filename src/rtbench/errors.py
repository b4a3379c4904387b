"""Exceptions the CLI turns into a one-line `rtbench: error: ...` message."""


class RtbenchError(Exception):
    """A user-facing error: the message is complete, no traceback is shown."""

    exit_code = 2


class HarnessError(RtbenchError):
    """The harness could not be built, started or understood."""

    exit_code = 1
