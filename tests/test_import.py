"""rtbench import KIND: the importers on their fixtures (real rt-tests
outputs of this VM, Zephyr's README samples, LMBench's formats), the CLI's
bad input, and imported runs in the sheet, CSV, compare and runs without
invented statistics."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rtbench.cli import main
from rtbench.importers import ImportFormatError, read_files, rttests
from rtbench.store import catalog
from rtbench.store.db import Store

DATA = Path(__file__).resolve().parent / "data" / "import"
RT = DATA / "rt-tests"
ZK = DATA / "zephyr" / "latency_measure-kernel.txt"
ZU = DATA / "zephyr" / "latency_measure-userspace.txt"
LM = DATA / "lmbench"


@pytest.fixture(scope="module")
def cat():
    return catalog.load()


def _given(rec: dict) -> dict:
    return {k: rec[k] for k in rec["stats_given"]}


def _one(path: Path, cat, **kw) -> dict:
    r = rttests.parse(path, catalog=cat, **kw)
    assert len(r.records) == 1
    return r.records[0]


# ---- rt-tests ----

def test_cyclictest_quiet_summary(cat):
    rec = _one(RT / "cyclictest-q.txt", cat)
    assert rec["id"] == "sys.timer.wakeup.idle" or rec["id"] == "rttests:cyclictest"
    assert rec["origin"] == "import" and rec["unit"] == "ticks" and rec["tick_hz"] == 10**9
    assert _given(rec) == {"min": 15000, "mean": 19000, "max": 56000} and rec["n"] == 2000
    assert rec["stats_given"] == ["min", "max", "mean"]
    assert "p50" not in rec and "p99" not in rec and "stddev" not in rec
    assert rec["source"]["tool"] == "cyclictest" and rec["source"]["line"] == 2


def test_cyclictest_threads_and_ns(cat):
    rec = _one(RT / "cyclictest-q-t2.txt", cat)
    assert rec["source"]["threads"] == 2
    assert rec["source"]["per_thread"][1] | {} == {
        "thread": 1, "line": 3, "n": 592, "priority": 80, "interval_us": 700,
        "min": 16000, "mean": 30000, "max": 219000}
    assert _given(rec)["max"] == 239000 and "all 2 threads" in rec["note"]
    ns = _one(RT / "cyclictest-N.txt", cat)  # -N: told apart by the Act field's width
    assert _given(ns) == {"min": 11746, "mean": 21834, "max": 97168}
    live = _one(RT / "cyclictest-noq.txt", cat)  # the live display: the last line counts
    assert live["n"] == 500


def test_cyclictest_histogram_percentiles(cat):
    rec = _one(RT / "cyclictest-h200.txt", cat)
    assert rec["stats_given"] == ["min", "max", "mean", "p50", "p90", "p99"]  # p999 overflowed
    assert (rec["p50"], rec["p90"], rec["p99"]) == (24000, 29000, 37000)
    assert rec["n"] == 2000 and rec["hist"]["overflow"] == 4
    assert rec["hist"]["scheme"] == "linear"
    assert sum(b[2] for b in rec["hist"]["buckets"]) == 1996
    assert all(hi - lo == 1000 for lo, hi, _c in rec["hist"]["buckets"])
    assert "percentiles from the source's 1 µs histogram" in rec["note"]
    assert "p999 beyond its range" in rec["note"]
    two = _one(RT / "cyclictest-h100-t2.txt", cat)
    assert two["source"]["threads"] == 2 and two["source"]["per_thread"][1]["max"] == 164000


def test_rttests_json(cat):
    rec = _one(RT / "cyclictest.json", cat)
    assert _given(rec) == {"min": 15000, "mean": 20700, "max": 123000}
    assert rec["source"]["version"] == "2.40" and rec["source"]["command"].startswith("cyclictest")
    h = _one(RT / "cyclictest-h.json", cat)
    assert {"p50", "p90", "p99"} <= set(h["stats_given"]) and h["hist"]["buckets"]
    fork = rttests.parse(RT / "svsematest-f.json", catalog=cat)
    assert fork.program == "svsematest -f" and fork.records[0]["id"] == "sem.give.wake_ctx.process"
    assert fork.info["host"]["release"] == "6.18.44-fc-v595"


@pytest.mark.parametrize("name, program, metric", [
    ("ptsematest.txt", "ptsematest", "rmutex.unlock.wake_ctx.thread"),
    ("ptsematest.json", "ptsematest", "rmutex.unlock.wake_ctx.thread"),
    ("pmqtest.txt", "pmqtest", "msgq.send.wake_ctx.thread"),
    ("svsematest.txt", "svsematest", "sem.give.wake_ctx.thread"),
    ("svsematest-f.txt", "svsematest -f", "sem.give.wake_ctx.process"),
    ("sigwaittest.txt", "sigwaittest", "rttests:sigwaittest"),
])
def test_pair_programs(cat, name, program, metric):
    r = rttests.parse(RT / name, catalog=cat)
    rec = r.records[0]
    assert r.program == program and rec["id"] == metric
    assert rec["stats_given"] == ["min", "max", "mean"] and rec["n"] == 2000
    assert (rec.get("mapped") is False) == metric.startswith("rttests:")


def test_pair_program_from_text_and_hint(cat):
    text = (RT / "ptsematest.txt").read_text()
    with pytest.raises(ImportFormatError, match=r"^x:1: ptsematest, svsematest and sigwaittest"):
        rttests.parse(text, name="x", catalog=cat)
    assert rttests.parse(text, program="sigwaittest", catalog=cat).program == "sigwaittest"
    cmd = "# svsematest -f -a 1 -t 1\n" + text
    assert rttests.parse(cmd, catalog=cat).program == "svsematest -f"
    two = rttests.parse(RT / "ptsematest-t2.txt", catalog=cat).records[0]
    assert two["source"]["threads"] == 2 and two["source"]["per_thread"][1]["max"] == 87000
    pmq = rttests.parse((RT / "pmqtest.txt").read_text(), catalog=cat)  # "TO" says pmqtest
    assert pmq.program == "pmqtest"


def test_cyclictest_maps_by_catalogue_or_fallback(cat):
    rec = _one(RT / "cyclictest-q.txt", cat)
    claimed = any("cyclictest" in m.vendor.get("rttests", ()) for m in cat.metrics)
    assert rec["id"] == "sys.timer.wakeup.idle"  # the catalogue's name, or the fallback table
    assert claimed or rttests.FALLBACK["cyclictest"] == rec["id"]


# ---- Zephyr ----

def test_zephyr_kernel_sample(cat):
    r = read_files("zephyr", [ZK], cat)
    by_label = {rec["source"]["label"]: rec for rec in r.records}
    assert len(r.records) == 47
    sem = by_label["semaphore.give.wake+ctx.k_to_k"]
    assert sem["id"] == "sem.give.wake_ctx.thread"
    assert sem["stats_given"] == ["mean"] and sem["mean"] == 4992
    assert sem["source"]["cycles"] == 599 and "n" not in sem
    assert not any(k in sem for k in ("min", "max", "p50", "p99", "stddev"))
    # the cooperative variant of the yield switch: kept, unmapped, says whose variant it is
    coop = by_label["thread.yield.cooperative.ctx.k_to_k"]
    assert coop["id"] == "zephyr:thread.yield.cooperative.ctx.k_to_k"
    assert coop["mapped"] is False and coop["variant_of"] == "sched.yield.ctx.thread"
    assert r.session["source"]["execution_successful"] is True
    unknown = [rec for rec in r.unmapped if "variant_of" not in rec]
    assert {rec["source"]["label"] for rec in unknown} <= {
        "fifo.put.alloc.immediate.kernel", "fifo.get.free.immediate.kernel"} or unknown == []


def test_zephyr_userspace_sample_keeps_every_variant(cat):
    r = read_files("zephyr", [ZU], cat)
    assert len(r.records) == 124 and len({rec["id"] for rec in r.records}) == 124
    sem = {rec["source"]["label"]: rec for rec in r.records}
    assert sem["semaphore.give.wake+ctx.k_to_k"]["id"] == "sem.give.wake_ctx.thread"
    assert sem["semaphore.give.wake+ctx.u_to_u"]["variant_of"] == "sem.give.wake_ctx.thread"
    assert r.session["source"]["execution_successful"] is True
    cut = ZU.read_text().replace("PROJECT EXECUTION SUCCESSFUL", "")  # a run cut short
    assert read_files_text("zephyr", cut, cat).session["source"]["execution_successful"] is False


def test_zephyr_banner_and_unknown_id(cat, tmp_path):
    f = tmp_path / "console.log"
    f.write_text("*** Booting Zephyr OS build v3.6.0-1234-gdeadbeef ***\nBoard: frdm_k64f\n"
                 "Timing results: Clock frequency: 120 MHz\n"
                 "made.up.metric - Something new : 12 cycles , 100 ns :\n"
                 + ZK.read_text())
    r = read_files("zephyr", [f], cat)
    src = r.session["source"]
    assert (src["version"], src["board"]) == ("v3.6.0-1234-gdeadbeef", "frdm_k64f")
    made = next(rec for rec in r.records if rec["source"]["label"] == "made.up.metric")
    assert made["id"] == "zephyr:made.up.metric" and made["mapped"] is False
    assert "variant_of" not in made and made["source"]["line"] == 4
    assert r.host == {"os": "Zephyr", "kernel_release": "v3.6.0-1234-gdeadbeef",
                      "cpu_model": "board frdm_k64f"}


def read_files_text(kind: str, text: str, cat, name: str = "out.txt"):
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / name
        f.write_text(text)
        return read_files(kind, [f], cat)


# ---- LMBench ----

def test_lmbench_programs(cat):
    r = read_files("lmbench", [LM / "lat_syscall.txt", LM / "lat_ctx.txt",
                               LM / "lat_mem_rd.txt", LM / "bw_mem.txt"], cat)
    by = {rec["source"]["label"]: rec for rec in r.records}
    assert by["Simple syscall"]["mean"] == 141.2 and by["Simple syscall"]["stats_given"] == ["mean"]
    assert by["lat_ctx size=16k procs=8"]["mean"] == 4870
    assert by["lat_ctx size=16k procs=8"]["source"]["overhead_us"] == 1.21
    assert by["lat_mem_rd stride=128 size=512"]["mean"] == 1.101
    assert "lat_mem_rd stride=128 size=16m" in by and "lat_mem_rd stride=128 size=1k" in by
    bw = by["bw_mem wr 1m"]
    assert bw["unit"] == "MB/s" and bw["mean"] == 24011.90 and "tick_hz" not in bw
    assert set(by) >= {"bw_mem rd 16k", "bw_mem cp 16m"}
    for rec in r.records:  # mapped where the catalogue has the name, else kept and listed
        names = {n for m in cat.metrics for n in m.vendor.get("lmbench", ())}
        assert (rec["source"]["label"] in names) == (rec.get("mapped") is not False)


def test_lmbench_results_file(cat):
    r = read_files("lmbench", [LM / "results.txt"], cat)
    by = {rec["source"]["label"]: rec for rec in r.records}
    assert by["Pipe bandwidth"]["unit"] == "MB/s" and by["Pipe bandwidth"]["mean"] == 3544.80
    assert by["Process fork+/bin/sh -c"]["mean"] == 1041000
    assert by["Pagefaults"]["source"]["target"] == "/var/tmp/XXX"
    assert by["lat_fs create 0k"]["mean"] == pytest.approx(1e9 / 84210, abs=1e-3)
    assert by["bw_mem frd 1m"]["mean"] == 31760.40 and by["bw_mem bcopy 16k"]["mean"] == 136920.30
    assert by["bw_file_rd 1m io_only"]["unit"] == "MB/s"
    assert by["lat_mmap 512k"]["mean"] == 9900
    assert by["File /var/tmp/XXX write bandwidth"]["unit"] == "KB/s"
    assert r.session["source"]["version"] == "Version-3.0-a9"
    assert r.host["hostname"] == "rtbox" and r.host["kernel_release"] == "6.1.0-rt"
    assert all(rec["stats_given"] == ["mean"] for rec in r.records)
    assert len(r.records) == 53


# ---- the command line ----

def _dump(db: Path) -> list:
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return [conn.execute(f"SELECT * FROM {t}").fetchall() for t in ("runs", "metrics")]
    finally:
        conn.close()


def test_cli_import_stores_one_marked_run(isolated, capsys):
    db = isolated / "r.db"
    assert main(["import", "rt-tests", str(RT / "cyclictest-h200.txt"), str(RT / "sigwaittest.txt"),
                 "--label", "peers", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "as run 1" in out and "no rtbench metric: sigwaittest" in out
    with Store(db) as s:
        run = s.get_run(1)
    assert run.origin == "rt-tests" and run.imported_from and run.label == "peers"
    assert run.session["origin"] == "import" and run.session["source"]["kind"] == "rt-tests"
    assert len(run.session["source"]["files"]) == 2
    assert {r["id"] for r in run.metrics} == {"sys.timer.wakeup.idle", "rttests:sigwaittest"}
    assert main(["runs", "--db", str(db), "--format", "md"]) == 0
    assert "imported (rt-tests) from cyclictest-h200.txt, sigwaittest.txt" in capsys.readouterr().out


def test_cli_rtbench_import_keeps_both_forms(isolated, capsys):
    from synth import full_run, store

    src = isolated / "src.db"
    store(src, full_run(["method.null", "sem.give.no_waiter"]))
    assert main(["report", "1", "--format", "json", "--db", str(src), "-o",
                 str(isolated / "r.json")]) == 0
    data = json.loads((isolated / "r.json").read_text())
    db = isolated / "dst.db"
    assert main(["import", str(isolated / "r.json"), "--db", str(db)]) == 0
    data["run"]["uuid"] = "other"
    (isolated / "r2.json").write_text(json.dumps(data))
    assert main(["import", "rtbench", str(isolated / "r2.json"), "--db", str(db)]) == 0
    with Store(db) as s:
        assert [r.origin for r in s.list_runs()] == ["rtbench", "rtbench"]


@pytest.mark.parametrize("args, message", [
    (["import", "nosuchkind", "a.txt"], "unknown import kind 'nosuchkind'"),
    (["import", "zephyr"], "import zephyr needs at least one FILE"),
    (["import", "zephyr", "absent.txt"], "cannot read absent.txt: no such file"),
    (["import", "lmbench", "{garbage}"], "garbage.txt:1: no LMBench figure in it"),
    (["import", "zephyr", "{badzephyr}"], "badzephyr.txt:2: a latency_measure result line"),
    (["import", "rt-tests", "{badhist}"], "badhist.txt:5: histogram row 7 where row 3 was due"),
    (["import", "rt-tests", "{garbage}"], "garbage.txt:1: not an rt-tests output line"),
    (["import", "lmbench", str(LM / "lat_syscall.txt"), "--program", "x"],
     "--program is for rt-tests imports only"),
])
def test_cli_bad_input(isolated, capsys, args, message):
    db = isolated / "r.db"
    (isolated / "garbage.txt").write_text("hello world\nthis is not a benchmark\n")
    (isolated / "badzephyr.txt").write_text(
        "*** Booting Zephyr OS build v3.6.0 ***\nsem.x - Give : lots cycles , 3 ns :\n")
    (isolated / "badhist.txt").write_text(
        "# Histogram\n000000 000000\n000001 000003\n000002 000001\n000007 000001\n")
    args = [a.format(garbage=isolated / "garbage.txt", badzephyr=isolated / "badzephyr.txt",
                     badhist=isolated / "badhist.txt") for a in args]
    main(["runs", "--db", str(db)]) if db.exists() else None
    capsys.readouterr()
    assert main([*args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("rtbench: error: ")
    assert _dump(db) == [] or _dump(db)[0] == []


# ---- rendering imported runs ----

def test_imported_sheet_shows_only_what_the_source_gave(isolated, capsys):
    db = isolated / "r.db"
    assert main(["import", "zephyr", str(ZK), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["show", "latest", "--db", str(db)]) == 0
    sheet = capsys.readouterr().out
    assert "Imported, not measured by rtbench" in sheet and "mean only" in sheet
    assert "PROJECT EXECUTION SUCCESSFUL:** seen" in sheet
    first, row = [line for line in sheet.splitlines() if "`sem.give.wake_ctx.thread`" in line]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # n, min, median, p99, mean, max (one unit, µs): only the mean the source gave
    assert cells[1:] == ["—", "—", "—", "—", "4.992", "—", "Zephyr prints the average only"]
    # the first page too shows the mean as a mean, never as a median
    cells = [c.strip() for c in first.strip("|").split("|")]
    assert cells[1:] == ["—", "—", "—", "4.992", "—", "mean only"]
    assert "### Figures rtbench has no metric for" in sheet
    assert "thread.yield.cooperative.ctx.k_to_k" in sheet
    assert main(["report", "latest", "--format", "csv", "--db", str(db)]) == 0
    csv_text = capsys.readouterr().out
    import csv as csv_mod
    rows = list(csv_mod.DictReader(csv_text.splitlines()))
    sem = next(r for r in rows if r["metric_id"] == "sem.give.wake_ctx.thread")
    assert sem["mean_ns"] == "4992.000" and sem["p50_ns"] == sem["min_ns"] == sem["p99_ticks"] == ""
    assert sem["origin"] == "import" and sem["stats_given"] == "mean"
    assert main(["report", "latest", "--format", "html", "--db", str(db), "-o",
                 str(isolated / "s.html")]) == 0


def test_imported_run_in_compare_and_history(isolated, capsys):
    from synth import full_run, store

    db = isolated / "r.db"
    store(db, full_run(["sem.give.wake_ctx.thread", "msgq.send.wake_ctx.thread"]))
    assert main(["import", "rt-tests", str(RT / "svsematest.txt"), "--db", str(db)]) == 0
    assert main(["import", "lmbench", str(LM / "bw_mem.txt"), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["compare", "1", "2", "3", "--format", "md", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    row = next(l for l in out.splitlines() if l.startswith("| sem.give.wake_ctx.thread"))
    # the table's unit is ns here (the medians are ~10 ns): the mean in it, unjudged
    assert "— (mean 5,000)" in row and "no median in the source" in row
    assert "slower" not in row and "faster" not in row
    assert "MB/s" in out
    assert main(["history", "sem.give.wake_ctx.thread", "--format", "md", "--db", str(db)]) == 0
    hist = capsys.readouterr().out.splitlines()
    imported = next(l for l in hist if l.startswith("| 2 "))
    assert "| 3 | — | 5 | — | 58 |" in imported  # svsematest printed whole µs


# ---- the streaming histogram reader: fast path and line-by-line path agree ----

def _histogram(rows: int, threads: int) -> str:
    out = ["# /dev/cpu_dma_latency set to 0us", "# Histogram"]
    for i in range(rows):
        out.append(f"{i:06d} " + "\t".join(f"{(i * (t + 3)) % 7 if i < 50 else 0:06d}"
                                            for t in range(threads)))
    totals = [sum((i * (t + 3)) % 7 for i in range(min(rows, 50))) for t in range(threads)]
    out += ["# Total:" + "".join(f" {v:09d}" for v in totals),
            "# Min Latencies:" + " 00001" * threads, "# Avg Latencies:" + " 00020" * threads,
            "# Max Latencies:" + " 00049" * threads, "# Histogram Overflows:" + " 00000" * threads,
            "# Histogram Overflow at cycle number:"]
    out += [f"# Thread {t}:" for t in range(threads)]
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("threads", [1, 3])
def test_histogram_blocks_of_any_size_agree(cat, monkeypatch, threads):
    text = _histogram(5000, threads)
    whole = rttests.parse(text, catalog=cat).records[0]
    for size in (64, 1000, 4096):
        monkeypatch.setattr(rttests, "BLOCK_BYTES", size)
        assert rttests.parse(text, catalog=cat).records[0] == whole
    assert whole["source"]["threads"] == threads and whole["stats_given"][-1] == "p999"


def test_histogram_error_deep_in_a_block_has_its_line(cat):
    lines = _histogram(5000, 2).splitlines()
    lines[3002] = lines[3002].replace("\t", "\t\t")  # still a row: [ \t]+ separates
    assert rttests.parse("\n".join(lines), catalog=cat).records[0]["n"] > 0
    lines[3002] = "003001 000000"  # one column short (2 threads)
    with pytest.raises(ImportFormatError, match=r"^h:3003: histogram row with 1 columns"):
        rttests.parse("\n".join(lines), name="h", catalog=cat)
    lines[3002] = "003005 000000\t000000"  # out of order
    with pytest.raises(ImportFormatError, match=r"^h:3003: histogram row 3005 where row 3000"):
        rttests.parse("\n".join(lines), name="h", catalog=cat)


def test_imported_run_round_trips_through_results_json(isolated, capsys):
    db, other = isolated / "a.db", isolated / "b.db"
    assert main(["import", "rt-tests", str(RT / "cyclictest-h200.txt"), "--db", str(db)]) == 0
    assert main(["import", "lmbench", str(LM / "bw_mem.txt"), "--db", str(db)]) == 0
    for run in ("1", "2"):
        out = isolated / f"r{run}.json"
        assert main(["report", run, "--format", "json", "--db", str(db), "-o", str(out)]) == 0
        assert main(["import", str(out), "--db", str(other)]) == 0
    with Store(db) as a, Store(other) as b:
        for run in (1, 2):
            assert a.get_run(run).metrics == b.get_run(run).metrics
            assert b.get_run(run).session["origin"] == "import"
