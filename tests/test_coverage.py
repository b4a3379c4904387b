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
