import pytest

from rtbench.store import catalog
from rtbench.store.catalog import CatalogError


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def test_ids_unique_and_complete(cat):
    assert len(cat.ids) == len(set(cat.ids)) > 0
    for m in cat.metrics:
        for field in ("definition", "clock_start", "clock_stop", "title", "unit"):
            assert getattr(m, field).strip(), (m.id, field)
        assert m.service in cat.services


def test_every_service_has_metrics(cat):
    for service in cat.services:
        assert cat.by_service(service), service


def test_match_all_and_globs(cat):
    assert cat.match(None) == cat.ids
    assert cat.match("") == cat.ids
    sems = cat.match("sem.*")
    assert sems and all(i.startswith("sem.") for i in sems)
    assert cat.match("method.null, mutex.*") == ["method.null", "mutex.lock.uncontended",
                                                 "mutex.unlock.uncontended"]
    # Catalogue order, no duplicates when patterns overlap.
    assert cat.match("*.thread,sem.*") == [i for i in cat.ids
                                           if i.endswith(".thread") or i.startswith("sem.")]


def test_unknown_pattern_is_an_error(cat):
    with pytest.raises(CatalogError, match="no.such"):
        cat.match("method.null,no.such.*")


def test_broken_catalogue_is_rejected(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text('[services]\norder=["A"]\n[[metric]]\nid="x"\nservice="A"\ntitle="t"\n'
                   'definition=""\nclock_start="a"\nclock_stop="b"\nunit="time"\n')
    with pytest.raises(CatalogError, match="definition"):
        catalog.load(bad)
    dup = tmp_path / "d.toml"
    entry = ('[[metric]]\nid="x"\nservice="A"\ntitle="t"\ndefinition="d"\n'
             'clock_start="a"\nclock_stop="b"\nunit="time"\n')
    dup.write_text('[services]\norder=["A"]\n' + entry + entry)
    with pytest.raises(CatalogError, match="duplicated"):
        catalog.load(dup)


# ---- words that fit the target: a board's sheet speaks of its kernel, not of Linux ----

# What only a Linux port does or has: never in a board's wording of a kernel row.
LINUX_WORDS = __import__("re").compile(
    r"Linux|glibc|ptmalloc|vCPU|pthread|POSIX|futex|SCHED_FIFO|SCHED_OTHER|sched_yield|"
    r"sched_set|sched_get|sem_t\b|sem_init|sem_post|sem_trywait|sem_getvalue|sem_destroy|\bmq_|"
    r"clock_nanosleep|clock_gettime|CLOCK_[A-Z]|SIGRTMIN|SIGSTOP|SIGCONT|SIGKILL|sigsuspend|"
    r"sigwaitinfo|tgkill|vDSO|getppid|syscall\(2\)|/proc|\bfork|process-shared|pshared|"
    r"virtual machine|hypervisor|timer_create|timer_settime|timer_delete|pipe\(2\)|mlockall|"
    r"user space|user-space|waitpid|O_NONBLOCK")


def _board_rows(cat):
    """Every kernel row a board's sheet can show: not the System part (Linux
    programs), not a service that is Linux's alone (its name says so)."""
    from rtbench.sheets import system

    return [m for m in cat.metrics if not system.is_system(m.service)
            and "(Linux)" not in m.service]


def test_a_board_wording_of_every_kernel_row_names_nothing_of_linux(cat):
    board = cat.for_board("ThreadX", "Arm MPS2 AN385")
    found = [f"{m.id} {f}: …{getattr(m, f)[max(0, x.start() - 60):x.end() + 30]}…"
             for m in _board_rows(board) for f in catalog.BOARD_FIELDS
             for x in LINUX_WORDS.finditer(getattr(m, f))]
    assert not found, "\n".join(found)
    # the Linux wording itself is untouched, and a host run keeps it
    assert "glibc's malloc" in cat.get("heap.malloc.size10").definition
    assert cat.for_target({"os": "Linux", "kernel_release": "6.1"}) is cat


def test_every_piece_of_the_board_wording_is_found_in_the_catalogue(cat):
    texts = [getattr(m, f) for m in cat.metrics for f in catalog.BOARD_FIELDS]
    unused = [linux for linux, _board in cat.board_wording
              if not any(linux in t for t in texts)]
    assert not unused, unused  # a definition changed: its board piece must follow it
    assert len(cat.board_wording) == len({linux for linux, _b in cat.board_wording})


def test_the_board_wording_names_the_runs_kernel_and_is_said_once():
    cat = catalog.load()
    host = {"target_kind": "emulator", "target": "mps2-an385", "os": "FreeRTOS",
            "board": "Arm MPS2 AN385 (Cortex-M3, 25 MHz), emulated by QEMU"}
    board = cat.for_target(host)
    heap = board.get("heap.malloc.size10").definition
    assert "on FreeRTOS the kernel's own heap" in heap and "glibc" not in heap
    timer = board.get("timer.expiry.to_routine").definition  # its own [metric.board]
    assert "where FreeRTOS runs timer routines in a timer task" in timer
    assert "vCPU" not in timer and "{kernel}" not in timer
    assert board.get("clock.read.0").title == "Read kernel clock 0"
    assert board.for_target(host) is board  # worded once
    assert "  " not in board.get("irq.enable").definition


def test_a_board_sheet_and_its_glossary_speak_of_the_board(cat):
    import synth
    from rtbench.sheets import datasheet

    ids = ["heap.malloc.size10", "timer.expiry.to_routine", "sem.give.no_waiter",
           "clock.read.0", "fifo.put.immediate", "irq.enable"]
    run = synth.board_run(ids, "freertos")
    for text in (datasheet.render_glossary(run, cat), datasheet.render_markdown(run, cat)):
        assert not LINUX_WORDS.search(text.replace("Linux 6.", "")), \
            LINUX_WORDS.search(text).group(0)
    glossary = datasheet.render_glossary(run, cat)
    assert "On FreeRTOS the kernel's binary semaphore." in glossary
    host_run = synth.run([synth.record("heap.malloc.size10", [100] * 50)])
    assert "glibc's malloc" in datasheet.render_glossary(host_run, cat)


def test_a_board_wording_that_is_not_text_is_refused(tmp_path):
    bad = tmp_path / "cat.toml"
    bad.write_text('[services]\norder = ["S"]\n[[metric]]\nid = "a.b"\nservice = "S"\n'
                   'title = "t"\ndefinition = "d"\nclock_start = "s"\nclock_stop = "e"\n'
                   'unit = "time"\n[metric.board]\ndefinitoin = "typo"\n')
    with pytest.raises(CatalogError, match=r"\[metric.board\]"):
        catalog.load(bad)
    bad.write_text('[services]\norder = []\n[[board_wording]]\nlinux = "x"\n')
    with pytest.raises(CatalogError, match=r"\[\[board_wording\]\] needs linux"):
        catalog.load(bad)


# ---- the statistic that defines a row (docs/method.md) ----

# The latency bounds: a vendor or tool quotes their worst case (DSP/BIOS and
# AMX "interrupt latency", cyclictest's and timerlat's max). Every other row
# is a cost, defined by its median.
BOUNDS = {"irq.kernel_latency", "sys.timer.wakeup.idle", "sys.timer.wakeup.load",
          "sys.timer.timerlat.irq", "sys.timer.timerlat.thread"}


def test_each_row_names_its_defining_statistic(cat):
    assert {m.id for m in cat.metrics if m.statistic == "max"} == BOUNDS
    assert all(m.statistic == "median" for m in cat.metrics if m.id not in BOUNDS)
    assert cat.get("irq.kernel_latency").stat_key == "max"
    assert cat.get("irq.response").stat_key == "p50"  # one path: the tick lands in its max
    assert "latency bound" in cat.get("irq.kernel_latency").statistic_text
    # the mixed pairs a .thread row makes keep its statistic
    assert cat.get("sem.take.block_ctx.k_to_u").statistic == "median"


@pytest.mark.parametrize("value", ['"p99"', '"Max"', '""', "3", '["max"]'])
def test_a_statistic_that_is_not_median_or_max_is_refused(tmp_path, value):
    bad = tmp_path / "cat.toml"
    bad.write_text('[services]\norder = ["S"]\n[[metric]]\nid = "a.b"\nservice = "S"\n'
                   'title = "t"\ndefinition = "d"\nclock_start = "s"\nclock_stop = "e"\n'
                   f'unit = "time"\nstatistic = {value}\n')
    with pytest.raises(CatalogError, match=r"a\.b.*statistic must be one of median, max"):
        catalog.load(bad)
    bad.write_text(bad.read_text().replace(f"statistic = {value}", 'statistic = "max"'))
    assert catalog.load(bad).get("a.b").statistic == "max"


def test_the_listing_and_the_glossary_say_the_statistic(cat):
    import io

    import synth
    from rich.console import Console

    from rtbench.sheets import datasheet, listing

    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(listing.long_table([cat.get("irq.kernel_latency"), cat.get("irq.response")]))
    text = " ".join(console.export_text().split())
    assert "Ranked by the max (a latency bound" in text
    assert "Ranked by the median (a cost" in text
    assert '"statistic": "max"' in listing.as_json([cat.get("irq.kernel_latency")])
    run = synth.board_run(["irq.kernel_latency", "sem.give.no_waiter"], "freertos")
    glossary = datasheet.render_glossary(run, cat)
    line = next(ln for ln in glossary.splitlines() if "Clock starts" in ln
                and "handler, first instruction; minus" in ln)
    assert "Ranked by the max" in line
    assert "Ranked by the max" in datasheet.render_html(run, cat)
