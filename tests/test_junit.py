"""`rtbench compare … --junit FILE`: the verdicts as the JUnit XML a CI
system reads (issue: no JUnit report; twister writes one)."""

import xml.etree.ElementTree as ET

from rtbench.cli import main
from test_compare_replicates import _blocked_run
from synth import store


def _cases(path):
    suite = ET.parse(path).getroot()
    assert suite.tag == "testsuite"
    return suite, {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}


def test_a_gated_slowdown_fails_its_case_and_only_its_case(isolated, capsys):
    store(isolated / "r.db", _blocked_run(1, 1))
    store(isolated / "r.db", _blocked_run(2, 2, slow={"sched.yield.ctx.thread": 1.2}))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on-regression",
                 "--limit", "sem.give.no_waiter<=1ns", "--junit", "j.xml"]) == 1
    suite, cases = _cases(isolated / "j.xml")
    slowed = cases["sched.yield.ctx.thread", "[rt] run 2 vs run 1"]
    (failure,) = slowed.findall("failure")
    assert failure.get("type") == "regression"
    assert failure.get("message").startswith("sched.yield.ctx.thread [rt] run 2: median")
    assert "median: slower" in slowed.find("system-out").text
    limit = cases["sem.give.no_waiter", "[rt] run 2 limit sem.give.no_waiter<=1ns"]
    assert limit.find("failure").get("type") == "limit exceeded"
    others = [c for k, c in cases.items() if c is not slowed and c is not limit
              and k[0] != "sem.give.no_waiter"]
    assert others and all(c.find("failure") is None for c in others)
    assert suite.get("tests") == str(len(cases)) and suite.get("failures") == "2"


def test_identical_runs_give_a_report_without_failures(isolated, capsys):
    store(isolated / "r.db", _blocked_run(1, 1))
    store(isolated / "r.db", _blocked_run(2, 2))
    assert main(["compare", "1", "2", "--db", "r.db", "--fail-on", "p50,p99,max",
                 "--junit", "j.xml"]) == 0
    suite, cases = _cases(isolated / "j.xml")
    assert cases and suite.get("failures") == "0"


def test_junit_beside_a_vendor_sheet_is_one_line_exit_2(isolated, capsys):
    store(isolated / "r.db", _blocked_run(1, 1))
    capsys.readouterr()
    assert main(["compare", "1", "--ref", "vxworks", "--db", "r.db", "--junit", "j.xml"]) == 2
    assert "--junit reports verdicts" in capsys.readouterr().err
    assert not (isolated / "j.xml").exists()
