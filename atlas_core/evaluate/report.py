"""A self-contained HTML page for `atlas evaluate --report`: inline SVG, no scripts, no assets.

Every string that comes from a golden file or a saved run (ids, queries, groups, file names, modes)
is escaped: a golden set is shared between people and a page must not run what it holds.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

from atlas_core.errors import ConfigError
from atlas_core.evaluate.compare import Comparison, GroupDelta, ModeComparison, Mover
from atlas_core.evaluate.metrics import METRICS
from atlas_core.evaluate.runner import ModeReport

_COLORS = {"hybrid": "#3b6fb6", "vector": "#d08a2c", "keyword": "#3f9a5a"}
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#222;max-width:1100px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #ccc;padding:.25rem .5rem}
th{background:#f3f3f3}td.miss{background:#fbe3e3}td.top{background:#e3f4e6}
.meta{color:#666;font-size:.85rem}
td.better{background:#e3f4e6}td.worse{background:#fbe3e3}td.num{text-align:right}
ul.notes{font-size:.85rem;color:#444}
"""
_METRIC_COLORS = {
    "mrr@10": "#3b6fb6",
    "recall@5": "#3f9a5a",
    "hit@1": "#d08a2c",
    "ndcg@10": "#8a5ab6",
}
MAX_CHART_GROUPS = 16  # clusters per comparison chart after "all"; the table has every group


def _bar_chart(title: str, values: dict[str, float], maximum: float, unit: str = "") -> str:
    width, height, pad, bar = 260, 170, 30, 48
    scale = (height - 2 * pad) / maximum if maximum > 0 else 0.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(title)}">',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - 10}" y2="{height - pad}" '
        'stroke="#999"/>',
    ]
    for i, (mode, value) in enumerate(values.items()):
        x = pad + 10 + i * (bar + 24)
        h = max(0.0, value * scale)
        y = height - pad - h
        color = _COLORS.get(mode, "#777")
        label = f"{value:.1f}{unit}" if unit else f"{value:.3f}"
        parts.append(
            f'<rect x="{x}" y="{y:.1f}" width="{bar}" height="{h:.1f}" fill="{color}">'
            f"<title>{html.escape(mode)}: {label}</title></rect>"
        )
        parts.append(
            f'<text x="{x + bar / 2}" y="{y - 4:.1f}" font-size="11" text-anchor="middle">'
            f"{label}</text>"
        )
        parts.append(
            f'<text x="{x + bar / 2}" y="{height - pad + 14}" font-size="11" '
            f'text-anchor="middle">{html.escape(mode)}</text>'
        )
    parts.append("</svg>")
    return f"<figure><figcaption>{html.escape(title)}</figcaption>{''.join(parts)}</figure>"


def render_report(
    reports: dict[str, ModeReport],
    *,
    bundle: str = "",
    golden: str = "",
    comparison: Comparison | None = None,
) -> str:
    """The whole page as one string."""
    metrics = {mode: report.metrics() for mode, report in reports.items()}
    charts = [
        _bar_chart(name, {mode: m[name] for mode, m in metrics.items()}, 1.0) for name in METRICS
    ]
    for name in ("p50_ms", "p95_ms"):
        values = {mode: m[name] for mode, m in metrics.items()}
        charts.append(
            _bar_chart(f"{name} (ms)", values, max(values.values(), default=0) or 1, " ms")
        )

    rows: list[str] = []
    modes = list(reports)
    first = next(iter(reports.values()), None)
    if first is not None:
        by_mode = {mode: report.results for mode, report in reports.items()}
        for i, result in enumerate(first.results):
            case = result.case
            cells = []
            for mode in modes:
                rank = by_mode[mode][i].rank
                cls = "miss" if rank is None else "top" if rank == 1 else ""
                cells.append(f'<td class="{cls}">{"—" if rank is None else rank}</td>')
            rows.append(
                f"<tr><td>{html.escape(case.id)}</td><td>{case.kind}</td>"
                f"<td>{html.escape(case.text[:120])}</td>"
                f"<td>{html.escape(', '.join(case.expected))}</td>{''.join(cells)}</tr>"
            )
    summary_rows = "".join(
        "<tr><td>"
        + html.escape(mode)
        + "</td>"
        + "".join(f"<td>{m[k]:.3f}</td>" for k in (*METRICS, "p50_ms", "p95_ms"))
        + "</tr>"
        for mode, m in metrics.items()
    )
    head = "".join(f"<th>{k}</th>" for k in (*METRICS, "p50_ms", "p95_ms"))
    mode_heads = "".join(f"<th>{html.escape(m)}</th>" for m in modes)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    top_k = first.top_k if first else 0
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Atlas evaluation</title>
<style>{_CSS}</style></head><body>
<h1>Atlas retrieval evaluation</h1>
<p class="meta">bundle {html.escape(bundle)} · golden set {html.escape(golden)} ·
{len(first.results) if first else 0} cases · top {top_k} · {when}</p>
<h2>Summary</h2>
<table><tr><th>mode</th>{head}</tr>{summary_rows}</table>
<h2>Charts</h2><div class="charts">{"".join(charts)}</div>
{_group_table(reports)}
{_split_table(reports)}
{_comparison_section(comparison) if comparison is not None else ""}
<h2>Rank of the first relevant file, per case</h2>
<table><tr><th>id</th><th>kind</th><th>query</th><th>expected</th>{mode_heads}</tr>
{"".join(rows)}</table>
</body></html>
"""


def _group_table(reports: dict[str, ModeReport]) -> str:
    """Every mode's figures per group (identifier class or question category)."""
    rows: list[str] = []
    by_mode = {mode: report.by_group() for mode, report in reports.items()}
    names = dict.fromkeys(name for groups in by_mode.values() for name in groups)
    for name in names:
        for mode, groups in by_mode.items():
            row = groups.get(name)
            if row is None:
                continue
            cells = "".join(f'<td class="num">{row[m]:.3f}</td>' for m in METRICS)
            rows.append(
                f"<tr><td>{html.escape(name)}</td><td>{html.escape(mode)}</td>"
                f'<td class="num">{int(row["count"])}</td>{cells}</tr>'
            )
    head = "".join(f"<th>{m}</th>" for m in METRICS)
    return (
        "<h2>Per group</h2>\n<table><tr><th>group</th><th>mode</th><th>cases</th>"
        f"{head}</tr>{''.join(rows)}</table>"
    )


def _split_table(reports: dict[str, ModeReport]) -> str:
    """Every mode's figures over all cases and per frozen split, with primary@1 where cases name
    hover's page; nothing when the set has neither splits nor primary pages."""
    first = next(iter(reports.values()), None)
    if first is None or (not first.by_split() and "primary@1" not in first.metrics()):
        return ""
    names = (*METRICS, "primary@1") if "primary@1" in first.metrics() else METRICS
    rows: list[str] = []
    for mode, report in reports.items():
        splits = {"all": {**report.metrics(), "count": len(report.results)}, **report.by_split()}
        for name, row in splits.items():
            cells = "".join(
                f'<td class="num">{row[m]:.3f}</td>' if m in row else '<td class="num">-</td>'
                for m in names
            )
            rows.append(
                f"<tr><td>{html.escape(name)}</td><td>{html.escape(mode)}</td>"
                f'<td class="num">{int(row["count"])}</td>{cells}</tr>'
            )
    head = "".join(f"<th>{m}</th>" for m in names)
    return (
        "<h2>Per split</h2>\n<table><tr><th>split</th><th>mode</th><th>cases</th>"
        f"{head}</tr>{''.join(rows)}</table>"
    )


def _comparison_section(comparison: Comparison) -> str:
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in comparison.notes())
    charts = "".join(_comparison_chart(mode) for mode in comparison.modes)
    return f"""<h2>Compared with {html.escape(comparison.source)}</h2>
<ul class="notes">{notes}</ul>
<div class="charts">{charts}</div>
<h3>Deltas (this run minus the previous one)</h3>
{_delta_table(comparison)}
<h3>Cases whose first relevant rank moved</h3>
{_movers_table(comparison)}"""


def _mode_label(mode: ModeComparison) -> str:
    if mode.mode == mode.previous_mode:
        return mode.mode
    return f"{mode.previous_mode} (previous) vs {mode.mode}"


def _comparison_chart(mode: ModeComparison) -> str:
    """Grouped bars: per cluster ("all", then each group) the four metrics, each as a pale bar
    for the previous run beside a solid one for this run, on a 0-1 axis."""
    clusters = [mode.overall, *mode.groups[:MAX_CHART_GROUPS]]
    bar, pair_gap, cluster_gap = 9, 4, 22
    cluster_width = len(METRICS) * (2 * bar + pair_gap) - pair_gap
    left, right, top, plot_h = 52, 16, 40, 180
    legend_width = 78 * (len(METRICS) + 1) + 80
    width = max(left + right + len(clusters) * (cluster_width + cluster_gap), left + legend_width)
    height = top + plot_h + 58
    base = top + plot_h
    label = _mode_label(mode)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="{html.escape(label)}: previous vs this run">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = base - tick * plot_h
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
            f'stroke="{"#999" if tick == 0 else "#e5e5e5"}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end">'
            f"{tick:.2f}</text>"
        )
    parts.append(
        f'<text x="14" y="{top + plot_h / 2:.1f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">score (0-1)</text>'
    )
    for i, row in enumerate(clusters):
        x0 = left + cluster_gap / 2 + i * (cluster_width + cluster_gap)
        parts.extend(_cluster_bars(label, row, x0, base, plot_h, bar, pair_gap))
        name = row.name if len(row.name) <= 18 else row.name[:17] + "…"
        parts.append(
            f'<text x="{x0 + cluster_width / 2:.1f}" y="{base + 14}" font-size="10" '
            f'text-anchor="middle">{html.escape(name)} ({row.count})</text>'
        )
    parts.append(
        f'<text x="{left + (width - left - right) / 2:.1f}" y="{base + 34}" font-size="11" '
        'text-anchor="middle">case group (cases in both runs)</text>'
    )
    parts.extend(_legend(left))
    parts.append("</svg>")
    more = len(mode.groups) - MAX_CHART_GROUPS
    caption = html.escape(label) + (
        f" (first {MAX_CHART_GROUPS} groups; {more} more in the table)" if more > 0 else ""
    )
    return f"<figure><figcaption>{caption}</figcaption>{''.join(parts)}</figure>"


def _cluster_bars(
    label: str, row: GroupDelta, x0: float, base: float, plot_h: float, bar: int, gap: int
) -> list[str]:
    parts: list[str] = []
    delta = row.delta()
    for j, metric in enumerate(METRICS):
        color = _METRIC_COLORS[metric]
        title = html.escape(
            f"{label} · {row.name} · {metric}: previous {row.previous[metric]:.3f}, "
            f"now {row.current[metric]:.3f} ({delta[metric]:+.3f})"
        )
        for k, (which, value, opacity) in enumerate(
            (("previous", row.previous[metric], 0.35), ("current", row.current[metric], 1.0))
        ):
            x = x0 + j * (2 * bar + gap) + k * bar
            h = max(0.0, min(1.0, value)) * plot_h
            parts.append(
                f'<rect class="bar {which}" x="{x:.1f}" y="{base - h:.1f}" width="{bar}" '
                f'height="{h:.1f}" fill="{color}" fill-opacity="{opacity}">'
                f"<title>{title}</title></rect>"
            )
    return parts


def _legend(left: int) -> list[str]:
    parts: list[str] = []
    x = left
    for metric, color in _METRIC_COLORS.items():
        parts.append(
            f'<rect x="{x}" y="8" width="10" height="10" fill="{color}"/>'
            f'<text x="{x + 14}" y="17" font-size="11">{metric}</text>'
        )
        x += 78
    parts.append(
        f'<rect x="{x}" y="8" width="10" height="10" fill="#555" fill-opacity="0.35"/>'
        f'<text x="{x + 14}" y="17" font-size="11">previous</text>'
        f'<rect x="{x + 78}" y="8" width="10" height="10" fill="#555"/>'
        f'<text x="{x + 92}" y="17" font-size="11">this run</text>'
    )
    return parts


def _delta_cell(row: GroupDelta, metric: str) -> str:
    delta = row.delta()[metric]
    cls = "better" if delta > 0 else "worse" if delta < 0 else ""
    return (
        f'<td class="num {cls}">{row.previous[metric]:.3f} → {row.current[metric]:.3f} '
        f"({delta:+.3f})</td>"
    )


def _delta_table(comparison: Comparison) -> str:
    rows: list[str] = []
    for mode in comparison.modes:
        for row in (mode.overall, *mode.groups):
            cells = "".join(_delta_cell(row, m) for m in METRICS)
            rows.append(
                f"<tr><td>{html.escape(_mode_label(mode))}</td><td>{html.escape(row.name)}</td>"
                f'<td class="num">{row.count}</td>{cells}</tr>'
            )
    head = "".join(f"<th>{m}</th>" for m in METRICS)
    return f"<table><tr><th>mode</th><th>group</th><th>cases</th>{head}</tr>{''.join(rows)}</table>"


def _movers_table(comparison: Comparison) -> str:
    rows: list[str] = []
    notes: list[str] = []
    for mode in comparison.modes:
        for word, movers, total in (
            ("worse", mode.worse, mode.worse_total),
            ("better", mode.better, mode.better_total),
        ):
            rows.extend(_mover_row(mode, word, m) for m in movers)
            if total > len(movers):
                notes.append(
                    f"{mode.mode}: {total - len(movers)} more {word} cases not shown "
                    "(atlas evaluate --json lists the same cases)"
                )
    if not rows:
        return "<p>No case's rank moved.</p>"
    extra = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return (
        "<table><tr><th>mode</th><th></th><th>id</th><th>group</th><th>query</th>"
        f"<th>rank before → now</th></tr>{''.join(rows)}</table>"
        + (f'<ul class="notes">{extra}</ul>' if extra else "")
    )


def _mover_row(mode: ModeComparison, word: str, mover: Mover) -> str:
    moved = f"{_rank(mover.before)} → {_rank(mover.after)}"
    edited = " (case edited)" if mover.changed else ""
    return (
        f'<tr><td>{html.escape(mode.mode)}</td><td class="{word}">{word}</td>'
        f"<td>{html.escape(mover.id)}</td><td>{html.escape(mover.group)}</td>"
        f"<td>{html.escape(mover.query[:120])}{edited}</td><td>{moved}</td></tr>"
    )


def _rank(rank: int | None) -> str:
    return "—" if rank is None else str(rank)


def write_report(
    path: Any, reports: dict[str, ModeReport], *, comparison: Comparison | None = None, **meta: str
) -> None:
    from pathlib import Path

    page = render_report(reports, comparison=comparison, **meta)
    try:
        Path(path).write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot write the report {path}: {exc.strerror or exc}",
            hint="choose a writable --report path",
        ) from exc
