#!/usr/bin/env bash
# The steps of the accuracy workflow (.github/workflows/accuracy.yml), the
# same on a CI machine and on yours: the tests of one partition of the
# suite with their reports in a folder of their own, then the shards'
# reports merged into one.
#
#   scripts/ci-accuracy.sh [-C DIR] shard K N [CARGO-ARGS...] [-- TEST-ARGS...]
#   scripts/ci-accuracy.sh [-C DIR] merge [REPORT-DIR...] [--out DIR] [--suite-alpha A]
#
# For example, a suite in two shards and their merge, on one machine:
#
#   scripts/ci-accuracy.sh shard 1 2 --workspace
#   scripts/ci-accuracy.sh shard 2 2 --workspace
#   scripts/ci-accuracy.sh merge     # target/dual-delta/shard-* into target/dual-delta/merged
#
# shard K N runs the tests of partition K of N (1 <= K <= N), with their
# reports in REPORTS/shard-K (emptied first), and exits with the tests'
# status. CARGO-ARGS select what is built (`--workspace`, `-p NAME`,
# `--test NAME`, `--features ...`); TEST-ARGS go to the tests (name
# filters, `--exact`, `--ignored`). Doc tests are not run: run them apart
# (`cargo test --doc`).
#
# merge runs `cargo dual-delta merge` on the report folders (default: every
# REPORTS/shard-*) into --out (default: REPORTS/merged): one index.html,
# suite.json and summary.md. Where GITHUB_STEP_SUMMARY is set, summary.md is
# appended to it. It exits with merge's status: non-zero where a failure is
# kept.
#
# -C DIR: the project to run in (default: the folder above this script's).
# Paths on the command line are taken from where the script is run.
#
# Environment:
#   DUAL_DELTA_REPORTS   where the shards' reports go (default:
#                        ${CARGO_TARGET_DIR:-target}/dual-delta in the project)
#   DUAL_DELTA_PARTITION how shard partitions: `nextest` (`cargo nextest run
#                        --partition count:K/N`) or `binary` (every N-th test
#                        binary, by `cargo test`); default: nextest where
#                        `cargo nextest` is installed, else binary
#   DUAL_DELTA_CLI       the `cargo-dual-delta` binary merge runs (default:
#                        `cargo dual-delta`, the installed one)
#   DUAL_DELTA_SAVE_BASELINE, DUAL_DELTA_BASELINE
#                        as for `cargo test`: save the runs as the baseline of
#                        this name, or compare them with it. Empty is unset, and
#                        a baseline with no folder yet (the first run on a pull
#                        request, before main saved one) is not compared.
#   DUAL_DELTA_BASELINE_DIR
#                        where baselines are kept (default: REPORTS/baselines,
#                        shared by the shards)
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

die() {
    echo "ci-accuracy: $*" >&2
    exit 2
}

# $1 as an absolute path, taken from the directory the script was run in.
absolute() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s\n' "$CALLER_DIR/$1" ;;
    esac
}

# Where the shards' reports go: DUAL_DELTA_REPORTS, else dual-delta/ in the
# project's target directory.
reports_root() {
    if [ -n "${DUAL_DELTA_REPORTS:-}" ]; then
        absolute "$DUAL_DELTA_REPORTS"
    else
        local target=${CARGO_TARGET_DIR:-target}
        case $target in
            /*) printf '%s\n' "$target/dual-delta" ;;
            *) printf '%s\n' "$PWD/$target/dual-delta" ;;
        esac
    fi
}

# --- shard --------------------------------------------------------------------

shard() {
    [ $# -ge 2 ] || die "usage: shard K N [CARGO-ARGS...] [-- TEST-ARGS...]"
    local k=$1 n=$2
    shift 2
    case "$k,$n" in
        *[!0-9,]* | ,* | *,) die "shard K N: K and N are numbers, got '$k' '$n'" ;;
    esac
    if [ "$k" -lt 1 ] || [ "$k" -gt "$n" ]; then die "shard K N needs 1 <= K <= N"; fi

    # This shard's reports, and nothing left from an earlier run.
    local reports
    reports=$(reports_root)
    export DUAL_DELTA_HOME="$reports/shard-$k"
    rm -rf "$DUAL_DELTA_HOME"
    mkdir -p "$DUAL_DELTA_HOME"
    export DUAL_DELTA_BASELINE_DIR="${DUAL_DELTA_BASELINE_DIR:-$reports/baselines}"

    # Baselines: an empty name is none (a workflow's expression gives ''
    # where it does not apply), and a baseline not saved yet is not
    # compared rather than reported missing by every test.
    [ -n "${DUAL_DELTA_SAVE_BASELINE:-}" ] || unset DUAL_DELTA_SAVE_BASELINE
    [ -n "${DUAL_DELTA_BASELINE:-}" ] || unset DUAL_DELTA_BASELINE
    if [ -n "${DUAL_DELTA_BASELINE:-}" ] && [ ! -d "$DUAL_DELTA_BASELINE_DIR/$DUAL_DELTA_BASELINE" ]; then
        echo "ci-accuracy: no baseline '$DUAL_DELTA_BASELINE' under $DUAL_DELTA_BASELINE_DIR yet: not comparing" >&2
        unset DUAL_DELTA_BASELINE
    fi

    local by=${DUAL_DELTA_PARTITION:-}
    if [ -z "$by" ]; then
        if cargo nextest --version >/dev/null 2>&1; then by=nextest; else by=binary; fi
    fi
    echo "ci-accuracy: partition $k of $n by $by, reports in $DUAL_DELTA_HOME" >&2
    case $by in
        # Nextest counts the tests of each binary into the N partitions.
        nextest) cargo nextest run --no-fail-fast --partition "count:$k/$n" "$@" ;;
        binary) shard_by_binary "$k" "$n" "$@" ;;
        *) die "DUAL_DELTA_PARTITION is nextest or binary, not '$by'" ;;
    esac
}

# The fallback without nextest: the test binaries `cargo test` would run,
# sorted by package, kind and name (the same order on every machine),
# every N-th one from the K-th; each run in its package's folder, as
# `cargo test` runs it. Coarser than nextest's partitions, which split a
# binary's tests too.
shard_by_binary() {
    local k=$1 n=$2
    shift 2
    local build=() tests=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do build+=("$1") && shift; done
    [ $# -eq 0 ] || { shift && tests=("$@"); }

    # Build, and list the test executables from Cargo's JSON messages: the
    # artifacts built with the test profile (`"test":true` closes the
    # profile, which `"features"` follows) that have an executable.
    local listing
    listing=$(cargo test --no-run --message-format=json ${build[@]+"${build[@]}"})
    local binaries
    binaries=$(printf '%s\n' "$listing" |
        grep '"reason":"compiler-artifact"' |
        grep '"test":true},"features"' |
        sed -n 's/.*"manifest_path":"\([^"]*\)".*"target":{"kind":\[\([^]]*\)\].*"name":"\([^"]*\)".*"executable":"\([^"]*\)".*/\1\t\2\t\3\t\4/p' |
        LC_ALL=C sort || true)

    local status=0 index=0 manifest kind name exe
    while IFS=$'\t' read -r manifest kind name exe; do
        [ -n "$exe" ] || continue
        if [ $((index % n)) -eq $((k - 1)) ]; then
            echo "     Running $name (${kind//\"/}) $exe" >&2
            (cd "$(dirname "$manifest")" &&
                CARGO_MANIFEST_DIR="$(dirname "$manifest")" "$exe" ${tests[@]+"${tests[@]}"}) ||
                status=$?
        fi
        index=$((index + 1))
    done <<<"$binaries"
    [ "$index" -gt 0 ] || die "no test binaries built by: cargo test ${build[*]-}"
    return "$status"
}

# --- merge --------------------------------------------------------------------

merge() {
    local reports dirs=() out="" alpha=()
    reports=$(reports_root)
    while [ $# -gt 0 ]; do
        case $1 in
            --out | --suite-alpha)
                [ $# -ge 2 ] || die "$1 needs a value"
                if [ "$1" = --out ]; then out=$(absolute "$2"); else alpha=("$1" "$2"); fi
                shift
                ;;
            --out=*) out=$(absolute "${1#--out=}") ;;
            --suite-alpha=*) alpha=("$1") ;;
            -*) die "merge: unknown option $1" ;;
            *) dirs+=("$(absolute "$1")") ;;
        esac
        shift
    done
    if [ ${#dirs[@]} -eq 0 ]; then
        local d
        for d in "$reports"/shard-*; do [ -d "$d" ] && dirs+=("$d"); done
        [ ${#dirs[@]} -gt 0 ] || die "no shard reports under $reports (run shard first, or name the folders)"
    fi
    out=${out:-$reports/merged}

    # The installed `cargo dual-delta`, or the binary named, called as Cargo
    # calls it (its first argument the subcommand's name).
    local cli=(cargo dual-delta)
    if [ -n "${DUAL_DELTA_CLI:-}" ]; then cli=("$DUAL_DELTA_CLI" dual-delta); fi

    local status=0
    "${cli[@]}" merge "${dirs[@]}" --out "$out" ${alpha[@]+"${alpha[@]}"} || status=$?
    # The summary whatever merge decided: a kept failure is why it is read.
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
        cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
    fi
    return "$status"
}

# --- main ---------------------------------------------------------------------

CALLER_DIR=$PWD
project="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = -C ]; then
    [ $# -ge 2 ] || die "-C needs a folder"
    project=$(absolute "$2")
    shift 2
fi
cd "$project"

command=${1:-help}
[ $# -eq 0 ] || shift
case $command in
    shard) shard "$@" ;;
    merge) merge "$@" ;;
    help | -h | --help) usage ;;
    *) usage >&2 && exit 2 ;;
esac
