"""One small document model for every command's output that is not the
data sheet itself (compare, history, runs, reference list): a Page is a
title and a list of blocks (headings, paragraphs, warnings, tables, lists,
an SVG plot), rendered to the terminal (rich), Markdown or HTML from the
same blocks, so the formats cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

import rtbench
from rtbench.sheets.templating import template_env


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]]
    align: str = ""  # one letter per column, l or r (default l)
    # optional CSS class per row (html) / style (terminal): bad, better, muted
    styles: list[str] = field(default_factory=list)
    groups: list[tuple[str, int]] = field(default_factory=list)  # (label, span) header row

    def aligned(self, i: int) -> str:
        return self.align[i] if i < len(self.align) else "l"


@dataclass
class Block:
    kind: str  # h2, p, warning, table, list, svg, figures
    text: str = ""
    table: Table | None = None
    items: list = field(default_factory=list)  # list: strings; figures: {id, title, code, svg, caption}
    svg: str = ""
    legend: list[tuple[str, str]] = field(default_factory=list)  # figures: (name, colour)


@dataclass
class Page:
    title: str
    subtitle: str = ""
    blocks: list[Block] = field(default_factory=list)

    def h2(self, text: str) -> None:
        self.blocks.append(Block("h2", text))

    def p(self, text: str) -> None:
        self.blocks.append(Block("p", text))

    def warning(self, text: str) -> None:
        self.blocks.append(Block("warning", text))

    def table(self, table: Table) -> None:
        self.blocks.append(Block("table", table=table))

    def bullets(self, items: list[str]) -> None:
        self.blocks.append(Block("list", items=list(items)))

    def svg(self, svg: str) -> None:
        self.blocks.append(Block("svg", svg=svg))

    def figures(self, figures: list[dict], legend: list[tuple[str, str]] = ()) -> None:
        """A grid of small plots (HTML only; the other renderings say where they are)."""
        self.blocks.append(Block("figures", items=list(figures), legend=list(legend)))


def render(page: Page, fmt: str) -> str:
    """Markdown or HTML text of the page."""
    name = {"md": "page.md.j2", "html": "page.html.j2"}[fmt]
    blocks = [Block("svg", svg=Markup(b.svg)) if b.kind == "svg" else
              Block("figures", items=[f | {"svg": Markup(f["svg"])} for f in b.items],
                    legend=b.legend) if b.kind == "figures" else b for b in page.blocks]
    return template_env().get_template(name).render(
        page=page, blocks=blocks, title=page.title, version=rtbench.__version__)


_RICH_STYLES = {"bad": "bold red", "better": "green", "muted": "dim", "group": "bold"}
LONGEST_TOKEN = 56  # a column is never narrower than its longest word, up to this


def rich_markup(text: str) -> str:
    """The pages' few Markdown marks (**bold**, `code`) as terminal styles,
    the rest escaped: a terminal never shows the raw marks."""
    from rich.markup import escape

    out = []
    for i, chunk in enumerate(text.split("`")):
        if i % 2:
            out.append(f"[cyan]{escape(chunk)}[/cyan]")
            continue
        parts = chunk.split("**")
        out.append("".join(f"[bold]{escape(p)}[/bold]" if j % 2 else escape(p)
                           for j, p in enumerate(parts)))
    return "".join(out)


def min_width(values: list[str]) -> int:
    """The width a column needs so no id, number or header word is broken
    mid-token."""
    return min(LONGEST_TOKEN, max((len(tok) for v in values for tok in str(v).split()),
                                  default=1))


def _column(t: Table, i: int) -> list[str]:
    return [t.headers[i], *(row[i] for row in t.rows if i < len(row))]


def fits(t: Table, width: int) -> bool:
    """Whether the table's columns, each as wide as its longest word (header
    included), fit `width` with rich's borders and padding (3 a column)."""
    cols = [min_width(_column(t, i)) for i in range(len(t.headers))]
    return sum(cols) + 3 * len(cols) + 1 <= width


def column_widths(t: Table, width: int) -> list[int]:
    """Each column's width in `width` columns: its longest line where all
    fit, else its longest word plus a share of what is left by how much
    more it would take (rich's own shrinking left a table wider than the
    terminal, cropped)."""
    cols = [_column(t, i) for i in range(len(t.headers))]
    mins = [min_width(c) for c in cols]
    full = [max(mins[i], max(len(line) for v in c for line in str(v).splitlines() or [""]))
            for i, c in enumerate(cols)]
    room = width - 3 * len(cols) - 1
    if sum(full) <= room:
        return full
    spare, want = room - sum(mins), sum(f - m for f, m in zip(full, mins)) or 1
    return [m + (f - m) * spare // want for f, m in zip(full, mins)]


def _named_headers(t: Table) -> list[str]:
    """Each header with its group's label in front ("FreeRTOS median")."""
    out, i = [], 0
    for label, span in t.groups or [("", len(t.headers))]:
        out += [f"{label} {h}".strip() for h in t.headers[i:i + span]]
        i += span
    return out + t.headers[len(out):]


def print_records(t: Table, console: Any) -> None:
    """A table too wide for the terminal, a row at a time: its first cell,
    then "header value" pairs wrapped between words. Nothing is cropped,
    no word broken (a kernel comparison at 80 columns, --ref at 120)."""
    from rich.markup import escape

    heads = [h.replace("\n", " ") for h in _named_headers(t)]
    for i, row in enumerate(t.rows):
        style = _RICH_STYLES.get(t.styles[i] if i < len(t.styles) else "", "")
        first = f"[{style}]{escape(row[0])}[/{style}]" if style and row else escape(row[0])
        pairs = [f"[dim]{escape(h)}[/dim] {escape(c)}" for h, c in zip(heads[1:], row[1:]) if c]
        console.print(first + ("  " + " · ".join(pairs) if pairs else ""))


def print_rich(page: Page, console: Any, soft: bool = True) -> None:
    """The page on the terminal: rich tables, plain paragraphs, no plots.
    `soft`: a paragraph is one line (a file, a pipe); else wrapped between
    words at the console's width (a terminal, --width)."""
    from rich.markup import escape
    from rich.table import Table as RichTable

    console.print(f"[bold]{escape(page.title)}[/bold]", soft_wrap=soft)
    if page.subtitle:
        console.print(escape(page.subtitle), soft_wrap=soft)
    for b in page.blocks:
        if b.kind == "h2":
            console.print(f"\n[bold underline]{escape(b.text)}[/bold underline]")
        elif b.kind == "p":
            console.print(rich_markup(b.text), soft_wrap=soft)
        elif b.kind == "warning":
            console.print(f"[yellow]warning:[/yellow] {rich_markup(b.text)}", soft_wrap=soft)
        elif b.kind == "list":
            for item in b.items:
                console.print(f"  • {rich_markup(item)}", soft_wrap=soft)
        elif b.kind == "table" and b.table is not None and not fits(b.table, console.width):
            print_records(b.table, console)
        elif b.kind == "table" and b.table is not None:
            t = b.table
            rt = RichTable(show_lines=False, header_style="bold", pad_edge=False)
            widths = column_widths(t, console.width)
            for i, h in enumerate(t.headers):  # headers wrap between words, never inside one
                rt.add_column(escape(h), justify="right" if t.aligned(i) == "r" else "left",
                              overflow="fold", width=widths[i])
            for i, row in enumerate(t.rows):
                style = _RICH_STYLES.get(t.styles[i] if i < len(t.styles) else "", None)
                rt.add_row(*[escape(c) for c in row], style=style)
            console.print(rt)
