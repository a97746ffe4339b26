//! `#[serde(with = "crate::json_number")]` for an `f64` written as a JSON
//! number when finite, or as the string `"inf"`, `"-inf"` or `"nan"` (JSON
//! has no infinities): `summary.json` and the baseline files use it.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;

/// The float that a non-finite number is written as (`"inf"`, `"-inf"`,
/// `"nan"`), or `None` for any other string.
pub(crate) fn non_finite_from_str(s: &str) -> Option<f64> {
    match s {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    }
}

pub(crate) fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    let v = *v;
    if v.is_finite() {
        s.serialize_f64(v)
    } else if v.is_nan() {
        s.serialize_str("nan")
    } else if v > 0.0 {
        s.serialize_str("inf")
    } else {
        s.serialize_str("-inf")
    }
}

pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    struct Number;
    impl Visitor<'_> for Number {
        type Value = f64;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(r#"a number, "inf", "-inf" or "nan""#)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
            Ok(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
            Ok(v as f64)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
            non_finite_from_str(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
        }
    }
    d.deserialize_any(Number)
}

/// `#[serde(default = "crate::json_number::nan")]`: a number a report
/// written before it was recorded lacks.
pub(crate) fn nan() -> f64 {
    f64::NAN
}

/// `#[serde(with = "crate::json_number::seconds")]` for an optional
/// duration written as its seconds (a JSON number), or `null`.
pub(crate) mod seconds {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(crate) fn serialize<S: Serializer>(v: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|d| d.as_secs_f64()).serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        let secs = Option::<f64>::deserialize(d)?;
        secs.map(|s| Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom))
            .transpose()
    }
}
