#!/usr/bin/env python3
"""Merge several runs of `clmax-bench --sweep` into one CSV of their medians.

A machine's drift moves a sweep's cells by more than most changes (docs/PERFORMANCE.md, "The
shape sweep"), so the map is drawn from several sweeps of one build: each row of the output is
the row, among the runs, whose ratio is the median of that row's ratios (the middle one of an odd
count, the lower middle of an even one), so that its op_s and limit_s are a pair measured
together. Rows are matched by (backend, op, type, outer, n, inner); a row missing from a run, or
whose ratio is empty or `nan` there, is left out of that row's median. The rows come out in the
first run's order. On stderr: the count of cells of each backend at or above 0.80, between 0.60
and 0.80 and under 0.60 (a cell: op, type, n, inner, at its lowest row over `outer`), and the
median of its rows.

Usage: python3 tools/bench/sweep_median.py RUN1.csv RUN2.csv [RUN3.csv ...] > MEDIAN.csv
"""
import csv
import math
import statistics
import sys


def key(row):
    return (row["backend"], row["op"], row["type"], row["outer"], row["n"], row["inner"])


def ratio(row):
    try:
        r = float(row["ratio"])
    except (TypeError, ValueError):
        return None
    return None if math.isnan(r) else r


def main(paths):
    if len(paths) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    runs, header, order = [], None, []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is None or "ratio" not in reader.fieldnames:
                sys.exit(f"{path}: not a clmax-bench --sweep CSV (no ratio column)")
            header = header or reader.fieldnames
            rows = {key(r): r for r in reader}
        order = order or list(rows)
        runs.append(rows)
    out = csv.DictWriter(sys.stdout, fieldnames=header, lineterminator="\n")
    out.writeheader()
    cells = {}
    for k in order:
        measured = sorted((r for r in (run.get(k) for run in runs) if r and ratio(r) is not None),
                          key=ratio)
        if not measured:
            continue
        row = measured[(len(measured) - 1) // 2]
        out.writerow(row)
        cell = (k[0], k[1], k[2], k[4], k[5])
        cells[cell] = min(cells.get(cell, math.inf), ratio(row))
    for backend in sorted({c[0] for c in cells}):
        values = [v for c, v in cells.items() if c[0] == backend]
        high = sum(v >= 0.80 for v in values)
        low = sum(v < 0.60 for v in values)
        print(f"{backend}: {len(values)} cells, >= 0.80 {high}, 0.60-0.80 {len(values) - high - low},"
              f" < 0.60 {low}, median of the cells {statistics.median(values):.2f}",
              file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
