"""The run: `rtbench run` from its options to the stored run and its sheet.

* run.py: check every option before anything is stored, start the run,
  measure each profile, the standard programs and the peers, store each
  metric the moment it arrives, end the run and write its sheet however
  it ends.
* interleave.py: the passes of a blocked run (the blocks' plan and exact
  merge are store/blocks.py's), each pass a runner.py: the harness on a
  target under a watchdog, a hung or crashed metric failed and the rest
  measured by a fresh instance.
* The host's conditions for the run: tuning.py (as root, RT throttling
  lifted and interrupts steered off the benchmark CPU, put back however
  the run ends), load.py (`--load`), placement.py (rtbench itself kept off
  the benchmark CPU); the lock of the benchmark CPU is process/locks.py.
* qualify.py (+ qualify_trace.py): `rtbench qualify`, cyclictest soaked in
  stored segments on every CPU, the worst case's trace from a private
  tracefs instance, no system setting changed (docs/qualify.md).
* outdir.py: the output folder, made before measuring and taken back if
  the run never starts; farm.py: several lab places measured at once, one
  `rtbench run` each, then compared.

The top of the stages: it drives a target (targets), runs the peers
beside it (peers), writes the store, and ends with the sheet and, for
several places, their comparison.

May import: rtbench.targets, rtbench.kernels, rtbench.peers, rtbench.compare, rtbench.sheets,
rtbench.store, rtbench.process, rtbench.errors.
"""
