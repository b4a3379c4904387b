"""Command line: `rtbench run | qualify | list | audit | show | report |
compare | history | hist | runs | import | reference list`.

The commands that measure are in measuring.py, those that read stored runs
in reading.py, the group and the options' checks in group.py; here only
`main`, which runs one command and turns every error into one line. Thin: each command parses its options and calls one function of the stage
that owns it (measure, sheets, compare, importers, targets); here only
where its output goes (stdout, `-o FILE`, the format) and the exit status.
Every error is one line, `rtbench: error: ...`, exit code 2 for bad input
(click's usage errors and ours alike), no traceback.
"""

from __future__ import annotations

import signal
import sqlite3
import sys

import click

from rtbench.cli import measuring, reading  # noqa: F401 (their commands join the group)
from rtbench.cli.group import EXIT_OUTPUT_CLOSED, cli
from rtbench.errors import RtbenchError
from rtbench.process import lifetime
from rtbench.store import contract


def _error(message: str) -> None:
    try:  # one line, whatever a file or a board put into the message
        click.echo(f"rtbench: error: {contract.one_line(message)}", err=True)
    except OSError:
        pass  # stderr is gone too (a hung-up terminal): the exit status says it


def main(argv: list[str] | None = None) -> int:
    """Run one command: its exit status. Errors are one line (exit 2 for bad
    input); SIGINT, SIGTERM and SIGHUP interrupt like Ctrl-C (exit 128 +
    the signal); a closed stdout ends the command quietly (141)."""
    args = list(sys.argv[1:] if argv is None else argv)
    with lifetime.signals_as_interrupts():
        try:
            rv = cli.main(args=args, prog_name="rtbench", standalone_mode=False,
                          obj={"argv": args})
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
            return 2
        except click.ClickException as exc:
            _error(exc.format_message().replace("\n", " "))
            return exc.exit_code
        except RtbenchError as exc:
            _error(str(exc))
            return exc.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            if lifetime.received() == signal.SIGPIPE:
                return EXIT_OUTPUT_CLOSED
            _error(f"interrupted ({lifetime.signal_name()})")
            return lifetime.exit_code()
        except OSError as exc:  # the safety net: one line, never a traceback
            if lifetime.output_closed(exc):
                return EXIT_OUTPUT_CLOSED
            where = f"{exc.filename}: " if exc.filename else ""
            _error(f"{where}{exc.strerror or exc}")
            return 2
        except sqlite3.Error as exc:
            _error(f"database: {exc}")
            return 2
    return rv if isinstance(rv, int) else 0
