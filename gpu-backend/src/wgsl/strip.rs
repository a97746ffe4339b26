//! The conversion round trips a driver may remove, removed from a WGSL
//! source.

/// The index just past the parenthesis that closes the one opened just
/// before `from`, or `None` when it is never closed.
fn closing(s: &str, from: usize) -> Option<usize> {
    let mut depth = 1usize;
    for (i, ch) in s[from..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first top-level argument of the argument list `args` (without its
/// parentheses).
fn first_argument(args: &str) -> &str {
    let mut depth = 0usize;
    for (i, ch) in args.char_indices() {
        match ch {
            '(' | '<' => depth += 1,
            ')' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return &args[..i],
            _ => {}
        }
    }
    args
}

/// `source` with every conversion round trip replaced by its operand, as
/// NVIDIA's Vulkan driver compiles them: `f32(f16(x))` becomes `(x)`,
/// `unpack2x16float(pack2x16float(vec2<f32>(x, y))).x` becomes `(x)`, and
/// `unpack2x16float(pack2x16float(v))` becomes `(v)`. Nested round trips
/// are removed too.
pub(crate) fn strip_round_trips(source: &str) -> String {
    const F16: &str = "f32(f16(";
    const PACKED: &str = "unpack2x16float(pack2x16float(";
    const VEC2: &str = "vec2<f32>(";
    let mut s = source.to_owned();
    // Everything before `from` has been looked at.
    let mut from = 0;
    loop {
        let found = [F16, PACKED]
            .into_iter()
            .filter_map(|pat| s[from..].find(pat).map(|at| (from + at, pat)))
            .min();
        let Some((at, pat)) = found else { return s };
        let inner = at + pat.len();
        let ends = closing(&s, inner).and_then(|i| Some((i, closing(&s, i)?)));
        let Some((inner_end, outer_end)) = ends.filter(|&(i, o)| o == i + 1) else {
            // `f32(f16(x) + y)` and the like: not a round trip.
            from = at + 1;
            continue;
        };
        let arg = &s[inner..inner_end - 1];
        let (operand, end) = match (pat, arg.strip_prefix(VEC2)) {
            (PACKED, Some(rest)) if s[outer_end..].starts_with(".x") => {
                (first_argument(rest).to_owned(), outer_end + 2)
            }
            _ => (arg.to_owned(), outer_end),
        };
        // The operand may hold round trips itself: look at it again.
        s.replace_range(at..end, &format!("({operand})"));
        from = at;
    }
}
