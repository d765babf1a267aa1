//! JSON exactly as pi writes it (`JSON.stringify` of one object: [`to_json_string`], from the
//! session model's JavaScript rules), and the serde helpers that keep typed fields lossless: an
//! optional field is either absent or has a value, never `null`.

use serde::{Deserialize, Deserializer};

pub use crate::session::js::to_json_string;

/// serde `deserialize_with` for an optional field: absent gives `None` (with `#[serde(default)]`),
/// a value gives `Some`, and `null` is refused (pi never writes `null` there, and reading it as
/// absent would drop it on the way back). A refused field makes the whole value fall back to its
/// verbatim `Other` form.
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// serde `deserialize_with` for a field pi always writes but which may be `null` (`parentId`):
/// absent is refused, so writing the value back never adds a key.
pub(crate) fn nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

/// `Serialize` and `Deserialize` for a public enum of typed variants plus an `Other` variant that
/// keeps any object verbatim. The tag (`type` or `role`) is written first, as pi writes it; an
/// object whose tag is unknown, or whose fields do not have the shapes pi writes, becomes `Other`.
macro_rules! tagged_enum {
    ($name:ident, $tag:literal, { $($variant:ident($ty:ty) = $value:literal),* $(,)? }) => {
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                #[derive(serde::Serialize)]
                #[serde(tag = $tag)]
                enum Tagged<'a> {
                    $(#[serde(rename = $value)] $variant(&'a $ty),)*
                }
                match self {
                    $($name::$variant(v) => Tagged::$variant(v).serialize(s),)*
                    $name::Other(map) => map.serialize(s),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                #[derive(serde::Deserialize)]
                #[serde(tag = $tag)]
                enum Known {
                    $(#[serde(rename = $value)] $variant($ty),)*
                }
                // Short-lived: boxing the large variant would only add an allocation.
                #[allow(clippy::large_enum_variant)]
                #[derive(serde::Deserialize)]
                #[serde(untagged)]
                enum Wire {
                    Known(Known),
                    Other(serde_json::Map<String, serde_json::Value>),
                }
                Ok(match Wire::deserialize(d)? {
                    $(Wire::Known(Known::$variant(v)) => $name::$variant(v),)*
                    Wire::Other(map) => $name::Other(map),
                })
            }
        }
    };
}
pub(crate) use tagged_enum;
