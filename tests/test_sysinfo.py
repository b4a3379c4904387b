from rtbench.targets import sysinfo


NOTHING = {"config": {}, "cmdline": "", "debugfs": ""}  # no source beyond uname -v


def test_preemption_models_from_uname_alone():
    assert sysinfo.preemption("#1 SMP PREEMPT_RT Thu", **NOTHING).startswith("PREEMPT_RT")
    assert sysinfo.preemption("#1 SMP PREEMPT Thu", **NOTHING).startswith("full")
    assert sysinfo.preemption("#1 SMP Thu", **NOTHING).startswith("none")
    dyn = sysinfo.preemption("#1 SMP PREEMPT_DYNAMIC Thu", **NOTHING)
    assert dyn.startswith("PREEMPT_DYNAMIC, unknown")


def test_the_effective_model_of_a_dynamic_kernel():
    """Issue 13: PREEMPT_DYNAMIC built with PREEMPT_NONE and no preempt= runs
    as none (it was "unknown"); preempt= on the command line wins over the
    build; debugfs's current mode wins over both."""
    cfg = {"CONFIG_PREEMPT_DYNAMIC": "y", "CONFIG_PREEMPT_NONE": "y", "CONFIG_PREEMPT": "n"}
    v = "#1 SMP PREEMPT_DYNAMIC Thu"
    found = sysinfo.preemption_model(cfg, "quiet console=ttyS0", v, "")
    assert found["model"] == "none" and "CONFIG_PREEMPT_NONE=y" in found["how"]
    assert sysinfo.preemption(v, config=cfg, cmdline="quiet", debugfs="").startswith(
        "PREEMPT_DYNAMIC, none (no preempt= on the kernel command line")
    assert sysinfo.preemption_model(cfg, "quiet preempt=full", v, "")["model"] == "full"
    assert sysinfo.preemption_model(cfg, "preempt=full", v, "none voluntary (lazy)")["model"] \
        == "lazy"


def test_timerlat_is_found_in_the_configuration_and_reported_missing():
    assert sysinfo.timerlat({"CONFIG_TIMERLAT_TRACER": "y"})["available"] in (True, False)
    missing = {"CONFIG_TIMERLAT_TRACER": "n"}
    got = sysinfo.timerlat(missing)
    if got["why"].startswith("/sys/kernel"):  # tracefs mounted here: it decides
        return
    assert got == {"available": False, "why": "this kernel has no timerlat tracer "
                   "(CONFIG_TIMERLAT_TRACER is not set)"}


def test_collect_has_the_header_facts():
    info = sysinfo.collect()
    for key in ("cpu_model", "cores_online", "kernel_release", "kernel_version", "preemption",
                "clocksource", "hostname", "python", "date", "rtbench_version", "git_revision"):
        assert info[key] not in (None, ""), key
    assert info["cores_online"] >= 1
    assert info["date"].endswith("+00:00")
