"""Why a row of Zephyr's latency_measure differs from rtbench's, and where
latency_measure's clock starts and stops for it.

Every cause is a claim about two instruction traces: the functions it names
run more instructions in one tool's window than in the other's (`ours`:
rtbench's window; `theirs`: latency_measure's; LM_CODE: the benchmark's own
functions), or latency_measure's own timestamp call stays in its figure
(`stamp`). tests/test_lm_trace.py traces both images (lm_trace.py, the
window audit for rtbench's) and checks, row by row, that each named function
is where its cause puts it and that the causes account for the row's whole
difference within AGREE; a row whose difference the traces do not account
for says so (UNEXPLAINED), never a guess.

WINDOWS says which of latency_measure's windows a row is (its test, the
source lines of its two timestamps: Zephyr 4.0.0's
tests/benchmarks/latency_measure/src), and the trace test checks each against
the average latency_measure prints for the row.

These causes are for the `rebuilt` build (rtbench's kernel configuration):
the `stock` build differs from it by configuration (the Kconfig settings
both runs store), which its rows name instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rtbench.peers.linked import mean_gap

AGREE = 4  # instructions: two averages of one path under -icount agree within this
# The page setting latency_measure's two builds beside rtbench (compare/views.py)
BOTH_WAYS_TITLE = ("latency_measure two ways: stock (as Zephyr ships it) and rebuilt (rtbench's "
                   "configuration), beside rtbench")
BOTH_WAYS_NOTE = (
    "Averages in instructions (latency_measure prints averages only; rtbench's column "
    "is its mean for the same metric). A rebuilt row agrees with rtbench's when they are "
    f"within {AGREE} instructions; why any other differs is said below. Stock − rebuilt "
    "is what Zephyr's own configuration (the settings below) changes on the same path.")
LM_CODE = "<latency_measure's code>"  # a cause's name for the benchmark's own functions


@dataclass(frozen=True)
class Cause:
    name: str                     # a few words for a table ("timed wait")
    text: str
    ours: tuple[str, ...] = ()    # functions (globs) rtbench's window runs more of
    theirs: tuple[str, ...] = ()  # functions (globs, LM_CODE) latency_measure's runs more of
    # latency_measure's timestamp call against what it subtracts: "raw" (it subtracts
    # nothing, the call stays in), "excess" (it subtracts more than the call),
    # "user" (system-call stamps, see USER_STAMPS)
    stamp: str = ""
    unexplained: bool = False     # the rest of the difference is not traced to a cause


# ---- the kernel build (and every build) ----

_TIMESTAMP = "z_impl_timing_timestamp_get, arch_timing_counter_get, sys_clock_cycle_get_32"
NO_OVERHEAD = Cause(
    "no overhead subtracted",
    "latency_measure takes no timestamp overhead off this row (its source prints the raw sum): "
    f"its average holds its own timestamp call ({_TIMESTAMP}), which rtbench's leaves out "
    "(it calibrates its stamps and subtracts them on every row)", stamp="raw")
EXCESS = Cause(
    "overhead above its stamp",
    "where latency_measure takes its timestamp overhead off, it takes what a loop of "
    "back-to-back timestamp calls costs (its timing_sc.c), the loop's own instructions among "
    "it: a few more than the timestamp call inside its window", stamp="excess")
OWN = Cause(
    "each tool's own code",
    "each tool's own instructions around the call: rtbench's call shim and the end of its stamp "
    "(rtb_*), latency_measure's code between its timestamp and the call",
    ours=("rtb_*",), theirs=(LM_CODE,))
_OFFLOAD = (
    "latency_measure raises its interrupt with irq_offload(), a supervisor call (SVC) made with "
    "the scheduler locked, one caller at a time (kernel/irq_offload.c, "
    "arch/arm/core/irq_offload.c): its window, from the routine's timestamp (test_isr) to the "
    "thread's, holds the SVC's return (z_arm_svc, z_arm_int_exit) and arch_irq_offload's "
    "k_sched_unlock after "
    "it; rtbench raises its interrupt from software at a stamp (the NVIC's software trigger) "
    "and its handler is the vector (ISR_DIRECT_DECLARE, IRQ_DIRECT_CONNECT)")
OFFLOAD_INTERRUPTED = Cause(
    "irq_offload, back to the interrupted thread",
    _OFFLOAD + ", which returns straight to the interrupted task; back in the interrupted "
    "thread latency_measure's holds irq_offload's k_sem_give of the semaphore that serialises it",
    ours=("rtb_kisr_*",),
    theirs=("test_isr", "z_arm_svc", "z_arm_int_exit", "arch_irq_offload", "k_sched_unlock",
            "irq_offload", "z_impl_k_sem_give"))
OFFLOAD_DIFFERENT = Cause(
    "irq_offload, to another thread",
    _OFFLOAD + "; the switch to the thread the routine woke waits for that k_sched_unlock "
    "(through arch_swap), where rtbench's handler switches at its exception return "
    "(z_arm_int_exit, the direct handler's footer)",
    ours=("z_arm_int_exit",),
    theirs=("test_isr", "z_arm_svc", "arch_irq_offload", "k_sched_unlock", "arch_swap"))
EMULATION = Cause(
    "rtbench's emulation",
    "rtbench's row is built by its port from two kernel calls (Zephyr 4.0 has no wait that "
    "consumes the events it returns: k_event_wait, then k_event_clear) and is not ranked; "
    "the port's code between the two (wait_then_clear, wait_all_then_clear) is in its window",
    ours=("wait_then_clear", "wait_all_then_clear"))
EVENT_SET = Cause(
    "waiter clears",
    "rtbench's waiter consumes what it received: after k_event_wait returns it calls "
    "k_event_clear, inside the window that ends in it (z_impl_k_event_clear, which runs "
    "k_event_post_internal, z_sched_waitq_walk and z_reschedule once more)",
    ours=("z_impl_k_event_clear", "k_event_post_internal", "z_sched_waitq_walk", "z_reschedule"))
POST_NOT_SET = Cause(
    "post, not set",
    "rtbench's setter calls k_event_post where latency_measure's calls k_event_set (the same "
    "path through other entry points)",
    ours=("z_impl_k_event_post", "z_mrsh_k_event_post"),
    theirs=("z_impl_k_event_set", "z_mrsh_k_event_set", "z_vrfy_k_event_set"))
EVENT_RESET = Cause(
    "wait with reset",
    "latency_measure's waiter resets the events as it waits (k_event_wait with reset true): "
    "k_event_wait_internal then clears them and skips the test of those already set, which "
    "rtbench's waiter (no reset; it clears after the wake) runs",
    ours=("k_event_wait_internal",))
TIMED_WAIT = Cause(
    "timed wait: arming",
    "rtbench's waiter waits with a 10 ms timeout (a guard against a lost wake-up: its "
    "scenario cond.c), latency_measure's with K_FOREVER: rtbench's wait arms the timeout "
    "(z_add_timeout, sys_clock_elapsed, sys_clock_set_timeout, and z_pend_curr's share); "
    "both waiters hold the mutex, as the trace shows (k_mutex_unlock and k_mutex_lock run "
    "alike in both)",
    ours=("z_add_timeout", "sys_clock_elapsed", "sys_clock_set_timeout", "z_pend_curr"))
TIMED_SIGNAL = Cause(
    "timed wait: disarming",
    "rtbench's waiter waits with a 10 ms timeout (a guard against a lost wake-up: its "
    "scenario cond.c), latency_measure's with K_FOREVER: the signal's wake disarms rtbench's "
    "(z_abort_timeout, remove_timeout); both waiters hold the mutex, as the trace shows",
    ours=("remove_timeout", "z_abort_timeout"))
UNEXPLAINED = Cause("unexplained", "the rest of the difference is not traced to a cause",
                    unexplained=True)

_FIFO_ROWS = ("put.alloc.immediate.kernel", "get.free.immediate.kernel", "get.blocking.k_to_k",
              "put.wake+ctx.k_to_k", "get.free.blocking.k_to_k", "put.alloc.wake+ctx.k_to_k")
# The causes of each row that differs, by its label in the kernel / k_to_k variant.
WHY: dict[str, tuple[Cause, ...]] = {
    "isr.resume.interrupted.thread.kernel": (OFFLOAD_INTERRUPTED, EXCESS, OWN),
    "isr.resume.different.thread.kernel": (OFFLOAD_DIFFERENT, EXCESS, OWN),
    **{f"{q}.{row}": (NO_OVERHEAD, OWN) for q in ("fifo", "lifo") for row in _FIFO_ROWS},
    **{f"stack.{row}": (NO_OVERHEAD, OWN)
       for row in ("pop.blocking.k_to_k", "push.wake+ctx.k_to_k")},
    **{f"heap.{row}.immediate": (NO_OVERHEAD, OWN) for row in ("malloc", "free")},
    "events.post.immediate.kernel": (OWN,),
    "events.set.wake+ctx.k_to_k": (EVENT_SET, POST_NOT_SET, EMULATION, EXCESS, OWN),
    "events.wait.blocking.k_to_k": (EVENT_RESET, EMULATION, EXCESS, OWN),
    "events.wait_all.blocking.k_to_k": (EVENT_RESET, EMULATION, NO_OVERHEAD, OWN),
    "condvar.wait.blocking.k_to_k": (TIMED_WAIT, NO_OVERHEAD, OWN),
    "condvar.signal.wake+ctx.k_to_k": (TIMED_SIGNAL, NO_OVERHEAD, OWN),
}


# ---- what the userspace build adds ----

USER_STAMPS = Cause(
    "system-call stamps",
    "latency_measure's timestamp from a user thread is a system call (timing_timestamp_get "
    "through SVC): the return path of the first call and the entry of the second are in its "
    "window, and it takes off its overhead as a loop of such calls measures it (kernel, user, "
    "or their mean for a row between the two), which matches neither exactly; rtbench's "
    "user-mode stamps read the counter directly", stamp="user")
USER_OWN = Cause(
    "each tool's own code",
    OWN.text + ", and its timestamp's inline test of the caller's mode "
    "(z_arm_thread_is_in_user_mode, before it calls the kernel or traps)",
    ours=OWN.ours, theirs=(LM_CODE, "z_arm_thread_is_in_user_mode"))
USER_MPU = Cause(
    "MPU regions",
    "Zephyr programs the MPU's dynamic regions on every switch "
    "(z_arm_configure_dynamic_mpu_regions, arm_core_mpu_configure_dynamic_mpu_regions) and "
    "runs more of it in rtbench's image: into a user thread, whose memory domain holds one "
    "partition more (the board's counter, read-only, for its own stamps: "
    "harness/ports/zephyr/main.c), and a few instructions more into a kernel thread, not "
    "traced further",
    ours=("z_arm_configure_dynamic_mpu_regions", "arm_core_mpu_configure_dynamic_mpu_regions"))
USER_SYSCALL = Cause(
    "object check",
    "latency_measure's call is a system call from a user thread, as rtbench's is, but Zephyr's "
    "lookup and check of latency_measure's object runs longer (k_object_validate, "
    "z_object_gperf_find: not traced further)",
    theirs=("k_object_validate", "z_object_gperf_find"))
USER_KERNEL_MODE = Cause(
    "system call, not kernel mode",
    "latency_measure's user thread makes this call as a system call (the trap and the checks "
    "of its arguments: z_arm_svc, z_arm_do_syscall, z_mrsh_*, z_vrfy_*, k_object_validate, "
    "z_object_gperf_find, and for a new thread's stack arm_core_mpu_buffer_validate); "
    "rtbench's window holds none of it: its port makes the call in kernel mode",
    theirs=("z_arm_svc", "z_arm_do_syscall", "z_mrsh_*", "z_vrfy_*", "k_object_validate",
            "z_object_gperf_find", "thread_obj_validate", "arm_core_mpu_buffer_validate",
            "arch_buffer_validate"))
USER_CREATE = Cause(
    "create entry",
    "rtbench's k_thread_create enters the kernel at z_impl_k_thread_create, latency_measure's "
    "system call at z_vrfy_k_thread_create, which calls z_setup_new_thread itself",
    ours=("z_impl_k_thread_create",), theirs=("z_setup_new_thread",))
USER_CLEAR_SYSCALL = Cause(
    "clear is a system call",
    "from rtbench's user-mode waiter that k_event_clear is a system call (z_arm_svc, "
    "z_arm_do_syscall, z_mrsh_k_event_clear and its object's check)",
    ours=("z_arm_svc", "z_arm_do_syscall", "z_mrsh_k_event_clear", "k_object_validate",
          "z_object_gperf_find"))
USER_BUFFER = Cause(
    "buffer check",
    "rtbench's user-mode k_stack_pop has its output buffer checked against the MPU's regions "
    "(arm_core_mpu_buffer_validate) on a longer walk than latency_measure's (not traced "
    "further)", ours=("arm_core_mpu_buffer_validate",))
USER_WALK = Cause(
    "object walk",
    "k_thread_abort clears the ended thread's permission on every kernel object of the image "
    "(k_thread_perms_all_clear walks the generated object table: "
    "z_object_gperf_wordlist_foreach, clear_perms_cb), and rtbench's image has more kernel "
    "objects than latency_measure's (a pool for each service)",
    ours=("z_object_gperf_wordlist_foreach", "clear_perms_cb"))
USER_STACK_FILL = Cause(
    "user stack fill",
    "a user thread's first entry into user mode clears its whole stack (z_arm_userspace_enter "
    "calls memset, though neither build fills stacks on creation), and latency_measure's "
    "stacks are 1 KiB, rtbench's 2 KiB", ours=("memset",))
# The userspace build's own causes of a row, by latency_measure's label
# (before the ones every row of that build gets: causes()).
USER_WHY: dict[str, tuple[Cause, ...]] = {
    "thread.abort.kernel.from.kernel": (USER_WALK,),
    "thread.abort.user.from.user": (USER_WALK, USER_KERNEL_MODE),
    "thread.start.user.from.user": (USER_STACK_FILL, USER_KERNEL_MODE),
    "thread.create.user.from.user": (USER_CREATE, USER_KERNEL_MODE),
    **{f"events.set.wake+ctx.{v}": (USER_CLEAR_SYSCALL,) for v in ("k_to_u", "u_to_u")},
    **{f"events.wait.blocking.{v}": (POST_NOT_SET,) for v in ("k_to_u", "u_to_u")},
    **{f"stack.pop.blocking.{v}": (USER_BUFFER,) for v in ("u_to_k", "u_to_u")},
}
# Rows of the userspace build whose difference the causes do not account
# for (tests/test_lm_trace.py checks both ways: a row here has a rest larger
# than AGREE, a row not here none): condvar rows, where the mutex's unlock
# (in the wait) and lock (after the signal) run different lengths in the two
# images, and the suspend/resume rows between user threads, whose rtbench
# windows the audit pairs by order (a resume's for a suspend's: the audit's
# pairing is being rewritten).
USER_UNEXPLAINED: frozenset[str] = frozenset({
    "condvar.wait.blocking.k_to_u", "condvar.wait.blocking.u_to_k",
    "condvar.wait.blocking.u_to_u", "condvar.signal.wake+ctx.u_to_k",
    "condvar.signal.wake+ctx.u_to_u", "thread.suspend.user.from.user",
    "thread.resume.user.from.user"})

_SWITCH = re.compile(r"\.(ctx|blocking|wake\+ctx)\.|^thread\.(start|suspend|resume)\.|"
                     r"^isr\.resume\.different\.")
_USER_CALLER = re.compile(r"\.u_to_[ku]$|\.user$|\.from\.user$")


def kernel_label(label: str) -> str:
    """The label of the kernel / k_to_k variant of a row."""
    for user, kernel in ((".u_to_u", ".k_to_k"), (".u_to_k", ".k_to_k"), (".k_to_u", ".k_to_k"),
                         (".user.from.user", ".kernel.from.kernel"),
                         (".user.from.kernel", ".kernel.from.kernel"),
                         (".kernel.from.user", ".kernel.from.kernel"), (".user", ".kernel")):
        if label.endswith(user):
            return label[:-len(user)] + kernel
    return label


def causes(label: str, build: str = "") -> tuple[Cause, ...]:
    """The causes of row `label`'s difference from rtbench's (none: the
    two agree); `build` "userspace": that build's."""
    base = WHY.get(kernel_label(label), ())
    if build != "userspace":
        return base
    out = list(USER_WHY.get(label, ())) + [c for c in base if c not in (EXCESS, OWN)]
    place = where(label)
    if NO_OVERHEAD not in out and not (place and place.loop):
        out.append(USER_STAMPS)
    out.append(USER_OWN)
    if _SWITCH.search(label):
        out.append(USER_MPU)
    if (_USER_CALLER.search(label) and not label.startswith("thread.")
            and not any("k_object_validate" in c.ours + c.theirs for c in out)):
        out.append(USER_SYSCALL)
    if label in USER_UNEXPLAINED:
        out.append(UNEXPLAINED)
    return tuple(dict.fromkeys(out))


def why(label: str, build: str = "") -> str:
    """Why latency_measure's row `label` differs from rtbench's ("" if it
    has no cause: the two agree)."""
    return "; and ".join(c.text for c in causes(label, build))


# ---- where its clock starts and stops ----

@dataclass(frozen=True)
class Where:
    """A row's window in latency_measure's sources: the test main.c's
    test_thread calls (and which call of it: None, any), the lines of the
    two timestamps ("(user)": taken by a user thread), and whether the
    window times a loop of its iterations (the row is its average)."""

    test: str
    call: int | None
    start: str
    end: str
    loop: bool = False


def _w(test: str, call: int, start: str, end: str, loop: bool = False) -> Where:
    return Where(test, call, start, end, loop)


_Q = {q: {f"{q}.put.immediate.kernel": _w(f"{q}_ops", 0, f"{q}.c:47", f"{q}.c:51"),
          f"{q}.get.immediate.kernel": _w(f"{q}_ops", 0, f"{q}.c:51", f"{q}.c:55"),
          f"{q}.put.alloc.immediate.kernel": _w(f"{q}_ops", 0, f"{q}.c:72", f"{q}.c:76"),
          f"{q}.get.free.immediate.kernel": _w(f"{q}_ops", 0, f"{q}.c:76", f"{q}.c:80"),
          f"{q}.get.blocking.k_to_k": _w(f"{q}_blocking_ops", 0, f"{q}.c:185", f"{q}.c:245"),
          f"{q}.put.wake+ctx.k_to_k": _w(f"{q}_blocking_ops", 0, f"{q}.c:245", f"{q}.c:191"),
          f"{q}.get.free.blocking.k_to_k": _w(f"{q}_blocking_ops", 0, f"{q}.c:206", f"{q}.c:256"),
          f"{q}.put.alloc.wake+ctx.k_to_k": _w(f"{q}_blocking_ops", 0, f"{q}.c:256", f"{q}.c:212")}
      for q in ("fifo", "lifo")}
_SEMA = "sema_test_signal_release.c"
# Each row of the kernel build, by its label (Zephyr 4.0.0's line numbers).
WINDOWS: dict[str, Where] = {
    "thread.yield.preemptive.ctx.k_to_k":
        _w("thread_switch_yield", 0, "thread_switch_yield.c:68", "thread_switch_yield.c:41"),
    "thread.yield.cooperative.ctx.k_to_k":
        _w("thread_switch_yield", 1, "thread_switch_yield.c:68", "thread_switch_yield.c:41"),
    "isr.resume.interrupted.thread.kernel":
        _w("int_to_thread", 0, "int_to_thread.c:47", "int_to_thread.c:65"),
    "isr.resume.different.thread.kernel":
        _w("int_to_thread", 0, "int_to_thread.c:47", "int_to_thread.c:96"),
    "thread.create.kernel.from.kernel": _w("thread_ops", 0, "thread.c:85", "thread.c:92"),
    "thread.start.kernel.from.kernel": _w("thread_ops", 0, "thread.c:120", "thread.c:42"),
    "thread.suspend.kernel.from.kernel": _w("thread_ops", 0, "thread.c:50", "thread.c:135"),
    "thread.resume.kernel.from.kernel": _w("thread_ops", 0, "thread.c:140", "thread.c:55"),
    "thread.abort.kernel.from.kernel": _w("thread_ops", 0, "thread.c:150", "thread.c:152"),
    **_Q["fifo"], **_Q["lifo"],
    "events.post.immediate.kernel": _w("event_ops", 0, "events.c:39", "events.c:43", True),
    "events.set.immediate.kernel": _w("event_ops", 0, "events.c:53", "events.c:57", True),
    "events.wait.immediate.kernel": _w("event_ops", 0, "events.c:67", "events.c:71", True),
    "events.wait_all.immediate.kernel": _w("event_ops", 0, "events.c:81", "events.c:85", True),
    "events.wait.blocking.k_to_k": _w("event_blocking_ops", 0, "events.c:131", "events.c:103"),
    "events.set.wake+ctx.k_to_k": _w("event_blocking_ops", 0, "events.c:103", "events.c:136"),
    "events.wait_all.blocking.k_to_k": _w("event_blocking_ops", 0, "events.c:147", "events.c:111"),
    "events.post.wake+ctx.k_to_k": _w("event_blocking_ops", 0, "events.c:111", "events.c:152"),
    "semaphore.give.immediate.kernel":
        _w("sema_test_signal", 0, f"{_SEMA}:194", f"{_SEMA}:200", True),
    "semaphore.take.immediate.kernel":
        _w("sema_test_signal", 0, f"{_SEMA}:205", f"{_SEMA}:211", True),
    "semaphore.take.blocking.k_to_k": _w("sema_context_switch", 0, f"{_SEMA}:72", f"{_SEMA}:37"),
    "semaphore.give.wake+ctx.k_to_k": _w("sema_context_switch", 0, f"{_SEMA}:37", f"{_SEMA}:77"),
    "condvar.wait.blocking.k_to_k": _w("condvar_blocking_ops", 0, "condvar.c:36", "condvar.c:66"),
    "condvar.signal.wake+ctx.k_to_k":
        _w("condvar_blocking_ops", 0, "condvar.c:66", "condvar.c:41"),
    "stack.push.immediate.kernel": _w("stack_ops", 0, "stack.c:40", "stack.c:44"),
    "stack.pop.immediate.kernel": _w("stack_ops", 0, "stack.c:44", "stack.c:48"),
    "stack.pop.blocking.k_to_k": _w("stack_blocking_ops", 0, "stack.c:127", "stack.c:157"),
    "stack.push.wake+ctx.k_to_k": _w("stack_blocking_ops", 0, "stack.c:157", "stack.c:133"),
    "mutex.lock.immediate.recursive.kernel":
        _w("mutex_lock_unlock", 0, "mutex_lock_unlock.c:34", "mutex_lock_unlock.c:42", True),
    "mutex.unlock.immediate.recursive.kernel":
        _w("mutex_lock_unlock", 0, "mutex_lock_unlock.c:46", "mutex_lock_unlock.c:54", True),
    "heap.malloc.immediate": _w("heap_malloc_free", 0, "heap_malloc_free.c:34",
                                "heap_malloc_free.c:37"),
    "heap.free.immediate": _w("heap_malloc_free", 0, "heap_malloc_free.c:46",
                              "heap_malloc_free.c:48"),
}
# thread_ops(start, alt) is called kernel/kernel, kernel/user, user/user,
# user/kernel; its rows are "thread.<op>.<alt>.from.<start>", and each op's
# two stamps are taken by the starting (s) or the other (a) thread.
_THREAD_CALLS = {("kernel", "kernel"): 0, ("user", "kernel"): 1, ("user", "user"): 2,
                 ("kernel", "user"): 3}
_THREAD_STAMPS = {"create": "ss", "start": "sa", "suspend": "as", "resume": "sa", "abort": "ss"}


def where(label: str) -> Where | None:
    """Row `label`'s window, on either build (a user-thread variant: the
    same lines, its timestamps taken in user mode)."""
    if label in WINDOWS:
        return WINDOWS[label]
    user = " (user)"
    if m := re.match(r"(.*)\.([ku])_to_([ku])$", label):
        base = WINDOWS.get(m[1] + ".k_to_k")
        if base is None:
            return None
        return Where(base.test, base.call if base.test == "thread_switch_yield" else None,
                     base.start + user * (m[2] == "u"), base.end + user * (m[3] == "u"), base.loop)
    if m := re.match(r"thread\.(\w+)\.(kernel|user)\.from\.(kernel|user)$", label):
        base = WINDOWS.get(f"thread.{m[1]}.kernel.from.kernel")
        if base is None:
            return None
        mode = {"s": m[3], "a": m[2]}
        first, second = _THREAD_STAMPS[m[1]]
        return Where(base.test, _THREAD_CALLS[(m[2], m[3])],
                     base.start + user * (mode[first] == "user"),
                     base.end + user * (mode[second] == "user"), base.loop)
    if label.endswith(".user") and (base := WINDOWS.get(label[:-len("user")] + "kernel")):
        return Where(base.test, None, base.start + user, base.end + user, base.loop)
    return None


# ---- beside rtbench's figure ----

def agreement(peer: dict, ours: dict | None) -> str:
    """One sentence: latency_measure's average beside rtbench's mean for the
    same metric, both in instructions on the same board."""
    diff = mean_gap(peer, ours)
    if diff is None:
        return ""
    src = peer.get("source") or {}
    label, build = src.get("label", ""), src.get("build", "")
    if src.get("configuration") == "stock":
        return (f"stock build: rtbench's mean − latency_measure's average = {diff:+.0f} "
                "instructions; this build has Zephyr's own configuration, not rtbench's (the "
                "settings that differ are listed below), so where the definitions differ is "
                "said on the rebuilt build's row")
    if abs(diff) <= AGREE:
        n = round(abs(diff))
        return (f"agrees: rtbench's mean is within {n} instruction{'s' if n != 1 else ''} of "
                f"latency_measure's average (the same path, each method's own stamps taken out)")
    return (f"differs by {diff:+.0f} instructions (rtbench's mean − latency_measure's average): "
            + (why(label, build) or "where the two definitions differ is not yet written down "
                                    "for this row"))
