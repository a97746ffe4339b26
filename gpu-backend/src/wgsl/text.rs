//! The text side of the imitated freedoms: splitting an expression's source
//! at its operator or its call's parentheses, and the pieces an edit
//! writes.

use core::ops::Range;

/// A piece of an edit's replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Written as it is.
    Text(String),
    /// These bytes of the source, with the edits inside them applied.
    Source(Range<usize>),
}

/// Whether a `-` or `+` at `i` of `s` is a sign rather than an operator:
/// it follows another operator, an opening bracket or a comma (or nothing),
/// or the `e` of a float literal's exponent.
fn is_sign(s: &[u8], i: usize) -> bool {
    let before = s[..i].trim_ascii_end();
    match before.last() {
        None => true,
        Some(b'e' | b'E') => before.len() >= 2 && before[before.len() - 2].is_ascii_digit(),
        Some(c) => b"(,[=+-*/<>!&|^%?:".contains(c),
    }
}

/// The length of the template arguments (`<f32>`) opening at `i`, when the
/// `<` there follows an identifier and its `>` a `(`: `bitcast<f32>(..)`,
/// `vec2<f32>(..)`.
fn template_len(s: &[u8], i: usize) -> Option<usize> {
    if i == 0 || !(s[i - 1].is_ascii_alphanumeric() || s[i - 1] == b'_') {
        return None;
    }
    let close = s[i..].iter().position(|&c| c == b'>')?;
    let args = &s[i + 1..i + close];
    let plain = args
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b',' || c == b' ');
    (plain && s.get(i + close + 1) == Some(&b'(')).then_some(close + 1)
}

/// `text` (an expression `L op R`, possibly in parentheses) split at its
/// top-level operator `op` (the last one: the operators split here are
/// left-associative), as the trimmed ranges of `L` and `R` in `text`.
pub(crate) fn split_binary(text: &str, op: &str) -> Option<(Range<usize>, Range<usize>)> {
    let s = text.as_bytes();
    let (mut depth, mut at, mut i) = (0usize, None, 0);
    let op_b = op.as_bytes();
    while i < s.len() {
        let c = s[i];
        if c == b'<'
            && let Some(n) = template_len(s, i)
        {
            i += n;
            continue;
        }
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            _ if depth == 0 && s[i..].starts_with(op_b) => {
                let prev = i.checked_sub(1).map(|p| s[p]);
                let next = s.get(i + op_b.len()).copied();
                // `<` must not be `<=` or `<<`, `-` not `->`, and so on.
                let joined = |c: Option<u8>| c.is_some_and(|c| b"=<>&|".contains(&c));
                let single = op_b.len() == 1;
                let part_of_another = joined(next)
                    || (single && (joined(prev) || prev == Some(b'!')))
                    || (matches!(op, "-" | "+") && is_sign(s, i));
                if !part_of_another {
                    at = Some(i);
                    i += op_b.len();
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let Some(at) = at else {
        // `(L op R)`: look inside the parentheses.
        let trimmed = text.trim();
        let start = text.len() - text.trim_start().len();
        if trimmed.starts_with('(') && trimmed.ends_with(')') {
            let (l, r) = split_binary(&trimmed[1..trimmed.len() - 1], op)?;
            let shift = |r: Range<usize>| start + 1 + r.start..start + 1 + r.end;
            return Some((shift(l), shift(r)));
        }
        return None;
    };
    Some((trim(text, 0..at), trim(text, at + op.len()..text.len())))
}

/// `range` of `text` without its surrounding white space.
fn trim(text: &str, range: Range<usize>) -> Range<usize> {
    let part = &text[range.clone()];
    let start = range.start + (part.len() - part.trim_start().len());
    start..start + part.trim().len()
}

/// The arguments of the call `text` (`f(args)`), as their range in `text`.
pub(crate) fn inner_of_call(text: &str) -> Option<Range<usize>> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    (close > open).then(|| trim(text, open + 1..close))
}
