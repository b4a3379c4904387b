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


# ---- other rtbench harnesses: processes that vanish while /proc is read (issue 24) ----

def _fake_proc(root, pid: int, comm: str, tasks: dict[int, str], ppid: int = 1) -> None:
    d = root / str(pid)
    (d / "task").mkdir(parents=True)
    (d / "comm").write_text(comm + "\n")
    (d / "status").write_text(f"Name:\t{comm}\nPPid:\t{ppid}\n")
    for tid, cpus in tasks.items():
        (d / "task" / str(tid)).mkdir()
        (d / "task" / str(tid) / "status").write_text(f"Cpus_allowed_list:\t{cpus}\n")


def test_a_harness_that_vanishes_while_its_tasks_are_read_is_no_error(tmp_path, monkeypatch):
    """The failure issue 24 saw (`/proc/11093/task: No such file or
    directory` on a Ctrl-C while another harness ended): the task folder
    was there when the scan came to it and gone when it was listed. That
    process is listed with what was read, the others as they are."""
    import os

    _fake_proc(tmp_path, 4242, "rtbench-harness", {4242: "0-1", 4243: "1"})
    _fake_proc(tmp_path, 4343, "rtbench-harness", {4343: "0"})
    _fake_proc(tmp_path, 4444, "bash", {4444: "0"})
    real = os.scandir

    def scandir(path):  # the kernel's answer for a process reaped half read
        if str(path).endswith("4343/task"):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real(path)

    monkeypatch.setattr(sysinfo.os, "scandir", scandir)
    found = sorted(sysinfo.other_harnesses(proc=tmp_path), key=lambda h: h["pid"])
    assert found == [{"pid": 4242, "pinned": [1]}, {"pid": 4343, "pinned": []}]


def test_a_harness_gone_before_its_name_is_read_is_left_out(tmp_path, monkeypatch):
    _fake_proc(tmp_path, 4242, "rtbench-harness", {4242: "1"})
    _fake_proc(tmp_path, 4343, "rtbench-harness", {4343: "0"})
    real = sysinfo._read

    def read(path):  # 4343 exits between the listing of /proc and the read of its name
        if path.endswith("4343/comm"):
            import shutil

            shutil.rmtree(tmp_path / "4343")
        return real(path)

    monkeypatch.setattr(sysinfo, "_read", read)
    assert sysinfo.other_harnesses(proc=tmp_path) == [{"pid": 4242, "pinned": [1]}]
    monkeypatch.setattr(sysinfo, "_read", real)
    assert sysinfo.other_harnesses(proc=tmp_path / "no-such-folder") == []

