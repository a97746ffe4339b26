# `scripts/gpu-suite.sh check`, and the preflight of `run`: whether this
# machine has what a bundle needs, one line each. Sourced by gpu-suite.sh
# (whose BUNDLE_NAME, WORK, cleanup and locate_bundle it uses), and shipped
# in the bundle beside it.

# Whether libvulkan.so.1 can be loaded: in the loader's cache, on
# LD_LIBRARY_PATH or in a usual library directory. Prints where.
find_loader() {
    local dir line
    line=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) | grep -m1 'libvulkan\.so\.1 ' || true)
    if [ -n "$line" ]; then echo "${line##*=> }" && return 0; fi
    local IFS=:
    for dir in ${LD_LIBRARY_PATH:-} /lib /lib64 /usr/lib /usr/lib64 /usr/local/lib \
        /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu; do
        if [ -n "$dir" ] && [ -e "$dir/libvulkan.so.1" ]; then echo "$dir/libvulkan.so.1" && return 0; fi
    done
    return 1
}

# The Vulkan drivers' ICD files the loader would read (VK_DRIVER_FILES,
# VK_ICD_FILENAMES, VK_ADD_DRIVER_FILES, else the XDG and system
# directories), one a line.
find_icds() {
    local IFS=: entry dir
    local given=${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-}}
    local dirs=()
    if [ -z "$given" ]; then
        for dir in "${XDG_CONFIG_HOME:-${HOME:-}/.config}" ${XDG_CONFIG_DIRS:-/etc/xdg} /etc \
            "${XDG_DATA_HOME:-${HOME:-}/.local/share}" ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do
            dirs+=("$dir/vulkan/icd.d")
        done
    fi
    for entry in $given ${VK_ADD_DRIVER_FILES:-} "${dirs[@]}"; do
        if [ -d "$entry" ]; then
            find "$entry" -maxdepth 1 -name '*.json' 2>/dev/null
        elif [ -f "$entry" ]; then
            echo "$entry"
        fi
    done | sort -u
}

# The driver library an ICD file names, where the loader would find it;
# nothing when it cannot be found.
icd_library() {
    local icd=$1 lib
    lib=$(sed -n 's/.*"library_path"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$icd" | head -1)
    [ -n "$lib" ] || return 0
    case $lib in
    /*) [ -e "$lib" ] && echo "$lib" ;;
    */*) [ -e "$(dirname "$icd")/$lib" ] && echo "$(dirname "$icd")/$lib" ;;
    *) (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) | grep -m1 " $lib " | sed 's/.*=> //' ;;
    esac
}

# One line per ICD file whose driver library is missing or cannot load
# for want of a library it needs (NVIDIA's Vulkan driver lives in
# libGLX_nvidia.so.0, which needs libglvnd's libraries: without them the
# loader finds no adapter at all, whatever the ICD file says).
icd_problems() {
    local icd lib missing
    while IFS= read -r icd; do
        [ -n "$icd" ] || continue
        lib=$(icd_library "$icd")
        if [ -z "$lib" ]; then
            echo "the driver library named by $icd is not found"
        elif command -v ldd >/dev/null; then
            missing=$(ldd "$lib" 2>/dev/null | awk '/not found/ {print $1}' | paste -sd ' ' -)
            if [ -n "$missing" ]; then
                echo "$lib (the driver of $icd) needs $missing, not found (NVIDIA: libglvnd0 and libegl1 on Debian/Ubuntu)"
            fi
        fi
    done <<<"$1"
}

# Prints one line per requirement of the bundle in $1, and returns 1 when
# one is missing.
preflight() {
    local bundle=$1 missing=0 loader icds need have
    if loader=$(find_loader); then
        echo "preflight: Vulkan loader: $loader"
    else
        echo "preflight: MISSING the Vulkan loader libvulkan.so.1 (Debian/Ubuntu: apt-get install libvulkan1)"
        missing=1
    fi
    icds=$(find_icds)
    if [ -n "$icds" ]; then
        echo "preflight: Vulkan drivers (ICD files): $(paste -sd ' ' <<<"$icds")"
        local problems problem usable
        problems=$(icd_problems "$icds")
        usable=$(($(grep -c . <<<"$icds" || true) - $(grep -c . <<<"$problems" || true)))
        while IFS= read -r problem; do
            [ -n "$problem" ] || continue
            if [ "$usable" -gt 0 ]; then
                echo "preflight: unusable Vulkan driver: $problem"
            else
                echo "preflight: MISSING a usable Vulkan driver: $problem"
                missing=1
            fi
        done <<<"$problems"
    else
        echo "preflight: MISSING a Vulkan driver: no ICD file (*.json) in /usr/share/vulkan/icd.d, /etc/vulkan/icd.d or VK_DRIVER_FILES (NVIDIA: the driver's Vulkan part, nvidia_icd.json; CPU: mesa-vulkan-drivers)"
        missing=1
    fi
    need=$(sed -n 's/^needs glibc: //p' "$bundle/MANIFEST")
    have=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p' || true)
    if [ -z "$have" ]; then
        echo "preflight: MISSING glibc: the bundle's binaries need glibc ${need:-?} (this system has none, or another C library)"
        missing=1
    elif [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]; then
        echo "preflight: MISSING glibc $need or newer: this system has glibc $have"
        missing=1
    else
        echo "preflight: glibc $have (the bundle needs ${need:-?})"
    fi
    return "$missing"
}

check() {
    [ $# -le 1 ] || die "one bundle at a time"
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu-suite.XXXXXX")
    trap cleanup EXIT
    if [ -f "${1:-}" ]; then
        # A tarball: its manifest is all that is read.
        tar -xf "$1" -C "$WORK" "$BUNDLE_NAME/MANIFEST"
        preflight "$WORK/$BUNDLE_NAME"
    else
        preflight "$(locate_bundle "${1:-}")"
    fi
}
