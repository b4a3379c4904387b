"""The FreeRTOS port's rows beyond the headline under the window rule
(issue 36): each is a prepared call of the kernel's own function or a
one-call shim (queues of words, pipes, the heap's free, the tick read),
every object a create row makes is static (...CreateStatic on the port's
memory: no heap_4 in the window), and the *_heap rows are FreeRTOS's
creates that allocate. Traced on the emulated AN385 as `rtbench audit`
does, a few samples each."""

import pytest

from conftest import kernel_of, kernel_src
from rtbench.targets import audit

# Create rows and their heap twins; the rows that wrapped a port function
# before (fifo/lifo/stack, pipes, heap free, clock 0); the task rows whose
# window ends in the new task; and a static timer reused while the daemon,
# below the caller, still holds its delete (the .caller rows).
STATIC = ("task.create.no_ctx.thread", "task.create.ctx.thread", "sem.create", "sem.delete",
          "csem.create", "rmutex.create", "msgq.create", "msgq.delete", "timer.create")
HEAP = ("task.create_heap.no_ctx.thread", "task.create_heap.ctx.thread", "sem.create_heap",
        "sem.delete_heap", "csem.create_heap", "rmutex.create_heap", "msgq.create_heap",
        "msgq.delete_heap", "timer.create_heap")
PREPARED = ("fifo.put.immediate", "fifo.get.immediate", "lifo.put.immediate",
            "stack.push.wake_ctx.thread", "fifo.get.blocking.thread", "pipe.write.frame",
            "pipe.read.frame", "heap.malloc.size10", "heap.free.size10", "clock.read.0",
            "task.start.ctx.thread", "timer.delete.started.caller")
ROWS = STATIC + HEAP + PREPARED + ("clock.read.1",)
HEAP_4 = {"pvPortMalloc", "vPortFree"}


pytestmark = pytest.mark.board  # every test reads the audits of a board image


@pytest.fixture(scope="module")
def audits(tmp_path_factory):
    from conftest import board_tools_missing
    import os

    why = board_tools_missing()
    if why:
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the board target cannot run: {why}")
        pytest.skip(f"board target: {why}")
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("audit-cache")))
    try:
        kernel = kernel_of("freertos", kernel_src("freertos"))
        yield {a.id: a for a in audit.audit_board("mps2-an385", kernel, list(ROWS), samples=3)}
    finally:
        mp.undo()


def test_every_row_holds_the_kernel_call_and_nothing_more_of_rtbench(audits):
    measured = [r for r in ROWS if r != "clock.read.1"]
    assert set(measured) <= set(audits)
    for row in measured:
        a = audits[row]
        assert a.record and a.record["status"] == "ok", (row, a.record)
        assert len(a.windows) == 3, (row, len(a.windows))
    assert audit.problems([audits[r] for r in measured]) == []


def test_static_creates_take_nothing_from_the_heap(audits):
    for row in STATIC:
        a = audits[row]
        assert a.record["allocation"] == "static", row
        for w in a.windows:
            assert not HEAP_4 & set(w.funcs), (row, dict(w.funcs))


def test_heap_twins_are_the_creates_that_allocate(audits):
    for row in HEAP:
        a = audits[row]
        assert a.record["allocation"] == "heap", row
        takes = "vPortFree" if ".delete" in row else "pvPortMalloc"
        assert all(w.funcs[takes] > 0 for w in a.windows), (row, dict(a.median().funcs))
        # the same kernel work plus the allocation: dearer than the static row
        static = audits[row.replace("_heap", "")]
        assert a.median().net > static.median().net, row


def test_a_created_task_reaches_the_scenario_through_two_instructions(audits):
    """The window that ends at the new task's first stamp holds, of the port's,
    its task entry's load and call only (a FreeRTOS task function cannot
    return, so the scenario's function cannot be the entry itself)."""
    for row in ("task.create.ctx.thread", "task.create_heap.ctx.thread", "task.start.ctx.thread"):
        for w in audits[row].windows:
            assert w.funcs["task_entry"] == 2, (row, dict(w.funcs))
            assert w.ours() <= audit.BUDGET, (row, dict(w.funcs))


def test_queues_pipes_heap_and_clock_call_the_kernel_directly(audits):
    """No port function in the window: the kernel's own function (or the
    send macro's shim) is what the prepared call points at."""
    for row in PREPARED:
        for w in audits[row].windows:
            port = [f for f in w.funcs if f.startswith(("rtb_port_", "adapt_"))]
            assert port == [], (row, dict(w.funcs))
    assert audits["clock.read.0"].median().funcs["xTaskGetTickCount"] > 0


def test_the_second_clock_is_unsupported_with_its_reason(audits):
    rec = audits["clock.read.1"].record
    assert rec["status"] == "unsupported"
    assert "no high-resolution time" in rec["reason"]
