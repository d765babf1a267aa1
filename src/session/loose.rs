//! Loose JSON fields for the readers that take only what they need from a session line: a field of
//! the wrong JSON type reads as absent instead of failing the line, the way a JavaScript reader
//! would simply find nothing useful in it. Shared by the session reader (`line`) and the catalog's
//! fast scanner, so both read a line the same way.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::entry::Usage;

/// A string field; any other JSON value reads as absent.
#[derive(Default)]
pub(crate) struct Loose<'a>(pub(crate) Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor::new()).map(|v| match v {
            Scalar::Str(s) => Loose(Some(s)),
            _ => Loose(None),
        })
    }
}

/// A number field; any other JSON value reads as absent.
#[derive(Default)]
pub(crate) struct LooseNum(pub(crate) Option<f64>);

impl<'de> Deserialize<'de> for LooseNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor::new()).map(|v| match v {
            Scalar::Num(n) => LooseNum(Some(n)),
            _ => LooseNum(None),
        })
    }
}

/// A value as JavaScript's `<` and `>=` read it (`ToNumber`): a number as it is, a numeric string
/// as its number (`"3"`, `" 2 "`, `"0x10"`; `""` is 0), `true` / `false` as 1 / 0, and any other
/// string, array or object as NaN. `null` reads as absent, as `??` treats it. (JavaScript turns
/// `[]` and `[3]` into numbers too; such a value reads as NaN here.)
#[derive(Default)]
pub(crate) struct JsNumber(pub(crate) Option<f64>);

impl<'de> Deserialize<'de> for JsNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsNumber;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_f64<E>(self, v: f64) -> Result<JsNumber, E> {
                Ok(JsNumber(Some(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<JsNumber, E> {
                Ok(JsNumber(Some(v as f64)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<JsNumber, E> {
                Ok(JsNumber(Some(v as f64)))
            }
            fn visit_str<E>(self, v: &str) -> Result<JsNumber, E> {
                Ok(JsNumber(Some(super::js::string_to_number(v))))
            }
            fn visit_bool<E>(self, v: bool) -> Result<JsNumber, E> {
                Ok(JsNumber(Some(if v { 1.0 } else { 0.0 })))
            }
            fn visit_unit<E>(self) -> Result<JsNumber, E> {
                Ok(JsNumber(None))
            }
            fn visit_none<E>(self) -> Result<JsNumber, E> {
                Ok(JsNumber(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JsNumber, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(JsNumber(Some(f64::NAN)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsNumber, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(JsNumber(Some(f64::NAN)))
            }
        }
        d.deserialize_any(V)
    }
}

pub(crate) fn loose_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    d.deserialize_any(LooseVisitor::new()).map(|v| match v {
        Scalar::Bool(b) => Some(b),
        _ => None,
    })
}

/// Any JSON value, reduced to what a loose field can use; an array as what `S` reads of it.
pub(crate) enum Scalar<'a, S = ()> {
    Str(Cow<'a, str>),
    Num(f64),
    Bool(bool),
    Seq(S),
    Null,
    Other,
}

/// What a [`ScalarVisitor`] keeps of an array.
pub(crate) trait ReadSeq<'de>: Sized {
    fn read<A: SeqAccess<'de>>(seq: A) -> Result<Self, A::Error>;
}

/// Nothing: the array is skipped.
impl<'de> ReadSeq<'de> for () {
    fn read<A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// Reads any JSON value as a [`Scalar`], strings borrowed when possible.
pub(crate) struct ScalarVisitor<S>(std::marker::PhantomData<S>);

impl<S> ScalarVisitor<S> {
    pub(crate) fn new() -> Self {
        ScalarVisitor(std::marker::PhantomData)
    }
}

/// The visitor of loose fields: arrays skipped.
pub(crate) type LooseVisitor = ScalarVisitor<()>;

impl<'de, S: ReadSeq<'de>> Visitor<'de> for ScalarVisitor<S> {
    type Value = Scalar<'de, S>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::Num(v as f64))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        S::read(seq).map(Scalar::Seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// An object field parsed as `T`; any other value reads as absent.
pub(crate) struct Obj<T>(pub(crate) Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(|t| Obj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                IgnoredAny::deserialize(SeqAccessDeserializer::new(seq)).map(|_| Obj(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Obj(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize, Default)]
/// A `usage` object: token counts and `cost.total`, each loose.
pub(crate) struct RawUsage {
    #[serde(default)]
    input: LooseNum,
    #[serde(default)]
    output: LooseNum,
    #[serde(rename = "cacheRead", default)]
    cache_read: LooseNum,
    #[serde(rename = "cacheWrite", default)]
    cache_write: LooseNum,
    #[serde(default)]
    cost: Obj<RawCost>,
}

#[derive(Deserialize, Default)]
struct RawCost {
    #[serde(default)]
    total: LooseNum,
}

impl RawUsage {
    /// The usage of these numbers (each `None` when absent or not a number; `cost` its `total`).
    pub(crate) fn of(
        input: Option<f64>,
        output: Option<f64>,
        cache_read: Option<f64>,
        cache_write: Option<f64>,
        cost: Option<f64>,
    ) -> RawUsage {
        RawUsage {
            input: LooseNum(input),
            output: LooseNum(output),
            cache_read: LooseNum(cache_read),
            cache_write: LooseNum(cache_write),
            cost: Obj(Some(RawCost { total: LooseNum(cost) })),
        }
    }

    pub(crate) fn usage(&self) -> Usage {
        Usage {
            input: self.input.0.unwrap_or(0.0),
            output: self.output.0.unwrap_or(0.0),
            cache_read: self.cache_read.0.unwrap_or(0.0),
            cache_write: self.cache_write.0.unwrap_or(0.0),
            cost: self.cost.0.as_ref().and_then(|c| c.total.0).unwrap_or(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(json: &str) -> Option<f64> {
        serde_json::from_str::<JsNumber>(json).unwrap().0
    }

    #[test]
    fn values_read_as_javascript_compares_them() {
        assert_eq!(js("3"), Some(3.0));
        assert_eq!(js(r#""3""#), Some(3.0));
        assert_eq!(js(r#"" 2\n""#), Some(2.0));
        assert_eq!(js(r#""""#), Some(0.0));
        assert_eq!(js(r#""0x10""#), Some(16.0));
        assert_eq!(js(r#""1e1""#), Some(10.0));
        assert_eq!(js(r#""-Infinity""#), Some(f64::NEG_INFINITY));
        assert_eq!(js("true"), Some(1.0));
        assert_eq!(js("false"), Some(0.0));
        assert_eq!(js("null"), None);
        for nan in [r#""abc""#, r#""inf""#, r#""NaN""#, r#""3 4""#, r#""-0x1""#, r#""0x""#, "[3]", "{}"] {
            assert!(js(nan).is_some_and(f64::is_nan), "{nan}");
        }
        for nan in [r#""漢字""#, r#""é""#, r#""0é""#, r#""x漢""#] {
            assert!(js(nan).is_some_and(f64::is_nan), "{nan}");
        }
    }
}
