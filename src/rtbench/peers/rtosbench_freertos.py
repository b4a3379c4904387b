"""rtos-benchmark's FreeRTOS port beside rtbench's FreeRTOS image
(rtbench.peers.rtosbench): how it measured (method) and why each of its
rows differs from rtbench's figure (WHY), for `rtbench compare RUN`.
"""

from __future__ import annotations


def how(src: dict) -> tuple[list[str], str]:
    """The comparison page's sentences on how this port was built and timed
    (`src`: the peer session's source), then what its empty window reads."""
    empty = src.get("empty_window")
    return [
        "rtos-benchmark's FreeRTOS port ran in the same QEMU with the same -icount as the "
        "harness image, built against the same kernel checkout with the harness's own "
        "FreeRTOSConfig.h, flags and board code, and timed with the same TIMER0 counter, "
        "converted to guest instructions the same way: the unit and the kernel are "
        "identical, the method is not."], (
        f"It subtracts nothing: two back-to-back reads through its timing calls "
        f"(bench_timing_counter_get → arch_timing_counter_get → the counter) read {empty} "
        "instructions in this build, and a part of that is inside each of its windows."
        if empty is not None else "It subtracts no read cost.")


# Where rtos-benchmark's clock starts and stops (its src/common/*_test.c on
# its FreeRTOS porting layer) against the catalogue's definition of the
# metric; by rtos-benchmark's name of the row (importers.rtosbench).

_CREATE = ("its bench_thread_spawn() is xTaskCreateStatic() on a TCB and a 456-word stack "
           "the port owns, as is rtbench's (task.create.*: a 512-word stack the port owns; "
           "xTaskCreate() from heap_4 is rtbench's task.create_heap.* rows); rtos-benchmark's "
           "build fills the new stack with the kernel's marker "
           "(INCLUDE_uxTaskGetStackHighWaterMark), rtbench's fills none (the rule of both "
           "kernel profiles, docs/profiles.md).")
_RESUMED_IN_CREATE = ("main was preempted inside xTaskCreateStatic() by the helper it had just "
                      "created, so the rest of that call, the return of bench_thread_create() "
                      "and the empty bench_thread_start() are inside the figure, where "
                      "rtbench's incoming (less urgent) task resumes inside the semaphore give "
                      "it was preempted in and stops once that returns.")

WHY = {
    "Thread stats / Spawn (no context switch)":
        "Both time creating a task less urgent than the caller, between reads just before "
        "and after the call; " + _CREATE,
    "Thread stats / Spawn (context switch)":
        "Both start before the create call and stop at the new, more urgent task's first "
        "statement (rtbench's reaches it through its port's task wrapper); " + _CREATE,
    "Thread stats / Create (no context switch)":
        "Not measured by rtos-benchmark here: its FreeRTOS port says RTOS_HAS_THREAD_CREATE_START "
        "0 (a FreeRTOS task starts when it is created) and prints n/a; rtbench emulates "
        "create-without-start (xTaskCreate and vTaskSuspend with the scheduler locked).",
    "Thread stats / Start (no context switch)":
        "Not measured by rtos-benchmark here (RTOS_HAS_THREAD_CREATE_START 0, n/a); rtbench's "
        "start is the vTaskResume() of a task created suspended.",
    "Thread stats / Start (context switch)":
        "Not measured by rtos-benchmark here (RTOS_HAS_THREAD_CREATE_START 0, n/a); rtbench's "
        "start is the vTaskResume() of a more urgent task created suspended, up to its first "
        "instruction.",
    "Thread stats / Suspend (no context switch)":
        "Both time vTaskSuspend() of a less urgent ready task between reads around the "
        "call; rtos-benchmark's target was created just before and has never run, "
        "rtbench's spins and has run.",
    "Thread stats / Resume (no context switch)":
        "Both time vTaskResume() of a less urgent task suspended just before, between "
        "reads around the call.",
    "Thread stats / Suspend (context switch)":
        "The more urgent helper reads the counter as it starts, then suspends itself; the "
        "clock stops in main after bench_thread_spawn() returns: main had been preempted "
        "inside xTaskCreateStatic() by that helper, so the rest of the create call is inside "
        "the figure. rtbench stops at the runner's first instruction after the switch.",
    "Thread stats / Resume (context switch)":
        "The same points as rtbench's: main reads just before vTaskResume() of the "
        "suspended, more urgent helper, which reads right after its own vTaskSuspend() "
        "returns.",
    "Thread stats / Terminate (context switch)":
        "No rtbench metric: on FreeRTOS bench_thread_exit() does not end the task, it "
        "records the handle and blocks for ever on a semaphore (bench_collect_resources() "
        "deletes the task later, untimed), so this row times a blocking take and the switch "
        "back to main, which stops after its vTaskResume() returns.",
    "Mutex Stats / Lock (no owner)":
        "The same call between reads around it: xSemaphoreTakeRecursive() of a free "
        "recursive mutex (rtos-benchmark waits portMAX_DELAY; rtbench reaches it through "
        "its port's mutex wrapper).",
    "Mutex Stats / Unlock (no waiters)":
        "The same call between reads around it: xSemaphoreGiveRecursive() of the mutex "
        "the caller owns once, no task waiting.",
    "Mutex Stats / Recursive lock":
        "rtos-benchmark locks one mutex once per iteration without unlocking in between "
        "(depth 2 up to the iteration count + 1) and times each lock, rtbench times the step "
        "from depth 1 to 2; FreeRTOS only counts either way.",
    "Mutex Stats / Recursive unlock":
        "rtos-benchmark then unlocks it down to depth 1, keeping ownership each time; "
        "rtbench times depth 2 to 1.",
    "Mutex Stats / Unlock with unpend (no context switch)":
        "No rtbench metric, because on FreeRTOS nobody waits: the helper is created at "
        "main's own priority and main yields to let it pend on the mutex, but main had "
        "raised itself to that priority without a switch, so that ready list's round-robin "
        "index was left at the list's head and taskYIELD() picks main, its first entry, "
        "again; the helper is still ready (eTaskGetState) when the clock runs, and the row "
        "times an unlock with no waiter, the same figure as Unlock (no waiters). rtbench's "
        "rmutex.unlock.waiter_readied.thread has a less urgent task pended.",
    "Mutex Stats / Unlock with unpend (context switch)":
        "The same points as rtbench's: the owner reads just before the unlock (it had "
        "inherited the waiter's priority, and the unlock gives it back), the more urgent "
        "waiter reads right after its lock returns.",
    "Mutex Stats / Pend (priority inheritance)":
        "The more urgent helper reads just before locking the mutex main owns; it blocks, "
        "main inherits its priority and runs, and stops the clock after "
        "bench_thread_create() and bench_thread_start() return: " + _RESUMED_IN_CREATE,
    "Mutex Stats / Pend (no priority inheritance)":
        "No rtbench metric: the task that blocks on the mutex is less urgent than its owner "
        "(main, itself blocked on a semaphore), so nothing is inherited and the switch goes "
        "to a third, least urgent task, whose read after its interrupted xSemaphoreGive() "
        "returns stops the clock; rmutex.lock.block_ctx.thread is the case of a less "
        "urgent owner (the row above).",
    "Semaphore stats / Take (context switch)":
        "The more urgent helper reads just before taking the empty semaphore (a counting "
        "semaphore of maximum 1: in FreeRTOS the same queue of length 1 as rtbench's "
        "binary one) and blocks; main stops the clock after bench_thread_create() and "
        "bench_thread_start() return: " + _RESUMED_IN_CREATE,
    "Semaphore stats / Give (context switch)":
        "The same points as rtbench's: the giver reads just before xSemaphoreGive(), the "
        "more urgent waiter right after its take returns (a counting semaphore of maximum "
        "1, which FreeRTOS implements as rtbench's binary one).",
    "Semaphore stats / Give (no context switch)":
        "Both time xSemaphoreGive() of a counting semaphore nobody waits on, between reads "
        "around the call; rtos-benchmark gives it once per iteration without taking it "
        "(its count climbs from 0), rtbench gives it when empty.",
    "Semaphore stats / Take (no context switch)":
        "Both time xSemaphoreTake() of an available counting semaphore, between reads around "
        "the call; rtos-benchmark then takes its count back down to 0.",
    "Yield stats / Yield (context switch)":
        "The same points as rtbench's: two tasks of equal priority, the yielding one reads "
        "just before taskYIELD(), the other right after its own yield returns.",
    "Yield stats / Yield (no context switch)":
        "No rtbench metric: a yield with only less urgent tasks ready; on FreeRTOS it still "
        "pends PendSV and runs the scheduler, which picks the caller again, so it costs "
        "about what a switch does.",
    "Allocation stats / Malloc":
        "No rtbench metric: the FreeRTOS port's bench_malloc() returns NULL without "
        "allocating (\"Routine not expected to be used\"), so this times an empty call; "
        "rtbench's heap.malloc.* time pvPortMalloc() of heap_4.",
    "Allocation stats / Free":
        "No rtbench metric: the FreeRTOS port's bench_free() does nothing, so this times an "
        "empty call; rtbench's heap.free.* time vPortFree() of heap_4.",
    "Message queue stats / Create":
        "Both time creating a message queue between reads around the call; "
        "rtos-benchmark's is xQueueCreateStatic() of 1 message of 1 byte in storage the port "
        "owns, rtbench's xQueueCreateStatic() of 4 messages of 4 bytes in storage its port "
        "owns (xQueueCreate() from heap_4 is rtbench's msgq.create_heap).",
    "Message queue stats / Send (no context switch)":
        "Both time xQueueSend() into a queue with room and no waiter, between reads around "
        "the call; rtos-benchmark's message is 1 byte (queue depth 1), rtbench's 4 bytes "
        "(depth 4).",
    "Message queue stats / Receive (no context switch)":
        "Both time xQueueReceive() of a waiting message, between reads around the call; "
        "1 byte for rtos-benchmark, 4 bytes for rtbench.",
    "Message queue stats / Send (context switch)":
        "The same points as rtbench's: the sender reads just before xQueueSend(), the more "
        "urgent receiver, blocked in xQueueReceive(), right after it returns; 1-byte "
        "messages against rtbench's 4 bytes.",
    "Message queue stats / Receive (context switch)":
        "No rtbench metric: a receive from a full queue that readies a more urgent task "
        "blocked in send; the clock stops in that task after its send returns.",
    "Interrupt Stats / Latency":
        "Both time a C function installed in the vector table that the kernel never sees, "
        "from the timer's expiry: rtos-benchmark swaps one in at SysTick's vector (the "
        "kernel's tick timer, reloaded to expire 1 ms later; the kernel's tick handler is "
        "called at its end) and reads SysTick's own down-count in bench_timer_cycles_get(), "
        "called from the handler's first statement, so the prologue, the call and two "
        "instructions come before that load, and bench_timer_cycles_diff() adds one tick "
        "(0.3 instruction); rtbench's handler is on TIMER1 and loads the counter first "
        "thing in its body. Neither is rtbench's irq.response, which goes through the "
        "port's interrupt wrapper to a hook.",
}
