"""Locating, hashing and building the harness (with a tiny stand-in project)."""

import shutil

import pytest

from rtbench.errors import HarnessError
from rtbench.targets import harness

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("cc") is None,
                                 reason="cmake and a C compiler are needed")

CMAKE = """cmake_minimum_required(VERSION 3.13)
project(tiny C)
add_executable(rtbench-harness main.c)
"""
MAIN = """#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--list") == 0)
        puts("{\\"type\\":\\"registry\\",\\"id\\":\\"method.null\\"}");
    return 0;
}
"""


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    src = tmp_path / "tiny"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE)
    (src / "main.c").write_text(MAIN)
    monkeypatch.setenv("RTBENCH_HARNESS_SRC", str(src))
    return src


def test_source_dir_prefers_the_environment(tiny):
    assert harness.source_dir() == tiny.resolve()


def test_hash_follows_content_not_build_dirs(tiny):
    first = harness.source_hash(tiny)
    assert len(first) == 12
    (tiny / "build").mkdir()
    (tiny / "build" / "CMakeCache.txt").write_text("x")  # an in-tree build is ignored
    assert harness.source_hash(tiny) == first
    (tiny / "main.c").write_text(MAIN + "\n")
    assert harness.source_hash(tiny) != first


@needs_cmake
def test_build_caches_by_hash_and_lists(tiny, tmp_path):
    exe = harness.build()
    assert exe.name == "rtbench-harness" and exe.is_file()
    assert exe.parent.name == f"harness-{harness.source_hash(tiny)}"
    assert str(exe).startswith(str(tmp_path / "xdg-cache"))
    assert harness.build() == exe  # unchanged sources: no rebuild
    assert harness.registry(exe) == ["method.null"]
    (tiny / "main.c").write_text(MAIN.replace("return 0;", "return 0; /* v2 */"))
    assert harness.build() != exe


@needs_cmake
def test_failed_build_names_the_log(tiny):
    (tiny / "main.c").write_text("this is not C\n")
    with pytest.raises(HarnessError, match=r"harness build failed .*see .*build\.log"):
        harness.build()


def test_missing_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("RTBENCH_HARNESS_SRC", str(tmp_path / "nowhere"))
    monkeypatch.setattr(harness, "_PKG_DIR", tmp_path / "pkg" / "src" / "rtbench")
    with pytest.raises(HarnessError, match="harness sources not found"):
        harness.source_dir()


def test_explicit_harness_must_be_executable(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(HarnessError, match="not an executable"):
        harness.executable(plain)


@needs_cmake
def test_list_coverage_says_what_it_builds_on_stderr(isolated, tiny, capsys):
    """`list --coverage` off a terminal: a line on stderr per piece of work
    as it begins (each column, each build that has work to do), the table
    alone on stdout; a second listing finds the build cached and says so
    by not announcing it."""
    from rtbench.cli import main

    assert main(["list", "--coverage"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines and all(ln.startswith("list --coverage: ") for ln in lines)
    building = [ln for ln in lines if "building the harness" in ln]
    assert len(building) == 1 and "with CMake into" in building[0]
    assert any("asking this machine's harness" in ln for ln in lines)
    assert "list --coverage:" not in out and "Linux (host)" in out
    assert main(["list", "--coverage"]) == 0
    assert "building" not in capsys.readouterr().err
