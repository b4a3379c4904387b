from rtbench import sysinfo


def test_preemption_models():
    assert sysinfo.preemption("#1 SMP PREEMPT_RT Thu").startswith("PREEMPT_RT")
    assert sysinfo.preemption("#1 SMP PREEMPT Thu").startswith("PREEMPT")
    assert sysinfo.preemption("#1 SMP Thu").startswith("none")
    dyn = sysinfo.preemption("#1 SMP PREEMPT_DYNAMIC Thu")
    assert dyn.startswith("PREEMPT_DYNAMIC, mode ")


def test_dynamic_mode_parsing(monkeypatch):
    monkeypatch.setattr(sysinfo, "_read", lambda p: "none voluntary (full) lazy")
    assert sysinfo._dynamic_mode() == "mode full"
    monkeypatch.setattr(sysinfo, "_read", lambda p: None)
    assert sysinfo._dynamic_mode() == "mode unknown (debugfs not readable)"


def test_collect_has_the_header_facts():
    info = sysinfo.collect()
    for key in ("cpu_model", "cores_online", "kernel_release", "kernel_version", "preemption",
                "clocksource", "hostname", "python", "date", "rtbench_version", "git_revision"):
        assert info[key] not in (None, ""), key
    assert info["cores_online"] >= 1
    assert info["date"].endswith("+00:00")
