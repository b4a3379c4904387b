"""Every other program rtbench runs beside its own harness, one module per
peer, and the one way their output becomes records of a run.

* programs.py: the standard programs of the System part on Linux (STREAM,
  stress-ng, sysbench, hackbench, rtla timerlat), answering catalogue
  entries `measured_by = "external"`; and `execute`, how every peer runs:
  bounded, in its own session, ended on a timeout or Ctrl-C.
* rttests.py: rt-tests (cyclictest, ptsematest, pmqtest, svsematest,
  sigwaittest) beside a Linux run, at rtbench's priorities on its CPU.
* rtosbench.py: rtos-benchmark's FreeRTOS port beside a board run, built
  for the same board and booted in the same QEMU.
* threadmetric.py: Thread-Metric beside a board run, on ThreadX or FreeRTOS.
* linked.py: what they share once measured: their records stored as a run
  linked to the rtbench run, and a peer record's console line.

A peer's output becomes records by the contract of docs/records.md
("Records from other sources"), read by the importers where rtbench can
also import that tool's files (rt-tests, rtos-benchmark). A peer that is
not installed or has no sources is an `unsupported` record, never an
error. A board peer's image is built by the targets' harness builder.
Next here: latency_measure, rtos-benchmark's Zephyr port.

May import: rtbench.targets, rtbench.importers, rtbench.store, rtbench.process, rtbench.errors.
"""
