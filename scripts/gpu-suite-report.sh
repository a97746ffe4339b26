# The summary of `scripts/gpu-suite.sh run` (summary.md): nextest's
# results per test binary, and every step's. Sourced by gpu-suite.sh (whose
# globals of a run it reads), and shipped in the bundle beside it.

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
