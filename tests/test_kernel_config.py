"""The engineer's own kernel configuration (`rtbench run --kernel-config
FILE`): checked by the profile's generator before anything is built,
applied on top of the profile, reported by the image setting by setting as
a difference from rtbench's rule, and warned about when compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import board_tools_missing, kernel_env
from rtbench.cli import main
from rtbench.targets import profiles


def user(tmp_path: Path, port: str, text: str, profile: str = "speed"):
    gen = profiles.generator()
    f = tmp_path / "mine.conf"
    f.write_text(text)
    k = profiles.kernel(port)
    return gen, k, gen.load_user(f, "mine.conf", k, profile)


def test_a_define_replaces_the_rule_and_says_what_it_replaced(tmp_path):
    gen, k, found = user(tmp_path, "freertos", "/* mine */\n\n"
                         "#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0  // generic\n"
                         "#  define configUSE_TRACE_FACILITY 1\n")
    sel, trace = found
    assert (sel.name, sel.set, sel.kind, sel.sources) == (
        "configUSE_PORT_OPTIMISED_TASK_SELECTION", "0", "user", ("mine.conf:3",))
    assert sel.why == "replaces rtbench's '1' (the vendor's speed setting)"
    assert trace.why == "replaces the vendor's '0'" and trace.sources == ("mine.conf:4",)
    merged = k.with_user("speed", found)
    header = gen.config_header(merged, "speed")
    assert "#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0" in header
    assert "#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1" not in header
    facts = gen.facts_header(merged, "speed", gen.load_rules(), "mine.conf: 2 setting(s)")
    assert '"kernel_config", "mine.conf: 2 setting(s)"' in facts
    assert "the engineer's own (--kernel-config): replaces the vendor's '0'" in facts


@pytest.mark.parametrize("text, said", [
    ("#define configUSE_PREEMPTION 0\n", "mine.conf:1: configUSE_PREEMPTION is needed by the "
                                         "harness"),
    ("#define A 1\nint x;\n", "mine.conf:2: not a #define"),
    ("#define A 1\n#define A 2\n", "mine.conf:2: A is given twice"),
    ("#define configASSERT(x) if (!(x)) for (;;)\n", "mine.conf:1: a function-like macro"),
])
def test_a_bad_line_is_named(tmp_path, text, said):
    gen = profiles.generator()
    with pytest.raises(gen.ProfileError, match="^" + said.replace("(", r"\(")):
        user(tmp_path, "freertos", text)


def test_a_kconfig_fragment_for_zephyr(tmp_path):
    gen, _k, found = user(tmp_path, "zephyr", "# mine\nCONFIG_TIMESLICING=y\n"
                          "# CONFIG_ASSERT is not set\nCONFIG_NUM_METAIRQ_PRIORITIES=0\n")
    assert [(s.name, s.set, s.type) for s in found] == [
        ("CONFIG_TIMESLICING", "y", "bool"), ("CONFIG_ASSERT", "n", "bool"),
        ("CONFIG_NUM_METAIRQ_PRIORITIES", "0", "int")]
    with pytest.raises(gen.ProfileError, match="mine.conf:1: not a CONFIG_NAME=value line"):
        user(tmp_path, "zephyr", "TIMESLICING=y\n")


@pytest.mark.parametrize("args, said", [
    (["--kernel-config", "mine.h"], "--kernel-config is for an RTOS built by rtbench"),
    (["--target", "mps2-an385", "--kernel", "freertos,threadx", "--kernel-config", "mine.h"],
     "--kernel-config is one kernel's own settings"),
    (["--target", "mps2-an385", "--kernel", "freertos", "--kernel-config", "/dev/zero"],
     "it is a character device"),
    (["--target", "mps2-an385", "--kernel", "freertos", "--kernel-config", "bad.h"],
     "bad.h:1: not a #define"),
])
def test_refused_before_anything_is_built_or_stored(isolated, monkeypatch, capsys, args, said):
    kernel_env(monkeypatch)
    Path("mine.h").write_text("#define configUSE_TRACE_FACILITY 1\n")
    Path("bad.h").write_text("configUSE_TRACE_FACILITY = 1\n")
    if "freertos" in args and board_tools_missing():  # its sources are checked before the file
        pytest.skip(board_tools_missing())
    assert main(["run", "--db", "r.db", "--only", "sem.give.no_waiter", *args]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1, err
    assert not Path("r.db").exists() or "sem.give" not in Path("r.db").read_bytes().decode(
        "latin-1")


def test_a_board_run_reports_the_engineers_settings(isolated, board_cache, monkeypatch, capsys):
    """A real FreeRTOS image with FreeRTOS's generic task selection instead
    of the speed profile's optimised one: the image reports the compiled
    value with what it replaced, the sheet shows it, compare warns."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(board_cache))  # the plain image: the session's
    kernel_env(monkeypatch)
    Path("mine.h").write_text("#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0\n")
    common = ["run", "--target", "mps2-an385", "--kernel", "freertos", "--db", "r.db",
              "--only", "sched.yield.ctx.thread", "--samples", "50", "--warmup", "5",
              "--no-cycles"]
    assert main([*common, "--out", "a"]) == 0
    assert main([*common, "--out", "b", "--kernel-config", "mine.h"]) == 0
    env = json.loads(Path("b/results.json").read_text())
    facts = env["session"]["target"]
    key = "setting:configUSE_PORT_OPTIMISED_TASK_SELECTION"
    assert facts[key] == "0" and facts[key + ":source"] == "mine.h:1"
    assert facts[key + ":why"].startswith("the engineer's own (--kernel-config): replaces "
                                          "rtbench's '1'")
    assert facts["kernel_config"] == "mine.h: 1 setting(s) on top of the speed profile"
    assert "Engineer's kernel configuration" in Path("b/datasheet.md").read_text()
    capsys.readouterr()
    assert main(["compare", "1", "2", "--db", "r.db"]) == 0
    out = capsys.readouterr().out
    assert "different kernel configurations" in out and "mine.h" in out
    yields = [json.loads(Path(f"{d}/results.json").read_text())["metrics"][0]["p50"]
              for d in "ab"]
    assert yields[0] != yields[1]  # the generic selection runs other instructions
