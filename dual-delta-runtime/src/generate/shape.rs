//! Sizes: fixed, or drawn per trial from a list or a range.

use core::ops::{Range, RangeInclusive};

use rand::RngExt;

use crate::rng::TrialRng;

/// A size (a length, a number of rows or columns): fixed, or drawn per trial
/// from a list or a range.
///
/// Anything that converts into a `Shape` is accepted where one is expected:
/// a `usize` (fixed), a range `a..b` or `a..=b`, an array, slice or `Vec` of
/// sizes.
///
/// ```
/// use dual_delta_runtime::generate::Shape;
/// use dual_delta_runtime::TrialRng;
///
/// let mut rng = TrialRng::for_trial(3, 0);
/// assert_eq!(Shape::from(128).draw(&mut rng), 128);
/// assert!((1..=64).contains(&Shape::from(1..=64).draw(&mut rng)));
/// assert!([3, 17, 1000].contains(&Shape::from([3, 17, 1000]).draw(&mut rng)));
/// // Tiny, odd, prime and off-by-one-from-a-power-of-two sizes up to 300.
/// let awkward = Shape::awkward(300);
/// assert!(awkward.sizes().contains(&1) && awkward.sizes().contains(&255));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Shape {
    /// Always this size. Draws nothing from the generator.
    Fixed(usize),
    /// One of these sizes, each equally likely. Never empty.
    List(Vec<usize>),
    /// Uniform over `min..=max`.
    Range {
        /// The smallest size.
        min: usize,
        /// The largest size (included).
        max: usize,
    },
}

impl Shape {
    /// Always `size`.
    pub const fn fixed(size: usize) -> Self {
        Shape::Fixed(size)
    }

    /// One of `sizes`, each equally likely.
    ///
    /// # Panics
    ///
    /// Panics when `sizes` is empty.
    #[track_caller]
    pub fn list(sizes: impl IntoIterator<Item = usize>) -> Self {
        let sizes: Vec<usize> = sizes.into_iter().collect();
        assert!(!sizes.is_empty(), "a list of sizes needs at least one size");
        if sizes.len() == 1 {
            Shape::Fixed(sizes[0])
        } else {
            Shape::List(sizes)
        }
    }

    /// Uniform over a range (`a..b` or `a..=b`).
    ///
    /// # Panics
    ///
    /// Panics when the range is empty.
    #[track_caller]
    pub fn range(range: impl Into<Shape>) -> Self {
        range.into()
    }

    /// Sizes that tend to break kernels tuned for round ones, up to `max`:
    /// `1` to `5` and `7`; every power of two, one less and one more; the
    /// largest prime below each power of two; and `max` itself. Drawn
    /// uniformly from that list.
    ///
    /// # Panics
    ///
    /// Panics when `max` is zero.
    #[track_caller]
    pub fn awkward(max: usize) -> Self {
        assert!(max >= 1, "awkward sizes need a maximum of at least 1");
        let mut sizes: Vec<usize> = vec![1, 2, 3, 4, 5, 7];
        let mut p = 8usize;
        while p / 2 <= max {
            sizes.extend([p - 1, p, p + 1]);
            if let Some(q) = (2..p).rev().find(|&q| is_prime(q)) {
                sizes.push(q);
            }
            match p.checked_mul(2) {
                Some(next) => p = next,
                None => break,
            }
        }
        sizes.push(max);
        sizes.retain(|&s| s <= max);
        sizes.sort_unstable();
        sizes.dedup();
        Shape::list(sizes)
    }

    /// Draws a size (a fixed size draws nothing).
    pub fn draw(&self, rng: &mut TrialRng) -> usize {
        match self {
            Shape::Fixed(size) => *size,
            Shape::List(sizes) => sizes[rng.random_range(0..sizes.len())],
            Shape::Range { min, max } => rng.random_range(*min..=*max),
        }
    }

    /// Every size this shape can draw, in increasing order (for a range,
    /// all of `min..=max`).
    pub fn sizes(&self) -> Vec<usize> {
        match self {
            Shape::Fixed(size) => vec![*size],
            Shape::List(sizes) => {
                let mut s = sizes.clone();
                s.sort_unstable();
                s.dedup();
                s
            }
            Shape::Range { min, max } => (*min..=*max).collect(),
        }
    }

    /// The smallest size this shape can draw.
    pub fn min(&self) -> usize {
        match self {
            Shape::Fixed(size) => *size,
            Shape::List(sizes) => sizes.iter().copied().min().unwrap_or(0),
            Shape::Range { min, .. } => *min,
        }
    }

    /// The largest size this shape can draw.
    pub fn max(&self) -> usize {
        match self {
            Shape::Fixed(size) => *size,
            Shape::List(sizes) => sizes.iter().copied().max().unwrap_or(0),
            Shape::Range { max, .. } => *max,
        }
    }
}

fn is_prime(n: usize) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

impl From<usize> for Shape {
    fn from(size: usize) -> Self {
        Shape::Fixed(size)
    }
}

impl From<RangeInclusive<usize>> for Shape {
    #[track_caller]
    fn from(range: RangeInclusive<usize>) -> Self {
        let (min, max) = range.into_inner();
        assert!(min <= max, "the range of sizes {min}..={max} is empty");
        if min == max {
            Shape::Fixed(min)
        } else {
            Shape::Range { min, max }
        }
    }
}

impl From<Range<usize>> for Shape {
    #[track_caller]
    fn from(range: Range<usize>) -> Self {
        assert!(
            range.start < range.end,
            "the range of sizes {}..{} is empty",
            range.start,
            range.end
        );
        Shape::from(range.start..=range.end - 1)
    }
}

impl From<Vec<usize>> for Shape {
    #[track_caller]
    fn from(sizes: Vec<usize>) -> Self {
        Shape::list(sizes)
    }
}

impl From<&[usize]> for Shape {
    #[track_caller]
    fn from(sizes: &[usize]) -> Self {
        Shape::list(sizes.iter().copied())
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    #[track_caller]
    fn from(sizes: [usize; N]) -> Self {
        Shape::list(sizes)
    }
}

impl From<&Shape> for Shape {
    fn from(shape: &Shape) -> Self {
        shape.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn awkward_sizes() {
        assert_eq!(Shape::awkward(1).sizes(), vec![1]);
        assert_eq!(Shape::awkward(5).sizes(), vec![1, 2, 3, 4, 5]);
        let s = Shape::awkward(128).sizes();
        for want in [1, 7, 13, 15, 16, 17, 31, 61, 63, 64, 65, 127, 128] {
            assert!(s.contains(&want), "{want} missing from {s:?}");
        }
        assert!(s.iter().all(|&x| x <= 128));
    }

    #[test]
    fn conversions() {
        assert_eq!(Shape::from(3..4), Shape::Fixed(3));
        assert_eq!(Shape::from(3..=5), Shape::Range { min: 3, max: 5 });
        assert_eq!(Shape::from([2, 9]).sizes(), vec![2, 9]);
        assert_eq!(Shape::from(vec![4]), Shape::Fixed(4));
        assert_eq!((Shape::from(2..=9).min(), Shape::from(2..=9).max()), (2, 9));
    }

    #[test]
    #[should_panic(expected = "is empty")]
    fn empty_ranges_are_refused() {
        let _ = Shape::from(4..4);
    }
}
