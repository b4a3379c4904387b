"""Plots for the HTML sheets, drawn with matplotlib and inlined as SVG.

A full run has up to ~250 metrics × 3 profiles, and its sheet must render in
a few seconds, so the histograms reuse one figure: each plot only moves the
data of existing artists and saves again. The SVGs stay small: text is
left as text (`svg.fonttype = none`, no embedded glyphs), path coordinates
are rounded to 0.1 pt, ids nobody references are dropped and the rest are
made unique per plot (the plots share one HTML document).
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from rtbench.store.stats import Grouped, plot_bins, positive_range

RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "rtbench",  # deterministic ids
    "font.size": 7,
    "font.family": "sans-serif",
    "axes.unicode_minus": False,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "xtick.major.size": 2.5,
    "xtick.major.pad": 1.5,
}
# One colour per profile, in the run's profile order (colour-blind safe).
COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")
MARKS = (("p50", "-"), ("p99", "--"), ("max", ":"))  # percentile lines: stat, line style
# The legend inside each plot: a glyph per line style, the statistic's name.
LEGEND = (("p50", "—", "median"), ("p99", "‐ ‐", "p99"), ("max", "···", "max"))
_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}


@dataclass(frozen=True)
class Series:
    """One profile's samples and its marked statistics (in the samples' unit)."""

    samples: Grouped
    marks: dict[str, float]
    colour: str
    label: str = ""  # the profile, when several share a plot


def fmt_time(ns: float) -> str:
    """An axis label: ns below 1 µs, µs below 1 ms, else ms."""
    for scale, unit in ((1e6, "ms"), (1e3, "µs")):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


UNIT_SHORT = {"instructions": "instr"}


def fmt_value(v: float, unit: str) -> str:
    """An axis label in a sample's unit: a time from ns, a count as is."""
    if unit == "ns":
        return fmt_time(v)
    return f"{v:,.0f} {UNIT_SHORT.get(unit, unit)}" if abs(v) >= 1000 else \
        f"{v:.3g} {UNIT_SHORT.get(unit, unit)}"


def log_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[float]:
    """Round tick values in [lo, hi] for a log axis: 1-2-5 steps, thinned to
    decades when too many, plain linear steps when the range is narrow."""
    from matplotlib.ticker import MaxNLocator

    e0, e1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for steps in ((1, 2, 5), (1,)):
        ticks = [s * 10.0 ** e for e in range(e0, e1 + 1) for s in steps]
        ticks = [t for t in ticks if lo <= t <= hi]
        if 2 <= len(ticks) <= max_ticks:
            return ticks
        if len(ticks) > max_ticks:
            stride = math.ceil(len(ticks) / max_ticks)
            return ticks[::stride]
    lin = MaxNLocator(nbins=3, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
    return [float(t) for t in lin if lo <= t <= hi]


def count_label(c: float) -> str:
    """A count axis label: 1, 10, 100, 1k, 10k, 100k, 1M."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if c >= scale:
            return f"{c / scale:g}{suffix}"
    return f"{c:g}"


class HistogramPlotter:
    """Draws latency histograms (log time axis, log count axis) into one
    reused figure; `svg()` returns one plot's SVG text. The count axis is
    labelled (samples per bin), the median, p99 and max are named with
    their values in a legend inside the plot, and the median has its own
    tick label, so the body of the distribution is read off the axis.

    Speed (a sheet has hundreds of these): matplotlib's Axis machinery and
    its text layout cost more than everything else in a small plot, and the
    SVG renderer is new at every save, so nothing it measures is cached.
    So the axes are hidden; matplotlib draws the bars, the axis line, the
    tick marks and the percentile marks (one path or collection each), and
    the tick labels, placed with the axes' own transform, are added as SVG
    text elements, which the browser lays out. About 3 ms a plot.
    """

    MAX_TICKS = 6
    WIDTH_IN, HEIGHT_IN = 4.4, 1.3
    BOTTOM, TOP, LEFT, RIGHT = 0.19, 0.97, 0.085, 0.97
    HEADROOM = 12  # the count axis reaches this many times the tallest bar: room for the legend

    def __init__(self) -> None:
        import matplotlib
        from matplotlib.backends.backend_svg import FigureCanvasSVG
        from matplotlib.collections import LineCollection
        from matplotlib.figure import Figure
        from matplotlib.patches import PathPatch
        from matplotlib.path import Path
        from matplotlib.transforms import blended_transform_factory

        self._rc = matplotlib.rc_context(RC)
        self._rc.__enter__()
        self.fig = Figure(figsize=(self.WIDTH_IN, self.HEIGHT_IN), dpi=72)
        FigureCanvasSVG(self.fig)
        self.fig.patch.set_visible(False)
        self.fig.subplots_adjust(left=self.LEFT, right=self.RIGHT, bottom=self.BOTTOM,
                                 top=self.TOP)
        ax = self.ax = self.fig.add_subplot()
        ax.patch.set_visible(False)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_visible(False)
        ax.yaxis.set_visible(False)
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_linewidth(0.6)
        ax.spines["left"].set_visible(True)
        ax.spines["left"].set_linewidth(0.6)
        xaxes_ydata = blended_transform_factory(ax.transAxes, ax.transData)
        self.yticks = PathPatch(Path([(0, 1), (0, 1)]), fill=False, edgecolor="black",
                                linewidth=0.6, transform=xaxes_ydata, clip_on=False)
        ax.add_patch(self.yticks)
        xdata_yaxes = blended_transform_factory(ax.transData, ax.transAxes)
        self.ticks = PathPatch(Path([(1, 0), (1, 0)]), fill=False, edgecolor="black",
                               linewidth=0.6, transform=xdata_yaxes, clip_on=False)
        ax.add_patch(self.ticks)
        self.marks = LineCollection([], transform=xdata_yaxes, linewidths=0.9)
        ax.add_collection(self.marks, autolim=False)
        self.bars: list = []
        self.count = 0

    def close(self) -> None:
        self._rc.__exit__(None, None, None)

    def __enter__(self) -> "HistogramPlotter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _bar(self, i: int):
        from matplotlib.patches import PathPatch
        from matplotlib.path import Path

        while len(self.bars) <= i:
            patch = PathPatch(Path([(1, 1), (2, 2)]), alpha=0.5, linewidth=0)
            self.ax.add_patch(patch)
            self.bars.append(patch)
        return self.bars[i]

    def svg(self, series: Sequence[Series]) -> str | None:
        """The plot of one metric (one series per profile), or None if no
        sample is above 0 (a log axis cannot show it)."""
        ranges = [r for r in (positive_range(s.samples) for s in series) if r]
        if not ranges:
            return None
        lo = min(r[0] for r in ranges)
        hi = max(max(r[1] for r in ranges), lo * 1.05)  # one value still gets a bar
        shown = [(s, plot_bins(s.samples, lo, hi)) for s in series]
        top = max(float(b.counts.max()) for _s, b in shown)
        segments, colours, styles = [], [], []
        for i in range(max(len(self.bars), len(shown))):
            patch = self._bar(i)
            patch.set_visible(i < len(shown))
            if i >= len(shown):
                continue
            s, bins = shown[i]
            patch.set_path(_bars_path(bins))
            patch.set_facecolor(s.colour)
            for stat, style in MARKS:
                v = s.marks.get(stat)
                if v is not None and v > 0:
                    segments.append([(v, 0), (v, 1)])
                    colours.append(s.colour)
                    styles.append(style)
        self.marks.set_segments(segments)
        self.marks.set_color(colours)
        self.marks.set_linestyle(styles)
        self.ax.set_xlim(lo / 1.02, hi * 1.02)
        self.ax.set_ylim(0.5, top * self.HEADROOM)
        ticks = self._body_ticks(log_ticks(lo, hi, self.MAX_TICKS),
                                 series[0].marks.get("p50"), lo, hi)
        self._tick_marks(ticks)
        counts = [10.0 ** e for e in range(0, int(math.log10(max(top, 1))) + 1)]
        self._count_marks(counts)
        buf = io.StringIO()
        self.fig.savefig(buf, format="svg", metadata=_METADATA)
        self.count += 1
        text = buf.getvalue()
        cut = text.rindex("</svg>")
        unit = series[0].samples.unit
        text = (text[:cut] + self._tick_labels(ticks, unit) + self._count_labels(counts)
                + self._legend(series, unit) + text[cut:])
        return tidy_svg(text, f"h{self.count}")

    def _x(self, value: float) -> float:
        return float(self.ax.transData.transform((value, 1.0))[0])

    def _body_ticks(self, ticks: list[float], median: float | None, lo: float,
                    hi: float) -> list[float]:
        """The round ticks plus one at the median (the body of the
        distribution), dropping round ones its label would overlap."""
        if median is None or not lo / 1.02 <= median <= hi * 1.02:
            return ticks
        x = self._x(median)
        return sorted([median] + [t for t in ticks if abs(self._x(t) - x) > 30])

    def _count_marks(self, counts: list[float]) -> None:
        from matplotlib.path import Path

        verts = [xy for c in counts for xy in ((0.0, c), (-0.012, c))]
        self.yticks.set_path(Path(verts or [(0, 1), (0, 1)],
                                  [Path.MOVETO, Path.LINETO] * len(counts) or None))

    def _count_labels(self, counts: list[float]) -> str:
        x = self.WIDTH_IN * 72 * self.LEFT - 5
        height = self.HEIGHT_IN * 72
        out = ['<g font-size="6.5" fill="#57606a" text-anchor="end">']
        for c in counts:
            y = height - float(self.ax.transData.transform((1.0, c))[1]) + 2.3
            out.append(f'<text x="{x:.1f}" y="{y:.1f}">{count_label(c)}</text>')
        out.append(f'<text x="{x + 3:.1f}" y="7" text-anchor="start">samples</text></g>\n')
        return "".join(out)

    def _legend(self, series: Sequence[Series], unit: str) -> str:
        """Median, p99 and max with their values, top right, one line per
        profile in its colour."""
        x = self.WIDTH_IN * 72 * self.RIGHT - 2
        out = ['<g font-size="7" text-anchor="end">']
        for i, s in enumerate(series):
            parts = [f"{glyph} {name} {fmt_value(s.marks[k], unit)}"
                     for k, glyph, name in LEGEND if s.marks.get(k) is not None]
            label = f"{s.label}: " if s.label and len(series) > 1 else ""
            out.append(f'<text x="{x:.1f}" y="{8 + 8.5 * i:.1f}" fill="{s.colour}">'
                       f"{_xml(label + '   '.join(parts))}</text>")
        out.append("</g>\n")
        return "".join(out)

    def _tick_marks(self, ticks: list[float]) -> None:
        from matplotlib.path import Path

        verts = [xy for t in ticks for xy in ((t, 0.0), (t, -0.035))]
        codes = [Path.MOVETO, Path.LINETO] * len(ticks)
        self.ticks.set_path(Path(verts or [(1, 0), (1, 0)], codes or None))

    def _tick_labels(self, ticks: list[float], unit: str) -> str:
        """SVG text under each tick mark, positioned by the axes' transform
        (SVG units are points: the figure is drawn at 72 dpi)."""
        width = self.WIDTH_IN * 72
        y = self.HEIGHT_IN * 72 * (1 - self.BOTTOM) + 9.5
        out = ['<g font-size="7" fill="#000">']
        for t in ticks:
            x = self._x(t)
            anchor = "start" if x < 12 else "end" if x > width - 12 else "middle"
            out.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">'
                       f"{fmt_value(t, unit)}</text>")
        out.append("</g>\n")
        return "".join(out)


class TailPlotter(HistogramPlotter):
    """Several runs' samples of one metric overlaid as 1 − CDF (the share of
    samples above a value) on log axes, one reused figure like the
    histograms: where runs differ in the tail, their curves part on the
    right. `svg([(name, grouped, colour), ...])`."""

    HEIGHT_IN = 1.5
    LEFT = 0.1

    def svg(self, series) -> str | None:  # type: ignore[override]
        from matplotlib.lines import Line2D

        curves = []
        for _name, g, colour in series:
            pos = g.values > 0
            if not pos.any():
                continue
            x = g.values[pos]
            above = g.n - np.cumsum(g.counts)[pos]  # samples above each value
            y = np.maximum(above / g.n, 0.5 / g.n)  # the last point stays on the log axis
            curves.append((np.concatenate([[x[0]], x]), np.concatenate([[1.0], y]), colour))
        if not curves:
            return None
        lo = min(float(c[0][0]) for c in curves)
        hi = max(max(float(c[0][-1]) for c in curves), lo * 1.05)
        floor = min(float(c[1].min()) for c in curves)
        for bar in self.bars:
            bar.set_visible(False)
        self.marks.set_segments([])
        lines = getattr(self, "lines", [])
        while len(lines) < len(curves):
            line = Line2D([1], [1], linewidth=0.9, drawstyle="steps-post")
            self.ax.add_line(line)
            lines.append(line)
        self.lines = lines
        for i, line in enumerate(lines):
            line.set_visible(i < len(curves))
            if i < len(curves):
                line.set_data(curves[i][0], curves[i][1])
                line.set_color(curves[i][2])
        self.ax.set_xlim(lo / 1.02, hi * 1.02)
        self.ax.set_ylim(floor / 1.5, 1.6)
        ticks = log_ticks(lo, hi, self.MAX_TICKS)
        self._tick_marks(ticks)
        shares = [10.0 ** -e for e in range(0, 7) if 10.0 ** -e >= floor]
        self._count_marks(shares)
        buf = io.StringIO()
        self.fig.savefig(buf, format="svg", metadata=_METADATA)
        self.count += 1
        text = buf.getvalue()
        cut = text.rindex("</svg>")
        text = (text[:cut] + self._tick_labels(ticks, series[0][1].unit)
                + self._share_labels(shares) + text[cut:])
        return tidy_svg(text, f"t{self.count}")

    def _share_labels(self, shares: list[float]) -> str:
        x = self.WIDTH_IN * 72 * self.LEFT - 5
        height = self.HEIGHT_IN * 72
        out = ['<g font-size="6.5" fill="#57606a" text-anchor="end">']
        for v in shares:
            y = height - float(self.ax.transData.transform((1.0, v))[1]) + 2.3
            out.append(f'<text x="{x:.1f}" y="{y:.1f}">{v * 100:g} %</text>')
        out.append(f'<text x="{x + 3:.1f}" y="7" text-anchor="start">share of samples above'
                   "</text></g>\n")
        return "".join(out)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _bars_path(bins):
    """One compound path: a step outline for every run of non-empty bins
    (2 vertices per bin), standing on the count axis' floor."""
    from matplotlib.path import Path

    base = 0.5
    verts: list[tuple[float, float]] = []
    codes: list[int] = []
    e, c = bins.edges, bins.counts
    i, n = 0, len(c)
    while i < n:
        if c[i] <= 0:
            i += 1
            continue
        verts.append((e[i], base))
        codes.append(Path.MOVETO)
        while i < n and c[i] > 0:
            verts += [(e[i], c[i]), (e[i + 1], c[i])]
            codes += [Path.LINETO, Path.LINETO]
            i += 1
        verts += [(e[i], base), (e[i], base)]
        codes += [Path.LINETO, Path.CLOSEPOLY]
    if not verts:
        return Path([(1, base), (1, base)])
    return Path(verts, codes)


def line_plot(x_labels: Sequence[str], series: Sequence[tuple[str, Sequence[float | None], str]],
              y_label: str, unit: str = "ns") -> str:
    """A small line chart (history of a metric across runs): one line per
    (name, values in `unit`, matplotlib style); a None is left out and the
    line joins the points on either side of it (a time axis for "ns", the
    unit's own numbers otherwise)."""
    import matplotlib
    from matplotlib import ticker
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(7.5, 2.6), dpi=72)
        FigureCanvasSVG(fig)
        ax = fig.add_subplot()
        xs = list(range(len(x_labels)))
        for i, (name, values, style) in enumerate(series):
            kept = [(x, v) for x, v in zip(xs, values) if v is not None]
            if kept:
                ax.plot([x for x, _v in kept], [v for _x, v in kept], style,
                        color=COLOURS[i // 2 % len(COLOURS)], label=name, linewidth=1,
                        markersize=3)
        ax.set_xticks(xs, x_labels)
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(
            (lambda v, _pos: fmt_time(v)) if unit == "ns" else
            (lambda v, _pos: f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}")))
        ax.set_ylabel(y_label)
        ax.set_xlabel("run")
        ax.grid(axis="y", linewidth=0.3)
        ax.legend(loc="best", frameon=False, fontsize=6)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata=_METADATA)
    return tidy_svg(buf.getvalue(), "history")


_ID = re.compile(r'\sid="([^"]*)"')
_REF = re.compile(r'(url\(#|xlink:href="#)([^")]+)')
# Numbers with three or more decimals are coordinates (labels have at most two).
_LONG_DECIMALS = re.compile(r"(\.\d)\d\d+")


def _first_group(m: re.Match) -> str:
    return m.group(1)


def tidy_svg(text: str, prefix: str) -> str:
    """Make matplotlib's SVG fit for inlining next to others: no XML prolog
    or metadata, ids unique by `prefix` (unreferenced ones dropped), path
    coordinates to 0.1 pt, and a size set by CSS (the viewBox is kept)."""
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    used = {m.group(2) for m in _REF.finditer(text)}
    text = _ID.sub(lambda m: f' id="{prefix}-{m.group(1)}"' if m.group(1) in used else "", text)
    text = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)
    text = _LONG_DECIMALS.sub(_first_group, text).replace(" \nL ", " L ")
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r"<svg\1", text, count=1)
    return text.replace("<svg", '<svg role="img"', 1)



def range_plot(rows: Sequence[tuple[str, Sequence[tuple[str, str, dict | None]]]], unit: str,
               prefix: str) -> str:
    """Kernels side by side, one band per metric (the kernel comparison
    sheet): for each kernel (name, colour, {min, p50, p99, max} or None) a
    thin line from min to max, a thick one from the median to p99 and a
    dot at the median, on one log axis in `unit` (values below 1 are drawn
    at 1). A few artists per plot (line collections, one scatter) and fixed
    margins, so a sheet of twenty sections draws in a second or two."""
    import matplotlib
    from matplotlib import ticker
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    kernels = list(dict.fromkeys((k, c) for _id, ks in rows for k, c, _v in ks))
    band = max(len(kernels), 1)
    floor = 1.0
    thin, thick, dots, labels, ys = [], [], [], [], []
    for r, (mid, ks) in enumerate(rows):
        y0 = -r * (band + 0.8)
        labels.append(mid)
        ys.append(y0 - (band - 1) / 2)
        for j, (_name, colour, v) in enumerate(ks):
            if not v or v.get("p50") is None:
                continue
            y = y0 - j
            lo, med, hi, top = (max(float(v[k] if v.get(k) is not None else v["p50"]), floor)
                                for k in ("min", "p50", "p99", "max"))
            thin.append(([(lo, y), (top, y)], colour))
            thick.append(([(med, y), (max(hi, med * 1.004), y)], colour))
            dots.append((med, y, colour))
    values = [x for seg, _c in thin for x, _y in seg] or [floor, 10.0]
    height = 0.55 + 0.13 * band * len(rows) + 0.08 * len(rows)
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(7.5, height), dpi=72)
        FigureCanvasSVG(fig)
        fig.subplots_adjust(left=2.3 / 7.5, right=0.97, bottom=0.42 / height,
                            top=1 - 0.22 / height)
        ax = fig.add_subplot()
        ax.set_xscale("log")
        for segs, width in ((thin, 0.8), (thick, 3.2)):
            if segs:
                ax.add_collection(LineCollection([s for s, _c in segs], colors=[c for _s, c in segs],
                                                 linewidths=width, capstyle="butt"))
        if dots:
            ax.scatter([d[0] for d in dots], [d[1] for d in dots], s=9, c=[d[2] for d in dots],
                       edgecolors="white", linewidths=0.5, zorder=3)
        lo, hi = min(values) / 1.15, max(values) * 1.15
        ax.set_xlim(lo, hi)
        ax.set_ylim(min(ys) - band / 2 - 0.3, max(ys) + band / 2 + 0.3)
        ax.set_yticks(ys, labels)
        ax.tick_params(axis="y", length=0, labelsize=6.5)
        ax.set_xticks(log_ticks(max(lo, floor), hi))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: fmt_value(v, unit)))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.grid(axis="x", which="major", linewidth=0.3)
        ax.set_xlabel(f"{'time' if unit == 'ns' else UNIT_SHORT.get(unit, unit)} "
                      "(log axis): min — median ▬ p99 — max")
        for side in ("right", "top"):
            ax.spines[side].set_visible(False)
        ax.legend([Line2D([0], [0], color=c, linewidth=3) for _k, c in kernels],
                  [k for k, _c in kernels], loc="lower left", bbox_to_anchor=(0.0, 1.0),
                  ncol=len(kernels), frameon=False, fontsize=6.5, borderaxespad=0.2)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata=_METADATA)
    return tidy_svg(buf.getvalue(), prefix)
