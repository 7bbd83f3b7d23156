"""Exploration sketches of a dataset, written beside its Parquet file by the statistics job (issue 17).

The statistics job already reads every column once and sorts each numeric one; the sketch keeps what the
exploration pages need from that same pass, so their first question about a column does not scan the table:

- ``c<k>.sorted.f64``: the column's non-missing values, sorted (float64, little-endian). Exact, not a summary:
  histogram counts for any bin count are binary searches, quartiles and whiskers are index reads.
- ``c<k>.values.f64``: the column in row order as float64, NaN where missing (binned scatter counts every row).
- ``manifest.json``: the Pearson covariance sums of the complete numeric columns (all rows, centred on the
  column means) and the Spearman matrix of the same columns on all rows (Pearson of average ranks, as pandas),
  plus a build id the server's caches key on.
- ``grid.u32``: the 100 × 100 density grid (binned scatter counts) of every pair of the first complete numeric
  columns, on the same cells as the server's binned scatter (floor((x - min) / width), the last cell closed):
  a binned scatter of such a pair is a read of 40 kB, not a pass over 10 M rows.
- ``sample.parquet``: a sample of whole rows stratified over row ranges (seeded): the rows are cut into equal
  ranges and each range gives its share, so every row has the same chance and no stretch of the data (a period of
  a series, a batch) is missed. Stored round by round (one row of each range per round, ranges in random order),
  so any prefix of it is such a sample too; sampled scatter plots read its first rows.

Everything is written into a temporary folder that replaces the previous sketch in one rename.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

SAMPLE_ROWS = 200_000
SAMPLE_STRATA = 1000  # row ranges of the scatter sample
GRID_BINS = 100  # cells per axis of the stored density grids (the page's binned scatter)
GRID_COLUMNS = 16  # complete numeric columns whose pairs get a grid (120 pairs, 4.8 MB)
MAX_COLUMNS = 60  # numeric columns kept (files are 16 bytes a row each)
MAX_BYTES = int(os.environ.get("MITATE_SKETCH_MAX_MB") or 2048) * 2**20  # disk budget of the column files
CHUNK = 1 << 20  # rows per block when summing products


class SketchWriter:
    def __init__(self, target: str | os.PathLike, row_count: int):
        self.target = Path(target)
        self.tmp = self.target.with_name(f"{self.target.name}.tmp-{uuid.uuid4().hex[:8]}")
        self.tmp.mkdir(parents=True)
        self.row_count = row_count
        self.columns: list[dict] = []

    def add_numeric(self, name: str, data: pa.ChunkedArray, sorted_valid: np.ndarray) -> None:
        """Keeps a numeric column: its sorted non-missing values (as the statistics job sorted them) and its values."""
        if len(self.columns) >= MAX_COLUMNS or (len(self.columns) + 1) * self.row_count * 16 > MAX_BYTES:
            return  # the exploration pages scan the Parquet file for the columns left out
        k = len(self.columns)
        np.ascontiguousarray(sorted_valid, dtype="<f8").tofile(self.tmp / f"c{k}.sorted.f64")
        values = pc.cast(data, pa.float64(), safe=False).to_numpy(zero_copy_only=False).astype("<f8", copy=False)
        values.tofile(self.tmp / f"c{k}.values.f64")
        n = int(sorted_valid.size)
        complete = n == self.row_count and n > 0 and bool(np.isfinite(sorted_valid[0]) and np.isfinite(sorted_valid[-1]))
        entry = {"name": name, "file": f"c{k}", "count": n, "complete": complete}
        if complete:
            entry["mean"] = float(values.mean())
            average_ranks(values, sorted_valid).tofile(self.tmp / f"c{k}.rank.f64")
        self.columns.append(entry)

    def _products(self, suffix: str, cols: list[dict], centre: list[float]) -> np.ndarray:
        """Sums of products of the centred columns over all rows, block by block (memory: CHUNK × columns)."""
        maps = [np.memmap(self.tmp / f"{c['file']}.{suffix}.f64", dtype="<f8", mode="r") for c in cols]
        k = len(cols)
        sums = np.zeros((k, k))
        first = np.zeros(k)
        for start in range(0, self.row_count, CHUNK):
            block = np.empty((min(CHUNK, self.row_count - start), k))
            for j, m in enumerate(maps):
                block[:, j] = m[start : start + CHUNK] - centre[j]
            sums += block.T @ block
            first += block.sum(axis=0)
        del maps
        # Centred on the exact mean the first sums vanish; their residue is taken out as a one-pass formula would.
        return sums - np.outer(first, first) / self.row_count

    def _grids(self, cols: list[dict]) -> dict | None:
        """Counts of the GRID_BINS² cells of each pair (i < j) of `cols`, pair after pair, as little-endian uint32.

        The cell of a value is the server's (sketch.ts binIndexOf): min(floor((x - lo) / w), bins - 1) with
        w = (hi - lo) / bins, the same float64 operations, so the counts are the ones a pass over the rows gives.
        """
        if len(cols) < 2 or self.row_count == 0:
            return None
        b = GRID_BINS
        bounds = []
        for c in cols:
            s = np.memmap(self.tmp / f"{c['file']}.sorted.f64", dtype="<f8", mode="r")
            lo, hi = float(s[0]), float(s[-1])
            del s
            bounds.append((lo, hi, (hi - lo) / b if hi > lo else 1.0))
        maps = [np.memmap(self.tmp / f"{c['file']}.values.f64", dtype="<f8", mode="r") for c in cols]
        pairs = [(i, j) for i in range(len(cols)) for j in range(i + 1, len(cols))]
        grids = np.zeros((len(pairs), b * b), dtype=np.int64)
        for start in range(0, self.row_count, CHUNK):
            codes = []
            for m, (lo, _, w) in zip(maps, bounds):
                code = np.floor((m[start : start + CHUNK] - lo) / w)
                codes.append(np.minimum(code, b - 1).astype(np.int32))
            for k, (i, j) in enumerate(pairs):
                grids[k] += np.bincount(codes[i] * b + codes[j], minlength=b * b)
        del maps
        grids.astype("<u4").tofile(self.tmp / "grid.u32")
        return {"bins": b, "file": "grid.u32", "columns": [{"name": c["name"], "lo": lo, "hi": hi} for c, (lo, hi, _) in zip(cols, bounds)]}

    def finish(self, parquet: pq.ParquetFile) -> dict:
        complete = [c for c in self.columns if c["complete"]]
        manifest: dict = {
            "version": 1,
            "build_id": uuid.uuid4().hex,
            "row_count": self.row_count,
            "columns": self.columns,
            "pearson": None,
            "spearman": None,
        }
        if len(complete) >= 2:
            cov = self._products("values", complete, [c["mean"] for c in complete])
            manifest["pearson"] = {"names": [c["name"] for c in complete], "cov": cov.tolist()}
            mid = (self.row_count + 1) / 2.0  # the mean of 1..n, which average ranks keep
            rc = self._products("rank", complete, [mid] * len(complete))
            d = np.sqrt(np.diag(rc))
            with np.errstate(all="ignore"):
                rho = rc / np.outer(d, d)
            rho = np.where(np.isfinite(rho), np.clip(rho, -1.0, 1.0), np.nan)
            np.fill_diagonal(rho, 1.0)
            manifest["spearman"] = {"names": [c["name"] for c in complete], "matrix": [[None if np.isnan(v) else float(v) for v in r] for r in rho]}
        for c in complete:
            (self.tmp / f"{c['file']}.rank.f64").unlink(missing_ok=True)
        manifest["grid"] = self._grids(complete[:GRID_COLUMNS])
        manifest["sample_rows"] = write_sample(parquet, self.tmp / "sample.parquet", self.row_count)
        manifest["sample_strata"] = min(SAMPLE_STRATA, manifest["sample_rows"])
        with open(self.tmp / "manifest.json", "w", encoding="utf-8") as f:
            json.dump(manifest, f, allow_nan=False, separators=(",", ":"))
        old = self.target.with_name(f"{self.target.name}.old-{uuid.uuid4().hex[:8]}")
        if self.target.exists():
            os.replace(self.target, old)
        os.replace(self.tmp, self.target)
        shutil.rmtree(old, ignore_errors=True)
        return {"columns": len(self.columns), "pearson_columns": len(complete), "sample_rows": manifest["sample_rows"]}

    def abandon(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def average_ranks(values: np.ndarray, sorted_values: np.ndarray) -> np.ndarray:
    """1-based average ranks of `values` (ties share the mean of their positions, as pandas' rank()).

    `sorted_values` is `values` sorted. One argsort and a scatter: two binary searches per row (the former way)
    cost ~10× more on 10 M rows, their probes missing the cache at every step.
    """
    n = values.size
    order = np.argsort(values, kind="stable")
    first = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])  # where each run of ties starts
    ends = np.r_[first[1:], n]
    ranks = np.empty(n, dtype="<f8")
    ranks[order] = np.repeat((first + ends + 1) / 2.0, ends - first)
    return ranks


def stratified_rows(row_count: int, k: int, strata: int, rng: np.random.Generator) -> np.ndarray:
    """`k` distinct row numbers stratified over `strata` equal row ranges, in the order a prefix keeps stratified.

    Range s (rows n·s/S to n·(s+1)/S) gives k·(s+1)/S − k·s/S rows (its share, rounded), drawn without
    replacement, so every row has the same chance k/n up to that rounding. Round r lists the r-th row drawn
    in each range, the ranges in a random order of their own: the first m·S rows hold m rows of every range.
    """
    strata = max(1, min(strata, k))
    bounds = (np.arange(strata + 1, dtype=np.int64) * row_count) // strata
    shares = np.diff((np.arange(strata + 1, dtype=np.int64) * k) // strata)
    rows, rounds = [], []
    for s in range(strata):
        size, share = int(bounds[s + 1] - bounds[s]), int(shares[s])
        rows.append(bounds[s] + rng.choice(size, size=share, replace=False))
        rounds.append(np.arange(share))
    picked = np.concatenate(rows)
    rnd = np.concatenate(rounds)
    keys = rng.random(strata)[np.repeat(np.arange(strata), shares)]  # the order of the ranges within a round
    return picked[np.lexsort((keys, rnd))]


def write_sample(parquet: pq.ParquetFile, out: Path, row_count: int) -> int:
    """A seeded sample of whole rows stratified over row ranges (stratified_rows), read one row group at a time."""
    k = min(SAMPLE_ROWS, row_count)
    rng = np.random.default_rng(42)
    picked = stratified_rows(row_count, k, SAMPLE_STRATA, rng) if k else np.zeros(0, dtype=np.int64)
    order = np.argsort(picked, kind="stable")
    ascending = picked[order]
    parts = []
    start = 0
    for g in range(parquet.metadata.num_row_groups):
        n = parquet.metadata.row_group(g).num_rows
        lo, hi = np.searchsorted(ascending, [start, start + n])
        if hi > lo:
            parts.append(parquet.read_row_group(g).take(pa.array(ascending[lo:hi] - start)))
        start += n
    table = pa.concat_tables(parts) if parts else parquet.schema_arrow.empty_table()
    # Back to the random order of `picked`: row r of `table` is picked[order[r]].
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    table = table.take(pa.array(inverse)) if table.num_rows else table
    # Small row groups: a scatter reading the first 50,000 rows of three columns decodes only those.
    pq.write_table(table, out, compression="snappy", row_group_size=16_384)
    return int(table.num_rows)
