"""rtos-benchmark's Zephyr port beside rtbench's Zephyr image
(rtbench.peers.rtosbench, harness/peers/rtos-benchmark/zephyr): how it
it was built and timed (how), whether each row agrees with rtbench's figure once its
own read cost is taken out (agreement), and where the definitions differ
(WHY), for `rtbench compare RUN`.

Its timing is Zephyr's timing API (SysTick through k_cycle_get_32() on
this board), called through its porting layer, and it subtracts nothing:
every window holds the tail of one read and the head of the next, which is
what two back-to-back reads give (the session's `empty_window`). So a row
is set beside rtbench's mean as its average less that empty window; within
AGREE instructions the two agree. The interrupt row reads SysTick's count
directly, with no read pair, and is compared as it is.
"""

from __future__ import annotations

from rtbench.peers.latency_measure import AGREE
from rtbench.peers.linked import mean_gap

IRQ_ROW = "Interrupt Stats / Latency"  # no read pair in its window


def how(src: dict) -> tuple[list[str], str]:
    """The comparison page's sentences on how this port was built and timed
    (`src`: the peer session's source), then what its empty window reads."""
    empty = src.get("empty_window")
    shift = src.get("icount_shift")
    return [
        "rtos-benchmark's Zephyr port ran in the same QEMU with the same -icount as rtbench's "
        "Zephyr image, built from the same Zephyr tree and modules with the same compiler and "
        "kernel configuration (the kernel profile of rtbench's image, docs/profiles.md, plus "
        "Zephyr's timing functions: harness/peers/rtos-benchmark/zephyr), its porting layer "
        "unchanged.",
        "It times with Zephyr's timing API (SysTick at 25 MHz through k_cycle_get_32(), "
        "as its port does) and prints nanoseconds of QEMU's virtual clock; "
        + (f"under -icount shift {shift} an instruction is {2 ** shift} of them, "
           "so its figures are divided by that: instructions, fractions kept."
           if shift is not None else "they are converted to instructions.")], (
        f"It subtracts nothing: two back-to-back reads through its timing calls "
        f"(bench_timing_counter_get → timing_counter_get → k_cycle_get_32, which locks "
        f"interrupts to read SysTick) read {empty:.10g} instructions in this build; each row "
        "below is set beside rtbench's mean as its average less that."
        if empty is not None else "It subtracts no read cost.")


def agreement(peer: dict, ours: dict | None, empty: float | None) -> str:
    """One sentence for a row: whether rtos-benchmark's average, less its
    empty window, agrees with rtbench's mean for the same metric, and the
    row's definition (WHY)."""
    label = (peer.get("source") or {}).get("label", "")
    why = WHY.get(label, "")
    less = 0.0 if label == IRQ_ROW or empty is None else empty
    gap = mean_gap(peer, ours, less)
    if gap is None:
        return why
    taken = (f" less its empty window ({less:.10g} instructions, which it does not subtract)"
             if less else "")
    if abs(gap) <= AGREE:
        return (f"agrees: rtbench's mean is within {abs(gap):.1f} instructions of "
                f"rtos-benchmark's average{taken}. " + why)
    return (f"differs by {gap:+.1f} instructions (rtbench's mean − rtos-benchmark's "
            f"average{taken}): " + (why or "where the two definitions differ is not yet "
                                           "written down for this row"))


# Where rtos-benchmark's clock starts and stops (its src/common/*_test.c on
# its Zephyr porting layer) against the catalogue's definition of the
# metric; by rtos-benchmark's name of the row (importers.rtosbench). The
# wrapper sizes are those of the build measured for docs/peers.md (Debian's
# arm-none-eabi-gcc 12.2, Zephyr's -O2).

_WRAP = ("Its window also holds its porting layer's wrapper and the test's call into it, "
         "where rtbench's holds one call through its kcall into a wrapper of 1 to 3 "
         "instructions: ")
_WRAP_SHORT = (_WRAP + "bench_sem_give and bench_thread_start/suspend/resume are 3 or 4 "
               "(the object's address from its id, a branch to the kernel); what else makes "
               "a gap of a few instructions either way is not traced row by row.")
_WRAP_LONG = (_WRAP + "bench_mutex_lock/unlock and bench_sem_take are 7 to 9 (not tail calls: "
              "they return BENCH_SUCCESS, and the lock passes K_FOREVER), most of a gap of 5 "
              "to 10 instructions.")
_STACK = ("neither fills the new thread's stack (CONFIG_INIT_STACKS=n: the rule of both "
          "kernel profiles, docs/profiles.md), so the stacks' sizes (512 bytes there, its "
          "STACK_SIZE; 2 KiB here) cost nothing; what makes a gap of a few instructions either "
          "way is not traced row by row.")
_IN_START = ("main was preempted inside k_thread_start() by the helper it had just started, so "
             "the rest of that call and its return are inside the figure.")
_NO_QUEUE = ("Not measured by rtos-benchmark here: its Zephyr port has no bench_message_queue_* "
             "calls (RTOS_HAS_MESSAGE_QUEUE is never defined), so its five queue rows print n/a.")

WHY = {
    "Thread stats / Spawn (no context switch)":
        "Both time k_thread_create() of a less urgent thread started at once (K_NO_WAIT), "
        "between reads around the call; " + _STACK,
    "Thread stats / Create (no context switch)":
        "Both time k_thread_create() of a thread left unstarted (K_FOREVER), between reads "
        "around the call; rtos-benchmark's bench_thread_create() then calls "
        "k_thread_name_set(), which returns at once without CONFIG_THREAD_NAME; " + _STACK,
    "Thread stats / Start (no context switch)":
        "Both time k_thread_start() of a less urgent thread created unstarted, between reads "
        "around the call. " + _WRAP_SHORT,
    "Thread stats / Suspend (no context switch)":
        "Both time k_thread_suspend() of a less urgent ready thread, between reads around "
        "the call; rtos-benchmark's target was started just before and has never run. "
        + _WRAP_SHORT,
    "Thread stats / Resume (no context switch)":
        "Both time k_thread_resume() of a less urgent thread suspended just before, between "
        "reads around the call. " + _WRAP_SHORT,
    "Thread stats / Spawn (context switch)":
        "Both start before k_thread_create() of a more urgent thread started at once and stop "
        "at its first statement (rtbench's reaches it through its port's thread wrapper); "
        + _STACK,
    "Thread stats / Start (context switch)":
        "The same points as rtbench's: main reads just before k_thread_start() of a more "
        "urgent thread created unstarted, which reads as its first statement. " + _WRAP_SHORT,
    "Thread stats / Suspend (context switch)":
        "The more urgent helper reads, then suspends itself (k_thread_suspend); the clock "
        "stops in main after bench_thread_start() returns: " + _IN_START + " rtbench stops at "
        "the runner's first instruction after the switch.",
    "Thread stats / Resume (context switch)":
        "The same points as rtbench's: main reads just before k_thread_resume() of the "
        "suspended, more urgent helper, which reads right after its own k_thread_suspend() "
        "returns. " + _WRAP_SHORT,
    "Thread stats / Terminate (context switch)":
        "No rtbench metric: on Zephyr bench_thread_exit() does nothing, so the helper returns "
        "from its entry function and Zephyr ends the thread (z_thread_entry's "
        "k_thread_abort() of itself); the row times that exit and the switch back to main, "
        "which stops after its k_thread_resume() returns.",
    "Mutex Stats / Lock (no owner)":
        "The same call between reads around it: k_mutex_lock() of a free mutex "
        "(rtos-benchmark waits K_FOREVER). " + _WRAP_LONG,
    "Mutex Stats / Unlock (no waiters)":
        "The same call between reads around it: k_mutex_unlock() of the mutex the caller "
        "owns once, no thread waiting. " + _WRAP_LONG,
    "Mutex Stats / Recursive lock":
        "rtos-benchmark locks one mutex once per iteration without unlocking in between "
        "(depth 2 up to the iteration count + 1) and times each lock, rtbench times the step "
        "from depth 1 to 2; a Zephyr mutex only counts either way. " + _WRAP_LONG,
    "Mutex Stats / Recursive unlock":
        "rtos-benchmark then unlocks it down to depth 1, keeping ownership each time; "
        "rtbench times depth 2 to 1. " + _WRAP_LONG,
    "Mutex Stats / Unlock with unpend (no context switch)":
        "No rtbench metric: the waiter is at main's own priority (main yields so that it "
        "blocks on the mutex, which on Zephyr it does), so the unlock hands it the mutex and "
        "readies it without a switch; rtbench's rmutex.unlock.waiter_readied.thread has a "
        "less urgent waiter.",
    "Mutex Stats / Unlock with unpend (context switch)":
        "The same points as rtbench's: the owner reads just before k_mutex_unlock() (it had "
        "inherited the waiter's priority, and the unlock gives it back), the more urgent "
        "waiter reads right after its lock returns.",
    "Mutex Stats / Pend (priority inheritance)":
        "The more urgent helper reads just before locking the mutex main owns; it blocks, "
        "main inherits its priority and runs, and stops the clock after bench_thread_start() "
        "returns: " + _IN_START,
    "Mutex Stats / Pend (no priority inheritance)":
        "No rtbench metric: the thread that blocks on the mutex is less urgent than its owner "
        "(main, itself blocked on a semaphore), so nothing is inherited and the switch goes "
        "to a third, least urgent thread, whose read after its interrupted k_sem_give() "
        "returns stops the clock; rmutex.lock.block_ctx.thread is the case of a less urgent "
        "owner (the row above).",
    "Semaphore stats / Take (context switch)":
        "The more urgent helper reads just before k_sem_take() of the empty semaphore (limit "
        "1) and blocks; main stops the clock after bench_thread_start() returns: " + _IN_START,
    "Semaphore stats / Give (context switch)":
        "The same points as rtbench's: the giver reads just before k_sem_give(), the more "
        "urgent waiter right after its take returns. " + _WRAP_SHORT,
    "Semaphore stats / Give (no context switch)":
        "Both time k_sem_give() of a semaphore nobody waits on, between reads around the "
        "call; rtos-benchmark's has a limit of its iteration count and is given once per "
        "iteration without a take (its count climbs from 0). " + _WRAP_SHORT,
    "Semaphore stats / Take (no context switch)":
        "Both time k_sem_take() of an available semaphore, between reads around the call; "
        "rtos-benchmark then takes its count back down to 0. " + _WRAP_LONG,
    "Yield stats / Yield (context switch)":
        "The same points as rtbench's: two threads of equal priority, the yielding one reads "
        "just before k_yield() (bench_yield is a branch to it), the other right after its own "
        "k_yield() returns. Here rtbench's figure is the larger; why is not traced yet.",
    "Yield stats / Yield (no context switch)":
        "No rtbench metric: a yield with only less urgent threads ready; k_yield() requeues "
        "the caller behind its equals (none) and calls z_swap() anyway, so PendSV runs and "
        "resumes the same thread: about what a switch costs.",
    "Allocation stats / Malloc":
        "No rtbench metric of this size: bench_malloc() is k_malloc() of 128 bytes from the "
        "kernel heap (rtbench's rule: 64 KiB); rtbench's heap.malloc.* time k_malloc() of 10, "
        "256 and 4096 bytes.",
    "Allocation stats / Free":
        "No rtbench metric of this size: bench_free() is k_free() of those 128 bytes; "
        "rtbench's heap.free.* free its own sizes.",
    **{f"Message queue stats / {row}": _NO_QUEUE
       for row in ("Create", "Send (no context switch)", "Receive (no context switch)",
                   "Send (context switch)", "Receive (context switch)")},
    IRQ_ROW:
        "Both time a C function installed in the vector table that the kernel never sees, "
        "from the timer's expiry: rtos-benchmark swaps one in at SysTick's vector (in a RAM "
        "copy of the table; SysTick is Zephyr's tick timer, reloaded to expire 1 ms later, "
        "and Zephyr's sys_clock_isr() is called at the handler's end) and reads SysTick's own "
        "down-count in bench_timer_cycles_get(), called from the handler's first statement, "
        "so the prologue and the call come before that load; rtbench's handler is on TIMER1 "
        "and loads the counter first thing in its body. There is no read pair in it, so "
        "nothing is taken out. Neither is rtbench's irq.response, which goes through the "
        "port's interrupt wrapper to a hook.",
}
