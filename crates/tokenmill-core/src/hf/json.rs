//! Reading the JSON of a Hugging Face `tokenizer.json`: typed field access whose errors name
//! the field by its path in the file (`model.vocab`, `normalizer.normalizers[2].pattern`).
//!
//! Every component's `from_json(value, path)` uses these helpers, so every error reads the
//! same way: `Vocab` for a malformed or missing field, `Unsupported` for a component type or
//! option tokenmill does not implement (with the list of those it does). What this module
//! does not do: build components (each component module does, from its own JSON).

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

#[cfg(test)]
mod tests {
    use super::*;

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
