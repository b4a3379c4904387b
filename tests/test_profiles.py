"""Kernel profiles (docs/profiles.md): each kernel's settings are data with
a reason and a source for every one (harness/ports/<kernel>/profiles.toml,
the shared rules in harness/profiles/rules.toml), every source points at a
line of the vendor's tree that names the setting, every rule is met by
every kernel in every profile, the generator writes exactly the data, and
each profile's settings reach the kernel's build: its compiled defines (the
image reports them), Zephyr's .config and compile commands, the image cache.
(The shoot-out running both profiles: tests/test_zephyr.py.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import kernel_env, kernel_src, zephyr_missing
from rtbench.cli import main
from rtbench.targets import harness, profiles

PORTS = ("freertos", "threadx", "zephyr", "rtx5")
GENERATOR = harness.source_dir() / "profiles" / "rtb_profile.py"
FILE_SOURCE = re.compile(r"^([\w./+-]+):(\d+)(?:-(\d+))?(?: \((\S+)\))?")


def _all(port: str):
    return profiles.kernel(port).settings


def test_the_profiles_and_their_default_are_the_rules_files():
    assert profiles.names() == ("defaults", "speed")
    assert profiles.default() == "speed"
    rules = profiles.rules()
    for name in profiles.names():
        assert rules.flags(name)[0] == rules.profiles[name]["opt"]
    # Zephyr's code-generation flags, each with where Zephyr's build sets it
    assert {"-fno-strict-aliasing", "-fno-common", "-fno-defer-pop",
            "-fno-reorder-functions", "-ffreestanding"} <= set(rules.cflags)
    assert all(rules.cflag_sources[f].startswith("zephyr: ") for f in rules.cflags)


@pytest.mark.parametrize("port", PORTS)
def test_every_setting_has_a_reason_and_a_source(port):
    k = profiles.kernel(port)
    assert k.settings
    for s in k.settings:
        assert len(s.why) > 10, s.name
        assert s.sources, s.name
        for src in s.sources:
            assert src.startswith("https://") or FILE_SOURCE.match(src), (s.name, src)
        # a shipped setting is stated with the vendor's value, never set
        assert (s.kind == "shipped") == (s.set is None), s.name
        if s.kind == "shipped" and not s.applied_by:
            assert s.shipped is not None, s.name
        if s.kind == "rule":
            assert s.rule, s.name


@pytest.mark.parametrize("port", PORTS)
def test_every_file_source_is_a_line_of_the_vendors_tree_that_names_it(port):
    """The cited line exists in the kernel release the file was checked
    against, and (at least one source of each setting) names the setting;
    a source whose note names a symbol, "(SYSTICK_CYCLES)", has it."""
    tree = kernel_src(port)
    if tree is None:
        pytest.skip(f"no {port} sources")
    for s in _all(port):
        names = {s.name, s.name.removeprefix("CONFIG_"), s.probe or s.name,
                 *(s.set.split("(")[0].split() if s.set and s.applied_by else [])}
        named = False
        files = [src for src in s.sources if not src.startswith("https://")]
        for src in files:
            m = FILE_SOURCE.match(src)
            path, first, last, note = m[1], int(m[2]), int(m[3] or m[2]), m[4]
            lines = (tree / path).read_text(errors="replace").splitlines()
            assert 1 <= first <= last <= len(lines), (s.name, src)
            cited = "\n".join(lines[first - 1:last])
            if note:
                assert note in cited, (s.name, src)
            named = named or any(n in cited for n in names)
        assert named or not files, (s.name, s.sources)


@pytest.mark.parametrize("port", PORTS)
def test_every_rule_is_met_by_every_kernel_in_every_profile(port):
    rules = profiles.rules()
    k = profiles.kernel(port)
    for profile in profiles.names():
        met = {s.rule for s in k.of(profile) if s.rule}
        # rtbench's CMake gives the C-configured kernels the profile's flags
        expected = set(rules.rules) - ({"cflags"} if k.form == "define" else set())
        assert expected <= met, (port, profile, expected - met)


def test_the_vendors_speed_settings_are_in_the_speed_profile():
    """ThreadX's list "for maximum speed" (tx_user_sample.h) is all there,
    as are Zephyr's speed optimisation and FreeRTOS's task selection."""
    tx = {s.name for s in profiles.kernel("threadx").of("speed") if s.set is not None}
    assert {"TX_DISABLE_PREEMPTION_THRESHOLD", "TX_DISABLE_REDUNDANT_CLEARING",
            "TX_DISABLE_NOTIFY_CALLBACKS", "TX_NOT_INTERRUPTABLE", "TX_TIMER_PROCESS_IN_ISR",
            "TX_REACTIVATE_INLINE", "TX_DISABLE_STACK_FILLING",
            "TX_INLINE_THREAD_RESUME_SUSPEND", "TX_DISABLE_ERROR_CHECKING"} <= tx
    assert not {s.name for s in profiles.kernel("threadx").of("defaults")
                if s.kind == "speed"}
    zephyr = {s.name: s.set for s in profiles.kernel("zephyr").of("speed")}
    assert zephyr["CONFIG_SPEED_OPTIMIZATIONS"] == "y"
    fr = {s.name: s.set for s in profiles.kernel("freertos").of("speed")}
    assert fr["configUSE_PORT_OPTIMISED_TASK_SELECTION"] == "1"


def test_the_generator_writes_exactly_the_data(tmp_path):
    gen = profiles.generator()
    for port in PORTS:
        for profile in profiles.names():
            out = tmp_path / port / profile
            assert subprocess.run([sys.executable, str(GENERATOR), str(GENERATOR.parents[1] /
                                   "ports" / port), profile, str(out)]).returncode == 0
            k = profiles.kernel(port)
            written = {s.name: s.set for s in k.of(profile)
                       if s.set is not None and not s.applied_by}
            if k.form == "define":
                text = (out / "rtb_profile.h").read_text()
                got = dict(re.findall(r"^#define (\w+) ?(.*)$", text, re.M)[1:])
            else:
                text = (out / "rtb_profile.conf").read_text()
                got = dict(re.findall(r"^(CONFIG_\w+)=(.*)$", text, re.M))
            assert got == written, (port, profile)
            facts = (out / "rtb_profile_facts.h").read_text()
            for s in k.of(profile):
                for key in (f'"setting:{s.name}"', f'"setting:{s.name}:why"',
                            f'"setting:{s.name}:source"'):
                    assert key in facts, (port, profile, key)
            cmake = (out / "rtb_profile.cmake").read_text()
            assert f"set(RTB_PROFILE {profile})" in cmake
            rules = gen.load_rules()
            assert f"set(RTB_PROFILE_OPT {rules.profiles[profile]['opt']})" in cmake
            assert f"set(RTB_HARNESS_OPT {rules.harness_opt})" in cmake
            assert f'set(RTB_PROFILE_CFLAGS "{";".join(rules.cflags)}")' in cmake


@pytest.mark.parametrize("edit, says", [
    (lambda t: t.replace('kind = "harness"', 'kind = "fast"', 1), "kind must be one of"),
    (lambda t: re.sub(r'source = "[^"]*"', 'source = "somewhere"', t, count=1),
     "source must be 'file:line'"),
    (lambda t: t.replace('profiles = ["defaults", "speed"]', 'profiles = ["turbo"]', 1),
     "profiles must list some of"),
    (lambda t: t + '\n[[setting]]\nname = "configUSE_MUTEXES"\nprofiles = ["speed"]\n'
                   'set = "0"\nkind = "speed"\nwhy = "twice over"\n'
                   'source = "include/FreeRTOS.h:331"\n', "given twice for profile speed"),
])
def test_bad_profile_data_is_one_line_and_exit_2(tmp_path, edit, says):
    port = tmp_path / "freertos"
    port.mkdir()
    text = (GENERATOR.parents[1] / "ports" / "freertos" / "profiles.toml").read_text()
    (port / "profiles.toml").write_text(edit(text))
    proc = subprocess.run([sys.executable, str(GENERATOR), str(port), "speed",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert says in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_unknown_profile_is_refused_in_one_line(isolated, capsys):
    assert main(["run", "--target", "mps2-an385", "--kernel", "freertos", "--kernel-profile",
                 "turbo", "--db", "r.db", "--out", "o"]) == 2
    err = capsys.readouterr().err
    assert "unknown --kernel-profile 'turbo' (one of: defaults, speed)" in err
    assert err.count("\n") == 1 and not (isolated / "r.db").exists()
    assert main(["run", "--kernel-profile", "speed", "--db", "r.db", "--out", "o"]) == 2
    assert "--kernel-profile is for an RTOS on a board target" in capsys.readouterr().err


# ---- each profile's settings reach the build --------------------------------

@pytest.fixture
def board(board_cache, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))
    kernel_env(monkeypatch)


def _run(kernel: str, profile: str, out: str) -> dict:
    assert main(["run", "--target", "mps2-an385", "--kernel", kernel, "--kernel-profile",
                 profile, "--quick", "--only", "method.null,sched.yield.ctx.thread,sched.lock.*",
                 "--db", "r.db", "--out", out]) == 0
    return json.loads((Path(out) / "results.json").read_text())


def _expected(s, form: str) -> str | None:
    """What the image must report for setting `s`: its value as the data
    gives it (set, or shipped), "defined" for a bare #define; None for a C
    value that is a macro name (it reads back expanded)."""
    if s.applied_by:
        return s.set
    value = s.set if s.set is not None else s.shipped
    if form == "kconfig":
        return value
    if s.set == "" or s.type == "flag":
        return "defined" if s.set is not None else s.shipped
    return None if value is None or re.fullmatch(r"[A-Za-z_]\w*", value) else value


@pytest.mark.parametrize("kernel", PORTS)
def test_each_profiles_settings_reach_the_kernels_build(board, isolated, kernel):
    """Both profiles of a kernel: the image reports the profile and every
    setting as the kernel compiled it, equal to the data; the images are
    two (the profile is in the cache key); the compiler flags are the
    profile's, on FreeRTOS and ThreadX by rtbench's CMake, on Zephyr by its
    own build (its compile commands and its .config)."""
    if kernel == "zephyr" and zephyr_missing():
        if os.environ.get("RTBENCH_REQUIRE_BOARD") == "1":
            pytest.fail(f"the Zephyr image cannot be built: {zephyr_missing()}")
        pytest.skip(f"Zephyr: {zephyr_missing()}")
    rules = profiles.rules()
    data = profiles.kernel(kernel)
    images = set()
    for profile in profiles.names():
        env = _run(kernel, profile, f"o-{profile}")
        facts = env["session"]["target"]
        assert env["host"]["kernel_profile"] == facts["profile"] == profile
        assert facts["profile_means"] == rules.profiles[profile]["means"]
        for s in data.of(profile):
            value = facts[f"setting:{s.name}"]
            expect = _expected(s, data.form)
            if expect is not None:
                assert value == expect, (profile, s.name, value, expect)
            assert facts[f"setting:{s.name}:source"] == "; ".join(s.sources)
        # the record's flags are the profile's, in order, and say the -O levels
        assert rules.words(profile) in env["session"]["cflags"]
        image = Path(env["host"]["image"])
        images.add(image)
        if kernel == "zephyr":
            _zephyr_build_has(image.parents[1], data, profile, rules)
        got = {m["id"]: m for m in env["metrics"]}
        assert got["sched.yield.ctx.thread"]["status"] == "ok"
        if kernel == "threadx" and profile == "speed":  # preemption-threshold compiled out
            lock = got["sched.lock.outermost"]
            assert lock["status"] == "unsupported"
            assert "TX_DISABLE_PREEMPTION_THRESHOLD" in lock["reason"]
    assert len(images) == 2  # one image per profile: the profile is in the cache key


def _zephyr_build_has(builddir: Path, data, profile: str, rules) -> None:
    config = (builddir / "zephyr" / ".config").read_text()
    for s in data.of(profile):
        value = s.set if s.set is not None else s.shipped
        line = f"# {s.name} is not set" if value == "n" else f"{s.name}={value}"
        assert re.search(rf"^{re.escape(line)}$", config, re.M), (profile, s.name)
    commands = json.loads((builddir / "compile_commands.json").read_text())
    for ending, level in (("kernel/sem.c", rules.profiles[profile]["opt"]),  # the kernel's
                          ("core/runner.c", rules.harness_opt)):           # rtbench's
        flags = next(c["command"] for c in commands if c["file"].endswith(ending)).split()
        opt = [f for f in flags if re.fullmatch(r"-O[0-3sgz]?", f)]
        assert opt[-1] == level, (ending, opt)  # the last -O wins
        assert set(rules.cflags) <= set(flags), set(rules.cflags) - set(flags)


# ---- what the sheets and comparisons make of an image's profile ----------------

def _profiled(kernel: str, profile: str, run_id: int, asserts: str = "off", scale: float = 1.0):
    """A synthetic board run whose image says `profile` and two settings."""
    import synth
    from rtbench.store import catalog

    ids = [m.id for m in catalog.load().metrics if not m.service.startswith("System")][:40]
    r = synth.board_run(ids, kernel, run_id=run_id, scale=scale)
    rules = profiles.rules()
    r.host["kernel_profile"] = profile
    r.session["cflags"] = f"-mcpu=cortex-m3 -mthumb {rules.words(profile)}"
    r.session["target"].update({
        "profile": profile, "profile_means": rules.profiles[profile]["means"],
        "asserts": asserts,
        "setting:TICK": "1000", "setting:TICK:why": "rtbench's rule for every kernel: 1000 Hz",
        "setting:TICK:source": "tick.h:1",
        "setting:FAST": "1" if profile == "speed" else "0",
        "setting:FAST:why": ("the vendor's speed setting: faster" if profile == "speed"
                             else "as the vendor ships it: off"),
        "setting:FAST:source": "https://example.org/speed" if profile == "speed" else "fast.h:9"})
    return r


def test_a_data_sheet_lists_the_profile_and_each_setting_with_its_source():
    from rtbench.sheets import configuration
    from rtbench.store.records import Session

    r = _profiled("freertos", "speed", 1)
    rows = dict(configuration.board_configuration(r, Session(r.session)))
    assert rows["Kernel profile"].startswith("speed: each kernel at its vendor's own")
    assert rows["Kernel setting FAST"] == ("1 (the vendor's speed setting: faster; source: "
                                           "https://example.org/speed)")
    assert "setting:" not in rows["Kernel configuration"]
    assert "profile_means" not in rows["Kernel configuration"]


def test_the_kernel_sheet_checks_the_profile_and_the_checks_it_has():
    from rtbench.compare import kernels as kernelsheet
    from rtbench.store import catalog

    cat = catalog.load()
    # defaults: ThreadX ships its _txe_ checks on; the check states it, fairly
    fr, tx = (_profiled("freertos", "defaults", 1),
              _profiled("threadx", "defaults", 2, "on (_txe_ parameter and caller checks)", 0.5))
    sheet = kernelsheet.build([fr, tx], cat, {})
    checks = {c.what: c for c in sheet.checks}
    assert checks["the same kernel profile (docs/profiles.md)"].fair
    assert checks["asserts and parameter checks as each vendor ships them (the defaults "
                  "profile)"].fair
    flags = next(c for w, c in checks.items() if w.startswith("the same compiler flags"))
    assert flags.fair and flags.values[0].startswith("kernel -Os, rtbench -O2; ")
    config = dict(sheet.config)
    assert config["Kernel profile"] == ["defaults", "defaults"]
    assert config[next(k for k in config if k.startswith("Kernel settings of the profile"))] == [
        "TICK=1000 (and 1 stated as shipped)"] * 2
    # two profiles in one comparison: not a fair one, and said
    sheet = kernelsheet.build([fr, _profiled("threadx", "speed", 3, scale=0.5)], cat, {})
    unfair = {c.what for c in sheet.checks if not c.fair}
    assert "the same kernel profile (docs/profiles.md)" in unfair
    assert any(w.startswith("the same compiler flags") for w in unfair)


def test_the_profiles_side_by_side_show_every_kernel_in_every_profile():
    from rtbench.compare import profiles as side
    from rtbench.sheets import pages
    from rtbench.store import catalog

    runs = {("defaults", "freertos"): _profiled("freertos", "defaults", 1),
            ("speed", "freertos"): _profiled("freertos", "speed", 2, scale=0.8),
            ("defaults", "threadx"): _profiled("threadx", "defaults", 3, scale=0.5),
            ("speed", "threadx"): _profiled("threadx", "speed", 4, scale=0.4)}
    md = pages.render(side.page(runs, catalog.load()), "md")
    assert ("| metric | id | FreeRTOS defaults | FreeRTOS speed | ThreadX defaults | "
            "ThreadX speed |") in md
    assert "## Compiler flags per profile" in md and "the kernel at -Os" in md
    assert "## FreeRTOS V11.3.0: its settings per profile" in md
    # one row per setting, a value per profile, each profile's reason and source
    assert ("| FAST | 0 | 1 | defaults: as the vendor ships it: off; speed: the vendor's speed "
            "setting: faster | defaults: fast.h:9; speed: https://example.org/speed |") in md
    assert "| TICK | 1000 | 1000 | rtbench's rule for every kernel: 1000 Hz | tick.h:1 |" in md
