"""The Jinja2 environment of every template (templates/: the data sheet,
the kernel sheet, the pages) and the filters that keep free text in them
safe: one line, no raw HTML, no link, the sheet's few Markdown marks.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jinja2
from markupsafe import Markup

from rtbench.store import contract


# What a reader obeys rather than shows (rtbench.store.contract.BIDI: the
# bidirectional controls; the C0 and C1 controls, DEL, the line and
# paragraph separators): a space, or nothing for the bidirectional ones.
_INVISIBLE = {**{chr(c): " " for c in (*range(32), *range(127, 160))},
              **{c: " " for c in contract.LINE_SEPARATORS}, **dict.fromkeys(contract.BIDI, "")}
_MD_TEXT = str.maketrans({"\\": "\\\\", "&": "\\&", "<": "\\<", ">": "\\>", "[": "\\[",
                         "]": "\\]", **_INVISIBLE})
_MD_SPAN = str.maketrans(_INVISIBLE)


def _mdtext(text: Any) -> str:
    """Free text (a label, a host name, a reason, an imported figure's name)
    as Markdown text: on one line, no raw HTML, no link or image, and no
    HTML entity either (`<<` stays `<<` to the reader, written `\\<\\<`), no
    heading (a leading `#` is escaped).
    A `code span` keeps its text as is (Markdown shows it literally); a
    backtick without its pair is escaped."""
    chunks = str(text).split("`")
    if len(chunks) % 2 == 0:  # an odd number of backticks: no code span
        out = "\\`".join(c.translate(_MD_TEXT) for c in chunks)
    else:
        out = "`".join(c.translate(_MD_SPAN) if i % 2 else c.translate(_MD_TEXT)
                       for i, c in enumerate(chunks))
    # at the start of a line, `#` would make the text a heading
    return "\\" + out if out.lstrip(" ").startswith("#") else out


def _cell(text: Any) -> str:
    return _mdtext(text).replace("|", "\\|")


def _mdcode(text: Any) -> str:
    """An id inside a table cell's `code span`: one line, no backtick, no bar."""
    return str(text).translate(_MD_CODE).replace("|", "\\|")


_MD_CODE = str.maketrans({"`": "'", **_INVISIBLE})


@lru_cache(maxsize=None)
def template_env() -> jinja2.Environment:
    """The templates in rtbench/sheets/templates; HTML ones are autoescaped."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rtbench.sheets", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",),
                                            default_for_string=False),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        trim_blocks=True, lstrip_blocks=True)
    env.filters["cell"] = _cell
    env.filters["mdtext"] = _mdtext
    env.filters["mdcode"] = _mdcode
    env.filters["mdinline"] = _mdinline
    return env


def _mdinline(text: Any) -> Markup:
    """The sheet's few Markdown marks (**bold**, `code`) as HTML, the rest
    escaped."""
    out = []
    for i, chunk in enumerate(str(Markup.escape(text)).split("`")):
        if i % 2:
            out.append(f"<code>{chunk}</code>")
            continue
        parts = chunk.split("**")
        out.append("".join(f"<strong>{p}</strong>" if j % 2 else p for j, p in enumerate(parts)))
    return Markup("".join(out))
