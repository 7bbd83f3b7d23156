"""The peer of bench/tsad-serving.bench.mjs: the same hosted detector (model.joblib) scoring the same rows in a loop in
Python directly, as a client script would without an API: for each new row, TsadModel.predict on the last `keep`
rows (the rows its score needs) and the last row's answer; and the whole block in one call.

Usage: python tsad_serving_peer.py <model dir> <rows.json> <keep>   (prints one JSON line)
"""

from __future__ import annotations

import json
import sys
import time

import joblib
import numpy as np
import pandas as pd


def main() -> None:
    folder, rows_path, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
    model = joblib.load(f"{folder}/model.joblib")
    rows = json.load(open(rows_path))
    df = pd.DataFrame.from_records(rows)
    df[model.time_column] = pd.to_datetime(df[model.time_column])
    lat = []
    scores = []
    t0 = time.perf_counter()
    for i in range(len(df)):
        a = time.perf_counter()
        out = model.predict(df.iloc[max(0, i + 1 - keep) : i + 1])
        scores.append(out["anomaly_score"].iloc[-1])
        lat.append((time.perf_counter() - a) * 1000)
    loop_s = time.perf_counter() - t0
    a = time.perf_counter()
    whole = model.predict(df)
    block_s = time.perf_counter() - a
    print(
        json.dumps(
            {
                "rows": len(df),
                "keep": keep,
                "loop_rows_per_s": len(df) / loop_s,
                "loop_p50_ms": float(np.percentile(lat, 50)),
                "loop_p99_ms": float(np.percentile(lat, 99)),
                "block_rows_per_s": len(df) / block_s,
                "scored": int(whole["anomaly_score"].notna().sum()),
            }
        )
    )


if __name__ == "__main__":
    main()
