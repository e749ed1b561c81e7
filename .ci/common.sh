# Shared by the .ci/*.sh scripts (sourced). TAG names the script in its messages.

# Installs the Debian packages among "$@" that are not installed yet.
ensure_packages() {
    local missing="" p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "== $TAG: installing:$missing"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
}

# Configures the build folder $BUILD with the given cmake arguments; its output goes to
# $BUILD.configure.log, printed only on failure. The checkers' builds leave the Python module
# out: an instrumented module cannot load into an uninstrumented interpreter, and the Python
# tests run in the main modes and the package's own step of .ci/run.
configure() {
    cmake -S . -B "$BUILD" -DCLMAX_BUILD_PYTHON=OFF "$@" >"$BUILD.configure.log" 2>&1 || {
        cat "$BUILD.configure.log"
        exit 1
    }
}

# Builds $BUILD with the given extra arguments; the end of $BUILD.build.log on failure.
build() {
    cmake --build "$BUILD" "$@" >"$BUILD.build.log" 2>&1 || {
        tail -n 80 "$BUILD.build.log"
        exit 1
    }
}
