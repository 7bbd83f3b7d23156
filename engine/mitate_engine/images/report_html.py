"""A model's report as one self-contained HTML file: metrics, threshold, confusion matrix, curve and misjudged images."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from ..task import messages


def _img(path: Path) -> str:
    return f'<img src="data:image/png;base64,{base64.b64encode(path.read_bytes()).decode()}" width="160">' if path.exists() else ""


def rule_text(report: dict, lang: str = "en") -> str:
    """The threshold's rule in words from the catalogue (the report stores a code and its parameters)."""
    rule = report.get("threshold_rule") or ""
    entry = messages().get(f"image_threshold_rule_{rule}")
    if not entry:
        return rule
    params = report.get("threshold_rule_params") or {}
    return entry[lang].format(**{k: f"{v:g}" if isinstance(v, float) else v for k, v in params.items()})


def write(report: dict, name: str, mdir: Path) -> None:
    m = report.get("metrics") or {}
    rows = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{'—' if m.get(k) is None else f'{m[k]:.4f}'}</td></tr>"
        for k in ("accuracy", "precision", "recall", "f1", "roc_auc", "miss_rate", "over_detection_rate")
        if k in m
    )
    cm = m.get("confusion_matrix") or {"labels": [], "matrix": []}
    cm_html = (
        "<table><tr><th>actual \\ predicted</th>"
        + "".join(f"<th>{html.escape(str(l))}</th>" for l in cm["labels"])
        + "</tr>"
        + "".join(f"<tr><th>{html.escape(str(l))}</th>" + "".join(f"<td>{v}</td>" for v in r) + "</tr>" for l, r in zip(cm["labels"], cm["matrix"]))
        + "</table>"
    )
    epochs = report.get("training", {}).get("epochs") or []

    def num(v, fmt):
        return "" if v is None else format(v, fmt)

    ep = "".join(
        f"<tr><td>{e['epoch']}</td><td>{num(e['train_loss'], '.4f')}</td><td>{num(e['train_accuracy'], '.3f')}</td>"
        f"<td>{num(e['val_loss'], '.4f')}</td><td>{num(e['val_accuracy'], '.3f')}</td><td>{num(e['learning_rate'], '.2e')}</td></tr>"
        for e in epochs
    )
    wrong = [g for g in report.get("gallery", []) if g["predicted"] != g["label"]][:24]
    gal = "".join(
        f"<figure>{_img(mdir / g['heatmap']) if g.get('heatmap') else ''}<figcaption>{html.escape(g['label'])} → {html.escape(g['predicted'])} ({g['score']:.3f})</figcaption></figure>"
        for g in wrong
    )
    thr = f"<p>Threshold {report['threshold']:.6g} ({html.escape(rule_text(report))})</p>" if report.get("threshold") is not None else ""
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(name)}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px}}figure{{display:inline-block;margin:4px}}</style></head><body>
<h1>{html.escape(name)}</h1><p>{html.escape(report["algorithm"])} · {html.escape(report["kind"])} · image size {report["image_size"]} · classes {html.escape(", ".join(report["classes"]))}</p>
{thr}<h2>Test metrics</h2><table>{rows}</table><h2>Confusion matrix</h2>{cm_html}
{"<h2>Epochs</h2><table><tr><th>epoch</th><th>loss</th><th>accuracy</th><th>val loss</th><th>val accuracy</th><th>learning rate</th></tr>" + ep + "</table>" if ep else ""}
<h2>Misjudged test images ({len(wrong)})</h2>{gal or "<p>None.</p>"}</body></html>"""
    (mdir / "report.html").write_text(doc, encoding="utf-8")
