//! Running values a driver could reassociate across statements.
//!
//! WGSL lets a driver reassociate `f32` additions and multiplications, and
//! nothing in the language keeps it within one statement: a running sum
//! `s = s + a;` then `s = s + b;` (written out, or one statement in an
//! unrolled loop) may be summed as `s + (a + b)`, or split into partial
//! sums. `reassoc` imitates reassociation within an expression; across
//! statements a kernel is safe by construction instead: every running
//! `f32` value (a variable updated from its own value by `+`, `-`, `*` or
//! `fma`) passes through a bit barrier (`pinned`, `unfused`) or a rounding
//! on the bits (`round16`, `roundbf16`) at each step, so that no driver can
//! see the previous step's arithmetic and the order written is the order
//! computed. [`unpinned_running_values`] finds the updates that do not:
//! the test below holds every kernel to none.

use naga::{
    BinaryOperator as Op, Expression, Handle, MathFunction, ScalarKind, Statement, TypeInner,
};

use super::sites::{each_statement, every_function, parse_valid};

/// The statements of `source` that update an `f32` variable (scalar or
/// vector) from its own value by floating-point arithmetic a driver may
/// reassociate, each as its line of source (trimmed) and the function it
/// is in.
///
/// # Panics
///
/// When naga cannot parse or validate `source`.
pub(crate) fn unpinned_running_values(source: &str) -> Vec<String> {
    let (module, info) = parse_valid(source);
    let functions = every_function(&module, &info);
    let mut found = Vec::new();
    for (function, finfo) in functions {
        let name = function.name.as_deref().unwrap_or("?");
        let f32_valued = |h: Handle<Expression>| {
            let scalar = match *finfo[h].ty.inner_with(&module.types) {
                TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } => Some(s),
                _ => None,
            };
            scalar.is_some_and(|s| s.kind == ScalarKind::Float && s.width == 4)
        };
        let mut stores = Vec::new();
        stores_in(&function.body, &mut stores);
        for (pointer, value) in stores {
            let Some(var) = root(function, pointer) else {
                continue;
            };
            if f32_valued(value) && reads_through_arithmetic(function, value, var) {
                let line = function
                    .expressions
                    .get_span(value)
                    .to_range()
                    .map(|r| line_at(source, r.start))
                    .unwrap_or_default();
                found.push(format!("{name}: {line}"));
            }
        }
    }
    found
}

/// The variable a pointer expression points into.
fn root(f: &naga::Function, mut h: Handle<Expression>) -> Option<Handle<naga::LocalVariable>> {
    loop {
        match f.expressions[h] {
            Expression::LocalVariable(v) => return Some(v),
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => h = base,
            _ => return None,
        }
    }
}

/// Whether `value` is floating-point arithmetic a driver may reassociate
/// (`+`, `-`, `*`, `fma`) with a load of `var` among its operands, through
/// further such arithmetic (a call, a barrier among them, is opaque).
fn reads_through_arithmetic(
    f: &naga::Function,
    value: Handle<Expression>,
    var: Handle<naga::LocalVariable>,
) -> bool {
    let arithmetic = |e: &Expression| {
        matches!(
            e,
            Expression::Binary {
                op: Op::Add | Op::Subtract | Op::Multiply,
                ..
            } | Expression::Math {
                fun: MathFunction::Fma,
                ..
            }
        )
    };
    if !arithmetic(&f.expressions[value]) {
        return false;
    }
    let mut stack = vec![value];
    while let Some(h) = stack.pop() {
        match f.expressions[h] {
            Expression::Load { pointer } if root(f, pointer) == Some(var) => return true,
            Expression::Binary {
                op: Op::Add | Op::Subtract | Op::Multiply,
                left,
                right,
            } => stack.extend([left, right]),
            Expression::Math {
                fun: MathFunction::Fma,
                arg,
                arg1,
                arg2,
                ..
            } => stack.extend([Some(arg), arg1, arg2].into_iter().flatten()),
            Expression::Unary { expr, .. } => stack.push(expr),
            Expression::Splat { value, .. } => stack.push(value),
            Expression::Compose { ref components, .. } => stack.extend(components),
            Expression::AccessIndex { base, .. } | Expression::Swizzle { vector: base, .. } => {
                stack.push(base)
            }
            _ => {}
        }
    }
    false
}

/// The stores `(pointer, value)` in `block`, nested blocks included.
fn stores_in(block: &naga::Block, out: &mut Vec<(Handle<Expression>, Handle<Expression>)>) {
    each_statement(block, &mut |s| {
        if let Statement::Store { pointer, value } = *s {
            out.push((pointer, value));
        }
    });
}

/// The line of `source` holding byte `at`, trimmed.
fn line_at(source: &str, at: usize) -> String {
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = source[at..].find('\n').map_or(source.len(), |i| at + i);
    source[start..end].trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_sums_are_found_unless_behind_a_barrier() {
        let src = "@group(0) @binding(0) var<uniform> z: u32;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
fn pinned(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) | z); }
@compute @workgroup_size(1) fn main() {
    var s = 0.0;
    var t = 0.0;
    var v = vec4<f32>(0.0);
    var m = 0.0;
    var n = 0u;
    for (var i = 0u; i < 4u; i++) {
        let x = o[i];
        s = s + x;
        t = pinned(t + x);
        v += vec4<f32>(x);
        m = max(m, x);
        n = n + 1u;
        s = fma(x, x, s);
        t = pinned(fma(x, x, t));
        s = (s * 2.0) - x;
    }
    o[0] = s + t + v.x + m + f32(n);
}";
        let found = unpinned_running_values(src);
        assert_eq!(
            found,
            [
                "main: s = s + x;",
                "main: v += vec4<f32>(x);",
                "main: s = fma(x, x, s);",
                "main: s = (s * 2.0) - x;"
            ],
            "{found:#?}"
        );
    }

    /// No kernel keeps a running `f32` value a driver could reassociate
    /// across statements.
    #[test]
    fn every_running_value_of_every_kernel_is_pinned() {
        let mut found = Vec::new();
        for kernel in crate::registry::every_kernel() {
            for site in unpinned_running_values(&kernel.source) {
                found.push(format!("{}, {site}", kernel.name));
            }
        }
        assert!(
            found.is_empty(),
            "{} unpinned:\n{}",
            found.len(),
            found.join("\n")
        );
    }
}
