#!/usr/bin/env python3
"""Runs clmax-bench on small inputs and checks what it reports (never its timings).

usage: check_bench.py CLMAX_BENCH CASE

Cases:
  throughput  classes 1-7 at --size=1 on every backend there is, JSON: every expected row is
              there, none failed, every figure is positive and finite, and the bench itself found
              the backends' outputs identical (it exits 1 on a mismatch).
  latency     class 8, JSON: the warm-latency, first-call and cache-hot rows are there and did not
              fail.
  csv         --csv has one line per row of --json, with the same columns throughout.
  usage       bad options exit 2 naming the option; --help and --version exit 0.
  too_large   --size above the OpenCL device's largest buffer (PoCL limited to 256 MiB buffers
              with POCL_MEMORY_LIMIT=1): the cl_mem rows are left out with a note, not failed, and
              the opencl rows (chunked by the library) and cpu rows run; exit status 0.
  sweep       --sweep=quick on a small grid: its CSV (cells, limits, paths), its usage errors,
              and tools/bench/heatmap.py's maps of it.

CLMAX_REQUIRE_OPENCL=1 makes rows of the OpenCL backends (opencl, cl_mem) required; without it
they are checked when the bench found a device. Exit status: 0 pass, 1 fail.
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

BACKENDS_CL = ("opencl", "cl_mem")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(bench, args, want_rc=0, env=None):
    cmd = [bench] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600, env=env)
    if p.returncode != want_rc:
        fail("%s: exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s"
             % (" ".join(cmd), p.returncode, want_rc, p.stdout[-4000:], p.stderr[-4000:]))
    return p


def bench_json(bench, args):
    p = run(bench, args + ["--json", "--quiet"])
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        fail("--json output is not JSON (%s):\n%s" % (e, p.stdout[:2000]))


def backends_of(doc):
    have = ["cpu"]
    for b in BACKENDS_CL:
        if doc["devices"].get(b) is not None:
            have.append(b)
    if os.environ.get("CLMAX_REQUIRE_OPENCL") == "1":
        for b in BACKENDS_CL:
            if b not in have:
                fail("CLMAX_REQUIRE_OPENCL=1 but the bench reports no %s device" % b)
    return have


def positive(row, key):
    v = row.get(key)
    if not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        fail("row %s: %s is %r" % (row, key, v))


# (class, case, op) of the throughput rows, float32 unless typed; the chunked row is OpenCL only.
def expected_throughput(backends):
    rows = []
    shapes = ["long rows", "short rows", "strided", "middle axis", "one vector"]
    for c, name in enumerate(shapes, start=1):
        rows += [(c, name, "argmax", "float32", b) for b in backends]
        if c in (1, 3):
            rows += [(c, name + " +values", "max+idx", "float32", b) for b in backends]
        if c == 4:
            rows += [(c, "middle, 4 lanes", "argmax", "float32", b) for b in backends]
        if c == 1 and "opencl" in backends:
            rows.append((1, "chunked", "argmax", "float32", "opencl"))
    for name in ("hardmax last axis", "hardmax axis 0"):
        rows += [(6, name, "hardmax", "float32", b) for b in backends]
    for t in ("uint8", "float16", "bfloat16", "int64"):
        for name in shapes:
            rows += [(7, name, "argmax", t, b) for b in backends]
    return rows


def case_throughput(bench):
    doc = bench_json(bench, ["--size=1", "--reps=1", "--class=1,2,3,4,5,6,7", "--chunked"])
    backends = backends_of(doc)
    rows = doc["rows"]
    got = sorted((r["class"], r["case"], r["op"], r["type"], r["backend"]) for r in rows)
    want = sorted(expected_throughput(backends))
    if got != want:
        fail("rows differ from the expected set:\n  missing %s\n  extra %s"
             % (sorted(set(want) - set(got)), sorted(set(got) - set(want))))
    for r in rows:
        if r["kind"] != "throughput" or r["failed"]:
            fail("row failed or of the wrong kind: %s" % r)
        for key in ("op_seconds", "baseline_seconds", "op_gbs", "baseline_gbs", "ratio",
                    "target_ratio"):
            positive(r, key)
        if r["bytes"] <= 0 or not isinstance(r["meets_target"], bool):
            fail("row %s" % r)
    host_pages(doc, 1 << 20)
    print("ok: %d throughput rows on %s" % (len(rows), ", ".join(backends)))


# The host buffers (the input and an output per backend, --size each) and how much of them the
# kernel put in huge pages: a count, not a promise (madvise is a hint).
def host_pages(doc, size):
    total, huge = doc.get("host_buffer_bytes"), doc.get("host_huge_page_bytes")
    if not isinstance(total, int) or not isinstance(huge, int):
        fail("host_buffer_bytes / host_huge_page_bytes missing: %r, %r" % (total, huge))
    if total < 2 * size or total % size != 0 or not 0 <= huge <= total:
        fail("host buffers of %d bytes, %d in huge pages, with --size of %d bytes"
             % (total, huge, size))


def case_latency(bench):
    doc = bench_json(bench, ["--class=8", "--reps=1", "--spawns=1"])
    backends = backends_of(doc)
    rows = doc["rows"]
    got = sorted((r["kind"], r["case"], r["shape"], r["backend"]) for r in rows)
    want = [("latency", "latency (warm)", s, b) for s in ("[1,1000]", "[8,32000]")
            for b in backends]
    want.append(("first_call", "first call", "[1,1000]", "cpu"))
    # The cache-hot logits: on the CPU path, the device (host pointers) and an auto context.
    for shape in ("[1,151936]", "[32,128256]", "[64,1000]", "[1,151936]", "[1,1000]"):
        kind = "latency" if shape == "[1,1000]" else "throughput"
        want += [(kind, "cache-hot", shape, b) for b in ["cpu", "auto"] + (
            ["opencl"] if "opencl" in backends else [])]
    if "opencl" in backends:
        want += [("first_call", "first call, no caches", "[1,1000]", "opencl"),
                 ("first_call", "first call, caches warm", "[1,1000]", "opencl")]
    if got != sorted(want):
        fail("rows differ from the expected set:\n  got %s\n  want %s" % (got, sorted(want)))
    for r in rows:
        if r["failed"]:
            fail("row failed: %s" % r)
        positive(r, "op_seconds" if r["kind"] == "throughput" else "seconds")
        if r["kind"] == "throughput":
            positive(r, "baseline_seconds")
    print("ok: %d latency rows on %s" % (len(rows), ", ".join(backends)))


SWEEP_COLUMNS = ["backend", "op", "type", "elem_bytes", "outer", "n", "inner", "in_bytes",
                 "out_bytes", "limit", "op_s", "limit_s", "ratio", "path"]


def case_sweep(bench):
    """--sweep=quick on a chosen grid at 1 MiB: a line per cell and backend, the cells and their
    limits as the sweep defines them; then tools/bench/heatmap.py draws it."""
    args = ["--sweep=quick", "--size=1", "--reps=1", "--sweep-n=1,3,1000", "--sweep-inner=1,4"]
    text = run(bench, args + ["--quiet"]).stdout
    table = list(csv.reader(text.splitlines()))
    if not table or table[0] != SWEEP_COLUMNS:
        fail("sweep header %s, expected %s" % (table[:1], SWEEP_COLUMNS))
    rows = [dict(zip(table[0], line)) for line in table[1:]]
    backends = sorted({r["backend"] for r in rows})
    want_backends = ["auto", "cpu"] + (["cl_mem", "opencl"]
                                       if os.environ.get("CLMAX_REQUIRE_OPENCL") == "1" else [])
    if not set(want_backends) <= set(backends):
        fail("sweep backends %s, expected at least %s" % (backends, want_backends))
    cells = {(r["op"], r["type"], r["outer"], r["n"], r["inner"]) for r in rows}
    # 3 n x 2 inner for 4 types of ArgMax and 2 of Hardmax, none above 1 MiB of input
    if len(cells) != 36:
        fail("%d sweep cells, expected 36: %s" % (len(cells), sorted(cells)))
    for r in rows:
        es, outer, n, inner = (int(r[k]) for k in ("elem_bytes", "outer", "n", "inner"))
        inb, outb = int(r["in_bytes"]), int(r["out_bytes"])
        if inb != outer * n * inner * es or inb > 1 << 20:
            fail("row %s: in_bytes" % r)
        if outb != (inb if r["op"] == "hardmax" else outer * inner * 8):
            fail("row %s: out_bytes" % r)
        # the cl_mem rows' limit is the device's own memory, the others' the host's
        limit = ("device " if r["backend"] == "cl_mem" else "") + (
            "read+write" if outb * 10 >= inb else "read")
        if r["limit"] != limit:
            fail("row %s: limit" % r)
        for k in ("op_s", "limit_s", "ratio"):
            v = float(r[k])
            if not math.isfinite(v) or v <= 0:
                fail("row %s: %s" % (r, k))
        if r["path"] not in ("cpu", "opencl", "cl_mem") or (r["backend"] != "auto" and
                                                  r["path"] != r["backend"]):
            fail("row %s: path" % r)
    for bad in ("--sweep=full", "--sweep-n=0", "--sweep-n=", "--sweep-inner=1,"):
        p = run(bench, [bad], want_rc=2)
        if bad not in p.stderr:
            fail("%s: the message does not name the option:\n%s" % (bad, p.stderr))
    # The heat maps, with a Python that has matplotlib (tools/setup.sh installs Debian's).
    here = os.path.dirname(os.path.abspath(__file__))
    script = os.path.join(here, "..", "..", "tools", "bench", "heatmap.py")
    py = next((c for c in (sys.executable, "/usr/bin/python3") if os.path.exists(c) and
               subprocess.run([c, "-c", "import matplotlib"], capture_output=True).returncode
               == 0), None)
    if py is None:
        fail("no python3 with matplotlib for tools/bench/heatmap.py (python3-matplotlib)")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "sweep.csv")
        with open(src, "w") as f:
            f.write(text)
        p = subprocess.run([py, script, src, d], capture_output=True, text=True)
        if p.returncode != 0:
            fail("heatmap.py failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
        pngs = sorted(f for f in os.listdir(d) if f.endswith(".png"))
        want_png = ["sweep-%s.png" % b for b in backends]
        if {"auto", "cpu", "opencl"} <= set(backends):
            want_png.append("sweep-auto-vs-best.png")
        if pngs != sorted(want_png):
            fail("heatmap.py wrote %s, expected %s" % (pngs, sorted(want_png)))
    print("ok: %d sweep rows on %s; heat maps drawn" % (len(rows), ", ".join(backends)))


def case_csv(bench):
    args = ["--size=1", "--reps=1", "--class=2,6", "--quiet"]
    doc = bench_json(bench, args)
    text = run(bench, args + ["--csv"]).stdout
    table = list(csv.reader(text.splitlines()))
    if not table or table[0][:3] != ["kind", "class", "case"]:
        fail("no CSV header:\n%s" % text[:500])
    if len(table) - 1 != len(doc["rows"]):
        fail("%d CSV rows, %d JSON rows" % (len(table) - 1, len(doc["rows"])))
    header = table[0]
    for line, r in zip(table[1:], doc["rows"]):
        if len(line) != len(header):
            fail("CSV line of %d fields, header %d: %s" % (len(line), len(header), line))
        fields = dict(zip(header, line))
        for key in ("case", "type", "shape", "backend"):
            if fields[key] != str(r[key]):
                fail("CSV %s %r, JSON %r" % (key, fields[key], r[key]))
    print("ok: %d CSV rows" % (len(table) - 1))


def case_usage(bench):
    for bad in ("--class=9", "--class=", "--backend=gpu", "--backend=cpu,", "--size=0",
                "--reps=0", "--threads=-1", "--chunk-bytes=0", "--spawns=0", "--nope"):
        p = run(bench, [bad], want_rc=2)
        if bad not in p.stderr:
            fail("%s: the message does not name the option:\n%s" % (bad, p.stderr))
    if "usage: clmax-bench" not in run(bench, ["--help"]).stdout:
        fail("--help prints no usage")
    if not run(bench, ["--version"]).stdout.startswith("clmax-bench "):
        fail("--version prints no version")
    print("ok: usage")


def case_too_large(bench):
    p = run(bench, ["--size=257", "--reps=1", "--class=5", "--json", "--quiet", "--small-pages"],
            env=dict(os.environ, POCL_MEMORY_LIMIT="1"))
    doc = json.loads(p.stdout)
    host_pages(doc, 257 << 20)
    backends = backends_of(doc)
    device = doc["devices"].get("cl_mem") or ""
    noted = "no cl_mem throughput rows: --size=257 is more than the device's largest buffer" \
        in p.stderr
    if device.startswith("Portable Computing Language") and not noted:
        fail("PoCL with 256 MiB buffers, --size=257: no note on stderr:\n%s" % p.stderr)
    rows = sorted((r["backend"], r["failed"]) for r in doc["rows"])
    want = sorted((b, False) for b in backends if not (noted and b == "cl_mem"))
    if rows != want:
        fail("rows %s, expected %s" % (rows, want))
    print("ok: %s; rows on %s" % ("cl_mem left out" if noted else "the input fits",
                                  ", ".join(b for b, _ in rows)))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    bench, case = sys.argv[1], sys.argv[2]
    cases = {"throughput": case_throughput, "latency": case_latency, "csv": case_csv,
             "usage": case_usage, "too_large": case_too_large, "sweep": case_sweep}
    if case not in cases:
        print("unknown case %s" % case)
        return 2
    cases[case](bench)
    return 0


if __name__ == "__main__":
    sys.exit(main())
