"""Every other program rtbench runs beside its own harness, one module per
peer, and the one way their output becomes records of a run.

* programs.py: the standard programs of the System part on Linux (STREAM,
  stress-ng, sysbench, hackbench, rtla timerlat), answering catalogue
  entries `measured_by = "external"`; and `execute`, how every peer runs:
  bounded, in its own session, ended on a timeout or Ctrl-C.
* rttests.py: rt-tests (cyclictest, ptsematest, pmqtest, svsematest,
  sigwaittest) beside a Linux run, at rtbench's priorities on its CPU;
  cyclictest_segment.py: one segment of `rtbench qualify` (every CPU).
* rtosbench.py: rtos-benchmark's FreeRTOS or Zephyr port beside a board
  run, built for the same board and booted in the same QEMU; what each port
  measures against rtbench's definitions in rtosbench_freertos.py and
  rtosbench_zephyr.py (which also says whether a row agrees).
* latency_measure.py: Zephyr's own latency_measure beside a Zephyr run,
  built two ways (stock, as Zephyr ships it; rebuilt, with rtbench's kernel
  configuration); lm_causes.py: why each row differs from rtbench's and
  where its clock starts and stops; lm_trace.py: its windows in an
  instruction trace, the causes' check.
* threadmetric.py: Thread-Metric beside a board run, on ThreadX, FreeRTOS or Zephyr.
* linked.py: what they share once measured: their records stored as a run
  linked to the rtbench run, a peer record's console line, the gap between
  a peer's average and rtbench's mean.

A peer's output becomes records by the contract of docs/records.md
("Records from other sources"), read by the importers where rtbench can
also import that tool's files (rt-tests, rtos-benchmark). A peer that is
not installed or has no sources is an `unsupported` record, never an
error. A board peer's image is built by the targets' harness builder.
Next here: rtos-benchmark's message queues on Zephyr (its port has no
calls for them); why its yield row is shorter than rtbench's.

May import: rtbench.targets, rtbench.kernels, rtbench.importers, rtbench.store, rtbench.process, rtbench.errors.
"""
