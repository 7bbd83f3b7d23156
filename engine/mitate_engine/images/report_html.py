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


LANGS = ("en", "ja")


def say(code: str, lang: str, **params) -> str:
    entry = messages()[f"image_report_{code}"]
    return entry[lang].format(**params)


def write(report: dict, name: str, mdir: Path) -> None:
    """report.en.html and report.ja.html (the server sends the reader's language), and report.html in English for
    runs read by older servers."""
    for lang in LANGS:
        page = render(report, name, mdir, lang)
        (mdir / f"report.{lang}.html").write_text(page, encoding="utf-8")
        if lang == "en":
            (mdir / "report.html").write_text(page, encoding="utf-8")


def render(report: dict, name: str, mdir: Path, lang: str) -> str:
    m = report.get("metrics") or {}
    rows = "".join(
        f"<tr><th>{html.escape(say(f'metric_{k}', lang))}</th><td>{'—' if m.get(k) is None else f'{m[k]:.4f}'}</td></tr>"
        for k in ("accuracy", "precision", "recall", "f1", "roc_auc", "miss_rate", "over_detection_rate")
        if k in m
    )
    cm = m.get("confusion_matrix") or {"labels": [], "matrix": []}
    cm_html = (
        f"<table><tr><th>{html.escape(say('actual_predicted', lang))}</th>"
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
    ep_head = "".join(f"<th>{html.escape(say(k, lang))}</th>" for k in ("epoch", "loss", "accuracy", "val_loss", "val_accuracy", "learning_rate"))
    wrong = [g for g in report.get("gallery", []) if g["predicted"] != g["label"]][:24]
    gal = "".join(
        f"<figure>{_img(mdir / g['heatmap']) if g.get('heatmap') else ''}<figcaption>{html.escape(g['label'])} → {html.escape(g['predicted'])} ({g['score']:.3f})</figcaption></figure>"
        for g in wrong
    )
    t = report.get("threshold")
    thr = f"<p>{html.escape(say('threshold', lang, value=format(t, '.6g'), rule=rule_text(report, lang)))}</p>" if t is not None else ""
    algorithm = messages().get(f"image_report_algorithm_{report['algorithm']}", {}).get(lang, report["algorithm"])
    kind = messages().get(f"image_report_kind_{report['kind']}", {}).get(lang, report["kind"])
    summary = say("summary", lang, algorithm=algorithm, kind=kind, size=report["image_size"], classes=", ".join(report["classes"]))
    epochs_html = f"<h2>{html.escape(say('epochs', lang))}</h2><table><tr>{ep_head}</tr>{ep}</table>" if ep else ""
    return f"""<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(name)}</title>
<style>body{{font-family:"Noto Sans JP",sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:4px 8px}}figure{{display:inline-block;margin:4px}}</style></head><body>
<h1>{html.escape(name)}</h1><p>{html.escape(summary)}</p>
{thr}<h2>{html.escape(say("test_metrics", lang))}</h2><table>{rows}</table><h2>{html.escape(say("confusion", lang))}</h2>{cm_html}
{epochs_html}
<h2>{html.escape(say("misjudged", lang, count=len(wrong)))}</h2>{gal or f"<p>{html.escape(say('none', lang))}</p>"}</body></html>"""
