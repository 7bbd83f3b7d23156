"""Which signals drift slowly within the normal (training) period: the one rule behind the wizard's suggestion of
"slowly drifting signals" (a drifting signal then enters the model only as x[t] - x[t-L], timeseries/features.py).

Per signal, over the period's n rows (values in time order, empty values left out):
- short-term variation s: the standard deviation of the first differences / sqrt(2) (the noise of one row; a slow
  drift hardly changes it);
- slow trend: the mean over a long centred window of W = max(5, n // 10) rows; its move is (max - min) of that trend
  in units of s. White noise moves it by about 4 / sqrt(W) (under 1 for W >= 20), a fast periodic signal by less;
- not a step: the largest change between the means of two consecutive blocks of 5 rows is at most STEP_SHARE of
  the move (a level that jumps once is a step, not a drift: the change over L rows would hide it for L rows only);
- not stationary around a level: the trend crosses its median (with a margin of a quarter of its move) at most
  MAX_CROSSINGS times (a slow oscillation that keeps coming back is learnt by its level as any other signal).
A signal drifts when its move is at least MIN_MOVE and both checks pass (the crossings are checked first).
The thresholds were chosen by looking at the figures on the shared SKAB files (first 400 rows: the fast signals move
by under 3 sd unless they step once, the thermal signals of the valve files by 10-41 sd) and on TEP's d00 (its
stripper signals move by 20-41 sd but cross their middle 3-5 times); see bench/tsad_drift_suggest.py and
bench/results/tsad_drift_suggest.json.

The suggested L: the rows over which the fastest drifting signal's trend moves by two short-term variations (from its
mean absolute change over W rows, per row), so the drift adds at most about 2 s to x[t] - x[t-L] (whose noise alone
is sqrt(2) s); between 2 and n // 4.

On a long period the figures are those of a sample (`sample_positions`): at most SAMPLE_BLOCKS evenly spaced blocks
of consecutive rows, SAMPLE_ROWS rows in all, in time order, so a drift across the period is still seen, and the
short-term figures are those of neighbouring rows: the first differences and the changes between 5-row means are
taken within a block only (across a gap a random walk moves by many short-term sds). The trend's window and the
rows per short-term sd are counted in sample rows; rows per sd (and so L) is scaled back to the period's rows by
its rows per sample row.

What goes with it by default (`DEFAULTS`, returned as `defaults` for the unsupervised normal period when a signal
drifts; the wizard fills these in unless the person changes them): the other signals also through a trailing 5-row
window, and every detector's alarm rule 3 of the last 5 rows. A change over L rows is noisier than a level (sqrt(2)
times one row's noise) and a rig whose levels wander does not come back to the normal period's state after an
upset, so single rows over the line are the false alarms there; a short window and a short persistence rule take
them out and cost a few rows of delay. Measured on SKAB (bench/results/tsad_defaults.json), PCA-MSPC, pooled over its
34 files on its leaderboard's basis (first 400 rows train, the rest scored): F1 0.755 -> 0.815, false alarms 37.6 % ->
24.8 % (most of those left are on the normal rows after each upset, where the rig stays away from its first state);
the 29 files not among the 5 the rule was designed on: 0.770 -> 0.822, 36.3 % -> 26.4 %. Where nothing drifts (TEP's
normal run) nothing is added: a 3-of-5 rule there raised new-normal-run false alarms from 4.2 % to 7.0 %.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..task import EngineError

MIN_ROWS = 30  # shorter periods cannot tell a slow trend from noise
MIN_MOVE = 8.0  # trend move in short-term standard deviations
STEP_SHARE = 0.5  # at most this share of the move between two consecutive 5-row means
STEP_ROWS = 5
MAX_CROSSINGS = 2  # median crossings of the trend (with margin) in the period
SAMPLE_ROWS = 200_000  # longer periods are looked at through a sample of this many rows (see above)
SAMPLE_BLOCKS = 200  # ... in this many evenly spaced blocks of consecutive rows
# what the unsupervised default adds when a signal drifts (see above): windows of the other signals, alarm rule
DEFAULTS = {"windows": [5], "alarm_k": 3, "alarm_n": 5}


def _round(v: float, digits: int = 2) -> float | None:
    return None if v is None or not math.isfinite(v) else round(float(v), digits)


def signal_figures(x: np.ndarray, scale: float = 1.0, block: int | None = None, decision_only: bool = False) -> dict:
    """The figures of one signal over the period (see the module's text); `drifts` is the decision. For a sample:
    `scale`, the period's rows per row of `x`, by which rows_per_sd is counted in the period's rows; `block`, the
    rows of each of its blocks of consecutive rows (differences are taken within a block only). `decision_only`: a
    signal whose whole range is well under MIN_MOVE short-term sds is answered `small` at once, without its trend
    (a mean of its values moves by less than their range), its other figures left out."""
    x = np.asarray(x, dtype=float)
    ok = np.isfinite(x)
    whole = ok.all()  # no value left out: x as it is (a long period's column is not copied)
    # a whole period (no blocks) is one block: nothing is left out of the differences and jumps
    ids = (np.arange(len(x)) // block)[ok] if block else None
    x = x if whole else x[ok]
    n = len(x)
    base = {"rows": n, "short_sd": None, "window": None, "move": None, "step_share": None, "crossings": None, "rows_per_sd": None, "drifts": False}
    if n < MIN_ROWS:
        return {**base, "reason": "tsad_drift_reason_short"}
    d = np.diff(x) if ids is None else np.diff(x)[ids[1:] == ids[:-1]]
    s = float(np.std(d) / math.sqrt(2))
    span = float(np.ptp(x))
    if not s > 0 or span == 0:
        return {**base, "short_sd": _round(s, 6), "reason": "tsad_drift_reason_constant"}
    if decision_only and span < 0.5 * MIN_MOVE * s:  # half: clear of any rounding of the trend
        return {**base, "short_sd": _round(s, 6), "reason": "tsad_drift_reason_small"}
    w = max(5, n // 10)
    trend = pd.Series(x, copy=False).rolling(w, center=True, min_periods=w).mean().dropna().to_numpy()
    rng = float(trend.max() - trend.min())
    move = rng / s
    changes = np.abs(trend[w:] - trend[:-w]) if len(trend) > w else np.array([rng])
    # the largest jump: consecutive means of STEP_ROWS rows (at every row), against the trend's move
    short = pd.Series(x, copy=False).rolling(STEP_ROWS, min_periods=STEP_ROWS).mean().to_numpy()
    jumps = np.abs(short[2 * STEP_ROWS - 1 :] - short[STEP_ROWS - 1 : -STEP_ROWS])
    if ids is not None:
        jumps = jumps[ids[2 * STEP_ROWS - 1 :] == ids[: len(ids) - 2 * STEP_ROWS + 1]]  # the 10 rows in one block
    step = float(np.nanmax(jumps) / rng) if rng > 0 and len(jumps) else 0.0
    # crossings of the median with a margin: the trend must go from below (median - h) to above (median + h) or back
    med, h = float(np.median(trend)), 0.25 * rng
    sides = (trend > med + h).view(np.int8) - (trend < med - h).view(np.int8)  # 1 above, -1 below, 0 between
    sides = sides[sides != 0]
    crossings = int(np.count_nonzero(np.diff(sides))) if len(sides) > 1 else 0
    # rows over which the trend moves by one short-term sd (mean absolute change over W rows, per row)
    slope = float(np.mean(changes) / w) if len(changes) else 0.0
    per_sd = s / slope * scale if slope > 0 else math.inf
    f = {
        **base,
        "short_sd": _round(s, 6),
        "window": w,
        "move": _round(move),
        "step_share": _round(step),
        "crossings": crossings,
        "rows_per_sd": _round(per_sd, 1),
    }
    if move < MIN_MOVE:
        return {**f, "reason": "tsad_drift_reason_small"}
    # a level it keeps coming back to first: an autocorrelated fluctuation also has large jumps between 5-row means
    if crossings > MAX_CROSSINGS:
        return {**f, "reason": "tsad_drift_reason_returns"}
    if step > STEP_SHARE:
        return {**f, "reason": "tsad_drift_reason_step"}
    return {**f, "drifts": True, "reason": "tsad_drift_reason_drifts"}


def sample_positions(n: int, rows: int = SAMPLE_ROWS, blocks: int = SAMPLE_BLOCKS) -> np.ndarray:
    """Positions (ascending) of the rows a period of n rows is looked at through: all of them up to `rows`, else
    `blocks` evenly spaced blocks of sample_block(n) consecutive rows, the first block at the start, the last at the end."""
    size = sample_block(n, rows, blocks)
    if size is None:
        return np.arange(n)
    starts = np.floor(np.linspace(0, n - size, blocks) + 0.5).astype(np.int64)
    return (starts[:, None] + np.arange(size)).ravel()


def sample_block(n: int, rows: int = SAMPLE_ROWS, blocks: int = SAMPLE_BLOCKS) -> int | None:
    """The rows of each block of the sample of a period of n rows; None when the period is looked at whole."""
    return None if n <= rows else rows // blocks


def suggest_drift(
    frame: pd.DataFrame, signals: list[str], period: str = "normal", period_rows: int | None = None, block: int | None = None, decision_only: bool = False
) -> dict:
    """The suggestion for `signals` (columns of `frame`, the period's rows in time order; `period` normal: the
    unsupervised normal period, train: the supervised training part): per signal its figures, whether it drifts and
    why (a catalogue code with parameters, the period itself a nested code), the drifting ones, L (None if none) and
    `defaults`: what the unsupervised default adds with them (DEFAULTS; None when nothing drifts or for the supervised
    training part, where it was not measured). `frame` may be a sample (`sample_positions`) of a period of
    `period_rows` rows in blocks of `block` consecutive rows: `rows` is then the period's, `sample_rows` the sample's,
    and rows_per_sd and L are in the period's rows. `decision_only`: the drifting signals and L only (the figures of
    the signals that cannot drift may be left out, see signal_figures)."""
    sample = len(frame)
    rows = sample if period_rows is None else int(period_rows)
    if rows < MIN_ROWS:
        raise EngineError("tsad_drift_period_too_short", rows=rows, needed=MIN_ROWS, period=_period(period))
    items = []
    for c in signals:
        f = signal_figures(pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float), rows / sample, block, decision_only)
        code = f.pop("reason")
        params = {
            "move": _fmt(f["move"]),
            "rows": f["rows"],
            "window": f["window"],
            "crossings": f["crossings"],
            "share": _fmt(min(1.0, f["step_share"] or 0) * 100, 0),
            "minimum": _fmt(MIN_MOVE, 0),
            "needed": MIN_ROWS,
            "period": _period(period),
        }
        items.append({"signal": c, **f, "reason": {"code": code, "params": {k: v for k, v in params.items() if v is not None}}})
    drifting = [i for i in items if i["drifts"]]
    L = None
    if drifting:
        fastest = min(float(i["rows_per_sd"]) for i in drifting)
        L = int(min(max(2, round(2 * fastest)), max(2, rows // 4)))
    defaults = dict(DEFAULTS, windows=list(DEFAULTS["windows"])) if drifting and period == "normal" else None
    return {"rows": rows, "sample_rows": sample, "signals": items, "drift_signals": [i["signal"] for i in drifting], "drift_rows": L, "defaults": defaults}


def default_options(suggestion: dict) -> tuple[dict, dict]:
    """The unsupervised default from a suggestion, as the wizard fills it in: (training options: drift signals, L,
    windows; detector parameters: the alarm rule), both empty when nothing drifts."""
    d = suggestion.get("defaults")
    if not d or not suggestion.get("drift_signals"):
        return {}, {}
    opts = {"drift_signals": list(suggestion["drift_signals"]), "drift_rows": suggestion["drift_rows"], "windows": list(d["windows"])}
    return opts, {"alarm_k": d["alarm_k"], "alarm_n": d["alarm_n"]}


def _period(period: str) -> dict:
    return {"code": "tsad_drift_period_train" if period == "train" else "tsad_drift_period_normal", "params": {}}


def _fmt(v: float | None, digits: int = 1) -> str | None:
    if v is None or not math.isfinite(v):
        return None
    return f"{v:.{digits}f}"
