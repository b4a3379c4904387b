"""Comparisons: a run against other runs, against a vendor's published
sheet, beside its peers; kernels side by side; limits; how the catalogue
covers the vendors' sheets. Each builds a plain model (dataclasses) that
its page lays out (views.py; the kernel sheet its own templates) and that
`--format json` writes as it is (jsonable.py).

* runs.py: run against run, a verdict per statistic (the median, p99 and
  p99.9 judged on block replicates, Holm's correction over the metrics
  compared), and absolute limits; conditions.py: whether the runs measured
  under the same conditions.
* vendors.py: a run beside a vendor's published reference sheet.
* peers.py: a run beside the peers measured with it (rt-tests,
  rtos-benchmark), and why each figure differs.
* kernels.py: runs of different kernels as one sheet whose columns are
  kernels, Thread-Metric beside them; fairness.py: what must be equal;
  ranking.py: each row ranked by its defining statistic, the differences
  where a row is too small to rank, the rows a record leaves unranked, and
  the section verdicts.
* coverage.py: each vendor sheet's rows measured, unsupported, n/a, missing.

Reads stored runs and the peers' own descriptions (their WHY tables, how
they measured); lays its pages out with the sheets' blocks. Nothing here
measures or writes the store. The names below are the package's entry
points; the modules import each other directly, never this package.

May import: rtbench.sheets, rtbench.peers, rtbench.kernels, rtbench.importers,
rtbench.store, rtbench.errors.
"""

from rtbench.compare.jsonable import to_jsonable
from rtbench.compare.peers import PeerComparison, PeerRow, compare_peers
from rtbench.compare.runs import (ALPHA, DEFAULT_THRESHOLD_PCT, LIMIT_STATS, STAT_NAMES,
                                  TAIL_STATS, Cell, Limit, LimitCheck, Row, RunComparison,
                                  StatChange, check_limit, compare_runs, holm, load_limits,
                                  parse_limit)
from rtbench.compare.vendors import Published, RefComparison, RefRow, compare_reference

__all__ = ["ALPHA", "DEFAULT_THRESHOLD_PCT", "LIMIT_STATS", "STAT_NAMES", "TAIL_STATS", "Cell",
           "Limit", "LimitCheck", "PeerComparison", "PeerRow", "Published", "RefComparison",
           "RefRow", "Row", "RunComparison", "StatChange", "check_limit", "compare_peers",
           "compare_reference", "compare_runs", "holm", "load_limits", "parse_limit",
           "to_jsonable"]
