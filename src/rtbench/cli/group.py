"""The command group every command of rtbench hangs on, the limits and
defaults of their options, and the callbacks that check an option's text
(one line and exit 2 for a bad value)."""

from __future__ import annotations

import math
import signal

import click

import rtbench
from rtbench.store import contract

DEFAULTS = {"samples": 10000, "warmup": 100, "budget_ms": 2000}
QUICK = {"samples": 1000, "warmup": 50, "budget_ms": 500}
MAX_SAMPLES = 10_000_000
MAX_WARMUP = 1_000_000  # the harness's own limits (docs/records.md)
MAX_TIMEOUT_S = 86_400.0  # a day: longer than any budget (--budget-ms is at most an hour)
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE  # stdout's reader went away (`| head`)


def _finite(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Seconds, or --threshold's percentage: finite (inf, nan: no verdict)."""
    if value is not None and not math.isfinite(value):
        what = "percentage" if param.name == "threshold" else "number of seconds"
        raise click.BadParameter(f"{value} is not a finite {what}", param=param)
    return value


def _text(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--label: text (an argument that is no UTF-8 arrives as lone surrogates)."""
    why = contract.text_problem(value) if value else None
    if why:
        raise click.BadParameter(f"not UTF-8 text: {why}", param=param)
    return value


def _patterns(_ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not [p for p in value.split(",") if p.strip()]:
        raise click.BadParameter("no pattern given (e.g. --only 'sem.*,msgq.*'); "
                                 "leave --only out to run every metric", param=param)
    return value


def _duration(_ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """--duration: seconds, or a number with s, m, h or d."""
    if value is None:
        return None
    text = value.strip().lower()
    mult = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(text[-1:], None)
    try:
        seconds = float(text[:-1] if mult else text) * (mult or 1)
    except ValueError:
        seconds = -1.0
    if not math.isfinite(seconds) or not 1 <= seconds <= 7 * 86400:
        raise click.BadParameter(f"{value!r}: a time from 1s to 7d, e.g. 600, 10m, 2h",
                                 param=param)
    return seconds


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(rtbench.__version__, prog_name="rtbench")
def cli() -> None:
    """rtbench: real-time kernel benchmark suite."""
