"""The kernel registry (rtbench.kernels): one descriptor per kernel, found
by name, by checkout and by a run's title; what it gives the scripts and
the command line; and docs/porting.md's worked example, which must work."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, THIRD_PARTY
from rtbench import kernels
from rtbench.errors import RtbenchError


def test_every_kernel_is_found_by_name_title_and_checkout(tmp_path):
    for d in kernels.all():
        assert kernels.get(d.name) is d and kernels.by_title(d.title) is d
        tree = tmp_path / d.name
        (tree / d.marker).parent.mkdir(parents=True)
        (tree / d.marker).write_text("")
        assert kernels.of_checkout(tree) == d.name
    assert kernels.by_title("Zephyr (userspace)") is kernels.get("zephyr")
    with pytest.raises(RtbenchError, match="unknown --kernel 'vxworks'"):
        kernels.get("vxworks")


def test_each_port_folder_has_its_descriptor_and_each_descriptor_its_folder():
    ports = {p.name for p in (REPO / "harness" / "ports").iterdir() if p.is_dir()}
    assert set(kernels.names()) <= ports
    # the host's and the template's ports carry no RTOS
    assert ports - set(kernels.names()) <= {"posix", "stub"}


def test_env_sources_is_what_test_sh_reads():
    out = subprocess.run([sys.executable, "-m", "rtbench.kernels", "env-sources"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [tuple(line.split(" ")) for line in out] == kernels.env_sources()
    assert ("RTBENCH_ZEPHYR_MODULES", "zephyr-modules") in kernels.env_sources()
    script = (REPO / "scripts" / "test.sh").read_text()
    assert "-m rtbench.kernels env-sources" in script
    # the venv it runs exists by then: setup.sh comes first
    assert script.index("scripts/setup.sh") < script.index("-m rtbench.kernels env-sources")


def test_an_option_a_kernel_does_not_take_is_one_line(tmp_path):
    d = kernels.get("freertos")
    (tmp_path / d.marker).parent.mkdir(parents=True)
    (tmp_path / d.marker).write_text("")
    with pytest.raises(RtbenchError, match="^--userspace: for --kernel zephyr \\(not freertos\\)$"):
        kernels.resolve("freertos", tmp_path, "speed", userspace=True)


def test_a_further_source_tree_reaches_the_build_or_is_one_line(tmp_path, monkeypatch):
    from dataclasses import replace

    from rtbench.kernels.base import Tree

    d = replace(kernels.get("threadx"), more_sources=(
        Tree("RTBENCH_TEST_TREE", "tree", cmake_var="TREE_PATH", marker="tree.h"),))
    (tmp_path / "k" / d.marker).parent.mkdir(parents=True)
    (tmp_path / "k" / d.marker).write_text("")
    monkeypatch.delenv("RTBENCH_TEST_TREE", raising=False)
    with pytest.raises(RtbenchError, match="set RTBENCH_TEST_TREE"):
        d.resolve(tmp_path / "k", "speed")
    monkeypatch.setenv("RTBENCH_TEST_TREE", str(tmp_path / "t"))
    with pytest.raises(RtbenchError, match="tree.h not found"):
        d.resolve(tmp_path / "k", "speed")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "tree.h").write_text("")
    k = d.resolve(tmp_path / "k", "speed")
    assert ("TREE_PATH", str((tmp_path / "t").resolve())) in k.cmake_defs
    assert k.descriptor is d


def _example() -> str:
    """The RTX5 descriptor docs/porting.md shows, as written there."""
    text = (REPO / "docs" / "porting.md").read_text()
    section = text[text.index("### The worked example: Keil RTX5"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_porting_guides_rtx5_descriptor_reads_rtx5s_tree(monkeypatch):
    """The example is code that runs: against the RTX5 and CMSIS 6 trees of
    the test material it finds both and reads RTX5's version."""
    rtx5, cmsis6 = THIRD_PARTY / "rtx5", THIRD_PARTY / "cmsis6"
    if not (rtx5.is_dir() and cmsis6.is_dir()):
        pytest.skip("no rtx5/ and cmsis6/ in ../shared/third_party")
    space: dict = {}
    exec(compile(_example(), "docs/porting.md", "exec"), space)
    d = space["DESCRIPTOR"]
    monkeypatch.setenv(d.env, str(rtx5))
    monkeypatch.setenv("RTBENCH_CMSIS6_SRC", str(cmsis6))
    k = d.resolve(None, "defaults")
    assert k.version == "5.9.1" and d.is_checkout(rtx5)
    assert ("CMSIS6_PATH", str(cmsis6.resolve())) in k.cmake_defs


def test_the_peers_a_descriptor_names_are_those_with_a_port_for_it():
    """A descriptor names its peers; each peer's own list agrees (the
    rtos-benchmark ports rtbench runs; latency_measure is Zephyr's)."""
    from rtbench.peers import rtosbench

    for d in kernels.all():
        assert ("rtos-benchmark" in d.peers) == (d.name in rtosbench.KERNELS), d.name
        assert set(d.peers) <= {"rtos-benchmark", "thread-metric", "latency_measure"}, d.name
    assert [d.name for d in kernels.all() if "latency_measure" in d.peers] == ["zephyr"]
