//! The sites of `reassoc`: WGSL lets a driver reassociate `f32` additions
//! and multiplications (Metal compiles with fast math on), so within one
//! expression `(a * b) * c` may become `a * (b * c)`, `(a + b) + c` may
//! become `a + (b + c)` and `(a - b) - c` may become `a - (b + c)`; and a
//! driver that inlines a function returning `x * k` (as `unfused` once
//! did, `k` a uniform 1) reassociates through it: `f(a * b)` becomes
//! `a * (b * k)`, which a driver that contracts may then fuse with an
//! addition around it.
//!
//! Only what the compiler can see is rewritten: operands written inline
//! in the expression (a `let` or a function's result is a value already
//! rounded, unless the function is one the compiler inlines as above). A
//! value passed through a bit barrier (`bitcast<f32>(bitcast<u32>(x) |
//! zero)`, `zero` a uniform) is not a product or a sum any more, so
//! nothing reassociates across it.

use core::ops::Range;

use naga::{BinaryOperator as Op, Expression, Handle, Scalar, Statement};

use super::sites::{Ctx, Edit, Site, each_statement, op_token};
use super::text::{Piece, split_binary};

impl Ctx<'_> {
    /// The reassociation of the `f32` expression `h`, if its left operand
    /// is an inline operation it reassociates with.
    pub(super) fn reassoc(&self, h: Handle<Expression>, expr: &Expression) -> Option<Edit> {
        let Expression::Binary { op, left, .. } = *expr else {
            return None;
        };
        if self.scalar(h) != Some(Scalar::F32) {
            return None;
        }
        let Expression::Binary { op: inner, .. } = self.function.expressions[left] else {
            return None;
        };
        // (a * b) * c → a * (b * c); (a + b) + c → a + (b + c);
        // (a - b) - c → a - (b + c).
        let joined = match (inner, op) {
            (Op::Multiply, Op::Multiply) => "*",
            (Op::Add, Op::Add) | (Op::Subtract, Op::Subtract) => "+",
            _ => return None,
        };
        let range = self.range(h)?;
        let inline = self
            .range(left)
            .is_some_and(|r| r.start >= range.start && r.end <= range.end);
        if !inline {
            return None;
        }
        let text = &self.source[range.clone()];
        let (l, c) = split_binary(text, op_token(op))?;
        let (a, b) = split_binary(&text[l.clone()], op_token(inner))?;
        let start = range.start;
        let src = |r: Range<usize>| Piece::Source(start + r.start..start + r.end);
        let shift = |r: Range<usize>| l.start + r.start..l.start + r.end;
        let lit = |s: String| Piece::Text(s);
        let token = op_token(op);
        Some(Edit {
            range,
            pieces: vec![
                lit("((".into()),
                src(shift(a)),
                lit(format!(") {token} ((")),
                src(shift(b)),
                lit(format!(") {joined} (")),
                src(c),
                lit(")))".into()),
            ],
            site: Site::Reassoc,
        })
    }

    /// The calls in this function's body to a function returning
    /// `x * k` (one `f32` argument, `k` not depending on it) with an
    /// inline product `a * b` as argument, inlined and reassociated:
    /// `((a) * ((b) * (k)))`.
    pub(super) fn inlined_products(&self, edits: &mut Vec<Edit>) {
        let mut calls = Vec::new();
        calls_in(&self.function.body, &mut calls);
        for (function, argument) in calls {
            if let Some(edit) = self.inlined(function, argument) {
                edits.push(edit);
            }
        }
    }

    fn inlined(
        &self,
        function: Handle<naga::Function>,
        argument: Handle<Expression>,
    ) -> Option<Edit> {
        let k = self.multiplier(function)?;
        let Expression::Binary {
            op: Op::Multiply, ..
        } = self.function.expressions[argument]
        else {
            return None;
        };
        if self.scalar(argument) != Some(Scalar::F32) {
            return None;
        }
        let arg = self.range(argument)?;
        // The call around the argument: `name(` before it, `)` after.
        let name = self.module.functions[function].name.as_deref()?;
        let before = self.source[..arg.start].trim_end();
        let before = before.strip_suffix('(')?.trim_end();
        let start = before.strip_suffix(name).map(str::len)?;
        let after = &self.source[arg.end..];
        let close = arg.end + (after.len() - after.trim_start().len());
        if !self.source[close..].starts_with(')') {
            return None;
        }
        let text = &self.source[arg.clone()];
        let (a, b) = split_binary(text, "*")?;
        let src = |r: Range<usize>| Piece::Source(arg.start + r.start..arg.start + r.end);
        Some(Edit {
            range: start..close + 1,
            pieces: vec![
                Piece::Text("((".into()),
                src(a),
                Piece::Text(") * ((".into()),
                src(b),
                Piece::Text(format!(") * ({k})))")),
            ],
            site: Site::Reassoc,
        })
    }

    /// The text of `k` where `function` has one `f32` argument `x` and its
    /// body is `return x * k;` (`k` not depending on `x`).
    fn multiplier(&self, function: Handle<naga::Function>) -> Option<String> {
        let f = &self.module.functions[function];
        if f.arguments.len() != 1 {
            return None;
        }
        let value = f.body.iter().find_map(|s| match *s {
            Statement::Return { value } => value,
            _ => None,
        })?;
        let Expression::Binary {
            op: Op::Multiply,
            left,
            right,
        } = f.expressions[value]
        else {
            return None;
        };
        if !matches!(f.expressions[left], Expression::FunctionArgument(0)) {
            return None;
        }
        if depends_on_argument(f, right) {
            return None;
        }
        // The product's text, split at its `*` (naga's span of a call or
        // a conversion is its name alone).
        let r = f.expressions.get_span(value).to_range()?;
        let text = &self.source[r];
        let (_, k) = split_binary(text, "*")?;
        Some(text[k].to_owned())
    }
}

/// Whether expression `h` of `f` reads an argument of `f`.
fn depends_on_argument(f: &naga::Function, h: Handle<Expression>) -> bool {
    let mut found = false;
    let mut stack = vec![h];
    while let Some(h) = stack.pop() {
        let e = &f.expressions[h];
        if matches!(e, Expression::FunctionArgument(_)) {
            found = true;
            break;
        }
        match *e {
            Expression::Binary { left, right, .. } => stack.extend([left, right]),
            Expression::Unary { expr, .. } | Expression::As { expr, .. } => stack.push(expr),
            Expression::AccessIndex { base, .. } => stack.push(base),
            Expression::Access { base, index } => stack.extend([base, index]),
            Expression::Load { pointer } => stack.push(pointer),
            Expression::Math { arg, arg1, .. } => stack.extend(core::iter::once(arg).chain(arg1)),
            Expression::Compose { ref components, .. } => stack.extend(components),
            Expression::Splat { value, .. } => stack.push(value),
            _ => {}
        }
    }
    found
}

/// The calls `(function, argument)` of one argument in `block`, nested
/// blocks included.
fn calls_in(block: &naga::Block, out: &mut Vec<(Handle<naga::Function>, Handle<Expression>)>) {
    each_statement(block, &mut |s| {
        if let Statement::Call {
            function,
            arguments,
            ..
        } = s
            && arguments.len() == 1
        {
            out.push((*function, arguments[0]));
        }
    });
}
