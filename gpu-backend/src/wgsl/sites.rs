//! Where a driver's freedoms apply in a WGSL source: naga parses and
//! validates it (so every expression has its type), and each expression a
//! freedom may change becomes an [`Edit`] of the source text at the
//! expression's span; [`render`] writes the edits into the source (nested
//! edits rewritten inside their parents).

use core::ops::Range;

use naga::{
    BinaryOperator as Op, Expression, Handle, MathFunction, Scalar, ScalarKind, Statement,
    TypeInner,
};

use super::text::{Piece, inner_of_call, split_binary};

/// One freedom a driver may take, as a site of it in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Site {
    /// An `f32` division `a / b`.
    Divide,
    /// An `f32` `sqrt(x)`.
    Sqrt,
    /// A comparison whose result a driver may fold by assuming no NaN and
    /// no infinity: `v != v`, `x == inf`.
    Folded(bool),
    /// `a * b + c` (or `c + a * b`, `a * b - c`, `c - a * b`) in `f32`,
    /// scalar or vector, the product inline or bound by `let` (no kernel
    /// does arithmetic in `f16`), the product on the left (`true`) or the
    /// right of `op`: rewritten as `imitated_fma(a, b, ±c)`.
    Contract {
        /// Whether the product is the left operand.
        product_left: bool,
        /// Whether the operation is a subtraction.
        subtract: bool,
    },
    /// WGSL's explicit `fma(a, b, c)` in `f32`, scalar or vector, which a
    /// driver may compute fused or not: rewritten as
    /// `imitated_fma_exact(a, b, c)`, `a * b + c` where the product is exact
    /// (both choices agree) and NaN elsewhere.
    ExplicitFma,
    /// An `f32` → `f16` conversion (`f16(v)`, `pack2x16float(v)`).
    ToF16 {
        /// Whether it is `pack2x16float` (else `f16(..)`).
        packed: bool,
    },
    /// `f32` arithmetic whose subnormal operands and result are flushed.
    Flush32,
    /// A conversion between `f32` and `f16` whose `f16` subnormals are
    /// flushed.
    Flush16,
    /// `x + 0.0` or `x * 0.0`, folded.
    Identity,
    /// `a * b`, zero wherever `a` or `b` is.
    TimesZero,
    /// `(a * b) * c`, `(a + b) + c` or `(a - b) - c` reassociated, or a
    /// call of a function returning `x * k` on a product, inlined and
    /// reassociated.
    Reassoc,
}

/// A replacement of `range` of the source by `pieces` (whose source ranges
/// lie inside `range` and are rewritten in turn).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    /// The expression's bytes in the source.
    pub(crate) range: Range<usize>,
    /// What replaces them.
    pub(crate) pieces: Vec<Piece>,
    /// Which freedom.
    pub(crate) site: Site,
}

/// Which freedoms' sites to collect.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Wanted {
    pub(crate) div_sqrt: bool,
    pub(crate) nan_fold: bool,
    pub(crate) contract: bool,
    pub(crate) f16_store: bool,
    pub(crate) ftz32: bool,
    pub(crate) ftz16: bool,
    pub(crate) fold_identities: bool,
    pub(crate) nan_times_zero: bool,
    pub(crate) reassoc: bool,
}

impl Wanted {
    /// Whether any freedom is wanted.
    pub(crate) fn any(&self) -> bool {
        self.div_sqrt
            || self.nan_fold
            || self.contract
            || self.f16_store
            || self.ftz32
            || self.ftz16
            || self.fold_identities
            || self.nan_times_zero
            || self.reassoc
    }
}

/// The sites of the freedoms `wanted` in `source`, as edits (nested edits
/// allowed, never overlapping otherwise).
///
/// # Panics
///
/// When naga cannot parse or validate `source`: every kernel of this crate
/// is valid WGSL, so that is a bug in the generator.
pub(crate) fn sites(source: &str, wanted: Wanted) -> Vec<Edit> {
    let (module, info) = parse_valid(source);
    let mut edits = Vec::new();
    // The helpers an earlier pass added are left as they are.
    let imitated = |f: &naga::Function| {
        f.name
            .as_deref()
            .is_some_and(|n| n.starts_with("imitated_"))
    };
    let functions = every_function(&module, &info).filter(|(f, _)| !imitated(f));
    for (function, finfo) in functions {
        let ctx = Ctx {
            source,
            module: &module,
            function,
            info: finfo,
        };
        for (h, expr) in function.expressions.iter() {
            if let Some(edit) = ctx.edit(h, expr, wanted) {
                edits.push(edit);
            }
        }
        if wanted.reassoc {
            ctx.inlined_products(&mut edits);
        }
    }
    edits.sort_by_key(|e| (e.range.start, core::cmp::Reverse(e.range.end)));
    edits.dedup_by(|b, a| a.range == b.range);
    edits
}

/// `source` parsed and validated by naga (so that every expression has
/// its type).
///
/// # Panics
///
/// When naga cannot parse or validate `source`.
pub(super) fn parse_valid(source: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}\n{source}", e.emit_to_string(source)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{e:?}\n{source}"));
    (module, info)
}

/// Every function of `module` with its validation info, the entry points'
/// included.
pub(super) fn every_function<'a>(
    module: &'a naga::Module,
    info: &'a naga::valid::ModuleInfo,
) -> impl Iterator<Item = (&'a naga::Function, &'a naga::valid::FunctionInfo)> {
    module.functions.iter().map(|(h, f)| (f, &info[h])).chain(
        module
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, ep)| (&ep.function, info.get_entry_point(i))),
    )
}

/// Calls `visit` on every statement of `block`, nested blocks' included.
pub(super) fn each_statement(block: &naga::Block, visit: &mut impl FnMut(&Statement)) {
    for s in block.iter() {
        visit(s);
        match s {
            Statement::Block(b) => each_statement(b, visit),
            Statement::If { accept, reject, .. } => {
                each_statement(accept, visit);
                each_statement(reject, visit);
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each_statement(body, visit);
                each_statement(continuing, visit);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    each_statement(&case.body, visit);
                }
            }
            _ => {}
        }
    }
}

pub(super) struct Ctx<'a> {
    pub(super) source: &'a str,
    pub(super) module: &'a naga::Module,
    pub(super) function: &'a naga::Function,
    pub(super) info: &'a naga::valid::FunctionInfo,
}

impl Ctx<'_> {
    /// The bytes of `h` in the source. naga's span of a builtin call
    /// (`sqrt(x)`, `pack2x16float(v)`) is the function's name: it is
    /// extended to the closing parenthesis.
    pub(super) fn range(&self, h: Handle<Expression>) -> Option<Range<usize>> {
        let r = self.function.expressions.get_span(h).to_range()?;
        if !matches!(self.function.expressions[h], Expression::Math { .. }) {
            return Some(r);
        }
        let rest = &self.source[r.end..];
        let open = r.end + (rest.len() - rest.trim_start().len());
        if !self.source[open..].starts_with('(') {
            return Some(r);
        }
        let mut depth = 0usize;
        for (i, c) in self.source[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(r.start..open + i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    pub(super) fn scalar(&self, h: Handle<Expression>) -> Option<Scalar> {
        match *self.info[h].ty.inner_with(&self.module.types) {
            TypeInner::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn is_f32(&self, h: Handle<Expression>) -> bool {
        self.scalar(h) == Some(Scalar::F32)
    }

    /// The value of `h` when it is an infinite `f32` constant (written as
    /// `bitcast<f32>(0x7f800000u)` or its negative: WGSL has no infinite
    /// literal).
    fn infinity(&self, h: Handle<Expression>) -> Option<f32> {
        self.infinity_in(&self.function.expressions, h)
    }

    fn infinity_in(&self, arena: &naga::Arena<Expression>, h: Handle<Expression>) -> Option<f32> {
        match arena[h] {
            Expression::As {
                expr,
                kind: ScalarKind::Float,
                convert: None,
            } => match arena[expr] {
                Expression::Literal(naga::Literal::U32(bits)) => {
                    Some(f32::from_bits(bits)).filter(|x| x.is_infinite())
                }
                _ => None,
            },
            Expression::Constant(c) => {
                let init = self.module.constants[c].init;
                self.infinity_in(&self.module.global_expressions, init)
            }
            _ => None,
        }
    }

    fn edit(&self, h: Handle<Expression>, expr: &Expression, wanted: Wanted) -> Option<Edit> {
        if wanted.reassoc {
            return self.reassoc(h, expr);
        }
        if wanted.ftz32 || wanted.ftz16 || wanted.fold_identities || wanted.nan_times_zero {
            return self.loose(h, expr, wanted);
        }
        let range = self.range(h)?;
        let text = &self.source[range.clone()];
        let start = range.start;
        let src = |r: Range<usize>| Piece::Source(start + r.start..start + r.end);
        let lit = |s: &str| Piece::Text(s.to_owned());
        let (site, pieces) = match *expr {
            Expression::Binary {
                op: Op::Divide,
                left,
                ..
            } if wanted.div_sqrt && self.is_f32(left) => {
                let (l, r) = split_binary(text, "/")?;
                (
                    Site::Divide,
                    vec![lit("imitated_div("), src(l), lit(", "), src(r), lit(")")],
                )
            }
            Expression::Math {
                fun: MathFunction::Sqrt,
                arg,
                ..
            } if wanted.div_sqrt && self.is_f32(arg) => {
                let inner = inner_of_call(text)?;
                (
                    Site::Sqrt,
                    vec![lit("imitated_sqrt("), src(inner), lit(")")],
                )
            }
            Expression::Binary { op, left, right } if wanted.nan_fold && self.is_f32(left) => {
                let compare: fn(f32, f32) -> bool = match op {
                    Op::Equal => |a, b| a == b,
                    Op::NotEqual => |a, b| a != b,
                    Op::Less => |a, b| a < b,
                    Op::LessEqual => |a, b| a <= b,
                    Op::Greater => |a, b| a > b,
                    Op::GreaterEqual => |a, b| a >= b,
                    _ => return self.contraction(h, expr, wanted),
                };
                // Assuming no NaN, `x op x` is decided; assuming no
                // infinity, so is `x op ±inf` (any finite x: take 0).
                let same = left == right
                    || split_binary(text, op_token(op))
                        .is_some_and(|(l, r)| text[l].trim() == text[r].trim());
                let value = if same {
                    compare(0.0, 0.0)
                } else {
                    match (self.infinity(left), self.infinity(right)) {
                        (Some(_), Some(_)) | (None, None) => return None,
                        (Some(inf), None) => compare(inf, 0.0),
                        (None, Some(inf)) => compare(0.0, inf),
                    }
                };
                (
                    Site::Folded(value),
                    vec![lit(if value { "true" } else { "false" })],
                )
            }
            _ => return self.contraction(h, expr, wanted),
        };
        Some(Edit {
            range,
            pieces,
            site,
        })
    }
}

/// The WGSL token of a binary operator this module rewrites.
pub(super) fn op_token(op: Op) -> &'static str {
    match op {
        Op::Add => "+",
        Op::Subtract => "-",
        Op::Multiply => "*",
        Op::Divide => "/",
        Op::Equal => "==",
        Op::NotEqual => "!=",
        Op::Less => "<",
        Op::LessEqual => "<=",
        Op::Greater => ">",
        Op::GreaterEqual => ">=",
        _ => "\u{0}",
    }
}

/// `source` with `edits` applied (sorted by start, outer before inner).
pub(crate) fn render(source: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(source.len() + source.len() / 4);
    write_range(source, edits, 0..source.len(), None, &mut out);
    out
}

/// Writes `range` of `source` with the edits inside it applied, except
/// edit `parent` (whose pieces are being written).
fn write_range(
    source: &str,
    edits: &[Edit],
    range: Range<usize>,
    parent: Option<usize>,
    out: &mut String,
) {
    let mut at = range.start;
    for (i, edit) in edits.iter().enumerate() {
        let r = &edit.range;
        // Edits outside the range or inside one already written are
        // skipped.
        if r.start < at || r.end > range.end || parent == Some(i) {
            continue;
        }
        out.push_str(&source[at..r.start]);
        for piece in &edit.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Source(inner) => write_range(source, edits, inner.clone(), Some(i), out),
            }
        }
        at = r.end;
    }
    out.push_str(&source[at..range.end]);
}
