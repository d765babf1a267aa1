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

/// A number as JavaScript prints it (`12345`, not `12345.0`).
pub fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { n.to_string() }
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
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
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
