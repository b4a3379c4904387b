"""rtbench's own process on this machine: the children it starts and the
locks it holds while it lives.

* lifetime.py: every child in a session of its own, ended in order, and a
  guard process that ends them if rtbench is killed; SIGINT, SIGTERM and
  SIGHUP as interrupts; a console that survives a closed stdout.
* locks.py: machine-wide locks the kernel frees with their process: one
  run per benchmark CPU, and a running run's liveness.
* owned.py: whether a build cache rtbench runs or builds from is this
  user's alone (another user's, or one others may write, is refused).

Not a stage of a run but the floor the stages that start programs or hold
locks stand on: targets (the harness, QEMU), peers and standard programs,
measure (the load, the tuning helper, the CPU lock) and the store (whether
a run marked running is still alive). It knows nothing of records,
targets or sheets.

May import: rtbench.errors.
"""
