"""Everything that renders a stored run, and nothing that measures it.

* datasheet.py: the data sheet of a run (one model; Markdown, HTML, the
  glossary) and the files `rtbench run` writes; configuration.py, what it
  says of how the run was made; firstpage.py, its first page (also
  `rtbench run`'s last screen); system.py, its System part; advice.py, the
  warnings that advise. qualify_sheet.py: a `rtbench qualify` run's sheet
  and first page (and `show`/`report`'s choice between the two sheets).
* pages.py: one small document model for every other output (terminal,
  Markdown, HTML); views.py, the pages of `history`, `runs` and
  `reference list`.
* plots.py (SVG through matplotlib), hist.py (`rtbench hist`, cyclictest's
  layout), units.py (one unit per column), templating.py (Jinja2 and its
  filters), export.py (CSV and JSON, and reading results.json back),
  files.py (every output file: a regular file only, written through an
  exclusively created temporary file), output.py (where a command's page
  goes: stdout or `-o FILE`, in the format its suffix names).
* templates/ and schema/ (the results file's JSON Schema) are package data.

Reads the store only: a sheet of a run is the same whoever measured it
(this host, a board, an import) and is rendered again at any time from
what was stored. Comparisons lay their pages out with these blocks from
above (compare imports sheets, never the other way).

May import: rtbench.importers (the origins a run can have), rtbench.store, rtbench.errors.
"""
