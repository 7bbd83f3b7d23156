"""A model's report as one self-contained HTML file: metrics, the score with its threshold, alarms with
their contributions. Plain SVG, no scripts, so it opens anywhere."""

from __future__ import annotations

import html
from pathlib import Path


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def _score_svg(overview: list, threshold: float, width: int = 900, height: int = 220) -> str:
    pts = [(p, hi) for p, _lo, hi in overview if hi is not None]
    if not pts:
        return ""
    n = max(p for p, _ in pts) or 1
    vmax = max(max(v for _, v in pts), threshold) * 1.05 or 1
    x = lambda p: 40 + (width - 50) * p / n  # noqa: E731
    y = lambda v: height - 20 - (height - 30) * v / vmax  # noqa: E731
    line = " ".join(f"{x(p):.1f},{y(v):.1f}" for p, v in pts)
    return (
        f'<svg width="{width}" height="{height}" role="img" aria-label="anomaly score">'
        f'<polyline fill="none" stroke="#1565c0" stroke-width="1" points="{line}"/>'
        f'<line x1="40" x2="{width - 10}" y1="{y(threshold):.1f}" y2="{y(threshold):.1f}" stroke="#c62828" stroke-dasharray="4 3"/>'
        f'<text x="42" y="{y(threshold) - 4:.1f}" font-size="11" fill="#c62828">threshold {threshold:.4g}</text></svg>'
    )


def write(path: Path, report: dict, project_name: str) -> None:
    m = report["metrics"]
    pw = m.get("pointwise") or {}
    ev = m.get("event") or {}
    rows = [
        ("Threshold", report["threshold"]),
        ("Evaluated rows", m["evaluated_rows"]),
        ("Alarms", m["alarms"]),
        ("Alarms per day", m.get("alarms_per_day")) if m.get("alarms_per_day") is not None else ("Alarms per 1,000 rows", m.get("alarms_per_1000_rows")),
        ("Precision", pw.get("precision")),
        ("Recall", pw.get("recall")),
        ("F1", pw.get("f1")),
        ("False-alarm rate (FAR)", pw.get("far")),
        ("Missed-alarm rate (MAR)", pw.get("mar")),
        ("Events detected", f"{ev['events_detected']} / {ev['events']}" if ev else None),
        ("Event-level F1", ev.get("f1")),
    ]
    det = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{_fmt(v)}</td></tr>" for k, v in (report.get("detector") or {}).items())
    alarms = "".join(
        f"<tr><td>{_fmt(a['start_time'])}</td><td>{_fmt(a['end_time'])}</td><td>{_fmt(a['peak_score'])}</td><td>{html.escape(a['part'])}</td>"
        f"<td>{', '.join(html.escape(c['signal']) + ' ' + _fmt(c['value']) for c in (a.get('contributions') or [])[:5]) or '–'}</td></tr>"
        for a in report["alarms"][:100]
    )
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(project_name)} – {html.escape(report["label"])}</title>
<style>body{{font-family:system-ui,sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;margin:8px 0 20px}}
th,td{{border:1px solid #ddd;padding:4px 8px;text-align:left;font-size:13px}}h2{{margin-top:28px}}</style></head><body>
<h1>{html.escape(project_name)}: {html.escape(report["label"])}</h1>
<p>Time column <b>{html.escape(str(report["time_column"]))}</b>, {report["rows"]} rows; training part {report["parts"]["train"]} rows,
evaluated (test) part {report["parts"]["test"]} rows{", label " + html.escape(report["label_column"]) if report.get("label_column") else ""}.</p>
{"".join("<p>" + html.escape(n) + "</p>" for n in report.get("notes") or [])}
<h2>Metrics (evaluated part)</h2><table>{"".join(f"<tr><th>{k}</th><td>{_fmt(v)}</td></tr>" for k, v in rows)}</table>
<h2>Anomaly score</h2>{_score_svg(report["overview"]["score"], report["threshold"])}
<h2>Detector</h2><table>{det}</table>
<h2>Alarms</h2><table><tr><th>Start</th><th>End</th><th>Peak score</th><th>Part</th><th>Top contributions</th></tr>{alarms}</table>
</body></html>"""
    path.write_text(doc, encoding="utf-8")
