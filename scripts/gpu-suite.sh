#!/usr/bin/env bash
# The GPU checks as one portable bundle: built where the Rust toolchain is,
# run on any Linux machine with a Vulkan driver and no toolchain.
#
#   scripts/gpu-suite.sh pack                 build target/gpu-suite/ and target/gpu-suite.tar.gz
#   scripts/gpu-suite.sh run [options] [BUNDLE]
#
# Run `scripts/gpu-suite.sh help` for the options.
set -euo pipefail

# --- What goes into the bundle ------------------------------------------------

# The packages are never named when building: the examples are selected by
# name and the tests by workspace, so the script works whatever the crates
# are called. These names only go into the manifest.
GPU_PACKAGE="dual-delta-gpu"
TESTS_PACKAGE="dual-delta-tests"
# Release builds of these examples, wherever they live in the workspace.
EXAMPLES=(probe kernels paper fp8 matmul_timing)
# Test binaries left out of the archive: they run `cargo` (a child crate,
# trybuild's compile-fail cases), which a machine without the toolchain
# lacks, and they test no GPU code.
NEEDS_TOOLCHAIN='binary(e2e) | binary(compile_fail)'
# The nextest profile (.config/nextest.toml) that writes JUnit XML.
NEXTEST_PROFILE="gpu-suite"
BUNDLE_NAME="gpu-suite"

# --- Time limits of `run` (seconds, each multiplied by --timeout-scale) ------

# No step may run past the budget of the whole run, whatever its own limit:
# on a GPU machine the run ends within about nine minutes.
BUDGET_S=540
T_PROBE=30
T_TESTS=180
T_KERNELS=60
T_PAPER=60
T_FP8=60
T_MATMUL=60

F16_PATHS=(native fallback)

usage() {
    cat <<EOF
usage: $0 pack
       $0 run [--allow-cpu] [--out DIR] [--timeout-scale N] [-E FILTERSET] [BUNDLE]

pack    Build the bundle (needs cargo and cargo-nextest): the workspace's tests
        as a nextest archive, release builds of the examples ${EXAMPLES[*]},
        cargo-nextest itself and the workspace's files, in
        <target dir>/$BUNDLE_NAME/ and <target dir>/$BUNDLE_NAME.tar.gz.

run     Run a bundle (a directory or a .tar.gz; default: the bundle this
        script is in, else <target dir>/$BUNDLE_NAME) on the chosen Vulkan
        adapter, on both f16 paths (DUAL_DELTA_GPU_F16=native and fallback).
        Needs no Rust toolchain. Writes summary.md and every step's log into
        the output directory. Exits non-zero when a test fails, a kernels row
        or a paper verdict is not the one expected, a step fails or times out,
        or the adapter is a CPU driver.

  --allow-cpu         accept a CPU adapter (llvmpipe/lavapipe), to check the
                      bundle itself; without it a CPU adapter fails the run,
                      and every step runs with DUAL_DELTA_GPU=require-hardware
                      (also: DUAL_DELTA_GPU_SUITE_ALLOW_CPU=1)
  --out DIR           where the summary and logs go
                      (default: ./gpu-suite-results-<UTC time>)
  --timeout-scale N   multiply every step's time limit and the run's budget
                      (${BUDGET_S} s) by N, for slow machines such as lavapipe
  -E FILTERSET        run only the tests nextest's filterset selects (a
                      check of the bundle, not a full run)

DUAL_DELTA_ADAPTER picks the adapter as for the tests (README, "Configuration").
EOF
}

die() {
    echo "gpu-suite: $*" >&2
    exit 2
}

# --- pack -----------------------------------------------------------------------

# The workspace root: the directory above this script's.
repo_root() {
    cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd
}

target_dir() {
    local meta
    meta=$(cargo metadata --format-version 1 --no-deps --manifest-path "$1/Cargo.toml")
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p' <<<"$meta"
}

pack() {
    [ $# -eq 0 ] || die "pack takes no arguments"
    command -v cargo >/dev/null || die "pack needs cargo"
    local nextest
    nextest=$(command -v cargo-nextest) || die "pack needs cargo-nextest (cargo install cargo-nextest)"
    local root target bundle start
    root=$(repo_root)
    target=$(target_dir "$root")
    [ -n "$target" ] || die "could not find the target directory"
    bundle="$target/$BUNDLE_NAME"
    start=$(date +%s)
    rm -rf "$bundle" "$bundle.tar.gz"
    mkdir -p "$bundle/bin" "$bundle/examples" "$bundle/workspace"

    echo "== tests: nextest archive of the workspace (without: $NEEDS_TOOLCHAIN)"
    (cd "$root" && cargo nextest archive --workspace \
        -E "not ($NEEDS_TOOLCHAIN)" \
        --archive-file "$bundle/tests.tar.zst")

    echo "== examples (release): ${EXAMPLES[*]}"
    local args=() name
    for name in "${EXAMPLES[@]}"; do args+=(--example "$name"); done
    (cd "$root" && cargo build --release "${args[@]}")
    for name in "${EXAMPLES[@]}"; do
        cp "$target/release/examples/$name" "$bundle/examples/"
    done

    echo "== cargo-nextest ($nextest)"
    cp "$nextest" "$bundle/bin/cargo-nextest"

    echo "== the workspace's files (for --workspace-remap: fixtures, snapshots, config)"
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -xf - -C "$bundle/workspace"
    cp "$root/scripts/gpu-suite.sh" "$bundle/gpu-suite.sh"

    {
        echo "commit: $(git -C "$root" describe --always --dirty --abbrev=12)"
        echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
        echo "rustc: $(rustc --version)"
        echo "nextest: $("$nextest" nextest --version | head -1)"
        echo "packages: $GPU_PACKAGE, $TESTS_PACKAGE and the rest of the workspace"
        echo "examples: ${EXAMPLES[*]}"
        echo "left out: $NEEDS_TOOLCHAIN (they need a Rust toolchain)"
    } >"$bundle/MANIFEST"

    echo "== $bundle.tar.gz"
    tar -C "$target" -czf "$bundle.tar.gz" "$BUNDLE_NAME"
    cat "$bundle/MANIFEST"
    du -sh "$bundle" "$bundle.tar.gz"
    echo "pack took $(($(date +%s) - start)) s"
}

# --- run ------------------------------------------------------------------------

# Globals of a run.
ALLOW_CPU=${DUAL_DELTA_GPU_SUITE_ALLOW_CPU:-0}
SCALE=1
FILTER=""
OUT=""
BUNDLE=""
WORK=""
DEADLINE=0
FAILURES=() # one line per reason the run fails
STEPS=()    # one Markdown table row per step

cleanup() {
    if [ -n "$WORK" ]; then rm -rf "$WORK"; fi
}

# The bundle to run: the argument (directory or tarball), else the bundle
# holding this script, else the workspace's target/gpu-suite.
locate_bundle() {
    local given=$1 here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    if [ -z "$given" ]; then
        if [ -f "$here/MANIFEST" ]; then
            given=$here
        else
            given="$(target_dir "$(repo_root)")/$BUNDLE_NAME"
        fi
    fi
    if [ -f "$given" ]; then
        echo "extracting $given" >&2
        tar -xzf "$given" -C "$WORK"
        given="$WORK/$BUNDLE_NAME"
    fi
    if [ ! -f "$given/MANIFEST" ] || [ ! -f "$given/tests.tar.zst" ]; then
        die "$given is not a bundle (build one with: $0 pack)"
    fi
    cd "$given" && pwd
}

# Seconds a step capped at $1 (before scaling) may take: the cap, or what is
# left of the run's budget if less.
step_limit() {
    local cap=$(($1 * SCALE)) left=$((DEADLINE - $(date +%s)))
    if [ "$left" -lt "$cap" ]; then cap=$left; fi
    echo "$cap"
}

# run_step NAME PATH CAP LOG COMMAND...: runs COMMAND under `timeout`, its
# output into LOG, with DUAL_DELTA_GPU_F16=PATH ("auto": unset). Records a row
# of the steps table; returns the command's status (124: timed out).
run_step() {
    local name=$1 path=$2 cap=$3 log=$4
    shift 4
    local limit start rc=0 status
    limit=$(step_limit "$cap")
    if [ "$limit" -lt 5 ]; then
        STEPS+=("| $name | $path | not run: the run's budget is spent | | |")
        FAILURES+=("$name ($path f16 path) not run: the run's budget is spent")
        return 125
    fi
    echo "== $name ($path f16 path, limit ${limit} s)"
    start=$(date +%s)
    if [ "$path" = auto ]; then
        timeout -k 10 "$limit" env -u DUAL_DELTA_GPU_F16 "$@" >"$OUT/$log" 2>&1 || rc=$?
    else
        timeout -k 10 "$limit" env DUAL_DELTA_GPU_F16="$path" "$@" >"$OUT/$log" 2>&1 || rc=$?
    fi
    case $rc in
    0) status="ok" ;;
    124 | 137) status="**timed out** after ${limit} s" ;;
    *) status="**failed** (exit $rc)" ;;
    esac
    STEPS+=("| $name | $path | $status | $(($(date +%s) - start)) s | [$log]($log) |")
    echo "   $status, $(($(date +%s) - start)) s"
    if [ "$rc" -ne 0 ]; then FAILURES+=("$name ($path f16 path): $status, see $log"); fi
    return "$rc"
}

# Whether an `adapter: ...` line names a CPU driver.
is_cpu_adapter() {
    grep -qiE ', Cpu, |llvmpipe|lavapipe|swiftshader' <<<"$1"
}

# The adapter lines of a log, each checked: a CPU adapter fails the run
# unless --allow-cpu.
check_adapters() {
    local log=$1 line
    while IFS= read -r line; do
        if is_cpu_adapter "$line" && [ "$ALLOW_CPU" != 1 ]; then
            FAILURES+=("$log ran on a CPU adapter: ${line#adapter: }")
        fi
    done < <(grep '^adapter: ' "$OUT/$log" || true)
}

# Per test binary, from nextest's JUnit XML: tests, passed, failed; then the
# failed tests by name.
junit_table() {
    local xml=$1
    echo "| test binary | tests | passed | failed |"
    echo "| --- | ---: | ---: | ---: |"
    grep -o '<testsuite [^>]*>' "$xml" | while IFS= read -r suite; do
        local name tests failures errors
        name=$(sed -n 's/.* name="\([^"]*\)".*/\1/p' <<<"$suite")
        tests=$(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$suite")
        failures=$(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$suite")
        errors=$(sed -n 's/.* errors="\([0-9]*\)".*/\1/p' <<<"$suite")
        echo "| $name | $tests | $((tests - failures - errors)) | $((failures + errors)) |"
    done
    local failed
    failed=$(awk '
        /<testcase / { match($0, / name="[^"]*"/); name = substr($0, RSTART + 7, RLENGTH - 8)
                       match($0, / classname="[^"]*"/); cls = substr($0, RSTART + 12, RLENGTH - 13) }
        /<failure|<error/ { print "- " cls " " name }' "$xml")
    if [ -n "$failed" ]; then
        echo
        echo "Failed:"
        echo
        echo "$failed"
    fi
}

# nextest's own summary line(s), from its log.
nextest_summary() {
    grep -E '^ *Summary \[' "$OUT/$1" | sed 's/^ *//' || echo "(no summary line: see $1)"
}

# A copy of the bundle's workspace for one run of the tests (nextest writes
# its JUnit XML under it, so the bundle itself is never written to), with
# nextest's per-test time limit scaled like every other limit.
workspace_copy() {
    local ws="$WORK/workspace-$1" cfg period
    cp -a "$BUNDLE/workspace" "$ws"
    cfg="$ws/.config/nextest.toml"
    period=$(sed -n 's/^slow-timeout = { period = "\([0-9]*\)s".*/\1/p' "$cfg")
    if [ -n "$period" ]; then
        sed -i "s/period = \"${period}s\"/period = \"$((period * SCALE))s\"/" "$cfg"
    fi
    echo "$ws"
}

run_tests() {
    local path=$1 dir="$WORK/nextest-$1" log="tests-$1.log" rc=0 ws xml
    ws=$(workspace_copy "$path")
    local args=(nextest run --color never --user-config-file none
        --archive-file "$BUNDLE/tests.tar.zst" --extract-to "$dir" --extract-overwrite
        --workspace-remap "$ws" -P "$NEXTEST_PROFILE")
    if [ -n "$FILTER" ]; then args+=(-E "$FILTER"); fi
    mkdir -p "$dir"
    DUAL_DELTA_HOME="$OUT/reports/tests-$path" INSTA_WORKSPACE_ROOT="$ws" INSTA_UPDATE=no \
        run_step tests "$path" "$T_TESTS" "$log" "$BUNDLE/bin/cargo-nextest" "${args[@]}" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    xml=$(find "$ws" "$dir" -path "*/nextest/$NEXTEST_PROFILE/junit.xml" | head -1)
    if [ -n "$xml" ]; then cp "$xml" "$OUT/tests-$path.junit.xml"; fi
    {
        echo "### Tests, $path f16 path"
        echo
        if [ -n "$FILTER" ]; then
            echo "**Subset only** (-E '$FILTER'): not a full run."
            echo
        fi
        nextest_summary "$log"
        echo
        if [ -f "$OUT/tests-$path.junit.xml" ]; then
            junit_table "$OUT/tests-$path.junit.xml"
        else
            echo "No JUnit XML (the step ended early): see $log."
        fi
        echo
    } >>"$OUT/tests.md"
    return "$rc"
}

run_kernels() {
    local path=$1 log="kernels-$1.log" rc=0
    DUAL_DELTA_HOME="$OUT/reports/kernels-$path" \
        run_step kernels "$path" "$T_KERNELS" "$log" "$BUNDLE/examples/kernels" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    check_adapters "$log"
    local rows bad
    rows=$(grep -E '^\|' "$OUT/$log" || true)
    bad=$(grep -cE 'NOT MET|could not run' <<<"$rows" || true)
    if [ -z "$rows" ] && [ "$rc" -eq 0 ]; then FAILURES+=("kernels ($path f16 path): no table in $log"); fi
    if [ "$bad" -gt 0 ]; then FAILURES+=("kernels ($path f16 path): $bad row(s) not as expected"); fi
    {
        echo "### kernels, $path f16 path: $(grep -c '✓' <<<"$rows" || true) rows as expected, $bad not$(
            [ "$rc" -eq 0 ] || echo "; the example did not finish (exit $rc)")"
        echo
        grep '^adapter: ' "$OUT/$log" || true
        echo
        if [ -n "$rows" ]; then echo "$rows"; else echo "No table: see $log."; fi
        echo
        grep -E '^total time' "$OUT/$log" || true
        echo
    } >>"$OUT/kernels.md"
    return "$rc"
}

run_paper() {
    local path=$1 log="paper-$1.log" rc=0
    DUAL_DELTA_HOME="$OUT/reports/paper-$path" \
        run_step paper "$path" "$T_PAPER" "$log" "$BUNDLE/examples/paper" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    check_adapters "$log"
    {
        echo "### paper, $path f16 path: $(grep -E '^total time' "$OUT/$log" || echo "no total time: see $log")"
        echo
        grep '^adapter: ' "$OUT/$log" || true
        echo
        # Each case: its title, verdict, expectation and time.
        grep -E '^Case|^  verdict:|^  expected|^  time:' "$OUT/$log" | sed 's/^  /  - /; s/^Case/- Case/' || echo "No verdicts: see $log."
        echo
    } >>"$OUT/paper.md"
    return "$rc"
}

run_probe() {
    local path=$1 log="probe-$1.log" rc=0
    run_step probe "$path" "$T_PROBE" "$log" "$BUNDLE/examples/probe" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    check_adapters "$log"
    {
        echo "### probe, $path f16 path"
        echo
        grep -E '^adapter: |^summary: |^caveat' "$OUT/$log" | sed 's/^/- /' || echo "No probe output: see $log."
        echo
    } >>"$OUT/probe.md"
    return "$rc"
}

run_fp8() {
    local path=$1 log="fp8-$1.log" rc=0
    DUAL_DELTA_HOME="$OUT/reports/fp8-$path" \
        run_step fp8 "$path" "$T_FP8" "$log" "$BUNDLE/examples/fp8" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    check_adapters "$log"
    # The example exits 0 even when a case cannot run: its log says so.
    if grep -q 'could not run' "$OUT/$log"; then
        FAILURES+=("fp8 ($path f16 path): a case could not run, see $log")
    fi
    return "$rc"
}

run_matmul() {
    local log="matmul_timing.log" rc=0
    run_step matmul_timing auto "$T_MATMUL" "$log" "$BUNDLE/examples/matmul_timing" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    check_adapters "$log"
    {
        echo "Both f16 paths where the adapter has native f16 (the example makes both itself)."
        echo
        echo '```'
        sed -n '/^adapter: /,$p' "$OUT/$log"
        echo '```'
        echo
    } >>"$OUT/matmul.md"
    return "$rc"
}

write_summary() {
    local start=$1 adapter=$2 total=$(($(date +%s) - $1)) f
    {
        echo "# dual-delta GPU suite"
        echo
        if [ ${#FAILURES[@]} -eq 0 ]; then
            echo "**PASSED**"
        else
            echo "**FAILED**:"
            echo
            printf -- '- %s\n' "${FAILURES[@]}"
        fi
        echo
        echo "- adapter: ${adapter:-none found}"
        if [ "$ALLOW_CPU" = 1 ]; then echo "- CPU adapters allowed (--allow-cpu): a check of the bundle, not a GPU run"; fi
        if [ -n "$FILTER" ]; then echo "- tests: **subset only**, -E '$FILTER'"; fi
        sed 's/^/- bundle /' "$BUNDLE/MANIFEST"
        echo "- machine: $(uname -n), $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
        echo "- started $(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ), total time ${total} s"
        echo "- DUAL_DELTA_* in force: $(env | grep -E '^DUAL_DELTA_' | grep -vE '^DUAL_DELTA_(GPU_F16|HOME|GPU_SUITE_ALLOW_CPU)=' | tr '\n' ' ')"
        echo
        echo "## Steps"
        echo
        echo "| step | f16 path | result | time | log |"
        echo "| --- | --- | --- | ---: | --- |"
        printf '%s\n' "${STEPS[@]}"
        echo
        for f in tests kernels paper probe matmul; do
            if [ -f "$OUT/$f.md" ]; then
                case $f in
                tests) echo "## Tests (nextest, per test binary)" ;;
                kernels) echo "## kernels: each case's verdict against the one expected" ;;
                paper) echo "## paper: time and the three verdicts" ;;
                probe) echo "## probe: what the device does to floating point" ;;
                matmul) echo "## matmul timings" ;;
                esac
                echo
                cat "$OUT/$f.md"
                rm "$OUT/$f.md"
            fi
        done
        echo "Reports (HTML, summary.json) of each step are under reports/."
    } >"$OUT/summary.md"
}

run() {
    local given=""
    while [ $# -gt 0 ]; do
        case $1 in
        --allow-cpu) ALLOW_CPU=1 ;;
        --out) OUT=${2:?--out needs a directory} && shift ;;
        --timeout-scale) SCALE=${2:?--timeout-scale needs a number} && shift ;;
        -E) FILTER=${2:?-E needs a filterset} && shift ;;
        -h | --help) usage && exit 0 ;;
        -*) usage >&2 && exit 2 ;;
        *)
            if [ -n "$given" ]; then die "one bundle at a time"; fi
            given=$1
            ;;
        esac
        shift
    done
    [[ $SCALE =~ ^[1-9][0-9]*$ ]] || die "--timeout-scale takes a whole number ≥ 1"
    command -v timeout >/dev/null || die "run needs timeout (coreutils)"

    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-suite.XXXXXX")
    trap cleanup EXIT
    BUNDLE=$(locate_bundle "$given")
    OUT=${OUT:-$PWD/gpu-suite-results-$(date -u +%Y%m%dT%H%M%SZ)}
    mkdir -p "$OUT"
    OUT=$(cd "$OUT" && pwd)
    local start
    start=$(date +%s)
    DEADLINE=$((start + BUDGET_S * SCALE))

    # Tests never skip for want of a GPU; reports stay out of the bundle.
    export DUAL_DELTA_GPU=require DUAL_DELTA_PROGRESS=0
    echo "bundle: $BUNDLE"
    echo "results: $OUT"

    # The adapter first: the one every step will get (same variables, same
    # choice), named in the summary; a CPU driver ends the run here unless
    # allowed.
    local adapter=""
    run_step adapter auto "$T_PROBE" adapter.log "$BUNDLE/examples/probe" || true
    adapter=$(sed -n 's/^adapter: //p' "$OUT/adapter.log" | head -1)
    if [ -z "$adapter" ]; then
        FAILURES+=("no usable adapter (see adapter.log): is a Vulkan driver installed?")
        write_summary "$start" ""
        cat "$OUT/summary.md"
        exit 1
    fi
    echo "adapter: $adapter"
    if is_cpu_adapter "$adapter" && [ "$ALLOW_CPU" != 1 ]; then
        FAILURES+=("the adapter is a CPU driver, not a GPU: $adapter. The GPU's Vulkan driver is missing or was not chosen (vulkaninfo --summary lists the drivers; DUAL_DELTA_ADAPTER picks one). To check the bundle itself on a CPU driver, pass --allow-cpu.")
        write_summary "$start" "$adapter"
        echo >&2
        echo "gpu-suite: FAILED: ${FAILURES[-1]}" >&2
        echo "summary: $OUT/summary.md" >&2
        exit 3
    fi
    # Every later step asks for a hardware GPU: should a step get another
    # adapter than the one named above, a CPU driver fails it
    # (GpuError::NotHardware) instead of passing on llvmpipe.
    if [ "$ALLOW_CPU" != 1 ]; then
        export DUAL_DELTA_GPU=require-hardware
    fi

    local path
    for path in "${F16_PATHS[@]}"; do
        run_probe "$path" || true
        run_tests "$path" || true
        run_kernels "$path" || true
        run_paper "$path" || true
        run_fp8 "$path" || true
    done
    run_matmul || true

    write_summary "$start" "$adapter"
    echo
    cat "$OUT/summary.md"
    echo
    echo "summary: $OUT/summary.md"
    echo "total time: $(($(date +%s) - start)) s"
    [ ${#FAILURES[@]} -eq 0 ]
}

case ${1:-} in
pack) shift && pack "$@" ;;
run) shift && run "$@" ;;
help | -h | --help) usage ;;
*) usage >&2 && exit 2 ;;
esac
