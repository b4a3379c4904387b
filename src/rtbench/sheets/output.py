"""Where a command's page goes: stdout, or `-o FILE` in the format the
file's suffix names (or --format); one place for every command (cli/)."""

from __future__ import annotations

import io
from pathlib import Path

import click
from rich.console import Console

from rtbench.errors import RtbenchError
from rtbench.sheets import files
from rtbench.store.records import strict_json

SUFFIXES = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".csv": "csv",
            ".json": "json", ".txt": "text"}


def pick_format(fmt: str | None, output: Path | None, allowed: tuple[str, ...],
                default: str) -> str:
    """--format, else the output file's suffix, else the default. A suffix
    naming a format this command does not write (-o sheet.pdf) is refused:
    never Markdown in a file called .pdf."""
    if fmt:
        return fmt
    if output is None or not output.suffix:
        return default
    guessed = SUFFIXES.get(output.suffix.lower())
    if guessed not in allowed:
        known = " ".join(sorted(k for k, v in SUFFIXES.items() if v in allowed))
        raise click.UsageError(f"-o {output.name}: this command writes {', '.join(allowed)}; "
                               f"name the file {known}, or give --format")
    return guessed


def emit(text: str, output: Path | None) -> None:
    if output is None:
        click.echo(text, nl=False)
        return
    if not output.name or output.is_dir():
        raise RtbenchError(f"-o {str(output)!r}: " + ("a directory; give a file name"
                                                     if output.name else "no file name"))
    try:
        files.atomic_write(output, text)
    except OSError as exc:
        raise RtbenchError(f"cannot write {output}: {exc.strerror or exc}") from exc
    click.echo(f"wrote {output} ({len(text.encode()) / 1024:.0f} KiB)", err=True)


WIDTH_KEY = "rtbench.width"


def width_option(f):
    """--width N: the text's width in columns (default: the terminal's,
    $COLUMNS, or 160 for a file or a pipe); a table too wide for it prints a
    row at a time (pages.print_records), never cropped."""
    def keep(ctx: click.Context, _param, value: int | None) -> None:
        ctx.meta[WIDTH_KEY] = value
    return click.option("--width", type=click.IntRange(40, 1000), expose_value=False,
                        callback=keep, help="Text width in columns (default: the "
                        "terminal's; 160 for a file or pipe).")(f)


def text_console(file=None) -> tuple[Console, bool]:
    """A console as wide as --width, else the terminal (shutil's size or
    $COLUMNS), else 160 for a file or a pipe (rows on one line); and whether
    its text is laid out for that width (paragraphs wrapped between words)."""
    ctx = click.get_current_context(silent=True)
    width = ctx.meta.get(WIDTH_KEY) if ctx else None
    console = Console(file=file, highlight=False, width=width)
    if width is None and (file is not None or not console.is_terminal):
        console.width = max(console.width, 160)
        return console, False
    return console, True


def emit_page(page, fmt: str, output: Path | None, data=None) -> None:
    from rtbench.sheets import pages

    if fmt == "json":
        emit(strict_json(data, indent=2, ensure_ascii=False) + "\n", output)
    elif fmt == "text":
        buf = io.StringIO()
        console, laid_out = text_console(buf if output else None)
        pages.print_rich(page, console, soft=not laid_out)
        if output:
            emit(buf.getvalue(), output)
    else:
        emit(pages.render(page, fmt), output)
