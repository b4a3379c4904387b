"""The System part of the data sheet (issue 6): the TI RT-Linux guide's rows.

Kernel services are single operations in µs; the System part mixes figures
from 4 ns (a cached load) to milliseconds (fork+exec), bandwidths and curves,
so each table shows its times in the unit that suits it (one per column,
named in the header), a bandwidth column
(MB/s, LMBench's MB = 10^6 bytes) and, for curve series such as lat_mem_rd,
one plot per series with the machine's cache sizes marked.

Figures are derived only from what the record says: a harness record's `ops`
(operations one sample timed) and `bytes` (bytes one sample moved); an
imported or external record's own unit and `stats_given`. A statistic the
source did not give is shown as "—", never computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from rtbench.sheets.units import below, fmt_scaled, resolved_decimals
from rtbench.store.catalog import Metric
from rtbench.store.records import MetricRecord

PREFIX = "System: "
BLANK = "—"
TIME_STATS = ("min", "p50", "mean", "p99", "max")
COLUMNS = (("n", "n"), ("min", "min"), ("p50", "median"), ("mean", "mean"), ("p99", "p99"),
           ("max", "max"), ("rate", "MB/s at median"), ("rate_worst", "MB/s worst"))
SHORT_COLUMNS = (("p50", "median"), ("p99", "p99"), ("max", "max"), ("rate", "MB/s at median"))


def columns(several_profiles: bool, rate: bool, unit: str = "µs"
            ) -> tuple[tuple[str, str], ...]:
    """A System table's columns, times in `unit` (the table's): the
    bandwidth ones only where a row has one."""
    cols = SHORT_COLUMNS if several_profiles else COLUMNS
    cols = tuple((k, f"{h} {unit}" if k in TIME_STATS else h) for k, h in cols)
    return cols if rate else tuple(c for c in cols if not c[0].startswith("rate"))


def is_system(service: str) -> bool:
    return service.startswith(PREFIX)


def fmt_time(ns: float, res: float = 0.0) -> str:
    """A cell: ns below 1 µs, µs below 1 ms, else ms; four significant
    digits, none finer than `res` (ns: the clock's step in the figure), and
    "< 6.1 ns" below one step (units.fmt_scaled)."""
    if res > 0 and abs(ns) < res:
        return f"{below(res, 1.0)} ns" if res < 1e3 else f"{below(res, 1e3)} µs"
    for scale, unit in ((1e6, "ms"), (1e3, "µs"), (1.0, "ns")):
        if abs(ns) >= scale or scale == 1.0:
            text = f"{ns / scale:.4g}"
            if res > 0 and "e" not in text and "." in text:
                text = f"{ns / scale:.{min(len(text.split('.')[1]), resolved_decimals(res / scale))}f}"
            return f"{text} {unit}"
    return f"{ns:.4g} ns"


def fmt_rate(mb_s: float) -> str:
    return f"{mb_s:,.0f}" if mb_s >= 100 else f"{mb_s:.3g}"


def mb_per_s(rec: dict, stat: str) -> float | None:
    """The bandwidth at one statistic of the sample time (so the max time gives
    the worst bandwidth), or the record's own figure if it is in MB/s."""
    m = MetricRecord(rec)
    if m.unit == "MB/s":
        return m.value(stat)
    if not m.is_time or not m.bytes or not m.has(stat):
        return None
    sample_ns = m.ns(stat) * m.ops
    return m.bytes / sample_ns * 1e3 if sample_ns > 0 else None


def figures(rec: dict, div: float = 1e3) -> dict[str, str]:
    """The cells of one ok record in the System tables: times in the
    table's unit (ns divided by `div`), a score in its own unit."""
    cells = {k: BLANK for k, _h in COLUMNS}
    cells["n"] = str(rec["n"]) if rec.get("n") is not None else BLANK
    m = MetricRecord(rec)
    unit = m.unit
    if unit != "MB/s":  # a time, or a score shown in its unit; MB/s goes to the rate
        for k in TIME_STATS:
            if (v := m.value(k)) is not None:
                cells[k] = fmt_scaled(v, div, m.step_ns) if m.is_time else f"{v:.4g} {unit}"
    rate, worst = mb_per_s(rec, "p50"), mb_per_s(rec, "max")
    if unit == "MB/s":  # a bandwidth a program or file gave: its median, mean or best
        rate, worst = None, mb_per_s(rec, "min")  # the lowest bandwidth is the worst
        for stat, label in (("p50", ""), ("mean", " (mean)"), ("max", " (best)")):
            if (v := mb_per_s(rec, stat)) is not None:
                cells["rate"] = f"{fmt_rate(v)}{label}"
                break
    elif rate is not None:
        cells["rate"] = fmt_rate(rate)
    if worst is not None:
        cells["rate_worst"] = fmt_rate(worst)
    return cells


# ---- curves (lat_mem_rd) ----

@dataclass
class Curve:
    series: str
    x_unit: str
    points: list[tuple[float, float, float | None, str]]  # x, median ns, p99 ns, metric id


def curves(items: Sequence[Any], profile: str) -> list[Curve]:
    """Every curve series of the run (catalogue `curve` points), in x order."""
    out: dict[str, Curve] = {}
    for it in items:
        meta: Metric | None = it.meta
        rec = it.records.get(profile)
        if meta is None or meta.curve is None or not rec or rec.get("status") != "ok":
            continue
        m = MetricRecord(rec)
        if m.ns_or_none("p50") is None:
            continue
        c = out.setdefault(meta.curve["series"],
                           Curve(meta.curve["series"], meta.curve.get("x_unit", ""), []))
        c.points.append((float(meta.curve["x"]), m.ns("p50"), m.ns_or_none("p99"), it.id))
    for c in out.values():
        c.points.sort()
    return [c for c in out.values() if len(c.points) >= 2]


def cache_marks(host: dict) -> list[tuple[str, int]]:
    """(label, bytes) of the data caches the host reported, smallest first."""
    marks = []
    for c in host.get("caches") or []:
        if c.get("type") in ("Data", "Unified") and c.get("size"):
            marks.append((f"L{c['level']} {fmt_bytes(c['size'])}", int(c["size"])))
    return sorted(set(marks), key=lambda m: m[1])


def fmt_bytes(n: float) -> str:
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n:.0f} B"


def curve_svg(curve: Curve, marks: list[tuple[str, int]], prefix: str) -> str:
    """The curve on log2 x / log y axes: median (solid), p99 (dashed), and a
    vertical line at each cache size."""
    import io

    import matplotlib
    from matplotlib import ticker
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    from rtbench.sheets import plots

    xs = [p[0] for p in curve.points]
    with matplotlib.rc_context(plots.RC):
        fig = Figure(figsize=(7.5, 3.0), dpi=72)
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        ax.plot(xs, [p[1] for p in curve.points], "-o", color=plots.COLOURS[0],
                linewidth=1, markersize=2.5, label="median")
        p99 = [(p[0], p[2]) for p in curve.points if p[2] is not None]
        if p99:
            ax.plot([x for x, _ in p99], [y for _, y in p99], "--", color=plots.COLOURS[1],
                    linewidth=0.8, label="p99")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ymax = max(max(p[1] for p in curve.points), max((y for _, y in p99), default=0))
        for label, size in marks:
            if xs[0] <= size <= xs[-1]:
                ax.axvline(size, color="#777777", linewidth=0.6, linestyle=":")
                ax.text(size, ymax, f" {label}", fontsize=6, va="top", ha="left",
                        color="#555555")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: fmt_bytes(v)))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: plots.fmt_time(v)))
        ax.set_xlabel(f"buffer size ({curve.x_unit or 'x'}, log scale)")
        ax.set_ylabel("time per load")
        ax.grid(which="major", linewidth=0.3)
        ax.legend(loc="upper left", frameon=False, fontsize=6)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata=plots._METADATA)
    return plots.tidy_svg(buf.getvalue(), prefix)
