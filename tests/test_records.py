import json

import pytest

from rtbench.store import records
from rtbench.store.records import MetricRecord, RecordError

OK = {"type": "metric", "id": "a", "status": "ok", "reason": "", "unit": "ticks",
      "tick_hz": 2_000_000_000, "n": 10, "overhead_ticks": 4, "min": -4, "max": 200,
      "mean": 10.5, "stddev": 1, "p50": 10, "p90": 12, "p99": 20, "p999": 100}


def test_non_record_lines_are_ignored():
    assert records.parse_line("hello") is None
    assert records.parse_line("  \n") is None


def test_metric_record_and_conversion():
    rec = records.parse_line(json.dumps(OK))
    m = MetricRecord(rec)
    assert m.ok and m.ns("p50") == 5.0 and m.ns("max") == 100.0
    assert m.ns("min") == -2.0  # negative values are kept


@pytest.mark.parametrize("line", [
    "{not json",
    json.dumps({"type": "nope"}),
    json.dumps({**OK, "status": "weird"}),
    json.dumps({k: v for k, v in OK.items() if k != "p99"}),
    json.dumps({**OK, "unit": "ns"}),
    json.dumps({"type": "session", "schema": 3, "ts": {"hz_measured": 1}, "rt": {"realtime": True},
                "config": {}}),
])
def test_protocol_violations(line):
    with pytest.raises(RecordError):
        records.parse_line(line)


def test_unsupported_needs_no_statistics():
    rec = records.parse_line(json.dumps({"type": "metric", "id": "a", "status": "unsupported",
                                         "reason": "no mq", "n": 0}))
    assert not MetricRecord(rec).ok


def test_failed_record_is_marked_as_ours():
    rec = records.failed_record("a", "timeout after 3s")
    assert rec["status"] == "failed" and rec["origin"] == "rtbench" and rec["n"] == 0
    assert records.parse_line(json.dumps(rec)) == rec


def test_schema_1_names_are_read_in_schema_2s():
    """Fields that hold the record's unit were named *_ticks in schema 1
    (instructions on a board); schema 2 names them for what they are, and a
    record of either reads the same (a stored run, a board's old log)."""
    from rtbench.store.records import parse_line, upgrade

    old = {**OK, "overhead_ticks": 10, "canary_ticks": 7,
           "hist": {"scheme": "loglinear", "offset_ticks": -10, "buckets": []}}
    new = upgrade(old)
    assert new["overhead"] == 10 and new["canary"] == 7 and new["hist"]["offset"] == -10
    assert not any(k.endswith("_ticks") and k != "elapsed_ticks" for k in new)
    assert upgrade(new) == new  # idempotent
    assert parse_line(json.dumps(old))["overhead"] == 10
    session = {"type": "session", "schema": 1, "ts": {"hz_measured": 1, "overhead_median_ticks": 4,
                                                      "resolution_ticks": 1}, "rt": {"realtime": True},
               "config": {}}
    ts = parse_line(json.dumps(session))["ts"]
    assert ts["overhead_median"] == 4 and ts["resolution"] == 1


def test_unranked_is_an_optional_line_of_text_and_says_why():
    """`unranked` (docs/records.md): why a row stays out of every ranking;
    absent or "" when ranked; one line of at most 512 characters, else the
    record is refused wherever it comes from."""
    from rtbench.store import contract

    assert MetricRecord(records.parse_line(json.dumps(OK))).unranked == ""
    assert MetricRecord(records.parse_line(json.dumps({**OK, "unranked": ""}))).unranked == ""
    why = "the kernel adds nothing: no kernel instruction runs in the window"
    m = MetricRecord(records.parse_line(json.dumps({**OK, "unranked": why})))
    assert m.unranked == why and m.ok  # the figure stays
    for bad, words in ((True, "unranked is a flag, not text"),
                       (7, "unranked is the number 7, not text"),
                       ("x" * 513, "unranked is not one line of at most 512"),
                       ("two\nlines", "unranked is not one line")):
        with pytest.raises(RecordError, match=words):
            records.parse_line(json.dumps({**OK, "unranked": bad}))
        assert words in contract.problem({**OK, "unranked": bad})
    assert contract.problem({**OK, "unranked": "x" * 512}) is None
