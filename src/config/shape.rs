//! A table's keys read from its serde struct itself: the names serde
//! knows (renames included) and what each value asks the file for (a
//! whole number, a string, a table...), found by asking the struct to
//! deserialize itself from a probe that answers nothing but records the
//! question. So a key declared as a field is known to the walk, to "did
//! you mean" and to docs/config.md's table with no list beside it; its
//! default is what the struct's `Default` serializes to.
//!
//! It decides how a struct's shape is read; it never reads a file.

use std::any::TypeId;
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};

use super::keys::{Key, Kind};

/// The newtype name a list of lanes is read through
/// (`Deserializer::deserialize_newtype_struct`), so that its key is
/// known as [`Kind::Lanes`]: a list of numbers or ranges in a string,
/// which a probe could not tell from a pin (`"A0"` or `17`). toml reads
/// through a newtype as through its value.
pub(crate) const LANES: &str = "lanecall::lanes";

/// What a value asked for.
#[derive(Clone, Copy)]
enum Ask {
    Bool,
    Int,
    Float,
    Str,
    Any,
    Seq,
    Struct(&'static [&'static str]),
    /// A list of lanes, by its newtype name [`LANES`].
    Lanes,
}

/// The probe's only error: it stops once the question is recorded.
#[derive(Debug)]
struct Stop;

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("probed")
    }
}
impl std::error::Error for Stop {}
impl de::Error for Stop {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stop
    }
}

/// "[]": an element of a list, in a probe's path.
const ELEMENT: &str = "[]";

/// A deserializer that gives, along `path`, only the key or list element
/// named next, and at its end records what the value asks for.
struct Probe<'a> {
    path: &'a [&'static str],
    asked: &'a Cell<Option<Ask>>,
}

impl Probe<'_> {
    fn record(self, ask: Ask) -> Result<Never, Stop> {
        if self.path.is_empty() {
            self.asked.set(Some(ask));
        }
        Err(Stop)
    }
}

enum Never {}

macro_rules! ask {
    ($($method:ident => $ask:expr),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            match self.record($ask)? {}
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    ask! {
        deserialize_any => Ask::Any,
        deserialize_bool => Ask::Bool,
        deserialize_i8 => Ask::Int, deserialize_i16 => Ask::Int, deserialize_i32 => Ask::Int,
        deserialize_i64 => Ask::Int, deserialize_u8 => Ask::Int, deserialize_u16 => Ask::Int,
        deserialize_u32 => Ask::Int, deserialize_u64 => Ask::Int,
        deserialize_f32 => Ask::Float, deserialize_f64 => Ask::Float,
        deserialize_char => Ask::Str, deserialize_str => Ask::Str,
        deserialize_string => Ask::Str, deserialize_identifier => Ask::Str,
        deserialize_bytes => Ask::Any, deserialize_byte_buf => Ask::Any,
        deserialize_unit => Ask::Any, deserialize_map => Ask::Any,
        deserialize_ignored_any => Ask::Any,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        if name == LANES && self.path.is_empty() {
            match self.record(Ask::Lanes)? {}
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Stop> {
        match self.record(Ask::Any)? {}
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        match self.path.split_first() {
            Some((&ELEMENT, rest)) => visitor.visit_seq(Element(Some(Probe {
                path: rest,
                asked: self.asked,
            }))),
            _ => match self.record(Ask::Seq)? {},
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, Stop> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        v: V,
    ) -> Result<V::Value, Stop> {
        self.deserialize_seq(v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        match self.path.split_first() {
            Some((key, rest)) => visitor.visit_map(OneKey {
                key: Some(key),
                value: Some(Probe {
                    path: rest,
                    asked: self.asked,
                }),
            }),
            None => match self.record(Ask::Struct(fields))? {},
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        match self.record(Ask::Str)? {}
    }
}

/// A table holding one key, whose value is probed.
struct OneKey<'a> {
    key: Option<&'static str>,
    value: Option<Probe<'a>>,
}

impl<'de> de::MapAccess<'de> for OneKey<'_> {
    type Error = Stop;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.key.take() {
            Some(key) => seed.deserialize(key.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        match self.value.take() {
            Some(probe) => seed.deserialize(probe),
            None => Err(Stop),
        }
    }
}

/// A list holding one element, which is probed.
struct Element<'a>(Option<Probe<'a>>);

impl<'de> de::SeqAccess<'de> for Element<'_> {
    type Error = Stop;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stop> {
        match self.0.take() {
            Some(probe) => seed.deserialize(probe).map(Some),
            None => Ok(None),
        }
    }
}

fn ask<T: DeserializeOwned>(path: &[&'static str]) -> Option<Ask> {
    let asked = Cell::new(None);
    let _ = T::deserialize(Probe {
        path,
        asked: &asked,
    });
    asked.get()
}

fn kind_at<T: DeserializeOwned>(path: &mut Vec<&'static str>) -> Kind {
    match ask::<T>(path) {
        Some(Ask::Bool) => Kind::Bool,
        Some(Ask::Int) => Kind::Int,
        Some(Ask::Float) => Kind::Float,
        Some(Ask::Str) => Kind::Str,
        Some(Ask::Any) | None => Kind::StrOrInt,
        Some(Ask::Lanes) => Kind::Lanes,
        Some(Ask::Struct(_)) => Kind::Table(keys_at::<T>(path)),
        Some(Ask::Seq) => {
            path.push(ELEMENT);
            let kind = match ask::<T>(path) {
                Some(Ask::Struct(_)) => Kind::Tables(keys_at::<T>(path)),
                Some(Ask::Int) => Kind::Ints,
                _ => Kind::StrOrInts,
            };
            path.pop();
            kind
        }
    }
}

fn keys_at<T: DeserializeOwned>(path: &mut Vec<&'static str>) -> &'static [Key] {
    let Some(Ask::Struct(fields)) = ask::<T>(path) else {
        return &[];
    };
    let keys: Vec<Key> = fields
        .iter()
        .map(|&name| {
            path.push(name);
            let kind = kind_at::<T>(path);
            path.pop();
            Key { name, kind }
        })
        .collect();
    Box::leak(keys.into_boxed_slice())
}

/// The keys of the table `T` is read from, in its fields' order: each
/// with what it holds. Read once per type and kept.
pub(crate) fn keys<T: DeserializeOwned + 'static>() -> &'static [Key] {
    static KEPT: Mutex<Option<HashMap<TypeId, &'static [Key]>>> = Mutex::new(None);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let kept = kept.get_or_insert_with(HashMap::new);
    if let Some(&keys) = kept.get(&TypeId::of::<T>()) {
        return keys;
    }
    let keys = keys_at::<T>(&mut Vec::new());
    kept.insert(TypeId::of::<T>(), keys);
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, serde::Serialize, Default)]
    #[serde(default)]
    struct Inner {
        pin: Option<u8>,
        name: String,
    }

    #[derive(serde::Deserialize, serde::Serialize, Default)]
    #[serde(default)]
    struct Outer {
        on: bool,
        #[serde(rename = "wait_ms")]
        wait: u64,
        level: f32,
        inner: Inner,
        list: Vec<Inner>,
        numbers: Vec<i64>,
    }

    #[test]
    fn a_structs_keys_are_its_fields_with_what_they_hold() {
        let keys = keys::<Outer>();
        let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
        assert_eq!(
            names,
            ["on", "wait_ms", "level", "inner", "list", "numbers"]
        );
        let described: Vec<&str> = keys.iter().map(|k| k.kind.describe()).collect();
        assert_eq!(
            described,
            [
                "true or false",
                "a whole number",
                "a number",
                "a table",
                "a list of tables ([[...]])",
                "a list of whole numbers ([6, 8])"
            ]
        );
        let Kind::Table(inner) = keys[3].kind else {
            panic!("inner is not a table");
        };
        assert_eq!(
            inner.iter().map(|k| k.name).collect::<Vec<_>>(),
            ["pin", "name"]
        );
        assert_eq!(inner[0].kind.describe(), "a whole number");
        assert!(std::ptr::eq(keys, super::keys::<Outer>()), "read once");
    }
}
