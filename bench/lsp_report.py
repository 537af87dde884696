"""The LSP benchmark's figures: percentiles and medians over sessions, the comparison table
and the verdicts against playbook-ls's targets."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

from lsp_workload import Session


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass
class Figures:
    init: float
    ready: float
    ready_from_spawn: float
    ready_how: str
    settle: float
    hover_p50: float  # ms
    hover_p95: float  # ms
    hovers: str  # answered / asked
    module_p50: float  # ms
    module_p95: float  # ms
    module_hovers: str
    diag: float  # ms, median
    diag_max: float  # ms
    diag_how: str
    rss: float  # MB
    tree_rss: float  # MB
    cpu: float


def median(values: list[float]) -> float:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def figures(runs: list[Session]) -> Figures:
    hovers = [h for s in runs for h in s.hovers]
    modules = [h for s in runs for h in s.module_hovers]
    diags = [d for s in runs for d in s.diagnostics]
    return Figures(
        median([s.init for s in runs]), median([s.ready for s in runs]),
        median([s.ready_from_spawn for s in runs]), runs[0].ready_how, median([s.settle for s in runs]),
        percentile(hovers, 0.5) * 1e3, percentile(hovers, 0.95) * 1e3,
        f"{sum(s.hovers_answered for s in runs)}/{len(hovers)}",
        percentile(modules, 0.5) * 1e3, percentile(modules, 0.95) * 1e3,
        f"{sum(s.module_hovers_answered for s in runs)}/{len(modules)}",
        median(diags) * 1e3, max(diags, default=float("nan")) * 1e3, runs[0].diagnostics_how,
        max(s.rss_kb for s in runs) / 1024, max(s.tree_rss_kb for s in runs) / 1024, median([s.cpu for s in runs]))


def fmt(value: float, digits: int = 3) -> str:
    return "-" if value != value else f"{value:.{digits}f}"


ROWS: list[tuple[str, Callable[[Figures], float], int]] = [
    ("initialize (s, from spawn)", lambda f: f.init, 3),
    ("indexed / ready (s, from initialized)", lambda f: f.ready, 3),
    ("indexed / ready (s, from spawn)", lambda f: f.ready_from_spawn, 3),
    ("settle after didOpen of hovered files (s)", lambda f: f.settle, 2),
    ("hover on task names, p50 (ms)", lambda f: f.hover_p50, 2),
    ("hover on task names, p95 (ms)", lambda f: f.hover_p95, 2),
    ("hover on module keys, p50 (ms)", lambda f: f.module_p50, 2),
    ("hover on module keys, p95 (ms)", lambda f: f.module_p95, 2),
    ("diagnostics after didChange, median (ms) *", lambda f: f.diag, 1),
    ("diagnostics after didChange, max (ms) *", lambda f: f.diag_max, 1),
    ("peak RSS, server process VmHWM (MB)", lambda f: f.rss, 1),
    ("peak RSS, process tree sampled (MB)", lambda f: f.tree_rss, 1),
    ("server CPU over the session (s)", lambda f: f.cpu, 2),
]


def table(results: dict[str, Figures]) -> str:
    names = list(results)
    peers = [n for n in names if n != "playbook-ls"] if "playbook-ls" in results else []
    rows = [["metric", *names, *(f"{p}/pls" for p in peers)]]
    for label, get, digits in ROWS:
        row = [label, *(fmt(get(results[n]), digits) for n in names)]
        for peer in peers:
            base, value = get(results["playbook-ls"]), get(results[peer])
            if label.endswith("*"):
                row.append("n/c")
            else:
                row.append(f"{value / base:.1f}x" if base and base == base and value == value else "-")
        rows.append(row)
    rows.append(["task-name hovers answered (non-null)", *(results[n].hovers for n in names), *("" for _ in peers)])
    rows.append(["module-key hovers answered (non-null)", *(results[n].module_hovers for n in names),
                 *("" for _ in peers)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(row: list[str]) -> str:
        return "  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths,
                                                                                                  strict=True)))

    lines = [line(rows[0]), "  " + "  ".join("-" * w for w in widths), *map(line, rows[1:])]
    lines += [f"  {n}: ready = {results[n].ready_how}; diagnostics = {results[n].diag_how}" for n in names]
    if peers:
        lines.append("  * n/c: not comparable (the peers run with validation off: their diagnostics, if any, "
                     "check YAML syntax only)")
    return "\n".join(lines)


def verdict(label: str, value: float, limit: float, unit: str) -> str:
    ok = None if value != value else value < limit
    state = "SKIP" if ok is None else "PASS" if ok else "FAIL"
    return f"  [{state}] {label}: {fmt(value, 3)} {unit} (target < {limit:g} {unit})"


def targets(label: str, f: Figures) -> list[str]:
    small = label == "small"
    return [
        verdict(f"{label}: initialize", f.init, 0.5, "s"),
        verdict(f"{label}: full index (initialized -> {f.ready_how})", f.ready, 1.0 if small else 5.0, "s"),
        verdict(f"{label}: hover p95 (task names)", f.hover_p95, 5.0 if small else 10.0, "ms"),
        verdict(f"{label}: diagnostics after a change (median)", f.diag, 300.0, "ms"),
        verdict(f"{label}: peak RSS (VmHWM)", f.rss, 150.0 if small else 400.0, "MB"),
    ]
