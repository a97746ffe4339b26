//! The sites of `contract`: SPIR-V lets a driver fuse `a * b + c` (and
//! `c + a * b`, `a * b - c`, `c - a * b`) into one rounding, and drivers
//! do so through what the source names: RADV and ANV contract a product
//! bound by `let` as readily as one written inline, and vector operations
//! lane by lane. Each such `f32` site becomes `imitated_fma(a, b, ±c)`
//! (`imitated_fma2`, `3`, `4` on vectors, a scalar operand splat), the
//! exact `a · b ± c` rounded once.
//!
//! A `let`-bound product is contracted where its use can name its
//! operands: each a `let` of a name bound once, an argument, a literal or
//! a constant (a value a later statement cannot change).
//!
//! WGSL's explicit `fma(a, b, c)` may be computed fused or as `a * b + c`
//! (two roundings): a driver chooses, and lavapipe's is unfused. Where the
//! product `a * b` is exact in `f32` both choices round the same sum once;
//! elsewhere they may differ. Under `contract` every `f32` `fma` (scalar or
//! vector) becomes `imitated_fma_exact`: `a * b + c` where the product is
//! exact (so the fused result too), NaN where it may not be, so that a
//! kernel whose bits could depend on the driver's choice fails its
//! comparison instead of passing on lavapipe's. (The probe's own `fma`,
//! on an inexact product, then reads as fused: its result is not the
//! unfused one.) (Computing the fused result
//! on the bits instead, with the integer FMA of the contracted sites, at
//! every unrolled step of the matmuls takes lavapipe's compiler over 20 GB
//! of memory.)

use core::ops::Range;

use naga::{BinaryOperator as Op, Expression, Handle, MathFunction, ScalarKind, TypeInner};

use super::sites::{Ctx, Edit, Site, Wanted, op_token};
use super::text::{Piece, inner_of_call, split_binary};

/// A product a contraction takes: written inline, or bound by `let` (its
/// operands' names).
enum Product {
    Inline,
    Named(String, String),
}

impl Ctx<'_> {
    /// The contraction or the `f16` conversion at `h`, if any.
    pub(super) fn contraction(
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
        match *expr {
            Expression::Binary { op, left, right }
                if wanted.contract && matches!(op, Op::Add | Op::Subtract) =>
            {
                self.contract(h, op, left, right)
            }
            Expression::Math {
                fun: MathFunction::Fma,
                ..
            } if wanted.contract => {
                let name = match self.f32_lanes(h)? {
                    1 => "imitated_fma_exact".to_owned(),
                    n => format!("imitated_fma_exact{n}"),
                };
                let inner = inner_of_call(text)?;
                Some(Edit {
                    range,
                    pieces: vec![Piece::Text(format!("{name}(")), src(inner), lit(")")],
                    site: Site::ExplicitFma,
                })
            }
            Expression::As {
                expr: from,
                kind: ScalarKind::Float,
                convert: Some(2),
            } if wanted.f16_store && self.is_f32(from) => {
                let inner = inner_of_call(text)?;
                Some(Edit {
                    range,
                    pieces: vec![lit("f16(imitated_rz16("), src(inner), lit("))")],
                    site: Site::ToF16 { packed: false },
                })
            }
            Expression::Math {
                fun: MathFunction::Pack2x16float,
                ..
            } if wanted.f16_store => {
                let inner = inner_of_call(text)?;
                Some(Edit {
                    range,
                    pieces: vec![lit("pack2x16float(imitated_rz16x2("), src(inner), lit("))")],
                    site: Site::ToF16 { packed: true },
                })
            }
            _ => None,
        }
    }

    /// `left op right` (`op` an addition or a subtraction) with a product
    /// for an operand, fused.
    fn contract(
        &self,
        h: Handle<Expression>,
        op: Op,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Option<Edit> {
        let lanes = self.f32_lanes(h)?;
        let range = self.range(h)?;
        let text = &self.source[range.clone()];
        let (l, r) = split_binary(text, op_token(op))?;
        // Either product may be contracted: take the right one.
        let (product_left, product, operand, other) = if let Some(p) = self.product(right, &range) {
            (false, p, r, l)
        } else {
            (true, self.product(left, &range)?, l, r)
        };
        let start = range.start;
        let src = |r: Range<usize>| Piece::Source(start + r.start..start + r.end);
        let lit = |s: &str| Piece::Text(s.to_owned());
        let (a, b) = match product {
            Product::Inline => {
                let (p, q) = split_binary(&text[operand.clone()], "*")?;
                let shift = |x: Range<usize>| operand.start + x.start..operand.start + x.end;
                (src(shift(p)), src(shift(q)))
            }
            Product::Named(a, b) => (Piece::Text(a), Piece::Text(b)),
        };
        let subtract = op == Op::Subtract;
        let neg_a = subtract && !product_left;
        let neg_c = subtract && product_left;
        let (name, open, close) = match lanes {
            1 => ("imitated_fma".to_owned(), String::new(), ""),
            n => (format!("imitated_fma{n}"), format!("vec{n}<f32>("), ")"),
        };
        let arg = |neg: bool| format!("{open}{}(", if neg { "-" } else { "" });
        let pieces = vec![
            Piece::Text(format!("{name}({}", arg(neg_a))),
            a,
            Piece::Text(format!("){close}, {}", arg(false))),
            b,
            Piece::Text(format!("){close}, {}", arg(neg_c))),
            src(other),
            lit(&format!("){close})")),
        ];
        Some(Edit {
            range,
            pieces,
            site: Site::Contract {
                product_left,
                subtract,
            },
        })
    }

    /// 1 where `h` is an `f32`, `n` where it is a `vecn<f32>`.
    fn f32_lanes(&self, h: Handle<Expression>) -> Option<u8> {
        match *self.info[h].ty.inner_with(&self.module.types) {
            TypeInner::Scalar(s) if s == naga::Scalar::F32 => Some(1),
            TypeInner::Vector { size, scalar } if scalar == naga::Scalar::F32 => Some(size as u8),
            _ => None,
        }
    }

    /// The product `e`, when it is one a driver may fuse into an addition
    /// spanning `within`: written inline there, or bound by `let` with
    /// operands the addition can name.
    fn product(&self, e: Handle<Expression>, within: &Range<usize>) -> Option<Product> {
        let Expression::Binary {
            op: Op::Multiply,
            left,
            right,
        } = self.function.expressions[e]
        else {
            return None;
        };
        self.f32_lanes(e)?;
        let r = self.range(e)?;
        if r.start >= within.start && r.end <= within.end {
            return Some(Product::Inline);
        }
        if !self.function.named_expressions.contains_key(&e) {
            return None;
        }
        Some(Product::Named(self.name_of(left)?, self.name_of(right)?))
    }

    /// How a later statement names the value `e`: a `let` of a name bound
    /// once, an argument, a literal or a constant.
    fn name_of(&self, e: Handle<Expression>) -> Option<String> {
        let f = self.function;
        if let Some(name) = f.named_expressions.get(&e) {
            let once = f.named_expressions.values().filter(|n| *n == name).count() == 1;
            return once.then(|| name.clone());
        }
        match f.expressions[e] {
            Expression::FunctionArgument(i) => f.arguments[i as usize].name.clone(),
            Expression::Literal(_) => Some(self.source[self.range(e)?].to_owned()),
            Expression::Constant(c) => self.module.constants[c].name.clone(),
            _ => None,
        }
    }
}
