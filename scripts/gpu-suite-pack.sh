# `scripts/gpu-suite.sh pack`: builds the bundle. Sourced by gpu-suite.sh,
# whose settings (PACKAGES, TEST_BINARIES, EXAMPLES, BUNDLE_NAME) it reads; not
# shipped in the bundle.

# The newest glibc symbol version any of the files named needs.
glibc_needed() {
    objdump -T "$@" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1
}

pack() {
    [ $# -eq 0 ] || die "pack takes no arguments"
    local tool
    for tool in cargo strip objdump zstd xz; do
        command -v "$tool" >/dev/null || die "pack needs $tool"
    done
    local nextest
    nextest=$(command -v cargo-nextest) || die "pack needs cargo-nextest (cargo install cargo-nextest)"
    local root target bundle start
    root=$(repo_root)
    target=$(target_dir "$root")
    [ -n "$target" ] || die "could not find the target directory"
    bundle="$target/$BUNDLE_NAME"
    start=$(date +%s)
    rm -rf "$bundle" "$bundle.tar.xz" "$bundle.tar.gz" "$target/$BUNDLE_NAME-tests.tar.zst"
    mkdir -p "$bundle/bin" "$bundle/examples" "$bundle/tests" "$bundle/workspace/.config"

    echo "== tests: $TEST_BINARIES"
    local packages=() package
    for package in "${PACKAGES[@]}"; do packages+=(-p "$package"); done
    (cd "$root" && cargo nextest archive "${packages[@]}" -E "$TEST_BINARIES" \
        --archive-file "$target/$BUNDLE_NAME-tests.tar.zst")
    # Unpacked here once, so that a run never unpacks it again.
    zstd -dc "$target/$BUNDLE_NAME-tests.tar.zst" | tar -xf - -C "$bundle/tests"
    rm "$target/$BUNDLE_NAME-tests.tar.zst"
    # The Rust toolchain's library directory, which nextest puts on the
    # tests' library path: the copy in the bundle, wherever it lies at run
    # time (the tests link the standard library statically; proc macros
    # need it, and none runs there).
    sed -i '/"libdir": {/,/}/ s|"path": "[^"]*"|"path": "@BUNDLE@/tests/target/nextest/libdirs/host"|' \
        "$bundle/tests/target/nextest/binaries-metadata.json"
    grep -q '@BUNDLE@' "$bundle/tests/target/nextest/binaries-metadata.json" ||
        die "nextest's metadata has no libdir where expected"

    echo "== examples (release): ${EXAMPLES[*]}"
    local args=() name
    for name in "${EXAMPLES[@]}"; do args+=(--example "$name"); done
    (cd "$root" && cargo build --release "${args[@]}")
    for name in "${EXAMPLES[@]}"; do
        cp "$target/release/examples/$name" "$bundle/examples/"
    done
    cp "$nextest" "$bundle/bin/cargo-nextest"

    echo "== stripped"
    local binaries
    mapfile -t binaries < <(find "$bundle" -type f -perm -u+x -exec sh -c \
        'head -c 4 "$1" | grep -q ELF' _ {} \; -print)
    strip --strip-all "${binaries[@]}"

    # What nextest reads besides the binaries: its profile and the
    # manifests (which it checks exist). The tests read no other file of the
    # workspace (their fixtures are compiled in); each runs in its
    # package's directory.
    cp "$root/.config/nextest.toml" "$bundle/workspace/.config/"
    cp "$root/Cargo.toml" "$bundle/workspace/"
    for package in gpu-backend tests; do
        mkdir -p "$bundle/workspace/$package"
        cp "$root/$package/Cargo.toml" "$bundle/workspace/$package/"
    done
    cp "$root"/scripts/gpu-suite{,-check,-report}.sh "$bundle/"

    {
        echo "commit: $(git -C "$root" describe --always --dirty --abbrev=12)"
        echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
        echo "rustc: $(rustc --version)"
        echo "nextest: $("$nextest" nextest --version | head -1)"
        echo "tests: $TEST_BINARIES, $(find "$bundle/tests" -path '*/deps/*' -type f -perm -u+x | wc -l) binaries"
        echo "examples: ${EXAMPLES[*]}"
        echo "needs glibc: $(glibc_needed "${binaries[@]}")"
    } >"$bundle/MANIFEST"

    echo "== $bundle.tar.xz"
    # One solid stream with a 64 MiB dictionary: the test binaries share
    # most of their code (wgpu, naga, the kernels), which it finds again.
    tar -C "$target" -cf - "$BUNDLE_NAME" | xz -9 -T1 >"$bundle.tar.xz"
    cat "$bundle/MANIFEST"
    du -sh "$bundle"
    ls -l "$bundle.tar.xz"
    echo "pack took $(($(date +%s) - start)) s"
}
