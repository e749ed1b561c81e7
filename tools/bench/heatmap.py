#!/usr/bin/env python3
"""Draw heat maps of a `clmax-bench --sweep` CSV.

Reads SWEEP.csv: a header line naming at least the columns
    backend,op,type,elem_bytes,outer,n,inner,in_bytes,out_bytes,limit,op_s,limit_s,ratio,path
then one row per measured cell (ratio = limit_s / op_s; empty or `nan` = failed run).

Writes, into OUTDIR (created if needed):
    sweep-<backend>.png       one panel per (op, type): ratio to the memory limit over n x inner
    sweep-auto-vs-best.png    only when auto, cpu and opencl are all present:
                              min(cpu op_s, opencl op_s) / auto op_s per cell
and prints a text summary of both to stdout.

Where several rows share (backend, op, type, n, inner) with different outer, a cell shows
the minimum over them and its label carries a '*'.

Usage: python3 tools/bench/heatmap.py SWEEP.csv OUTDIR [--title TEXT]
"""
import argparse
import csv
import math
import os
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.patches import Patch

COLUMNS = ["backend", "op", "type", "elem_bytes", "outer", "n", "inner", "in_bytes",
           "out_bytes", "limit", "op_s", "limit_s", "ratio", "path"]
INT_COLS = ["elem_bytes", "outer", "n", "inner", "in_bytes", "out_bytes"]
FLOAT_COLS = ["op_s", "limit_s", "ratio"]
OP_ORDER = ["argmax", "hardmax"]
TYPE_ORDER = ["uint8", "float16", "float32", "float64"]

# Cell categories: index into the colour list. 0 and 1 are shared by both kinds of map.
MISSING, FAIL = 0, 1
RATIO_BANDS = [(0.60, "#d7301f", "< 60% of limit"), (0.80, "#fd8d3c", "60-80%"),
               (1.00, "#a1d99b", "80-100%"), (math.inf, "#238b45", ">= 100%")]
AVB_BANDS = [(0.90, "#d7301f", "auto slower than best by > 10%"),
             (math.inf, "#41ab5d", "auto within 10% of best")]
DARK_TEXT_ON = {"#d7301f", "#238b45", "#41ab5d", "black"}  # backgrounds that need white text


def die(msg):
    print(f"heatmap.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def read_rows(path):
    try:
        f = open(path, newline="")
    except OSError as e:
        die(f"cannot open {path}: {e.strerror}")
    with f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader, [])]
        if not any(header):
            die(f"{path}: empty file, expected a header line naming {','.join(COLUMNS)}")
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            die(f"{path}: malformed header, missing column(s): {', '.join(missing)}")
        rows = []
        for lineno, fields in enumerate(reader, start=2):
            if not any(x.strip() for x in fields):
                continue
            if len(fields) < len(header):
                die(f"{path}:{lineno}: expected {len(header)} fields, got {len(fields)}")
            r = {h: v.strip() for h, v in zip(header, fields)}
            for c in INT_COLS + FLOAT_COLS:
                try:  # an empty float field is how a failed run is written
                    r[c] = int(r[c]) if c in INT_COLS else float(r[c]) if r[c] else math.nan
                except ValueError:
                    die(f"{path}:{lineno}: column {c}: not a number: {r[c]!r}")
            r["failed"] = not (math.isfinite(r["ratio"]) and r["ratio"] > 0)
            rows.append(r)
    return rows


def size_label(v):
    """1, 2, 64, 4K, 64K, 1M: K/M only where the value is an exact multiple."""
    for div, suffix in ((1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")):
        if v >= div and v % div == 0:
            return f"{v // div}{suffix}"
    return str(v)


def panel_key(op_type):
    op, typ = op_type
    op_rank = OP_ORDER.index(op) if op in OP_ORDER else len(OP_ORDER)
    type_rank = TYPE_ORDER.index(typ) if typ in TYPE_ORDER else len(TYPE_ORDER)
    return (op_rank, op, type_rank, typ)


def collapse(samples):
    """samples: {(op, type, n, inner): [(value or None for fail, outer, extra)]} -> one per cell.

    A failure anywhere in a cell wins (it is worse than any slow run); otherwise the minimum.
    """
    cells = {}
    for key, lst in samples.items():
        fails = [s for s in lst if s[0] is None]
        pick = fails[0] if fails else min(lst, key=lambda s: s[0])
        cells[key] = {"value": pick[0], "outer": pick[1], "extra": pick[2],
                      "multi": len({s[1] for s in lst}) > 1}
    return cells


def ratio_cells(rows, backend):
    samples = {}
    for r in rows:
        if r["backend"] == backend:
            key = (r["op"], r["type"], r["n"], r["inner"])
            samples.setdefault(key, []).append(
                (None if r["failed"] else r["ratio"], r["outer"], r["path"]))
    return collapse(samples)


def auto_vs_best_cells(rows):
    """best_time / auto_time per exact (op, type, outer, n, inner) row, then min over outer."""
    by = {}
    for r in rows:
        ok = not r["failed"] and math.isfinite(r["op_s"]) and r["op_s"] > 0
        key = (r["backend"], r["op"], r["type"], r["outer"], r["n"], r["inner"])
        by[key] = (r["op_s"] if ok else None, r["path"])
    samples = {}
    for (backend, op, typ, outer, n, inner), (auto_t, path) in by.items():
        if backend != "auto":
            continue
        others = [by.get((b, op, typ, outer, n, inner), (None,))[0] for b in ("cpu", "opencl")]
        others = [t for t in others if t is not None]
        if not others:
            continue  # nothing to compare against (both missing or both failed)
        value = None if auto_t is None else min(others) / auto_t
        samples.setdefault((op, typ, n, inner), []).append((value, outer, path))
    return collapse(samples)


def band_of(value, bands):
    """Colour index of a cell: FAIL, or 2 + the first band whose upper bound exceeds value."""
    if value is None:
        return FAIL
    return next(2 + i for i, (upper, _, _) in enumerate(bands) if value < upper)


def draw(cells, bands, title_fmt, out_png, suptitle, path_suffix_below=None, notes=()):
    colours = ["#e0e0e0", "black"] + [b[1] for b in bands]
    cmap = ListedColormap(colours)
    norm = BoundaryNorm(np.arange(len(colours) + 1) - 0.5, len(colours))
    panels = sorted({(op, typ) for op, typ, _, _ in cells}, key=panel_key)
    axes_n = {p: sorted({k[2] for k in cells if k[:2] == p}) for p in panels}
    axes_inner = {p: sorted({k[3] for k in cells if k[:2] == p}) for p in panels}
    ncols = 1 if len(panels) == 1 else 2 if len(panels) <= 4 else 3
    nrows = math.ceil(len(panels) / ncols)
    # Size each panel from the widest grid so ~0.34 in per cell keeps the labels legible.
    cols = max(len(v) for v in axes_inner.values())
    rws = max(len(v) for v in axes_n.values())
    pw, ph = max(3.5, 0.34 * cols + 1.2), max(2.5, 0.30 * rws + 1.2)
    # A narrow (one-panel) figure gets its legend in two rows so nothing is clipped.
    wide = pw * ncols >= 10
    notes = ["cell label = value x 100", "* = minimum over several outer", *notes]
    legend_h = 0.5 + (0.15 if wide else 0.15 * len(notes) + 0.2)
    fig, axs = plt.subplots(nrows, ncols, figsize=(pw * ncols, ph * nrows + legend_h),
                            squeeze=False)
    for ax in axs.flat[len(panels):]:
        ax.set_visible(False)
    for ax, p in zip(axs.flat, panels):
        ns, inners = axes_n[p], axes_inner[p]
        grid = np.full((len(ns), len(inners)), MISSING)
        for i, n in enumerate(ns):
            for j, inner in enumerate(inners):
                c = cells.get(p + (n, inner))
                if c is None:
                    continue
                grid[i, j] = band_of(c["value"], bands)
                if c["value"] is None:
                    # Hatch as well as black so a failure survives greyscale printing.
                    ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                               hatch="////", edgecolor="#888888", lw=0))
                    label = "fail"
                else:
                    label = str(round(c["value"] * 100))
                    if path_suffix_below is not None and c["value"] < path_suffix_below:
                        label += c["extra"][:1]  # which path auto took: c / o
                if c["multi"]:
                    label += "*"
                colour = "white" if colours[grid[i, j]] in DARK_TEXT_ON else "black"
                box = dict(facecolor="black", pad=0.5, lw=0) if c["value"] is None else None
                ax.text(j, i, label, ha="center", va="center", fontsize=6, color=colour, bbox=box)
        ax.imshow(grid, cmap=cmap, norm=norm, origin="lower", aspect="auto",
                  interpolation="nearest", zorder=0)
        ax.set_xticks(range(len(inners)), [size_label(v) for v in inners],
                      rotation=90 if len(inners) > 8 else 0, fontsize=7)
        ax.set_yticks(range(len(ns)), [size_label(v) for v in ns], fontsize=7)
        # Thin white lines between cells, so neighbours of one colour stay countable.
        ax.set_xticks(np.arange(len(inners) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(ns) + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", lw=0.6)
        ax.tick_params(which="minor", length=0)
        ax.set_xlabel("inner", fontsize=8)
        ax.set_ylabel("n (reduced)", fontsize=8)
        ax.set_title(title_fmt.format(op=p[0], type=p[1]), fontsize=9)
    handles = [Patch(facecolor=b[1], label=b[2]) for b in bands]
    handles += [Patch(facecolor="black", hatch="////", edgecolor="#888888", label="failed"),
                Patch(facecolor="#e0e0e0", label="not measured")]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles) if wide else 3,
               fontsize=8, title=(";  " if wide else "\n").join(notes),
               title_fontsize=8, frameon=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, legend_h / (ph * nrows + legend_h), 1, 0.97 if suptitle else 1))
    fig.savefig(out_png, dpi=110)
    plt.close(fig)
    print(f"wrote {out_png}")


def fmt_cell(key, c, suffix=""):
    op, typ, n, inner = key
    v = "FAIL" if c["value"] is None else f"{c['value']:.3f}"
    return f"  {op:8} {typ:9} outer={c['outer']:<7} n={n:<8} inner={inner:<8} {v:>6}{suffix}"


def weakest(cells, count):
    # Failures sort first: they are the weakest result there is.
    order = sorted(cells.items(), key=lambda kv: -1 if kv[1]["value"] is None else kv[1]["value"])
    return order[:count]


def summarise_ratio(backend, cells):
    vals = [c["value"] for c in cells.values()]
    ok = [v for v in vals if v is not None]
    print(f"\n{backend}: {len(vals)} cells, >= 0.80: {sum(v >= 0.80 for v in ok)}, "
          f"0.60-0.80: {sum(0.60 <= v < 0.80 for v in ok)}, < 0.60: {sum(v < 0.60 for v in ok)}, "
          f"failed: {len(vals) - len(ok)}")
    print("  weakest (op type outer n inner ratio):")
    for key, c in weakest(cells, 20):
        print(fmt_cell(key, c, f"  path={c['extra']}" if backend == "auto" else ""))


def summarise_avb(cells):
    vals = [c["value"] for c in cells.values()]
    print(f"\nauto-vs-best: {len(vals)} cells, within 10%: "
          f"{sum(v is not None and v >= 0.90 for v in vals)}, slower by > 10%: "
          f"{sum(v is not None and v < 0.90 for v in vals)}, auto failed: {vals.count(None)}")
    print("  worst (op type outer n inner best/auto path-taken):")
    for key, c in weakest(cells, 10):
        print(fmt_cell(key, c, f"  path={c['extra']}"))


def main():
    ap = argparse.ArgumentParser(description="Heat maps of a clmax-bench --sweep CSV.")
    ap.add_argument("csv", help="CSV written by clmax-bench --sweep")
    ap.add_argument("outdir", help="directory for the PNG files")
    ap.add_argument("--title", default="", help="text put above every figure")
    args = ap.parse_args()
    matplotlib.use("Agg")  # files only: the benchmark hosts have no display
    rows = read_rows(args.csv)
    if not rows:
        die(f"{args.csv}: no data rows")
    os.makedirs(args.outdir, exist_ok=True)
    backends = sorted({r["backend"] for r in rows})
    for b in backends:
        cells = ratio_cells(rows, b)
        draw(cells, RATIO_BANDS, b + ": {op} {type} (ratio to the memory limit)",
             os.path.join(args.outdir, f"sweep-{b}.png"), args.title)
        summarise_ratio(b, cells)
    if {"auto", "cpu", "opencl"} <= set(backends):
        cells = auto_vs_best_cells(rows)
        if cells:
            draw(cells, AVB_BANDS, "auto vs best: {op} {type} (best time / auto time)",
                 os.path.join(args.outdir, "sweep-auto-vs-best.png"), args.title,
                 path_suffix_below=0.90, notes=["c / o = path auto took (cpu / opencl)"])
            summarise_avb(cells)


if __name__ == "__main__":
    main()
