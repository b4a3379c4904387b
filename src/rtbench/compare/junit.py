"""A comparison's verdicts as a JUnit XML report (`rtbench compare … --junit
FILE`), the file CI systems read (twister writes one too): one test case per
metric, profile and later run, failed by a gated slow-down (the regressions
`--fail-on` fails on), skipped where nothing was judged; one per limit
checked, failed where exceeded. Every verdict of the case in its output."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from rtbench.compare import views
from rtbench.compare.runs import STAT_NAMES, RunComparison

# XML 1.0 allows neither C0 controls (but tab, LF, CR) nor lone surrogates
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _text(s: object) -> str:
    return _NOT_XML.sub("\ufffd", str(s))


def render(cmp: RunComparison, gate: tuple[str, ...]) -> str:
    suite = ET.Element("testsuite", name="rtbench compare")
    failing = {(r.id, r.profile, i, st) for r, i, st in cmp.regressions(gate)} if gate else set()
    first = cmp.runs[0]
    for row in cmp.rows:
        for i, run in enumerate(cmp.runs[1:], start=1):
            cell = row.cells[i]
            case = ET.SubElement(suite, "testcase", classname=_text(row.id),
                                 name=_text(f"[{row.profile}] run {run.id} vs run {first.id}"))
            if not cell.changes:
                why = cell.reason or cell.why or cell.status or "not compared"
                ET.SubElement(case, "skipped", message=_text(why))
                continue
            for st in gate:
                if (row.id, row.profile, i, st) in failing:
                    line = views.regression_line(row, run, first, cell, st)
                    ET.SubElement(case, "failure", type="regression",
                                  message=_text(line))
            out = [f"{STAT_NAMES[st]}: {ch.verdict}" + (f" ({ch.why})" if ch.why else "")
                   for st, ch in cell.changes.items()]
            ET.SubElement(case, "system-out").text = _text("\n".join(out))
    for c in cmp.limits:
        case = ET.SubElement(suite, "testcase", classname=_text(c.id),
                             name=_text(f"[{c.profile}] run {c.run.id} limit {c.limit.text}"))
        if c.passed is None:
            ET.SubElement(case, "skipped", message=_text(c.why or "not checked"))
        elif not c.passed:
            ET.SubElement(case, "failure", type="limit exceeded",
                          message=_text(c.why or views.limit_value(c)))
    cases = suite.findall("testcase")
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None)))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("errors", "0")
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
