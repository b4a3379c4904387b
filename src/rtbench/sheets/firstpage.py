"""The first page of a data sheet: what a real-time engineer opens a sheet
for, built once here and laid out by the Markdown and HTML templates and by
`rtbench run`'s console.

* the key measurements in the vendors' order (the catalogue's
  [[first_page]] groups: interrupt response, task response, the context
  switches by cause, the headline primitives), each in the run's own unit;
* the worst cases: the largest maxima and the largest max/median ratios of
  the kernel rows, less those the record keeps out of every ranking
  (`unranked`: listed under them with the reason, and flagged in the key
  figures);
* the method's self-check (null, busy-wait) as pass/fail;
* badges for the conditions that decide whether the figures are real-time
  figures (host: real-time policy, preemption model, VM, isolated CPUs,
  load, RT throttling; board: the emulator, the unit, the kernel's
  configuration);
* the advice of rtbench.sheets.advice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtbench.sheets import advice as advice_mod
from rtbench.sheets import estcycles, system
from rtbench.sheets.units import fmt_scaled, time_scale
from rtbench.store import blocks
from rtbench.store.catalog import Catalog
from rtbench.store.db import DEFAULT_PROFILE, Run
from rtbench.store.host import cpu_list, throttling
from rtbench.store.records import MetricRecord

WORST_SHOWN = 5
# A max/median ratio ranks a row only where its median sample spans this many
# steps of the clock: nearer the step the median is the counter's
# quantisation, and the ratio with it (a 0.003 µs median led a ×328).
RATIO_STEPS = 10
STATS = (("p50", "median"), ("p99", "p99"), ("max", "max"))


@dataclass
class KeyRow:
    id: str
    title: str
    values: dict[str, float | None]  # p50, p99, max in base_unit; None: not given
    n: int | None
    flags: list[str] = field(default_factory=list)  # why not to quote it as is
    est: dict[str, str] = field(default_factory=dict)  # a board's estimated cycles (estcycles)
    steps: dict[str, float] = field(default_factory=dict)  # each figure's clock step (fmt_scaled)

    @property
    def flag(self) -> str:
        """The flags as one cell: "budget cut, p99 and max per batch of 8"."""
        return ", ".join(self.flags)


@dataclass
class KeyGroup:
    name: str
    rows: list[KeyRow]


@dataclass
class Worst:
    id: str
    title: str
    max: float
    p50: float
    ratio: float | None
    window: str = ""  # the max's observed window: "1,000 samples in 4.9 ms" (blocks.window_text)
    p50_step: float = 0.0  # the clock's step in the median and the max (fmt_scaled)
    max_step: float = 0.0


@dataclass
class Badge:
    label: str
    value: str
    state: str  # good, bad, warn, info, unknown
    detail: str = ""

    @property
    def mark(self) -> str:
        return {"good": "✓", "bad": "✗", "warn": "!", "info": "○"}.get(self.state, "?")


@dataclass
class FirstPage:
    unit: str  # "ns" for times, else the count's unit ("instructions")
    scale: tuple[str, float]  # the unit the figures are shown in: (label, divisor)
    profile: str
    groups: list[KeyGroup]
    worst_max: list[Worst]
    worst_ratio: list[Worst]
    checks: list[advice_mod.SelfCheck]
    badges: list[Badge]
    advice: list[advice_mod.Advice] = field(default_factory=list)
    note: str = ""
    # (id, why): kernel rows the record keeps out of every ranking, so out of
    # the worst cases (docs/records.md `unranked`)
    unranked: list[tuple[str, str]] = field(default_factory=list)
    est_label: str = ""  # the cycle model's label, where the key rows carry estimates
    step: float = 0.0  # the step an imported source printed every figure in (units.fmt_whole)
    # kernel rows given no max/median ratio: their median is within RATIO_STEPS clock steps
    unresolved: list[str] = field(default_factory=list)

    @property
    def est_columns(self) -> tuple[tuple[str, str], ...]:
        """A board's estimated cycles beside the instructions (estcycles)."""
        return (("cyc_p50", "median est. cycles [lo, hi]"), ("cyc_us", "est. µs")) \
            if self.est_label else ()

    @property
    def stats(self) -> tuple[tuple[str, str], ...]:
        """The columns: median, p99, max, and the mean where a source gave
        no median (an import of averages), never a median made up."""
        with_mean = any(r.values.get("p50") is None and r.values.get("mean") is not None
                        for g in self.groups for r in g.rows)
        return STATS + (("mean", "mean"),) if with_mean else STATS

    def fmt(self, v: float | None, res: float = 0.0) -> str:
        """A figure in the page's unit (one unit for every column), no finer
        than `res`, the clock's step in it."""
        return fmt_scaled(v, self.scale[1], self.step, res)

    @property
    def unresolved_note(self) -> str:
        """Why some rows have no max/median ratio ("" when none)."""
        return (f"No max/median ratio for {len(self.unresolved)} row(s) whose median is within "
                f"{RATIO_STEPS} steps of the counter (the ratio would be the counter's "
                "quantisation, not the kernel's): " + ", ".join(self.unresolved[:WORST_SHOWN])
                + (f" and {len(self.unresolved) - WORST_SHOWN} more" if
                   len(self.unresolved) > WORST_SHOWN else "")) if self.unresolved else ""

    @property
    def unit_label(self) -> str:
        return self.scale[0]


# ---- the model ----

def build(run: Run, catalog: Catalog, advice: list[advice_mod.Advice] | None = None
          ) -> FirstPage:
    catalog = catalog.for_target(run.host)  # a board's titles speak of its kernel
    facts = advice_mod.Facts(run)
    profile = run.profiles[0]
    recs = {r["id"]: MetricRecord(r) for r in run.metrics
            if r.get("status") == "ok" and r.get("profile", DEFAULT_PROFILE) == profile}
    unit = next((m.base_unit for m in recs.values() if m.is_time or m.is_count), "ns")
    advice = advice_mod.check(run) if advice is None else advice
    flags = _flags(advice)
    clock = facts.session.clock_step
    groups = []
    for name, ids in catalog.first_page:
        rows = []
        for mid in ids:
            m = recs.get(mid)
            if m is None or m.base_unit != unit:
                continue
            meta = catalog.get(mid)
            row_flags = [budget_flag(m.n, facts.session.config) if f == "budget cut" else f
                         for f in flags.get(mid, ())]
            if not m.has("p50") and m.has("mean"):
                row_flags.append("mean only")
            if m.batch > 1:
                row_flags.append(f"p99 and max per batch of {m.batch}")
            if m.unranked:
                row_flags.append(f"not ranked: {m.unranked}")
            rows.append(KeyRow(mid, meta.title if meta else mid,
                               {k: m.value(k) for k in ("p50", "p99", "max", "mean")}, m.n,
                               row_flags, estcycles.cells(m.raw),
                               {k: m.step(k, clock) for k in ("p50", "p99", "max", "mean")}))
        if rows:
            groups.append(KeyGroup(name, rows))
    kernel = [m for m in recs.values() if m.base_unit == unit and not m.origin
              and m.has("max") and m.has("p50") and _is_kernel(catalog, m.id)
              and not m.id.startswith("method.")]
    unranked = [(m.id, m.unranked) for m in kernel if m.unranked]
    kernel = [m for m in kernel if not m.unranked]  # its figure ranks nothing
    at_res = set(advice_mod.resolution_rows(facts))
    unresolved = [m.id for m in kernel if m.id not in at_res and m.value("p50") > 0
                  and m.value("p50") < RATIO_STEPS * m.step("p50", clock)]
    # a batched row's max is per batch: against a batch's median (p50 x batch)
    worst = [Worst(m.id, _title(catalog, m.id), m.value("max"), m.value("p50"),
                   m.value("max") / (m.value("p50") * m.batch) if m.value("p50") > 0
                   and m.id not in at_res and m.id not in unresolved else None,
                   ", ".join(filter(None, (blocks.window_text(m.raw),
                                           f"the max of a batch of {m.batch}" if m.batch > 1 else ""))),
                   m.step("p50", clock), m.step("max", clock))
             for m in kernel]
    values = [v for g in groups for r in g.rows for v in r.values.values()]
    values += [w.max for w in worst]
    scale = time_scale(values) if unit == "ns" else (unit, 1.0)
    # an import's figures in the unit its source printed them in (cyclictest's
    # µs), whatever their size: a summary and a histogram import read alike
    steps = {m.step_ns for m in recs.values() if m.base_unit == unit}
    step = steps.pop() if len(steps) == 1 and facts.imported else 0.0
    if step and unit == "ns":
        scale = ("µs", 1e3) if step % 1e3 == 0 else ("ns", 1.0)
    badges = (import_badges(facts) if facts.imported else
              board_badges(facts) if facts.board else host_badges(facts))
    note = ""
    if facts.imported:
        note = ("Imported figures: the source's " + ("other " if badges else "")
                + "conditions were not recorded.")
    elif len(run.profiles) > 1:
        note = f"Figures of the first profile, {profile}; the tables show every profile."
    est_label = estcycles.label(m.raw for m in recs.values())
    return FirstPage(
        unit, scale, profile, groups,
        sorted(worst, key=lambda w: -w.max)[:WORST_SHOWN],
        sorted((w for w in worst if w.ratio), key=lambda w: -w.ratio)[:WORST_SHOWN],
        advice_mod.self_checks(facts) if not facts.imported else [],
        badges, advice, note, unranked, est_label, step, unresolved)


def budget_flag(n: int | None, config: dict) -> str:
    """The "budget cut" flag saying what was cut: "budget cut: 9,870 of 20,000
    samples in 2,000 ms" (the max is the max of those only)."""
    asked, ms = config.get("samples"), config.get("budget_ms")
    if n is None or not asked:
        return "budget cut"
    return f"budget cut: {n:,} of {asked:,} samples" + (f" in {ms:,} ms" if ms else "")


def _flags(advice: list[advice_mod.Advice]) -> dict[str, list[str]]:
    """Short words per metric some advice concerns."""
    words = {"budget": "budget cut", "few_samples": "few samples",
             "resolution": "at resolution", "implausible": "implausible", "failed": "failed"}
    out: dict[str, list[str]] = {}
    for a in advice:
        for mid in a.ids:
            if a.key in words:
                out.setdefault(mid, []).append(words[a.key])
    return out


def _is_kernel(catalog: Catalog, mid: str) -> bool:
    meta = catalog.get(mid)
    return meta is not None and not system.is_system(meta.service)


def _title(catalog: Catalog, mid: str) -> str:
    meta = catalog.get(mid)
    return meta.title if meta else mid


# ---- badges ----

def host_badges(f: advice_mod.Facts) -> list[Badge]:
    h, rt = f.host, f.session.rt
    out = []
    if not f.run.session:
        out.append(Badge("Real-time policy", "unknown", "unknown", "no session record"))
    elif rt.get("realtime"):
        out.append(Badge("Real-time policy", f"{rt.get('policy', 'SCHED_FIFO')} granted",
                         "good", "memory locked" if rt.get("mlock") else "memory not locked"))
    else:
        out.append(Badge("Real-time policy", "not granted", "bad",
                         rt.get("reason") or "no reason given"))
    pre = h.get("preemption")
    if pre is None:
        out.append(Badge("Preemption", "unknown", "unknown"))
    else:
        rt_kernel = pre.startswith("PREEMPT_RT")
        out.append(Badge("Preemption", "PREEMPT_RT" if rt_kernel else
                         f"not PREEMPT_RT ({pre.split(',')[0]})",
                         "good" if rt_kernel else "bad", pre))
    hyp = h.get("hypervisor")
    if hyp is None:
        out.append(Badge("Machine", "unknown", "unknown", "not recorded (an older run)"))
    else:
        out.append(Badge("Machine", "virtual machine" if hyp else "bare metal",
                         "bad" if hyp else "good", hyp or "no hypervisor found"))
    out.append(_isolation_badge(h, rt.get("cpu")))
    out.append(_load_badge(h))
    out.append(throttling_badge(h))
    return out


def import_badges(f: advice_mod.Facts) -> list[Badge]:
    """What an imported source said of its conditions: real-time scheduling
    for rt-tests (its priority or command line), unknown where it does not
    say; nothing for the sources that have no such thing (an RTOS log)."""
    if "rt" not in (f.run.session or {}):
        return []
    rt = f.session.rt
    why = rt.get("reason", "")
    if rt.get("realtime") is True:
        return [Badge("Real-time policy", rt.get("policy") or "real-time", "good", why)]
    if rt.get("realtime") is False:
        return [Badge("Real-time policy", "not real-time", "bad", why)]
    return [Badge("Real-time policy", "unknown (the output does not say)", "unknown", why)]


def throttling_badge(h: dict) -> Badge:
    """RT throttling while the run measured (a run as root lifts it)."""
    thr = throttling(h)
    return Badge("RT throttling", "off" if thr.startswith("off") else
                 "unknown" if thr == "unknown" else "on",
                 "good" if thr.startswith("off") else
                 "unknown" if thr == "unknown" else "warn", thr)


def _isolation_badge(h: dict, cpu: int | None) -> Badge:
    iso = h.get("isolated_cpus")
    if iso is None:
        return Badge("Isolated CPUs", "unknown", "unknown", "not recorded (an older run)")
    isolated = cpu_list(iso.get("isolated"))
    nohz = cpu_list(iso.get("nohz_full"))
    if cpu is not None and cpu in isolated:
        return Badge("Isolated CPUs", f"CPU {cpu} isolated", "good",
                     "isolcpus" + (", nohz_full" if cpu in nohz else ""))
    if isolated:
        return Badge("Isolated CPUs", f"benchmark CPU {cpu} not isolated", "bad",
                     f"isolated: {iso.get('isolated')}")
    return Badge("Isolated CPUs", "none", "bad", "isolcpus= not set: the benchmark CPU "
                 "is shared with everything else")


def _load_badge(h: dict) -> Badge:
    before, after, others = h.get("load_before"), h.get("load_after"), h.get("others_cpu_pct")
    if before is None and others is None:
        return Badge("Load", "unknown", "unknown", "not recorded (an older run)")
    cores = h.get("cores_online") or 1
    value = f"{before[0]:g}" if before else "?"
    if after:
        value += f" → {after[0]:g}"
    detail = f"1-minute load average before → after, {cores} CPUs"
    if others is not None:
        detail += f"; other processes used {others:g} % of the CPU time during the run"
    if h.get("load", "none") != "none":
        return Badge("Load", value + " (--load)", "info", detail + "; the load was asked for")
    busy = (before and before[0] >= advice_mod.BUSY_LOAD_PER_CPU * cores) or \
        (others is not None and others >= advice_mod.BUSY_OTHERS_PCT)
    return Badge("Load", value, "bad" if busy else "good", detail)


def board_badges(f: advice_mod.Facts) -> list[Badge]:
    h, t = f.host, f.session.target
    out = []
    if h.get("target_kind") == "emulator":
        out.append(Badge("Target", "emulated", "info",
                         f"{h.get('board', h.get('target', '?'))}; {h.get('emulator', '')}"))
    else:
        out.append(Badge("Target", h.get("board") or h.get("target", "?"), "info",
                         "real hardware" if "log" not in h else "a console log"))
    unit = f.session.unit
    if f.session.is_count:
        out.append(Badge("Unit", unit, "info", f"-icount {h.get('icount', '?')}: exact counts, "
                         "the same on every run; not time"))
    else:
        out.append(Badge("Unit", unit, "info", f.session.ts.get("unit_detail", "")))
    if t.get("preemption"):
        out.append(Badge("Preemption", t["preemption"], "good" if t["preemption"] == "on"
                         else "warn", t.get("kernel", "")))
    if t.get("asserts"):
        off = str(t["asserts"]).split(" (")[0] == "off"  # "off (CONFIG_ASSERT=n, …)" is off
        out.append(Badge("Asserts", t["asserts"], "good" if off else "warn",
                         "asserts on add their checks to every figure"))
    if t.get("tick_hz"):
        out.append(Badge("Tick", f"{t['tick_hz']} Hz", "info",
                         "the tick interrupt lands in some samples: it shows in the max"))
    if t.get("time_slicing"):
        out.append(Badge("Time slicing", t["time_slicing"], "info"))
    return out


def summary_lines(page: FirstPage) -> list[str]:
    """The worst cases and checks as short lines (console and Markdown)."""
    lines = []
    if page.worst_max:
        lines.append("Largest max: " + "; ".join(
            f"{w.id} {page.fmt(w.max, w.max_step)} {page.unit_label} (median "
            f"{page.fmt(w.p50, w.p50_step)}"
            + (f"; {w.window})" if w.window else ")")
            for w in page.worst_max[:3]))
    if page.worst_ratio:
        lines.append("Largest max/median: " + "; ".join(
            f"{w.id} ×{w.ratio:,.0f}" for w in page.worst_ratio[:3]))
    if page.unresolved:
        lines.append(page.unresolved_note)
    if page.unranked:
        lines.append(unranked_line(page))
    return lines


def unranked_line(page: FirstPage) -> str:
    """The rows left out of the worst cases, each with why."""
    return ("Not ranked, so not among the worst cases: "
            + "; ".join(f"{mid} ({why})" for mid, why in page.unranked))


# ---- the console (the last thing `rtbench run` prints) ----

_RICH = {"good": "green", "bad": "red", "warn": "yellow", "info": "cyan", "unknown": "dim"}


def print_console(page: FirstPage, console, title: str = "", soft: bool = True) -> None:
    """The first page on a terminal: badges, key figures, worst cases,
    the method check, then each warning with what to do about it. `soft`:
    a line is one line however long (a log); else wrapped between words at
    the console's width (`show --width`)."""
    from rich.markup import escape
    from rich.table import Table

    if title:
        console.print(f"\n[bold]{escape(title)}[/bold]", soft_wrap=soft)
    badges = [f"[{_RICH.get(b.state, 'dim')}]{b.mark} {escape(b.label)}: {escape(b.value)}"
              f"[/{_RICH.get(b.state, 'dim')}]" for b in page.badges]
    checks = [f"[{'green' if c.passed else 'red' if c.passed is False else 'dim'}]"
              f"{'✓' if c.passed else '✗' if c.passed is False else '?'} {c.name}: "
              f"{'pass' if c.passed else 'FAIL' if c.passed is False else 'not run'}[/]"
              for c in page.checks]
    line, width = [], 0
    for text, plain in zip(badges + checks, [f"{b.mark} {b.label}: {b.value}" for b in
                                             page.badges] + [f"? {c.name}: not run"
                                                              for c in page.checks]):
        if line and width + len(plain) + 2 > console.width:  # wrap between badges only
            console.print("  ".join(line), soft_wrap=soft)
            line, width = [], 0
        line.append(text)
        width += len(plain) + 2
    if line:
        console.print("  ".join(line), soft_wrap=soft)
    if page.note:
        console.print(escape(page.note), soft_wrap=soft)
    if page.groups:
        cells = {r.id: [page.fmt(r.values[k], r.steps.get(k, 0.0)) for k, _ in page.stats]
                 + [escape(r.est.get(k, "")) for k, _ in page.est_columns]
                 + ["—" if r.n is None else str(r.n)] for g in page.groups for r in g.rows}
        id_width = max(len(r.id) for g in page.groups for r in g.rows)
        inline = _flags_fit(page, id_width, cells, console.width)
        table = Table(title=f"Key figures ({page.unit_label})", title_justify="left",
                      header_style="bold", pad_edge=False, box=None)
        table.add_column("metric", no_wrap=True, min_width=id_width)
        for _k, name in (*page.stats, *page.est_columns):
            table.add_column(escape(name), justify="right", no_wrap=True)
        table.add_column("n", justify="right", no_wrap=True)
        if inline:
            table.add_column("", style="yellow")
        for g in page.groups:
            table.add_row(f"[bold]{escape(g.name)}[/bold]")
            for r in g.rows:
                table.add_row(escape(r.id), *cells[r.id], *([escape(r.flag)] if inline else []))
        console.print(table)
        if not inline:  # a narrow terminal: the flags under the table, one line per flag
            for flag, ids in _rows_by_flag(page).items():
                console.print(f"  [yellow]{escape(flag)}[/yellow]: {escape(', '.join(ids))}",
                              soft_wrap=soft)
    if page.est_label:
        console.print(escape(page.est_label), soft_wrap=soft)
    for line in summary_lines(page):
        console.print(escape(line), soft_wrap=soft)
    for a in page.advice:
        console.print(f"[yellow]warning:[/yellow] {escape(_plain(a.what))}", soft_wrap=soft)
        console.print(f"  [dim]→ {escape(_plain(a.do))}[/dim]", soft_wrap=soft)


def _flags_fit(page: FirstPage, id_width: int, cells: dict[str, list[str]], width: int) -> bool:
    """Whether the flag column fits beside the figures without wrapping a
    flag word by word (on an 80-column terminal it does not)."""
    flags = [r.flag for g in page.groups for r in g.rows if r.flag]
    if not flags:
        return False
    heads = [name for _k, name in page.stats] + ["n"]
    cols = [id_width] + [max([len(h)] + [len(c[i]) for c in cells.values()])
                         for i, h in enumerate(heads)]
    return sum(cols) + 2 * len(cols) + max(len(f) for f in flags) <= width


def _rows_by_flag(page: FirstPage) -> dict[str, list[str]]:
    """Each flag with the rows that carry it, in page order."""
    out: dict[str, list[str]] = {}
    for g in page.groups:
        for r in g.rows:
            for flag in r.flags:
                out.setdefault(flag, []).append(r.id)
    return out


def _plain(text: str) -> str:
    """Markdown marks (**, `) off, for a terminal."""
    return text.replace("**", "").replace("`", "")
