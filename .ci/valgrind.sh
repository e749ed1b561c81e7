#!/usr/bin/env bash
# Valgrind memcheck over the CPU path's unit tests, on a normal (non-sanitizer) build.
#
# Builds build-valgrind (RelWithDebInfo, the normal compiler and flags), asks ctest for the tests
# labelled unit (their commands and environments, as JSON) and runs each under
#   valgrind --error-exitcode=1 --leak-check=full --trace-children=yes
# with CLMAX_BACKEND=cpu and OCL_ICD_VENDORS pointing at an empty folder, so no OpenCL driver
# loads (the OpenCL-only tests skip), and CLMAX_TEST_SMALL=1, so the tests leave out their cases of
# millions of elements (tests/common.h; AddressSanitizer runs them). Criterion forks a child per test and ignores how a child
# exits once it has reported, so each process writes its own valgrind log (--log-file=...%p) and
# the script fails when any log reports an error or a leak. CRITERION_JOBS=1: with more jobs the
# Criterion runner itself leaks a block per extra worker. .ci/valgrind.supp hides the nanomsg
# buffers that Criterion's children never free (stacks through libnanomsg only).
#
# Every unit test runs but clmax.cache, whose cases all need an OpenCL device and skip here (102
# processes, a second of valgrind start-up each: 105 s), and clmax.argmax, clmax.argmin and
# clmax.values: sweeps of every type over the CPU kernels that the family tests (short_rows,
# few_lanes, float_rows, wide, narrow, hardmax, strategies) run at their edges here, and that
# AddressSanitizer runs whole; they were 239 of the 789 s of valgrind's work on a 2-core VM, whose
# CI run must stay within the hour. Each Criterion test is a fresh exec whose start-up (the
# linker, libgit2 reading the CA bundle for Criterion) valgrind makes cost seconds, so the family
# tests run a group of types per test (tests/common.h, TYPE_GROUP_TEST). VALGRIND_TESTS and
# VALGRIND_EXCLUDE (regexes on test names) change the set.
#
# Run from the repository root after the normal build (tools/setup.sh installed the dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=build-valgrind
SELECT=${VALGRIND_TESTS:-.}
EXCLUDE=${VALGRIND_EXCLUDE:-^clmax\.(cache|argmax|argmin|values)$}
TAG=valgrind
# shellcheck source=common.sh
source .ci/common.sh

ensure_packages valgrind

start=$(date +%s)
echo "== valgrind: configuring $BUILD (RelWithDebInfo, no sanitizer)"
configure -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== valgrind: building"
build -j"$(nproc)"
echo "== valgrind: built in $(($(date +%s) - start)) s"

logs="$ROOT/$BUILD/valgrind-logs"
empty_icd="$ROOT/$BUILD/empty-icd-vendors"
rm -rf "$logs"
mkdir -p "$logs" "$empty_icd"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
ctest --test-dir "$BUILD" -N -L unit --show-only=json-v1 >"$logs/tests.json"

# One line per test: name, then the command and the test's environment, NUL-separated, for the
# runner below. Tests whose name does not match SELECT, or matches EXCLUDE, are left out.
"$PY" - "$logs/tests.json" "$SELECT" "$EXCLUDE" >"$logs/plan.txt" <<'EOF'
import json, re, sys
tests = json.load(open(sys.argv[1]))["tests"]
select, exclude = re.compile(sys.argv[2]), sys.argv[3] and re.compile(sys.argv[3])
for t in tests:
    name = t["name"]
    if not select.search(name) or (exclude and exclude.search(name)):
        print("skip", name)
        continue
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    env = props.get("ENVIRONMENT", [])
    wd = props.get("WORKING_DIRECTORY", ".")
    skip = props.get("SKIP_RETURN_CODE", "")
    print("run", name, json.dumps({"cmd": t["command"], "env": env, "wd": wd, "skip": skip}))
EOF
grep '^skip' "$logs/plan.txt" | sed 's/^skip /== valgrind: left out: /' || true

# Criterion links libgit2, whose start-up parses the system's CA bundle (mbedtls base64, 80% of
# the instructions of a process that runs no test): under valgrind 0.65 of the 1.8 s every test
# process pays before its test starts, and the tests are hundreds of processes. Where this runs as
# root, each test runs in its own mount namespace with an empty file over the bundle; nothing of
# clmax's or the tests' reads it, and the system's file is untouched.
NS=()
bundle=/etc/ssl/certs/ca-certificates.crt
if [ "$(id -u)" -eq 0 ] && [ -f "$bundle" ] &&
    unshare -m sh -c 'mount --bind /dev/null "$0"' "$bundle" 2>/dev/null; then
    NS=(unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$bundle")
fi

VG=(valgrind --error-exitcode=1 --leak-check=full --suppressions="$ROOT/.ci/valgrind.supp"
    --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible
    --trace-children=yes --child-silent-after-fork=no --num-callers=30)

# run_one NAME JSON: one test under valgrind; prints one result line.
run_one() {
    local name=$1 spec=$2 t0 rc=0
    t0=$(date +%s)
    mkdir -p "$logs/$name"
    "$PY" - "$spec" "$logs/$name" "$empty_icd" "${NS[@]}" "${VG[@]}" >"$logs/$name.out" 2>&1 <<'EOF' || rc=$?
import json, os, subprocess, sys
spec, logdir, empty_icd, vg = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
env = dict(os.environ)
env.update(CLMAX_BACKEND="cpu", OCL_ICD_VENDORS=empty_icd, OCL_ICD_FILENAMES="",
           CRITERION_JOBS="1", CLMAX_TEST_SMALL="1")
for kv in spec["env"]:
    k, _, v = kv.partition("=")
    env[k] = v
cmd = vg + ["--log-file=" + os.path.join(logdir, "vg.%p")] + spec["cmd"]
print("+", " ".join(cmd), flush=True)
rc = subprocess.call(cmd, env=env, cwd=spec["wd"])
sys.exit(0 if spec["skip"] != "" and rc == int(spec["skip"]) else rc)
EOF
    # Every process's log: its error summary must say 0 errors.
    local bad
    bad=$(grep -L "ERROR SUMMARY: 0 errors" "$logs/$name"/vg.* 2>/dev/null || true)
    local nlogs
    nlogs=$(find "$logs/$name" -name 'vg.*' | wc -l)
    if [ "$rc" -ne 0 ] || [ -n "$bad" ] || [ "$nlogs" -eq 0 ]; then
        echo "FAIL $name (exit $rc, $nlogs processes, $(($(date +%s) - t0)) s)"
        tail -n 30 "$logs/$name.out"
        for f in $bad; do
            echo "---- $f"
            grep -v "^==[0-9]*== *$" "$f" | head -n 120
        done
        return 1
    fi
    echo "ok   $name ($nlogs processes, $(($(date +%s) - t0)) s)"
}

echo "== valgrind: ${VG[*]}, CLMAX_BACKEND=cpu CLMAX_TEST_SMALL=1 OCL_ICD_VENDORS=$empty_icd"
[ ${#NS[@]} -eq 0 ] || echo "== valgrind: each test in a mount namespace, $bundle empty there"
status=0
# As many at a time as there are cores.
pids=()
names=()
while read -r kind name spec; do
    [ "$kind" = run ] || continue
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do sleep 1; done
    run_one "$name" "$spec" >"$logs/$name.result" 2>&1 &
    pids+=($!)
    names+=("$name")
done <"$logs/plan.txt"
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$logs/${names[$i]}.result"
done

echo "== valgrind: total $(($(date +%s) - start)) s: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
