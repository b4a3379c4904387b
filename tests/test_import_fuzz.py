"""Property tests of every importer (Hypothesis): truncated, reordered,
mutated, garbage and huge inputs. An importer returns figures that follow
the records contract or raises ImportFormatError `FILE:LINE: reason`;
anything else (another exception, a hang) fails. Inputs are bounded and
every example has a deadline, so no test can hang; none asserts a time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtbench.importers import base, lmbench, rtosbench, rttests, zephyr
from rtbench.importers.base import ImportFormatError, Source
from rtbench.store import catalog
from rtbench.store.records import STATS

DATA = Path(__file__).resolve().parent / "data" / "import"
FIXTURES = {
    "zephyr": sorted((DATA / "zephyr").glob("*.txt")),
    "rt-tests": sorted((DATA / "rt-tests").glob("*.txt")) + sorted(
        (DATA / "rt-tests").glob("*.json")),
    "lmbench": sorted((DATA / "lmbench").glob("*.txt")),
    "rtos-benchmark": sorted((DATA / "rtos-benchmark").glob("*.txt")),
}
TEXTS = {k: [(p.name, p.read_text()) for p in v] for k, v in FIXTURES.items()}
ALL_LINES = [line for texts in TEXTS.values() for _n, t in texts for line in t.splitlines()]
CAT = catalog.load()
ERROR = re.compile(r"^(?P<file>[^\n]+):(?P<line>\d+): (?P<reason>\S[^\n]*)$")

READERS = {
    "zephyr": zephyr.read,
    "rt-tests": lambda src: (lambda fig_info: ([fig_info[0]], fig_info[1]))(rttests.read(src)),
    "lmbench": lmbench.read,
    "rtos-benchmark": rtosbench.read,
}
FUZZ = settings(max_examples=150, deadline=2000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

garbage_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                       max_size=120)


def _check(kind: str, name: str, text: str) -> None:
    """The importer's contract on one input."""
    lines = text.count("\n") + 1
    try:
        figures, _info = READERS[kind](Source(name, text=text))
        base.check_unique(figures)
        records = base.map_figures(figures, CAT)
    except ImportFormatError as exc:
        m = ERROR.match(str(exc))
        assert m, f"rejection without FILE:LINE: reason: {exc!s}"
        assert m["file"] == name and 0 <= int(m["line"]) <= lines + 1
        return
    assert records, "accepted an input without any figure"
    for rec in records:
        # a figure the source printed as not available: a status with a reason
        assert rec["status"] == "ok" or (rec["status"] == "unsupported" and rec["reason"]
                                         and not rec["stats_given"])
        assert set(rec["stats_given"]) <= set(STATS)
        assert rec["stats_given"] or rec["status"] != "ok"
        for stat in STATS:
            assert (stat in rec) == (stat in rec["stats_given"])
            if stat in rec:
                assert isinstance(rec[stat], (int, float)) and rec[stat] == rec[stat]
        assert rec["origin"] == "import" and rec["id"]
        assert (rec["unit"] in ("ticks", "cycles")) == ("tick_hz" in rec)


@st.composite
def mutated(draw, kind: str):
    name, text = draw(st.sampled_from(TEXTS[kind]))
    lines = text.splitlines()
    op = draw(st.sampled_from(["truncate", "shuffle", "drop", "insert", "mutate", "mix",
                               "repeat"]))
    if op == "truncate":
        text = text[:draw(st.integers(0, len(text)))]
        return name, text
    if op == "shuffle":
        lines = draw(st.permutations(lines))
    elif op == "drop" and lines:
        i = draw(st.integers(0, len(lines) - 1))
        lines = lines[:i] + lines[i + draw(st.integers(1, 5)):]
    elif op == "insert":
        for _ in range(draw(st.integers(1, 4))):
            lines.insert(draw(st.integers(0, len(lines))), draw(garbage_line))
    elif op == "mutate" and lines:
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(lines) - 1))
            line = lines[i]
            j = draw(st.integers(0, len(line)))
            lines[i] = line[:j] + draw(st.text(max_size=6)).replace("\x00", "") + line[j + 1:]
    elif op == "mix":
        for _ in range(draw(st.integers(1, 6))):
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(ALL_LINES)))
    elif op == "repeat" and lines:
        line = draw(st.sampled_from(lines))
        lines = lines + [line] * draw(st.integers(1, 300))
    return name, "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))


@pytest.mark.parametrize("kind", list(READERS))
@FUZZ
@given(data=st.data())
def test_mutated_fixtures(kind, data):
    name, text = data.draw(mutated(kind))
    _check(kind, name, text)


@pytest.mark.parametrize("kind", list(READERS))
@FUZZ
@given(text=st.lists(garbage_line, max_size=40).map("\n".join))
def test_garbage(kind, text):
    _check(kind, "garbage.txt", text)


@pytest.mark.parametrize("kind", list(READERS))
def test_huge_inputs_are_bounded(kind, tmp_path):
    """A line beyond any tool's output is refused at its line; a long file of
    noise is read through in one pass (a file, streamed)."""
    long_line = tmp_path / "long.txt"
    long_line.write_text("\n" + "9" * 200_000 + "\n")
    with pytest.raises(ImportFormatError, match=r"long\.txt:2: line longer than"):
        READERS[kind](Source("long.txt", path=long_line))
    noise = tmp_path / "noise.txt"
    noise.write_text("x\n" * 200_000)
    with pytest.raises(ImportFormatError) as exc:
        READERS[kind](Source("noise.txt", path=noise))
    assert ERROR.match(str(exc.value))
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\x00\xff\xfe" * 1000)
    with pytest.raises(ImportFormatError, match=r"bin\.txt:1: "):
        READERS[kind](Source("bin.txt", path=binary))


def test_fuzzed_json_is_refused_cleanly():
    text = (DATA / "rt-tests" / "cyclictest-h.json").read_text()
    for bad in (text[:200], text.replace("2000", '"x"'), "[" * 5000 + "]" * 5000,
                text.replace('"0": {', '"zero": {'), '{"cmdline": "ls", "thread": {}}'):
        _check("rt-tests", "c.json", bad)
