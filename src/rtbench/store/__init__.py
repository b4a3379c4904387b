"""What a run leaves behind, and the terms every stage reads it in.

* db.py: the SQLite store of runs and their metric records (a run is
  committed metric by metric, so a killed run stays readable).
* records.py: the harness's records and those of other sources
  (docs/records.md): parsing, checking, units; contract.py, the one check
  every record passes before it is stored, whatever carried it (types,
  finite and plausible figures, bounded sizes and depth, text that is
  text) of every record and of a run's host facts; text.py, the removal of
  what a terminal obeys from stored strings.
* catalog.py, reference.py: what every metric id means (data/catalog) and
  the vendors' published sheets (data/reference).
* stats.py: statistics on stored histograms (grouped samples, the
  Mann–Whitney U test, plot bins).
* blocks.py: a record made of interleaved blocks: the plan, the exact
  merge (measure feeds it as the blocks arrive) and the blocks read back
  (spread, canary, the window of a max).

The bottom stage: measure writes here; targets, peers and importers make
records by its contract; sheets and compare read it. Nothing here runs a
program, renders or compares.

May import: rtbench.process (whether a run marked running is alive), rtbench.errors.
"""
