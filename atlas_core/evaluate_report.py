"""A self-contained HTML page for `atlas evaluate --report`: inline SVG, no scripts, no assets."""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

from atlas_core.evaluate import METRICS, ModeReport

_COLORS = {"hybrid": "#3b6fb6", "vector": "#d08a2c", "keyword": "#3f9a5a"}
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#222;max-width:1100px}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #ccc;padding:.25rem .5rem}
th{background:#f3f3f3}td.miss{background:#fbe3e3}td.top{background:#e3f4e6}
.meta{color:#666;font-size:.85rem}
"""


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


def render_report(reports: dict[str, ModeReport], *, bundle: str = "", golden: str = "") -> str:
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
<h2>Rank of the first relevant file, per case</h2>
<table><tr><th>id</th><th>kind</th><th>query</th><th>expected</th>{mode_heads}</tr>
{"".join(rows)}</table>
</body></html>
"""


def write_report(path: Any, reports: dict[str, ModeReport], **meta: str) -> None:
    from pathlib import Path

    Path(path).write_text(render_report(reports, **meta), encoding="utf-8")
