//! Reading the JSON of a Hugging Face `tokenizer.json`: typed field access whose errors name
//! the field by its path in the file (`model.vocab`, `normalizer.normalizers[2].pattern`).
//!
//! Every component's `from_json(value, path)` uses these helpers, so every error reads the
//! same way: `Vocab` for a malformed or missing field, `Unsupported` for a component type or
//! option tokenmill does not implement (with the list of those it does). What this module
//! does not do: build components (each component module does, from its own JSON).
//!
//! `parse_typed` is the fast path of loading: `model.vocab` and `model.merges` (nearly all of a
//! file) are read straight from the bytes into plain lists, everything else into `Value`s as
//! usual. It gives up (None) on anything it does not expect, a duplicate key included; the
//! caller then takes the full `Value` path, whose results and errors are the reference.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::CoreError;

/// A JSON object with its path, for field access with path-naming errors.
#[derive(Clone, Copy)]
pub struct Obj<'a> {
    pub map: &'a Map<String, Value>,
    pub path: &'a str,
}

/// `path.key` (or `key` at the top level).
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `path[i]`.
pub fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A short rendering of a JSON value for error messages.
pub fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// `CoreError::Vocab` naming `path`.
pub fn bad(path: &str, what: impl std::fmt::Display) -> CoreError {
    CoreError::Vocab(format!("{path}: {what}"))
}

/// `CoreError::Unsupported` naming `path`, the value found and what is supported.
pub fn unsupported(path: &str, found: &str, supported: &[&str]) -> CoreError {
    CoreError::Unsupported(format!(
        "{path}: {found} is not supported by tokenmill (supported: {})",
        supported.join(", ")
    ))
}

impl<'a> Obj<'a> {
    /// `v` as an object, or an error naming `path`.
    pub fn new(v: &'a Value, path: &'a str) -> Result<Self, CoreError> {
        match v {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(bad(path, format!("expected an object, got {}", show(other)))),
        }
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// The field, which must be present.
    pub fn req(&self, key: &str) -> Result<&'a Value, CoreError> {
        self.map.get(key).ok_or_else(|| bad(&join(self.path, key), "missing"))
    }

    /// The field, absent and `null` both meaning None.
    pub fn opt(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// The `"type"` tag of a component.
    pub fn type_tag(&self) -> Result<&'a str, CoreError> {
        self.str(key_type())
    }

    pub fn str(&self, key: &str) -> Result<&'a str, CoreError> {
        let v = self.req(key)?;
        v.as_str().ok_or_else(|| bad(&join(self.path, key), format!("expected a string, got {}", show(v))))
    }

    pub fn opt_str(&self, key: &str) -> Result<Option<&'a str>, CoreError> {
        match self.opt(key) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(Some)
                .ok_or_else(|| bad(&join(self.path, key), format!("expected a string, got {}", show(v)))),
        }
    }

    pub fn bool(&self, key: &str) -> Result<bool, CoreError> {
        let v = self.req(key)?;
        v.as_bool().ok_or_else(|| bad(&join(self.path, key), format!("expected true or false, got {}", show(v))))
    }

    /// A boolean that may be absent or null (then `default`), as HF's serde defaults allow.
    pub fn bool_or(&self, key: &str, default: bool) -> Result<bool, CoreError> {
        match self.opt(key) {
            None => Ok(default),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| bad(&join(self.path, key), format!("expected true or false, got {}", show(v)))),
        }
    }

    pub fn u64(&self, key: &str) -> Result<u64, CoreError> {
        let v = self.req(key)?;
        v.as_u64()
            .ok_or_else(|| bad(&join(self.path, key), format!("expected a non-negative integer, got {}", show(v))))
    }

    pub fn opt_u64(&self, key: &str) -> Result<Option<u64>, CoreError> {
        match self.opt(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| bad(&join(self.path, key), format!("expected a non-negative integer, got {}", show(v)))),
        }
    }

    pub fn u32(&self, key: &str) -> Result<u32, CoreError> {
        let n = self.u64(key)?;
        u32::try_from(n).map_err(|_| bad(&join(self.path, key), format!("{n} is too large (at most {})", u32::MAX)))
    }

    pub fn array(&self, key: &str) -> Result<&'a Vec<Value>, CoreError> {
        let v = self.req(key)?;
        v.as_array().ok_or_else(|| bad(&join(self.path, key), format!("expected a list, got {}", show(v))))
    }

    pub fn object(&self, key: &str) -> Result<&'a Map<String, Value>, CoreError> {
        let v = self.req(key)?;
        v.as_object().ok_or_else(|| bad(&join(self.path, key), format!("expected an object, got {}", show(v))))
    }

    /// Errors on a key that is not in `known` (an option we would otherwise ignore could
    /// change ids: better an error than a silently different answer).
    pub fn only(&self, known: &[&str]) -> Result<(), CoreError> {
        for key in self.map.keys() {
            if !known.contains(&key.as_str()) {
                return Err(CoreError::Unsupported(format!(
                    "{}: option {key:?} is not supported by tokenmill (known options: {})",
                    join(self.path, key),
                    known.join(", ")
                )));
            }
        }
        Ok(())
    }
}

fn key_type() -> &'static str {
    "type"
}

/// A pattern field as HF writes it: `{"String": "..."}` (literal) or `{"Regex": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternSpec {
    Literal(String),
    Regex(String),
}

impl PatternSpec {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let o = Obj::new(v, path)?;
        match (o.opt_str("String")?, o.opt_str("Regex")?) {
            (Some(s), None) => Ok(PatternSpec::Literal(s.to_string())),
            (None, Some(r)) => Ok(PatternSpec::Regex(r.to_string())),
            _ => Err(bad(path, format!("expected {{\"String\": ...}} or {{\"Regex\": ...}}, got {}", show(v)))),
        }
    }
}

/// One entry of `model.merges` as written: `"a b"` (legacy) or `["a", "b"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MergeText<'d> {
    Line(Cow<'d, str>),
    Pair(Cow<'d, str>, Cow<'d, str>),
}

/// `model.vocab` and `model.merges` as read by `parse_typed`, in file order (None: absent).
#[derive(Debug, Default)]
pub(crate) struct TypedModel<'d> {
    pub vocab: Option<Vec<(Cow<'d, str>, u32)>>,
    pub merges: Option<Vec<MergeText<'d>>>,
}

/// Reads a tokenizer.json with `model.vocab` (an object of u32 ids) and `model.merges` (a list
/// of strings or string pairs) typed: the `Value` of the file has `{}` and `[]` in their place.
/// None when the bytes are not such a file (invalid JSON, another shape, a duplicate key at the
/// top, in `model` or in `model.vocab`, where a `Value` keeps the last one).
pub(crate) fn parse_typed(data: &[u8]) -> Option<(Value, TypedModel<'_>)> {
    let mut de = serde_json::Deserializer::from_slice(data);
    let (top, typed) = de.deserialize_map(TopVisitor).ok()?;
    de.end().ok()?;
    Some((Value::Object(top), typed))
}

/// Why the typed path gave up; never shown (the full path then gives the error, if any).
fn give_up<E: de::Error>() -> E {
    E::custom("not the typed shape")
}

struct TopVisitor;

impl<'de> Visitor<'de> for TopVisitor {
    type Value = (Map<String, Value>, TypedModel<'de>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tokenizer.json object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        let mut typed = None;
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(give_up());
            }
            let value = if key == "model" {
                let (model, t) = access.next_value_seed(ModelSeed)?;
                typed = Some(t);
                Value::Object(model)
            } else {
                access.next_value::<Value>()?
            };
            map.insert(key, value);
        }
        Ok((map, typed.unwrap_or_default()))
    }
}

struct ModelSeed;

impl<'de> DeserializeSeed<'de> for ModelSeed {
    type Value = (Map<String, Value>, TypedModel<'de>);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ModelSeed {
    type Value = (Map<String, Value>, TypedModel<'de>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a model object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        let mut typed = TypedModel::default();
        while let Some(key) = access.next_key::<String>()? {
            if map.contains_key(&key) {
                return Err(give_up());
            }
            let value = match key.as_str() {
                "vocab" => {
                    typed.vocab = Some(access.next_value_seed(VocabSeed)?);
                    Value::Object(Map::new())
                }
                "merges" => {
                    typed.merges = Some(access.next_value_seed(MergesSeed)?);
                    Value::Array(Vec::new())
                }
                _ => access.next_value::<Value>()?,
            };
            map.insert(key, value);
        }
        Ok((map, typed))
    }
}

/// A string, borrowed from the bytes when it has no escapes.
struct CowStr<'d>(Cow<'d, str>);

impl<'de> de::Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(CowStrVisitor)
    }
}

struct CowStrVisitor;

impl<'de> Visitor<'de> for CowStrVisitor {
    type Value = CowStr<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Borrowed(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Owned(s.to_string())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Owned(s)))
    }
}

struct VocabSeed;

impl<'de> DeserializeSeed<'de> for VocabSeed {
    type Value = Vec<(Cow<'de, str>, u32)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for VocabSeed {
    type Value = Vec<(Cow<'de, str>, u32)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a {token: id} object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut pairs = Vec::with_capacity(access.size_hint().unwrap_or(0));
        while let Some(CowStr(token)) = access.next_key::<CowStr>()? {
            // A non-integer, negative or too large id is an error here: the full path words it.
            let id = access.next_value::<u32>()?;
            pairs.push((token, id));
        }
        Ok(pairs)
    }
}

struct MergesSeed;

impl<'de> DeserializeSeed<'de> for MergesSeed {
    type Value = Vec<MergeText<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MergesSeed {
    type Value = Vec<MergeText<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of merges")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut merges = Vec::with_capacity(access.size_hint().unwrap_or(0));
        while let Some(m) = access.next_element_seed(MergeSeed)? {
            merges.push(m);
        }
        Ok(merges)
    }
}

struct MergeSeed;

impl<'de> DeserializeSeed<'de> for MergeSeed {
    type Value = MergeText<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MergeSeed {
    type Value = MergeText<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("\"a b\" or [\"a\", \"b\"]")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(MergeText::Line(Cow::Borrowed(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(MergeText::Line(Cow::Owned(s.to_string())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(MergeText::Line(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let a = access.next_element::<CowStr>()?.ok_or_else(give_up)?;
        let b = access.next_element::<CowStr>()?.ok_or_else(give_up)?;
        if access.next_element::<IgnoredAny>()?.is_some() {
            return Err(give_up());
        }
        Ok(MergeText::Pair(a.0, b.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_typed_reads_vocab_and_merges_and_gives_up_on_the_unexpected() {
        let data = br#"{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0, "b\n": 1}, "merges": ["a b"]}}"#;
        let (v, t) = parse_typed(data).unwrap();
        assert_eq!(v, serde_json::json!({"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}));
        let vocab = t.vocab.unwrap();
        assert!(matches!(vocab[0].0, Cow::Borrowed("a")));
        assert_eq!(vocab[1], (Cow::Owned("b\n".to_string()), 1));
        assert_eq!(t.merges.unwrap(), vec![MergeText::Line("a b".into())]);
        let (_, t) = parse_typed(br#"{"model": {"merges": [["a", "b"]]}}"#).unwrap();
        assert_eq!(t.merges.unwrap(), vec![MergeText::Pair("a".into(), "b".into())]);
        assert!(t.vocab.is_none());
        for bad in [
            &br#"{"model": {}, "model": {}}"#[..],
            br#"{"model": {"vocab": {}, "vocab": {}}}"#,
            br#"{"model": {"vocab": {"a": "0"}}}"#,
            br#"{"model": {"merges": [1]}}"#,
            br#"{"model": []}"#,
            br#"[]"#,
            br#"{"model": {}} x"#,
            br#"{"model": {}"#,
        ] {
            assert!(parse_typed(bad).is_none(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn errors_name_the_path() {
        let v: Value = serde_json::from_str(r#"{"a": 1, "b": "x", "p": {"Regex": "\\s"}}"#).unwrap();
        let o = Obj::new(&v, "model").unwrap();
        assert_eq!(o.u64("a").unwrap(), 1);
        assert_eq!(o.str("a").unwrap_err().to_string(), "model.a: expected a string, got 1");
        assert_eq!(o.str("c").unwrap_err().to_string(), "model.c: missing");
        assert!(matches!(o.only(&["a", "b"]), Err(CoreError::Unsupported(_))));
        assert_eq!(PatternSpec::from_json(&v["p"], "p").unwrap(), PatternSpec::Regex("\\s".into()));
        assert!(unsupported("model.type", "\"Unigram\"", &["BPE"]).to_string().contains("supported: BPE"));
    }
}
