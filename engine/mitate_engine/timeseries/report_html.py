"""A model's report as one self-contained HTML file: metrics, the score with its threshold, alarms with
their contributions. Plain SVG, no scripts, so it opens anywhere. Every word in the reader's language (en or ja)
from the message catalogue; the detector and its parameters by their catalogue names."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

from .lang import LANGS, detector_name, param_labels, say

# figures the detector reports about itself (its info), beside the settings it was given
INFO_KEYS = (
    "components",
    "components_rule",
    "explained_variance",
    "t2_limit",
    "q_limit",
    "epochs_run",
    "validation_loss",
    "validation_f1",
    "far_cross_checked",
)


def _fmt(v, lang: str = "en", missing: str = "tsad_report_not_available") -> str:
    """A figure as text; one that could not be computed (None) says so in `lang` (`missing`: the catalogue code of
    what to say, the web app's wording), never a dash a reader could take for zero."""
    if v is None:
        return html.escape(say(missing, lang))
    if isinstance(v, float):
        return f"{v:.4g}"
    return html.escape(str(v))


def _score_svg(overview: list, threshold: float, lang: str, width: int = 900, height: int = 220) -> str:
    pts = [(p, hi) for p, _lo, hi in overview if hi is not None]
    if not pts:
        return ""
    n = max(p for p, _ in pts) or 1
    vmax = max(max(v for _, v in pts), threshold) * 1.05 or 1
    x = lambda p: 40 + (width - 50) * p / n  # noqa: E731
    y = lambda v: height - 20 - (height - 30) * v / vmax  # noqa: E731
    line = " ".join(f"{x(p):.1f},{y(v):.1f}" for p, v in pts)
    return (
        f'<svg width="{width}" height="{height}" role="img" aria-label="{html.escape(say("tsad_report_score", lang))}">'
        f'<polyline fill="none" stroke="#1565c0" stroke-width="1" points="{line}"/>'
        f'<line x1="40" x2="{width - 10}" y1="{y(threshold):.1f}" y2="{y(threshold):.1f}" stroke="#c62828" stroke-dasharray="4 3"/>'
        f'<text x="42" y="{y(threshold) - 4:.1f}" font-size="11" fill="#c62828">{html.escape(say("tsad_report_threshold_line", lang, value=f"{threshold:.4g}"))}</text></svg>'
    )


def render(report: dict, project_name: str, lang: str, notes: list[tuple[str, dict]] | None = None, trained_threshold: float | None = None) -> str:
    """The report in `lang`. `notes` are the coded notes ([(code, params)]) to say in that language; without them
    the report's own notes are shown as they are. `trained_threshold`: the report is at a threshold saved after
    training (the server recomputed its figures there), which the report says beside training's own."""
    t = lambda code, **p: html.escape(say(code, lang, **p))  # noqa: E731
    m = report["metrics"]
    pw = m.get("pointwise") or {}
    ev = m.get("event") or {}
    per_day = m.get("alarms_per_day") is not None
    # with labels but no anomalous row in the evaluated part, the figures about anomalies say why they are missing
    no_anomalies = bool(pw) and pw.get("tp", 0) + pw.get("fn", 0) == 0
    about_anomalies = {"tsad_report_recall", "tsad_report_f1", "tsad_report_mar", "tsad_report_events_detected", "tsad_report_event_f1"}
    why = lambda k: "tsad_report_no_anomalies" if no_anomalies and k in about_anomalies else "tsad_report_not_available"  # noqa: E731
    rows = [
        ("tsad_report_threshold", report["threshold"]),
        ("tsad_report_evaluated_rows", m["evaluated_rows"]),
        # false alarms first on rows no detector was fitted on; the in-sample rate after, named as such
        ("tsad_report_heldout_far", m.get("heldout_far")),
        ("tsad_report_alarms", m["alarms"]),
        ("tsad_report_alarms_per_day", m.get("alarms_per_day")) if per_day else ("tsad_report_alarms_per_1000_rows", m.get("alarms_per_1000_rows")),
        ("tsad_report_precision", pw.get("precision")),
        ("tsad_report_recall", pw.get("recall")),
        ("tsad_report_f1", pw.get("f1")),
        ("tsad_report_far", pw.get("far")),
        ("tsad_report_mar", pw.get("mar")),
        ("tsad_report_events_detected", f"{ev['events_detected']} / {ev['events']}" if ev else None),
        ("tsad_report_event_f1", ev.get("f1")),
        ("tsad_report_train_alarm_rate", m.get("train_alarm_rate")),
    ]
    algorithm = str(report.get("algorithm") or "")
    name = detector_name(algorithm, lang) if algorithm else str(report.get("label") or "")
    labels = param_labels(algorithm, lang)
    params = report.get("hyperparameters") or {}
    info = report.get("detector") or {}
    # the settings it was given, then what it found (a setting it only repeats is not listed twice)
    det_rows = [(labels.get(k, k), v) for k, v in params.items()]
    det_rows += [(say(f"tsad_info_{k}", lang) if k in INFO_KEYS else k, v) for k, v in info.items() if k in INFO_KEYS or k not in params]
    det = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{_fmt(v, lang)}</td></tr>" for k, v in det_rows)
    part = lambda p: t(f"tsad_part_{p}") if p in ("warmup", "train", "validation", "test") else html.escape(str(p))  # noqa: E731
    alarms = "".join(
        f"<tr><td>{_fmt(a['start_time'], lang)}</td><td>{_fmt(a['end_time'], lang)}</td><td>{_fmt(a['peak_score'], lang)}</td><td>{part(a['part'])}</td>"
        f"<td>{', '.join(html.escape(c['signal']) + ' ' + _fmt(c['value'], lang) for c in (a.get('contributions') or [])[:5]) or '–'}</td></tr>"
        for a in report["alarms"][:100]
    )
    said_notes = [say(code, lang, **p) for code, p in notes] if notes is not None else list(report.get("notes") or [])
    if trained_threshold is not None and trained_threshold != report["threshold"]:
        said_notes.insert(0, say("tsad_report_saved_threshold", lang, threshold=f"{report['threshold']:.4g}", trained=f"{trained_threshold:.4g}"))
    intro = t("tsad_report_intro", time=str(report["time_column"]), rows=report["rows"], train=report["parts"]["train"], test=report["parts"]["test"])
    if report.get("label_column"):
        intro += " " + t("tsad_report_label_column", column=str(report["label_column"]))
    fs = report.get("features_settings") or {}
    if fs.get("drift_signals"):
        intro += " " + t("tsad_report_drift", signals=", ".join(fs["drift_signals"]), rows=fs["drift_rows"], warm=fs["warmup_rows"])
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(project_name)} – {html.escape(name)}</title>
<style>body{{font-family:"Noto Sans JP",system-ui,sans-serif;margin:24px;color:#222}}table{{border-collapse:collapse;margin:8px 0 20px}}
th,td{{border:1px solid #ddd;padding:4px 8px;text-align:left;font-size:13px}}h2{{margin-top:28px}}</style></head><body>
<h1>{html.escape(project_name)}: {html.escape(name)}</h1>
<p>{intro}</p>
{"".join("<p>" + html.escape(n) + "</p>" for n in said_notes)}
<h2>{t("tsad_report_metrics")}</h2><table>{"".join(f"<tr><th>{t(k)}</th><td>{_fmt(v, lang, why(k))}</td></tr>" for k, v in rows)}</table>
<h2>{t("tsad_report_score")}</h2>{_score_svg(report["overview"]["score"], report["threshold"], lang)}
<h2>{t("tsad_report_detector")}</h2><table>{det}</table>
<h2>{t("tsad_report_alarms")}</h2><table><tr><th>{t("tsad_report_start")}</th><th>{t("tsad_report_end")}</th><th>{t("tsad_report_peak_score")}</th><th>{t("tsad_report_part")}</th><th>{t("tsad_report_top_contributions")}</th></tr>{alarms}</table>
</body></html>"""


def write(mdir: Path, report: dict, project_name: str, lang: str, notes: list[tuple[str, dict]] | None = None) -> None:
    """report.<lang>.html for every language (the download route gives the one of the person downloading) and
    report.html in the job's language `lang`; notes.json keeps the coded notes for a report rendered later."""
    if notes is not None:
        (mdir / "notes.json").write_text(json.dumps(notes), encoding="utf-8")
    for code in LANGS:
        doc = render(report, project_name, code, notes)
        (mdir / f"report.{code}.html").write_text(doc, encoding="utf-8")
        if code == lang:
            (mdir / "report.html").write_text(doc, encoding="utf-8")


def main() -> None:
    """`python -m mitate_engine.timeseries.report_html`: the report at the threshold in force when a person saved another
    one after training (server/src/features/timeseries/report-html.ts). Reads {report, project_name, lang, mdir,
    trained_threshold} (JSON) on stdin, the report's figures already at that threshold; writes the HTML on stdout."""
    req = json.load(sys.stdin)
    notes_file = Path(req["mdir"]) / "notes.json"
    notes = [(code, params) for code, params in json.loads(notes_file.read_text(encoding="utf-8"))] if notes_file.exists() else None
    sys.stdout.write(render(req["report"], str(req["project_name"]), req["lang"], notes, req.get("trained_threshold")))


if __name__ == "__main__":
    main()
