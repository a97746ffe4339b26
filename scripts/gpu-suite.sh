#!/usr/bin/env bash
# The GPU checks as one portable bundle: built where the Rust toolchain is,
# run on any Linux machine with a Vulkan driver and no toolchain.
#
#   scripts/gpu-suite.sh pack              build target/gpu-suite/ and target/gpu-suite.tar.xz
#   scripts/gpu-suite.sh check [BUNDLE]    say what this machine lacks to run a bundle
#   scripts/gpu-suite.sh run [options] [BUNDLE]
#
# Run `scripts/gpu-suite.sh help` for the options.
set -euo pipefail

# --- What goes into the bundle ------------------------------------------------

# The GPU tests only: the test binaries of dual-delta-gpu (its unit tests
# run kernels on the device too) and the integration tests of the tests
# crate (the case studies, each a GPU kernel judged). The runtime's tests,
# which use no GPU, stay out, and so do the tests of the imitated driver
# freedoms: they rewrite the kernels as a GPU driver may compile them, to
# check on lavapipe (with every `cargo test`) what a GPU run checks on the
# GPU's own driver. The case studies' tests that the kernels and paper
# examples repeat (each case's verdict, checked by `run`) stay out too, and
# so do the FP8 and bf16 case studies: their kernels are compared bit for
# bit with their emulations in the bundle (`lowp_kernels`, at the case
# study's shape too), and on those bits the verdicts are lavapipe's, which
# every `cargo test` checks. (The unit tests of the imitations and the
# README's matmul study, which share binaries with tests that stay, are left
# out by the nextest profile's default filter: .config/nextest.toml, which
# also leaves out the imitations' tests in the GPU crate's own test binary.)
# nextest chooses an archive's binaries by binary, package and kind alone
# (no `test()` predicate): the finer choice of tests is the run's.
IMITATION='binary(driver_freedom_verdicts)'
REPEATED='binary(kernel_case_studies) | binary(norm_attention_case_studies) | binary(paper_case_studies) | binary(fp8_case_study)'
# Tests that drive Cargo itself (the bundle's filters, every freedom at
# once in a child `cargo test`): a GPU machine has no toolchain.
NEEDS_CARGO='binary(gpu_suite_filters) | binary(every_freedom_at_once)'
# The packages built for the tests (only these: the filter above picks
# among their binaries).
PACKAGES=(dual-delta-gpu dual-delta-tests)
TEST_BINARIES="(package(dual-delta-gpu) | (package(dual-delta-tests) & kind(test))) & not ($IMITATION | $REPEATED | $NEEDS_CARGO)"
# Release builds of these examples: the device probe, the kernels table,
# the paper's three case studies, and the matmul timings.
EXAMPLES=(probe kernels paper matmul_timing)
# The inputs each case of the kernels and paper examples takes at most
# (DUAL_DELTA_N; their own default is 1000), so that the whole run fits
# its six minutes on lavapipe: the careful attention alone, each of whose
# inputs needs the f64 oracle, took 190 s of the kernels example's 223 s
# there at 1000. Every verdict is the same at 200: each mistaken kernel is
# caught within 20 inputs, the careful ones' ratios of mean errors are
# those of 1000 inputs to three digits (the means themselves within 15%),
# and the paper's three verdicts and figures hold.
EXAMPLES_N=200
# The nextest profile (.config/nextest.toml) that writes JUnit XML.
NEXTEST_PROFILE="gpu-suite"
BUNDLE_NAME="gpu-suite"

# --- Time limits of `run` (seconds, each multiplied by --timeout-scale) ------

# No step may run past the budget of the whole run, whatever its own limit:
# on a GPU machine the run ends within about six minutes.
BUDGET_S=360
T_PROBE=30
# Above nextest's own limit per test (the profile's slow-timeout period
# times terminate-after, scaled alike), so that nextest ends a hung test and
# reports it rather than the whole step being killed: `run` checks this.
T_TESTS=240
T_KERNELS=120
T_PAPER=60
T_MATMUL=60

F16_PATHS=(native fallback)

usage() {
    cat <<USAGE
usage: $0 pack
       $0 check [BUNDLE]
       $0 run [--allow-cpu] [--out DIR] [--timeout-scale N] [-E FILTERSET] [BUNDLE]

pack    Build the bundle (needs cargo, cargo-nextest, strip, zstd and xz):
        the GPU tests ($TEST_BINARIES),
        stripped, with nextest's metadata; stripped release builds of the
        examples ${EXAMPLES[*]}; cargo-nextest itself. In
        <target dir>/$BUNDLE_NAME/ and <target dir>/$BUNDLE_NAME.tar.xz.

check   One line each: whether this machine has the Vulkan loader
        (libvulkan.so.1), a Vulkan driver's ICD file, and a glibc as new as
        the bundle's binaries need. \`run\` checks this first and stops when
        something is missing.

run     Run a bundle (a directory, or a .tar.xz extracted once; by default
        the bundle this script is in, else <target dir>/$BUNDLE_NAME) on the
        chosen Vulkan adapter. Needs no Rust toolchain. The tests run once
        (each kernel test runs both f16 paths itself where the adapter has
        native f16); the probe, kernels and paper examples run on both f16
        paths (DUAL_DELTA_GPU_F16=native and fallback), the kernels and
        paper examples at most $EXAMPLES_N inputs a case (DUAL_DELTA_N), then
        matmul_timing.
        Writes summary.md and every step's log into the output directory.
        Exits non-zero when a test fails, a kernels row or a paper verdict
        is not the one expected, a step fails or times out, or the adapter
        is a CPU driver.

  --allow-cpu         accept a CPU adapter (llvmpipe/lavapipe), to check the
                      bundle itself; without it a CPU adapter fails the run,
                      and every step runs with DUAL_DELTA_GPU=require-hardware
                      (also: DUAL_DELTA_GPU_SUITE_ALLOW_CPU=1)
  --out DIR           where the summary and logs go
                      (default: ./gpu-suite-results-<UTC time>)
  --timeout-scale N   multiply every step's limit, nextest's limit per test
                      and the run's budget (${BUDGET_S} s) by N, for slow
                      machines
  -E FILTERSET        run only the tests nextest's filterset selects (a
                      check of the bundle, not a full run)

DUAL_DELTA_ADAPTER picks the adapter as for the tests (README, "Configuration").
USAGE
}

die() {
    echo "gpu-suite: $*" >&2
    exit 2
}

# --- the workspace (pack, and run from a checkout) -----------------------------

# The workspace root: the directory above this script's.
repo_root() {
    cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd
}

target_dir() {
    local meta
    meta=$(cargo metadata --format-version 1 --no-deps --manifest-path "$1/Cargo.toml")
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p' <<<"$meta"
}

# --- check, and the preflight of run: scripts/gpu-suite-check.sh -------------

# shellcheck source=scripts/gpu-suite-check.sh
source "$(dirname "${BASH_SOURCE[0]}")/gpu-suite-check.sh"

# --- the summary of a run: scripts/gpu-suite-report.sh -----------------------

# shellcheck source=scripts/gpu-suite-report.sh
source "$(dirname "${BASH_SOURCE[0]}")/gpu-suite-report.sh"

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
        echo "extracting $given (once)" >&2
        tar -xf "$given" -C "$WORK"
        given="$WORK/$BUNDLE_NAME"
    fi
    if [ ! -f "$given/MANIFEST" ] || [ ! -f "$(metadata "$given" binaries)" ]; then
        die "$given is not a bundle (build one with: $0 pack)"
    fi
    cd "$given" && pwd
}

# nextest's metadata of the bundle's tests: $2 is binaries or cargo.
metadata() {
    echo "$1/tests/target/nextest/$2-metadata.json"
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

# A copy of the bundle's workspace for the tests, with nextest's limit per
# test scaled like every other limit; prints it. Dies when that limit is
# not below the tests step's own, where a hung test would take the whole
# step down with it, unreported.
workspace_copy() {
    local ws="$WORK/workspace" cfg period after
    cp -a "$BUNDLE/workspace" "$ws"
    cfg="$ws/.config/nextest.toml"
    period=$(sed -n 's/^slow-timeout = { period = "\([0-9]*\)s".*/\1/p' "$cfg")
    after=$(sed -n 's/^slow-timeout = .*terminate-after = \([0-9]*\).*/\1/p' "$cfg")
    [ -n "$period" ] && [ -n "$after" ] || die "no slow-timeout with terminate-after in $cfg"
    [ $((period * after)) -lt "$T_TESTS" ] ||
        die "nextest ends a test after $((period * after)) s, not below the tests step's $T_TESTS s"
    sed -i "s/period = \"${period}s\"/period = \"$((period * SCALE))s\"/" "$cfg"
    echo "$ws"
}

run_tests() {
    local log="tests.log" rc=0 ws xml
    ws=$(workspace_copy)
    # The library directory recorded in the bundle, where it lies now.
    sed "s|@BUNDLE@|$BUNDLE|" "$(metadata "$BUNDLE" binaries)" >"$WORK/binaries-metadata.json"
    local args=(nextest run --color never --user-config-file none
        --binaries-metadata "$WORK/binaries-metadata.json"
        --cargo-metadata "$(metadata "$BUNDLE" cargo)"
        --target-dir-remap "$BUNDLE/tests/target" --workspace-remap "$ws"
        --config-file "$ws/.config/nextest.toml" -P "$NEXTEST_PROFILE")
    if [ -n "$FILTER" ]; then args+=(-E "$FILTER"); fi
    DUAL_DELTA_HOME="$OUT/reports/tests" \
        run_step tests auto "$T_TESTS" "$log" "$BUNDLE/bin/cargo-nextest" "${args[@]}" || rc=$?
    if [ ! -f "$OUT/$log" ]; then return "$rc"; fi # not run: out of time
    # nextest's store lies in the workspace's copy: the bundle is never
    # written to.
    xml="$ws/target/nextest/$NEXTEST_PROFILE/junit.xml"
    if [ -f "$xml" ]; then cp "$xml" "$OUT/tests.junit.xml"; fi
    {
        echo "### Tests (both f16 paths where the adapter has native f16)"
        echo
        if [ -n "$FILTER" ]; then
            echo "**Subset only** (-E '$FILTER'): not a full run."
            echo
        fi
        nextest_summary "$log"
        grep -E '^ *(SLOW|TIMEOUT|TERMINATING)' "$OUT/$log" | sed 's/^ */    /' || true
        echo
        # Every difference from an emulation that a test accepted within
        # its stated bound, with the reason it gives (the profile keeps the
        # output of passing tests): none means every kernel compared was
        # bit-exact with its emulation.
        local accepted
        accepted=$(grep -c 'accepted because' "$OUT/$log" || true)
        echo "Differences from an emulation accepted within a stated bound: $accepted"
        grep -o 'note: .*accepted because.*' "$OUT/$log" | cut -c1-400 | sed 's/^/    /' || true
        echo
        if [ -f "$OUT/tests.junit.xml" ]; then
            junit_table "$OUT/tests.junit.xml"
        else
            echo "No JUnit XML (the step ended early): see $log."
        fi
        echo
    } >>"$OUT/tests.md"
    return "$rc"
}

run_kernels() {
    local path=$1 log="kernels-$1.log" rc=0
    DUAL_DELTA_HOME="$OUT/reports/kernels-$path" DUAL_DELTA_N=$EXAMPLES_N \
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
    DUAL_DELTA_HOME="$OUT/reports/paper-$path" DUAL_DELTA_N=$EXAMPLES_N \
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

    # What the machine lacks, said before anything runs.
    if ! preflight "$BUNDLE" | tee "$OUT/preflight.log"; then
        FAILURES+=("the machine lacks what the bundle needs: $(grep MISSING "$OUT/preflight.log" | sed 's/^preflight: //' | tr '\n' ' ')")
        write_summary "$start" ""
        cat "$OUT/summary.md"
        exit 4
    fi

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

    run_tests || true
    local path
    for path in "${F16_PATHS[@]}"; do
        run_probe "$path" || true
        run_kernels "$path" || true
        run_paper "$path" || true
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
pack)
    shift
    # shellcheck source=scripts/gpu-suite-pack.sh
    source "$(dirname "${BASH_SOURCE[0]}")/gpu-suite-pack.sh"
    pack "$@"
    ;;
check) shift && check "$@" ;;
run) shift && run "$@" ;;
# The archive's filterset, as pack passes it to nextest (read by the test
# that checks nextest accepts it: tests/tests/gpu_suite_filters.rs).
archive-filter) echo "$TEST_BINARIES" ;;
help | -h | --help) usage ;;
*) usage >&2 && exit 2 ;;
esac
