"""The catalogue against the vendors' published sheets (issue 3's coverage rule)."""

from rtbench.compare import coverage
from rtbench.store import catalog, reference


def test_every_vendor_name_is_a_real_reference_row():
    assert coverage.unknown_names(catalog.load()) == []


def test_row_keys_follow_the_documented_rules():
    amx = reference.get("amx")
    keys = amx.keys()
    assert "Wait/Wake / T1" in keys and "Task switch / caches disabled" in keys
    assert "semGive / No tasks in queue / Binary" in reference.get("vxworks").keys()
    assert "semaphore.give.immediate.kernel" in reference.get("zephyr").keys()


def test_status_of_a_row_follows_the_port_support():
    cat = catalog.load()
    row = "semGive / No tasks in queue / Binary"
    supported = {m.id: (True, "") for m in cat.metrics}
    vx = {c.sheet.name: c for c in coverage.compute(cat, supported)}["vxworks"]
    assert next(r for r in vx.rows if r.key == row).status == coverage.MEASURED
    lacking = {m.id: (False, "port has no semaphores") for m in cat.metrics}
    vx = {c.sheet.name: c for c in coverage.compute(cat, lacking)}["vxworks"]
    r = next(r for r in vx.rows if r.key == row)
    assert r.status == coverage.UNSUPPORTED and r.why == "port has no semaphores"


def test_every_kernel_row_maps_to_a_catalogue_entry():
    """Issue 3's rule: no row of a kernel sheet maps to nothing."""
    cat = catalog.load()
    claimed_by_anything = {m.id: (True, "") for m in cat.metrics}
    for sheet in coverage.compute(cat, claimed_by_anything):
        missing = [r.key for r in sheet.rows if r.status == coverage.MISSING]
        assert missing == [], f"{sheet.sheet.name}: rows no metric answers: {missing}"


def test_whole_sections_of_a_system_sheet_can_be_not_applicable():
    cat = catalog.load()
    ti = reference.get("ti-am654x")
    na = coverage.not_applicable(cat, ti)
    boot = next(r for r in ti.rows() if r.section.startswith("Boot-time"))
    assert "out of scope" in na[reference.row_key("ti", boot)]
    assert not any(k.startswith("lat_") for k in na)  # LMBench rows stay to be measured
    sheet = {c.sheet.name: c for c in coverage.compute(cat, {}, kernel_only=False)}["ti-am654x"]
    assert sheet.count(coverage.NA) == len(na)


def test_keils_rtx_sheet_is_cycles_on_a_zero_wait_state_cortex_m3():
    """Keil's RTX timing table (not a seed: transcribed from Keil's page,
    the Cortex-M cycles column only) is a kernel sheet in cycles whose
    headline rows the catalogue claims, and whose three rows without a
    metric say why."""
    keil = reference.get("keil-rtx")
    assert keil.kernel and keil.units() == ["cycles"] and keil.statistic == "unstated"
    assert keil.statistic_of("Interrupt lockout") == "max"
    assert "zero-cycle latency" in keil.variants()[0].platform
    rows = {r.metric + (f" / {r.situation}" if r.situation else ""): r.value
            for r in keil.rows()}
    assert rows["Task switch / by os_tsk_pass"] == "192"
    assert rows["Send semaphore / no task switch"] == "72"
    assert rows["Send semaphore / switch task"] == "217"
    cat = catalog.load()
    claimed = coverage.claims(cat, "keil")
    assert claimed["Task switch / by os_tsk_pass"] == ["sched.yield.ctx.thread"]
    assert set(claimed["Send semaphore / no task switch"]) == {"sem.give.no_waiter",
                                                               "csem.give.no_waiter"}
    na = coverage.not_applicable(cat, keil)
    assert set(na) == {"Initialize system (os_sys_init) / start task",
                       "Task switch / by os_tsk_delete_self",
                       "Get own task identifier (os_tsk_self)"}
