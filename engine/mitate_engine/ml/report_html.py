"""A model's report as one self-contained HTML file: tables and inline SVG charts, no script, no network."""

from __future__ import annotations

import html
import math
from pathlib import Path

W, H, PAD = 520, 320, 46
PALETTE = ["#1976d2", "#e65100", "#2e7d32", "#6a1b9a", "#c62828", "#00838f", "#f9a825", "#4e342e", "#37474f", "#ad1457"]


def _fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if not math.isfinite(v):
            return "–"
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.4e}"
    return html.escape(str(v))


def _scale(vals, lo_px, hi_px):
    finite = [v for v in vals if v is not None and math.isfinite(v)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if hi == lo:
        lo, hi = lo - 1, hi + 1
    return lambda v: lo_px + (v - lo) / (hi - lo) * (hi_px - lo_px), lo, hi


def _frame(title: str, body: str, xlabel: str, ylabel: str, xr, yr) -> str:
    axes = (
        f'<line x1="{PAD}" y1="{H - PAD}" x2="{W - 10}" y2="{H - PAD}" stroke="#888"/>'
        f'<line x1="{PAD}" y1="10" x2="{PAD}" y2="{H - PAD}" stroke="#888"/>'
        f'<text x="{PAD}" y="{H - PAD + 14}" font-size="10">{_fmt(xr[0])}</text>'
        f'<text x="{W - 10}" y="{H - PAD + 14}" font-size="10" text-anchor="end">{_fmt(xr[1])}</text>'
        f'<text x="{PAD - 4}" y="{H - PAD}" font-size="10" text-anchor="end">{_fmt(yr[0])}</text>'
        f'<text x="{PAD - 4}" y="16" font-size="10" text-anchor="end">{_fmt(yr[1])}</text>'
        f'<text x="{(W + PAD) / 2}" y="{H - 8}" font-size="11" text-anchor="middle">{html.escape(xlabel)}</text>'
        f'<text x="12" y="{H / 2}" font-size="11" text-anchor="middle" transform="rotate(-90 12 {H / 2})">{html.escape(ylabel)}</text>'
    )
    return f'<figure><figcaption>{html.escape(title)}</figcaption><svg width="{W}" height="{H}" viewBox="0 0 {W} {H}">{axes}{body}</svg></figure>'


def scatter(title, xs, ys, xlabel, ylabel, groups=None, diagonal=False) -> str:
    sx, x0, x1 = _scale(xs, PAD, W - 10)
    sy, y0, y1 = _scale(ys, H - PAD, 10)
    body = []
    if diagonal:
        lo, hi = max(x0, y0), min(x1, y1)
        body.append(f'<line x1="{sx(lo):.1f}" y1="{sy(lo):.1f}" x2="{sx(hi):.1f}" y2="{sy(hi):.1f}" stroke="#999" stroke-dasharray="4"/>')
    keys = sorted(set(map(str, groups))) if groups is not None else []
    for i, (x, y) in enumerate(zip(xs, ys)):
        if x is None or y is None:
            continue
        c = PALETTE[keys.index(str(groups[i])) % len(PALETTE)] if groups is not None else PALETTE[0]
        body.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2" fill="{c}" fill-opacity="0.6"/>')
    legend = "".join(f'<span style="color:{PALETTE[i % len(PALETTE)]}">● {html.escape(k)}</span> ' for i, k in enumerate(keys[:20]))
    return _frame(title, "".join(body), xlabel, ylabel, (x0, x1), (y0, y1)) + (f"<p>{legend}</p>" if legend else "")


def lines(title, series: list[tuple[str, list, list]], xlabel, ylabel) -> str:
    allx = [x for _, xs, _ in series for x in xs]
    ally = [y for _, _, ys in series for y in ys if y is not None]
    sx, x0, x1 = _scale(allx, PAD, W - 10)
    sy, y0, y1 = _scale(ally, H - PAD, 10)
    body = []
    for i, (_, xs, ys) in enumerate(series):
        pts = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, ys) if y is not None)
        body.append(
            f'<polyline points="{pts}" fill="none" stroke="{PALETTE[i % len(PALETTE)] if len(series) <= len(PALETTE) else PALETTE[0]}" stroke-width="1.2"/>'
        )
    legend = "".join(f'<span style="color:{PALETTE[i % len(PALETTE)]}">— {html.escape(n)}</span> ' for i, (n, _, _) in enumerate(series) if n)
    return _frame(title, "".join(body), xlabel, ylabel, (x0, x1), (y0, y1)) + f"<p>{legend}</p>"


def bars(title, labels, values, xlabel="") -> str:
    n = max(1, len(labels))
    h = max(120, 18 * n + 30)
    vmax = max([abs(v) for v in values if v is not None] or [1]) or 1
    body = []
    for i, (lab, v) in enumerate(zip(labels, values)):
        v = v or 0.0
        w = abs(v) / vmax * (W - 220)
        body.append(
            f'<text x="150" y="{22 + i * 18}" font-size="11" text-anchor="end">{html.escape(str(lab))[:28]}</text>'
            f'<rect x="156" y="{12 + i * 18}" width="{w:.1f}" height="13" fill="{PALETTE[0] if v >= 0 else PALETTE[4]}"/>'
            f'<text x="{160 + w:.1f}" y="{22 + i * 18}" font-size="10">{_fmt(v)}</text>'
        )
    return f'<figure><figcaption>{html.escape(title)}</figcaption><svg width="{W}" height="{h}">{"".join(body)}</svg></figure>'


def heatmap(title, labels, matrix) -> str:
    n = len(labels)
    cell = max(18, min(60, 360 // max(1, n)))
    vmax = max([max(r) for r in matrix] or [1]) or 1
    body = []
    for i, row in enumerate(matrix):
        body.append(f'<text x="116" y="{40 + i * cell + cell / 2}" font-size="10" text-anchor="end">{html.escape(labels[i])[:16]}</text>')
        for j, v in enumerate(row):
            a = 0.1 + 0.9 * v / vmax
            body.append(
                f'<rect x="{120 + j * cell}" y="{30 + i * cell}" width="{cell - 1}" height="{cell - 1}" fill="#1976d2" fill-opacity="{a:.2f}"/>'
                f'<text x="{120 + j * cell + cell / 2}" y="{30 + i * cell + cell / 2 + 4}" font-size="10" text-anchor="middle">{v}</text>'
            )
    for j, lab in enumerate(labels):
        body.append(f'<text x="{120 + j * cell + cell / 2}" y="24" font-size="10" text-anchor="middle">{html.escape(lab)[:8]}</text>')
    size = 140 + n * cell
    return (
        f"<figure><figcaption>{html.escape(title)} (rows: actual, columns: predicted)</figcaption>"
        f'<svg width="{size}" height="{size}">{"".join(body)}</svg></figure>'
    )


def table(headers, rows) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render(rep: dict, spec: dict, label: str) -> str:
    ch = rep.get("charts") or {}
    parts = [
        f"<h1>{html.escape(spec.get('project_name') or '')} — {html.escape(label)}</h1>",
        f"<p>Type: {html.escape(spec.get('project_type', ''))}. Target: {html.escape(str(rep.get('target') or '–'))}. "
        f"Training rows: {rep.get('train_rows')}, test rows: {rep.get('test_rows')}. Training time: {_fmt(rep.get('seconds'))} s.</p>",
    ]
    metrics = {k: v for k, v in (rep.get("metrics") or {}).items() if not isinstance(v, (list, dict))}
    train = rep.get("train_metrics") or {}
    ev = rep.get("evaluation") or {}
    rcv = ev.get("repeated_cv")
    if ev.get("mode") == "cv_only":
        parts.append(
            "<p><strong>Cross-validation only:</strong> no test set was kept; every row trained the model. The metrics "
            "below come from out-of-fold predictions; the headline is repeated cross-validation.</p>"
        )
    elif ev.get("small_test"):
        parts.append(
            f"<p><strong>Small test set:</strong> only {ev.get('test_rows')} test rows (fewer than {ev.get('threshold')}); "
            "the test score is too noisy to judge the model by. The headline is "
            + ("forward validation." if ev.get("headline") == "forward_validation" else "repeated cross-validation.")
            + "</p>"
        )
    tu = rep.get("target_units") or {}
    if tu.get("scaled"):
        parts.append(
            f"<p>The preprocessing condition scaled the target {html.escape(str(tu.get('target')))} ({html.escape(str(tu.get('method')))}); "
            "every metric and chart here is in the target's original units (the scaling undone).</p>"
        )
    if rcv:
        parts.append(
            f"<h2>Repeated cross-validation ({html.escape(rcv['metric'])}, headline)</h2>"
            + table(
                ["mean", "std", "10th percentile", "90th percentile", "folds × repeats"],
                [[rcv["mean"], rcv["std"], rcv["low"], rcv["high"], f"{rcv['folds']} × {rcv['repeats']}"]],
            )
        )
    first = "out-of-fold" if ev.get("mode") == "cv_only" else "test"
    parts.append("<h2>Metrics</h2>" + table(["metric", first, "train"], [[k, v, train.get(k)] for k, v in metrics.items()]))
    cv = rep.get("cv")
    if cv and cv.get("folds"):
        parts.append(
            f"<h2>Cross-validation ({html.escape(cv['metric'])})</h2>"
            + table(
                ["fold", "score"],
                [[i + 1, v] for i, v in enumerate(cv["folds"])]
                + (
                    [["fold mean", cv.get("fold_mean")], ["pooled forward Q² (ranks the models)", cv.get("mean")]]
                    if cv.get("aggregate") == "pooled_forward"
                    else [["mean", cv.get("mean")]]
                )
                + [["std", cv.get("std")]],
            )
        )
    if "predicted_vs_actual" in ch:
        c = ch["predicted_vs_actual"]
        parts.append(scatter("Predicted vs actual (test)", c["actual"], c["predicted"], "actual", "predicted", diagonal=True))
        r = ch["residuals"]
        parts.append(scatter("Residuals (test)", r["predicted"], r["residual"], "predicted", "actual − predicted"))
    if "time_series" in ch:
        te = ch["time_series"]["test"]
        xs = list(range(len(te["actual"])))
        parts.append(
            lines(
                "Actual and predicted over time (test)",
                [("actual", xs, te["actual"]), ("predicted", xs, te["predicted"])],
                "time order",
                rep.get("target") or "",
            )
        )
    if "confusion_matrix" in ch:
        parts.append(heatmap("Confusion matrix (test)", ch["confusion_matrix"]["labels"], ch["confusion_matrix"]["matrix"]))
    if ch.get("roc"):
        parts.append(
            lines(
                "ROC curve (test)",
                [(f"{r['class']} (AUC {r['auc']:.3f})", r["fpr"], r["tpr"]) for r in ch["roc"][:10]],
                "false positive rate",
                "true positive rate",
            )
        )
    if "pca_scatter" in ch:
        c = ch["pca_scatter"]
        parts.append(scatter("Clusters on the first two principal components", c["x"], c["y"], "PC1", "PC2", groups=c["cluster"]))
    if "elbow" in ch:
        e = ch["elbow"]
        parts.append(lines("Elbow (inertia by k)", [("inertia", e["k"], e["inertia"])], "k", "inertia"))
        parts.append(lines("Silhouette by k", [("silhouette", e["k"], e["silhouette"])], "k", "silhouette"))
    if "dendrogram" in ch:
        d = ch["dendrogram"]
        segs = [("", xs, ys) for xs, ys in zip(d["icoord"], d["dcoord"])]
        parts.append(lines("Dendrogram (last 30 merges)", segs[:60], "", "distance").replace("<p>", "<p hidden>"))
    if "map" in ch:
        m = ch["map"]
        parts.append(scatter("Map", m["x"], m["y"], "1", "2", groups=m.get("color")))
    if "scree" in ch:
        s = ch["scree"]
        parts.append(bars("Explained variance ratio by component", [f"PC{i + 1}" for i in range(len(s["ratio"]))], s["ratio"]))
    if "biplot" in ch:
        b = ch["biplot"]
        parts.append(bars("Loadings on PC1", b["features"], b["x"]))
    pi = rep.get("permutation_importance") or []
    if pi:
        parts.append(bars("Permutation importance", [r["feature"] for r in pi[:25]], [r["mean"] for r in pi[:25]]))
    sh = rep.get("shap") or []
    if sh:
        parts.append(bars("SHAP: mean |value|", [r["feature"] for r in sh[:25]], [r["mean_abs"] for r in sh[:25]]))
    if ch.get("coefficients"):
        c = ch["coefficients"]
        parts.append(
            "<h2>Coefficients</h2>"
            + table(["feature", "coefficient", "std. error", "p-value"], [[r["feature"], r["coefficient"], r.get("std_error"), r.get("p_value")] for r in c])
        )
    parts.append(
        "<h2>Hyper-parameters</h2>"
        + table(["name", "value", "default"], [[k, v, (rep.get("defaults") or {}).get(k)] for k, v in (rep.get("hyperparameters") or {}).items()])
    )
    trials = (rep.get("auto_tune") or {}).get("trials") or []
    if trials:
        parts.append(
            f"<h2>Auto-tune trials ({html.escape(rep['auto_tune']['objective'])})</h2>"
            + table(["trial", "score", "parameters"], [[t["number"], t["value"], ", ".join(f"{k}={_fmt(v)}" for k, v in t["params"].items())] for t in trials])
        )
    style = (
        "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}figure{display:inline-block;margin:8px;vertical-align:top}"
        "figcaption{font-weight:600;margin-bottom:4px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;font-size:13px}"
        "th{background:#f5f5f5}"
    )
    return f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(label)} report</title><style>{style}</style></head><body>{"".join(parts)}</body></html>'


def write(path: Path, rep: dict, spec: dict, label: str) -> None:
    Path(path).write_text(render(rep, spec, label), encoding="utf-8")
