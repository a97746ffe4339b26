//! The sites of the looser arithmetic a driver may compile: subnormals
//! flushed (`ftz32`, `ftz16`), identities folded (`fold-identities`) and
//! `NaN · 0 = 0` (`nan-times-zero`). Each pass of
//! [`SourceTransform::apply`](super::SourceTransform::apply) asks for one
//! group, so that no two edits share an expression.

use core::ops::Range;

use naga::{BinaryOperator as Op, Expression, Handle, MathFunction, Scalar, ScalarKind};

use super::sites::{Ctx, Edit, Site, Wanted, op_token};
use super::text::{Piece, inner_of_call, split_binary};

impl Ctx<'_> {
    /// The edit of `h` for the freedoms of `wanted` handled here, if any.
    pub(super) fn loose(
        &self,
        h: Handle<Expression>,
        expr: &Expression,
        wanted: Wanted,
    ) -> Option<Edit> {
        let range = self.range(h)?;
        let text = &self.source[range.clone()];
        let start = range.start;
        let src = |r: Range<usize>| Piece::Source(start + r.start..start + r.end);
        let lit = |s: &str| Piece::Text(s.to_owned());
        let f32_result = self.scalar(h) == Some(Scalar::F32);
        let (site, pieces) = match *expr {
            Expression::Binary { op, left, right }
                if wanted.fold_identities
                    && f32_result
                    && matches!(op, Op::Add | Op::Subtract | Op::Multiply) =>
            {
                let (l, r) = split_binary(text, op_token(op))?;
                let (zero_l, zero_r) = (self.zero(left), self.zero(right));
                let pieces = match op {
                    Op::Multiply if zero_l || zero_r => vec![lit("0.0")],
                    Op::Add if zero_r => vec![lit("("), src(l), lit(")")],
                    Op::Add if zero_l => vec![lit("("), src(r), lit(")")],
                    Op::Subtract if zero_r => vec![lit("("), src(l), lit(")")],
                    _ => return None,
                };
                (Site::Identity, pieces)
            }
            Expression::Binary {
                op: Op::Multiply, ..
            } if wanted.nan_times_zero && f32_result => {
                let (l, r) = split_binary(text, "*")?;
                (
                    Site::TimesZero,
                    vec![lit("imitated_mul0("), src(l), lit(", "), src(r), lit(")")],
                )
            }
            Expression::Binary { op, .. }
                if wanted.ftz32
                    && f32_result
                    && matches!(op, Op::Add | Op::Subtract | Op::Multiply | Op::Divide) =>
            {
                let token = op_token(op);
                let (l, r) = split_binary(text, token)?;
                (
                    Site::Flush32,
                    vec![
                        lit("imitated_ftz(imitated_ftz("),
                        src(l),
                        lit(&format!(") {token} imitated_ftz(")),
                        src(r),
                        lit("))"),
                    ],
                )
            }
            // Results only: their operands are loads of `f16` values
            // (normal `f32` numbers) or results flushed already.
            Expression::Math {
                fun: MathFunction::Fma | MathFunction::Exp | MathFunction::Exp2,
                ..
            } if wanted.ftz32 && f32_result => (
                Site::Flush32,
                vec![lit("imitated_ftz("), src(0..text.len()), lit(")")],
            ),
            Expression::As {
                expr: from,
                kind: ScalarKind::Float,
                convert: Some(2),
            } if wanted.ftz16 && self.scalar(from) == Some(Scalar::F32) => {
                let inner = inner_of_call(text)?;
                (
                    Site::Flush16,
                    vec![lit("f16(imitated_ftz16("), src(inner), lit("))")],
                )
            }
            Expression::As {
                expr: from,
                kind: ScalarKind::Float,
                convert: Some(4),
            } if wanted.ftz16 && self.scalar(from) == Some(Scalar::F16) => (
                Site::Flush16,
                vec![lit("imitated_ftz16("), src(0..text.len()), lit(")")],
            ),
            Expression::Math {
                fun: MathFunction::Pack2x16float,
                ..
            } if wanted.ftz16 => {
                let inner = inner_of_call(text)?;
                (
                    Site::Flush16,
                    vec![
                        lit("pack2x16float(imitated_ftz16x2("),
                        src(inner),
                        lit("))"),
                    ],
                )
            }
            Expression::Math {
                fun: MathFunction::Unpack2x16float,
                ..
            } if wanted.ftz16 => (
                Site::Flush16,
                vec![lit("imitated_ftz16x2("), src(0..text.len()), lit(")")],
            ),
            _ => return None,
        };
        Some(Edit {
            range,
            pieces,
            site,
        })
    }

    /// Whether `h` is an `f32` literal zero (either sign), which a
    /// compiler sees.
    fn zero(&self, h: Handle<Expression>) -> bool {
        matches!(
            self.function.expressions[h],
            Expression::Literal(naga::Literal::F32(v)) if v == 0.0
        )
    }
}
