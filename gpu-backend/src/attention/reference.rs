//! Scaled-dot-product attention: its input, the `f64` oracle and the `f32`
//! baseline.

use dual_delta_runtime::TrialRng;

use crate::element::{KernelElement, sum_dd, sum_f32};
use crate::error::GpuError;
use crate::reductions::randn;

/// The shape of an attention input: `heads` independent heads, each with
/// `seq_q` queries and `seq_k` keys of dimension `d`, and `seq_k` values of
/// dimension `d_v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AttentionShape {
    /// The number of heads (batch × heads, flattened).
    pub heads: usize,
    /// Queries per head (rows of the output).
    pub seq_q: usize,
    /// Keys and values per head.
    pub seq_k: usize,
    /// The dimension of queries and keys.
    pub d: usize,
    /// The dimension of values (columns of the output).
    pub d_v: usize,
}

impl AttentionShape {
    /// The number of elements of `Q` (`heads · seq_q · d`), `K`
    /// (`heads · seq_k · d`), `V` (`heads · seq_k · d_v`) and the output
    /// (`heads · seq_q · d_v`), or `None` on overflow.
    fn lens(self) -> Option<[usize; 4]> {
        let h = self.heads;
        Some([
            h.checked_mul(self.seq_q)?.checked_mul(self.d)?,
            h.checked_mul(self.seq_k)?.checked_mul(self.d)?,
            h.checked_mul(self.seq_k)?.checked_mul(self.d_v)?,
            h.checked_mul(self.seq_q)?.checked_mul(self.d_v)?,
        ])
    }

    fn check(self) -> Result<[usize; 4], GpuError> {
        let AttentionShape {
            heads,
            seq_q,
            seq_k,
            d,
            d_v,
        } = self;
        if [heads, seq_q, seq_k, d, d_v].contains(&0) {
            return Err(GpuError::InvalidInput(format!(
                "every dimension must be at least 1, got {self:?}"
            )));
        }
        self.lens()
            .ok_or_else(|| GpuError::InvalidInput(format!("shape {self:?} overflows")))
    }
}

/// The input of scaled-dot-product attention: `Q` (`[heads, seq_q, d]`),
/// `K` (`[heads, seq_k, d]`) and `V` (`[heads, seq_k, d_v]`), row-major,
/// and whether the causal mask applies.
///
/// The causal mask is PyTorch's `is_causal=True`, aligned top left
/// (`torch.ones(seq_q, seq_k).tril()`): query `i` sees keys `j ≤ i`. Every
/// query sees key 0, so no row of the softmax is empty.
///
/// Invariants (checked by [`AttentionInput::new`]): every dimension is at
/// least 1 and each tensor holds the number of values its shape says.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionInput<E> {
    shape: AttentionShape,
    causal: bool,
    q: Vec<E>,
    k: Vec<E>,
    v: Vec<E>,
}

impl<E: KernelElement> AttentionInput<E> {
    /// The input from its shape and tensors. Fails when a dimension is zero
    /// or a tensor's length does not match the shape.
    pub fn new(
        shape: AttentionShape,
        causal: bool,
        q: Vec<E>,
        k: Vec<E>,
        v: Vec<E>,
    ) -> Result<Self, GpuError> {
        let [lq, lk, lv, _] = shape.check()?;
        for (name, want, got, dims) in [
            ("Q", lq, q.len(), "heads·seq_q·d"),
            ("K", lk, k.len(), "heads·seq_k·d"),
            ("V", lv, v.len(), "heads·seq_k·d_v"),
        ] {
            if want != got {
                return Err(GpuError::InvalidInput(format!(
                    "{name} must hold {dims} = {want} values, it holds {got}"
                )));
            }
        }
        Ok(Self {
            shape,
            causal,
            q,
            k,
            v,
        })
    }

    /// The shape.
    pub fn shape(&self) -> AttentionShape {
        self.shape
    }

    /// Whether the causal mask applies.
    pub fn causal(&self) -> bool {
        self.causal
    }

    /// `Q`, `[heads, seq_q, d]`.
    pub fn q(&self) -> &[E] {
        &self.q
    }

    /// `K`, `[heads, seq_k, d]`.
    pub fn k(&self) -> &[E] {
        &self.k
    }

    /// `V`, `[heads, seq_k, d_v]`.
    pub fn v(&self) -> &[E] {
        &self.v
    }

    /// The number of elements of the output (`heads · seq_q · d_v`).
    pub fn output_len(&self) -> usize {
        self.shape.heads * self.shape.seq_q * self.shape.d_v
    }

    /// The number of keys query `i` sees: all of them, or `i + 1` (at most
    /// `seq_k`) under the causal mask.
    pub fn visible_keys(&self, i: usize) -> usize {
        if self.causal {
            (i + 1).min(self.shape.seq_k)
        } else {
            self.shape.seq_k
        }
    }

    /// `torch.randn` values rounded to `E`: `Q`, then `K`, then `V`.
    ///
    /// # Panics
    ///
    /// Panics when a dimension is zero or the shape overflows.
    pub fn random(shape: AttentionShape, causal: bool, rng: &mut TrialRng) -> Self {
        let [lq, lk, lv, _] = shape.check().unwrap_or_else(|e| panic!("{e}"));
        let q = randn(lq, rng);
        let k = randn(lk, rng);
        let v = randn(lv, rng);
        Self {
            shape,
            causal,
            q,
            k,
            v,
        }
    }

    /// Per head `h`: `(Q_h, K_h, V_h)`.
    fn heads(&self) -> impl Iterator<Item = (&[E], &[E], &[E])> + '_ {
        let AttentionShape {
            seq_q,
            seq_k,
            d,
            d_v,
            ..
        } = self.shape;
        self.q
            .chunks_exact(seq_q * d)
            .zip(self.k.chunks_exact(seq_k * d))
            .zip(self.v.chunks_exact(seq_k * d_v))
            .map(|((q, k), v)| (q, k, v))
    }
}

/// A generator of [`AttentionInput::random`].
///
/// # Panics
///
/// Panics (on creation) when a dimension is zero or the shape overflows.
pub fn random_attention_input<E: KernelElement>(
    shape: AttentionShape,
    causal: bool,
) -> impl Fn(&mut TrialRng) -> AttentionInput<E> + Send + Sync + Clone + 'static {
    shape.check().unwrap_or_else(|e| panic!("{e}"));
    move |rng: &mut TrialRng| AttentionInput::random(shape, causal, rng)
}

/// The attention oracle, `softmax(Q Kᵀ / √d + mask) V` per head, in `f64`:
/// for head `h` and query `i`, over the keys `j` it sees,
///
/// * `sⱼ = (Σₖ qᵢₖ · kⱼₖ) / √d` (exact products, double-double sum),
/// * `pⱼ = exp(sⱼ − maxₗ sₗ) / Z`, `Z = Σⱼ exp(sⱼ − maxₗ sₗ)`,
/// * `oᵢc = Σⱼ pⱼ · vⱼc`, computed as `(Σⱼ exp(sⱼ − max) · vⱼc) / Z`
///   with both sums in double-double.
///
/// Masked keys (`j > i` under the causal mask) get weight 0. Returns
/// `[heads, seq_q, d_v]`, row-major.
pub fn attention_f64<E: KernelElement>(input: &AttentionInput<E>) -> Vec<f64> {
    let AttentionShape { d, d_v, .. } = input.shape;
    let sqrt_d = (d as f64).sqrt();
    let mut out = Vec::with_capacity(input.output_len());
    for (q, k, v) in input.heads() {
        for (i, qi) in q.chunks_exact(d).enumerate() {
            let keys = input.visible_keys(i);
            let s: Vec<f64> = k
                .chunks_exact(d)
                .take(keys)
                .map(|kj| {
                    let dot = qi.iter().zip(kj).map(|(&a, &b)| a.to_f64() * b.to_f64());
                    sum_dd(dot) / sqrt_d
                })
                .collect();
            let m = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|&s| (s - m).exp()).collect();
            let z = sum_dd(e.iter().copied());
            for c in 0..d_v {
                let num = sum_dd(
                    e.iter()
                        .enumerate()
                        .map(|(j, &e)| e * v[j * d_v + c].to_f64()),
                );
                out.push(num / z);
            }
        }
    }
    out
}

/// The attention baseline, in `f32` with one rounding to `E`: for head `h`
/// and query `i`, over the keys `j` it sees, every operation in `f32`:
///
/// 1. `sⱼ = (qᵢ₀·kⱼ₀ + qᵢ₁·kⱼ₁ + … ) · c` with `c = 1 / √d` (computed in
///    `f32`), the dot product summed left to right;
/// 2. `m = maxⱼ sⱼ`, `eⱼ = exp(sⱼ − m)`, `Z = Σⱼ eⱼ` left to right,
///    `pⱼ = eⱼ / Z`;
/// 3. `oᵢc = round_E(p₀·v₀c + p₁·v₁c + …)`, summed left to right.
///
/// Masked keys are left out of every sum (a weight of exactly 0 would add
/// nothing). Returns `[heads, seq_q, d_v]`, row-major.
pub fn attention_cpu<E: KernelElement>(input: &AttentionInput<E>) -> Vec<E> {
    let AttentionShape { d, d_v, .. } = input.shape;
    let scale = 1.0f32 / (d as f32).sqrt();
    let mut out = Vec::with_capacity(input.output_len());
    let mut p = Vec::with_capacity(input.shape.seq_k);
    for (q, k, v) in input.heads() {
        for (i, qi) in q.chunks_exact(d).enumerate() {
            let keys = input.visible_keys(i);
            p.clear();
            p.extend(k.chunks_exact(d).take(keys).map(|kj| {
                sum_f32(qi.iter().zip(kj).map(|(&a, &b)| a.to_f32() * b.to_f32())) * scale
            }));
            let m = p.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            for s in p.iter_mut() {
                *s = (*s - m).exp();
            }
            let z = sum_f32(p.iter().copied());
            for s in p.iter_mut() {
                *s /= z;
            }
            for c in 0..d_v {
                let o = sum_f32(
                    p.iter()
                        .enumerate()
                        .map(|(j, &pj)| pj * v[j * d_v + c].to_f32()),
                );
                out.push(E::from_f32(o));
            }
        }
    }
    out
}

/// The shape a failing run's loss is cut by (`heads`, `seq_q`, `seq_k`,
/// `d`, `d_v`) and whether the causal mask applies (1 or 0).
impl<E: KernelElement> dual_delta_runtime::regions::Coordinates for AttentionInput<E> {
    fn coordinates(&self, sink: &mut dual_delta_runtime::regions::Sink<'_>) {
        let s = self.shape;
        for (name, value) in [
            ("heads", s.heads),
            ("seq_q", s.seq_q),
            ("seq_k", s.seq_k),
            ("d", s.d),
            ("d_v", s.d_v),
            ("causal", usize::from(self.causal)),
        ] {
            sink.push(name, value as f64);
        }
    }
}
