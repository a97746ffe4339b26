//! An input's own coordinates: what the breakdown of a loss knows of an
//! input without the test's help.
//!
//! A number is its value and its magnitude (`x`, `|x|`: a cut of the value
//! is a sign or a threshold, a cut of the magnitude a binade or a range);
//! each component of a tuple likewise (`x.0`, `|x.1|`); a vector of
//! numbers its length, largest and smallest magnitude, norm, and counts of
//! zeros, negatives and subnormals, and, where the output is as long as
//! it, its value at the candidate's worst output element. A type of the
//! test's own implements [`Coordinates`] to name its coordinates (a matmul
//! input its `m`, `k`, `n`); any test adds features of its own
//! ([`crate::DualDelta::feature`]).

use core::marker::PhantomData;

use crate::output::Element;

/// One named value of an input.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Coordinate {
    /// Its name in the breakdown's sentence: `x`, `|x.1|`, `len(x)`, `k`.
    pub name: String,
    /// Its value (`NaN` where it has none).
    pub value: f64,
}

/// Where an input's coordinates are appended: the input's name, and the
/// element where the candidate's error was largest, with the output's
/// length (unknown for an input the oracle did not run on).
pub struct Sink<'a> {
    out: &'a mut Vec<Coordinate>,
    prefix: String,
    worst: Option<(usize, usize)>,
}

impl<'a> Sink<'a> {
    /// Coordinates of the input `x`, appended to `out`.
    pub(crate) fn new(out: &'a mut Vec<Coordinate>, worst: Option<(usize, usize)>) -> Self {
        Sink {
            out,
            prefix: "x".to_owned(),
            worst,
        }
    }

    /// Appends `value` named `name`; `{}` in `name` stands for the input's
    /// name (`len({})` becomes `len(x.1)`).
    pub fn push(&mut self, name: &str, value: f64) {
        let name = if name.contains("{}") {
            name.replace("{}", &self.prefix)
        } else {
            name.to_owned()
        };
        self.out.push(Coordinate { name, value });
    }

    /// The coordinates of a component, named `{input}.{index}`.
    pub fn component<T: Coordinates + ?Sized>(&mut self, index: usize, value: &T) {
        let outer = std::mem::take(&mut self.prefix);
        self.prefix = format!("{outer}.{index}");
        // A component's own worst element is not the output's.
        let worst = self.worst.take();
        value.coordinates(self);
        self.worst = worst;
        self.prefix = outer;
    }

    /// The coordinates of a field, named `{input}.{name}` (`len(x.a)`,
    /// `‖x.a‖`): what `#[derive(Coordinates)]` calls for each field.
    pub fn field<T: Coordinates + ?Sized>(&mut self, name: &str, value: &T) {
        let outer = std::mem::take(&mut self.prefix);
        self.prefix = format!("{outer}.{name}");
        // A field's own worst element is not the output's.
        let worst = self.worst.take();
        value.coordinates(self);
        self.worst = worst;
        self.prefix = outer;
    }

    /// The element where the candidate's error was largest, where the
    /// output is `len` long.
    fn worst_of(&self, len: usize) -> Option<usize> {
        self.worst.filter(|&(_, l)| l == len).map(|(i, _)| i)
    }
}

/// A type whose values have coordinates a loss can be cut by.
pub trait Coordinates {
    /// Appends the value's coordinates ([`Sink::push`]).
    fn coordinates(&self, sink: &mut Sink<'_>);
}

impl<E: Element> Coordinates for E {
    fn coordinates(&self, sink: &mut Sink<'_>) {
        let v = self.to_f64();
        sink.push("{}", v);
        sink.push("|{}|", v.abs());
    }
}

macro_rules! integer_coordinates {
    ($($t:ty),*) => {$(
        impl Coordinates for $t {
            fn coordinates(&self, sink: &mut Sink<'_>) {
                sink.push("{}", *self as f64);
            }
        }
    )*};
}
integer_coordinates!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<E: Element> Coordinates for [E] {
    fn coordinates(&self, sink: &mut Sink<'_>) {
        let (mut max, mut min, mut sq) = (0.0f64, f64::INFINITY, 0.0f64);
        let (mut zeros, mut negatives, mut subnormals) = (0usize, 0usize, 0usize);
        let smallest = 2f64.powi(E::FORMAT.min_exponent());
        for v in self.iter().map(|e| e.to_f64()) {
            let a = v.abs();
            max = max.max(a);
            min = min.min(a);
            sq += a * a;
            zeros += usize::from(v == 0.0);
            negatives += usize::from(v < 0.0);
            subnormals += usize::from(a > 0.0 && a < smallest);
        }
        sink.push("len({})", self.len() as f64);
        sink.push("max |{}|", max);
        sink.push("min |{}|", if self.is_empty() { f64::NAN } else { min });
        sink.push("‖{}‖", sq.sqrt());
        sink.push("zeros in {}", zeros as f64);
        sink.push("negatives in {}", negatives as f64);
        sink.push("subnormals in {}", subnormals as f64);
        let at = sink
            .worst_of(self.len())
            .map_or(f64::NAN, |i| self[i].to_f64());
        sink.push("{} at the worst element", at);
    }
}

impl<E: Element> Coordinates for Vec<E> {
    fn coordinates(&self, sink: &mut Sink<'_>) {
        self.as_slice().coordinates(sink);
    }
}

impl<E: Element, const N: usize> Coordinates for [E; N] {
    fn coordinates(&self, sink: &mut Sink<'_>) {
        self.as_slice().coordinates(sink);
    }
}

macro_rules! tuple_coordinates {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: Coordinates),+> Coordinates for ($($t,)+) {
            fn coordinates(&self, sink: &mut Sink<'_>) {
                $(sink.component($i, &self.$i);)+
            }
        }
    )*};
}
tuple_coordinates! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
}

/// A function that appends an input's coordinates.
pub(crate) type CoordinatesFn<I> = fn(&I, &mut Sink<'_>);

/// Finds, where the input type has [`Coordinates`], the function that
/// appends them: `(&&Of::<I>::NEW).coordinates_fn()` for
/// `#[dual_delta_test]` (the two borrows pick the impl).
pub struct Of<T>(PhantomData<fn() -> T>);

impl<T> Of<T> {
    /// The finder.
    pub const NEW: Self = Of(PhantomData);
}

/// The input type has coordinates.
pub trait WithCoordinates<T> {
    /// The function that appends them.
    fn coordinates_fn(&self) -> Option<CoordinatesFn<T>>;
}

impl<T: Coordinates> WithCoordinates<T> for &Of<T> {
    fn coordinates_fn(&self) -> Option<CoordinatesFn<T>> {
        Some(|x, sink| x.coordinates(sink))
    }
}

/// The input type has none.
pub trait WithoutCoordinates<T> {
    /// None.
    fn coordinates_fn(&self) -> Option<CoordinatesFn<T>>;
}

impl<T> WithoutCoordinates<T> for Of<T> {
    fn coordinates_fn(&self) -> Option<CoordinatesFn<T>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of<T: Coordinates + ?Sized>(x: &T, worst: Option<(usize, usize)>) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        x.coordinates(&mut Sink::new(&mut out, worst));
        out.into_iter().map(|c| (c.name, c.value)).collect()
    }

    #[test]
    fn numbers_tuples_and_vectors_have_their_coordinates() {
        assert_eq!(
            of(&-2.5f32, None),
            [("x".into(), -2.5), ("|x|".into(), 2.5)]
        );
        let t = of(&(3usize, 0.5f64), None);
        assert_eq!(t[0], ("x.0".into(), 3.0));
        assert_eq!(t[2], ("|x.1|".into(), 0.5));
        let v = of(&vec![0.0f32, -1.0, 3.0, 1e-40], Some((2, 4)));
        let get = |n: &str| v.iter().find(|(k, _)| k == n).unwrap().1;
        assert_eq!(get("len(x)"), 4.0);
        assert_eq!(get("max |x|"), 3.0);
        assert_eq!(get("zeros in x"), 1.0);
        assert_eq!(get("negatives in x"), 1.0);
        assert_eq!(get("subnormals in x"), 1.0);
        assert_eq!(get("x at the worst element"), 3.0);
        // A worst element of an output of another length is not the input's.
        let w = of(&vec![1.0f32, 2.0], Some((0, 3)));
        assert!(w.last().unwrap().1.is_nan());
    }

    #[test]
    fn a_field_is_named_after_the_input() {
        struct Pair {
            a: Vec<f32>,
            scale: f64,
        }
        impl Coordinates for Pair {
            fn coordinates(&self, sink: &mut Sink<'_>) {
                sink.field("a", &self.a);
                sink.field("scale", &self.scale);
            }
        }
        let p = of(
            &Pair {
                a: vec![3.0, -4.0],
                scale: -0.5,
            },
            Some((1, 2)),
        );
        let get = |n: &str| p.iter().find(|(k, _)| k == n).map(|c| c.1);
        assert_eq!(get("len(x.a)"), Some(2.0));
        assert_eq!(get("‖x.a‖"), Some(5.0));
        assert_eq!(get("x.scale"), Some(-0.5));
        assert_eq!(get("|x.scale|"), Some(0.5));
        // The output's worst element is not a field's.
        assert!(get("x.a at the worst element").unwrap().is_nan());
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn the_finder_picks_coordinates_where_the_type_has_them() {
        struct Opaque;
        assert!((&&Of::<Vec<f32>>::NEW).coordinates_fn().is_some());
        assert!((&&Of::<(u32, f64)>::NEW).coordinates_fn().is_some());
        assert!((&&Of::<Opaque>::NEW).coordinates_fn().is_none());
    }
}
