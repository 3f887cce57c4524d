//! Expected values are HF's: `tokenizers.models.Unigram(vocab, unk_id, byte_fallback)
//! .tokenize(word)` in Python, as (id, byte offsets).

use serde_json::{json, Value};

use crate::error::CoreError;
use crate::hf::models::tests::{load, toks};
use crate::hf::models::{Model, Token};

fn uni(vocab: Value, unk_id: Value, byte_fallback: bool) -> Model {
    load(json!({"type": "Unigram", "vocab": vocab, "unk_id": unk_id, "byte_fallback": byte_fallback})).unwrap()
}

#[test]
fn hf_docstring_example() {
    let m = uni(
        json!([
            ["<unk>", 0.0],
            ["a", 0.0],
            ["b", 0.0],
            ["c", 0.0],
            ["d", 0.0],
            ["cd", 1.0],
            ["ab", 2.0],
            ["abc", 5.0],
            ["abcd", 10.0]
        ]),
        json!(0),
        false,
    );
    assert_eq!(toks(&m, "abcdacdxx"), [(8, (0, 4)), (1, (4, 5)), (5, (5, 7)), (0, (7, 9))]);
    assert_eq!(toks(&m, "x"), [(0, (0, 1))]);
    assert_eq!(toks(&m, "éa"), [(0, (0, 2)), (1, (2, 3))]);
    assert_eq!(m.vocab_size(), 9);
    assert_eq!(m.token_to_id("abc"), Some(7));
    assert_eq!(m.id_to_token(5), Some("cd"));
}

#[test]
fn byte_fallback_duplicates_and_fused_unknowns() {
    let m = uni(
        json!([
            ["<unk>", -5.0],
            ["a", -1.0],
            ["b", -1.0],
            ["ab", -2.0],
            ["ba", -2.0],
            ["<0x78>", -1.0],
            ["<0xC3>", -1.0],
            ["<0xA9>", -1.0],
            ["a", -0.5]
        ]),
        json!(0),
        true,
    );
    // The later "a" (id 8, -0.5) is the one used.
    assert_eq!(toks(&m, "ab"), [(8, (0, 1)), (2, (1, 2))]);
    assert_eq!(toks(&m, "aba"), [(8, (0, 1)), (2, (1, 2)), (8, (2, 3))]);
    assert_eq!(m.token_to_id("a"), Some(8));
    assert_eq!(m.id_to_token(1), Some("a"));
    // Byte fallback: every byte of the fused run, each with the run's offsets...
    assert_eq!(toks(&m, "x"), [(5, (0, 1))]);
    assert_eq!(toks(&m, "é"), [(6, (0, 2)), (7, (0, 2))]);
    assert_eq!(toks(&m, "xé"), [(5, (0, 3)), (6, (0, 3)), (7, (0, 3))]);
    // ... or, when one byte has no piece, the unknown token for the run.
    assert_eq!(toks(&m, "xyé"), [(0, (0, 4))]);
    assert_eq!(toks(&m, "ée"), [(0, (0, 3))]);
}

#[test]
fn ties_keep_the_first_candidate_in_f64() {
    let m = uni(json!([["<unk>", -5.0], ["a", -1.0], ["b", -1.0], ["ab", -2.0], ["<unk>", -1.0]]), json!(0), false);
    assert_eq!(toks(&m, "ab"), [(3, (0, 2))]);
    assert_eq!(toks(&m, "ba"), [(2, (0, 1)), (1, (1, 2))]);
    // "<unk>" in the text is the piece of id 4 (the later one), not the unknown id: not fused.
    assert_eq!(toks(&m, "x<unk>y"), [(0, (0, 1)), (4, (1, 6)), (0, (6, 7))]);
    // 0.1 + 0.2 > 0.3 in f64 (not in f32).
    let m = uni(json!([["a", 0.1], ["b", 0.2], ["ab", 0.3]]), Value::Null, false);
    assert_eq!(toks(&m, "ab"), [(0, (0, 1)), (1, (1, 2))]);
    let m = uni(json!([["a", 0.1], ["b", 0.2], ["ab", 0.30000000000000004]]), Value::Null, false);
    assert_eq!(toks(&m, "ab"), [(2, (0, 2))]);
}

#[test]
fn no_unk_id() {
    let m = uni(json!([["a", -1.0], ["bc", -1.0]]), Value::Null, false);
    assert_eq!(toks(&m, "a"), [(0, (0, 1))]);
    for w in ["abc", "ab"] {
        let e = m.tokenize(w, &mut Vec::new()).unwrap_err();
        assert!(matches!(&e, CoreError::Input(s) if s.contains("unk_id")), "{e}");
    }
}

#[test]
fn token_text_is_hf_token_value() {
    let m = uni(json!([["<unk>", 0.0], ["a", -1.0], ["<0xC3>", -1.0], ["<0xA9>", -1.0]]), json!(0), true);
    let word = "axyé<unk>é";
    let mut out = Vec::new();
    m.tokenize(word, &mut out).unwrap();
    let texts: Vec<&str> = out.iter().map(|t| m.token_text(word, t)).collect();
    // HF: ['a', 'xyé<unk>é'] (x has no byte piece: the whole run is unknown).
    assert_eq!(texts, ["a", "xyé<unk>é"]);
    let word = "é";
    out.clear();
    m.tokenize(word, &mut out).unwrap();
    assert_eq!(out.iter().map(|t| m.token_text(word, t)).collect::<Vec<_>>(), ["<0xC3>", "<0xA9>"]);
    let t = Token { id: 1, start: 0, end: 1 };
    assert_eq!(m.token_text("a", &t), "a");
}

#[test]
fn load_errors_name_the_field() {
    let e = |v: Value| load(v).unwrap_err().to_string();
    assert!(
        e(json!({"type": "Unigram", "vocab": [], "unk_id": null})).starts_with("model.vocab: the vocabulary is empty")
    );
    let s = e(json!({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 1}));
    assert!(s.starts_with("model.unk_id: 1 is not an id"), "{s}");
    assert!(e(json!({"type": "Unigram", "vocab": [["a", "x"]]})).starts_with("model.vocab[0][1]: expected a number"));
    assert!(e(json!({"type": "Unigram", "vocab": [["a"]]})).starts_with("model.vocab[0]: expected a [piece, score]"));
    assert!(e(json!({"type": "Unigram", "vocab": [[1, 0.0]]})).starts_with("model.vocab[0][0]: expected a string"));
    assert!(e(json!({"type": "Unigram", "vocab": {"a": 0}})).starts_with("model.vocab: expected a list"));
    assert!(e(json!({"type": "Unigram"})).starts_with("model.vocab: missing"));
    assert!(e(json!({"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": -1})).starts_with("model.unk_id"));
    assert!(
        e(json!({"type": "Unigram", "vocab": [["a", 0.0]], "byte_fallback": null})).starts_with("model.byte_fallback")
    );
    assert!(matches!(load(json!({"type": "Unigram", "vocab": [["a", 0.0]], "x": 1})), Err(CoreError::Unsupported(_))));
    // Absent unk_id and byte_fallback: None and false.
    assert!(load(json!({"type": "Unigram", "vocab": [["a", 0.0]]})).is_ok());
    let e = crate::hf::models::Unigram::from_pairs(&[("a", f64::NAN)], None, false, "model").unwrap_err();
    assert_eq!(e.to_string(), "model.vocab[0][1]: the score is NaN; scores must be numbers");
}

#[test]
fn empty_piece_and_long_words() {
    // An empty piece is in the vocabulary but never matches (HF's trie yields after a byte).
    let m = uni(json!([["<unk>", 0.0], ["", 5.0], ["a", -1.0]]), json!(0), false);
    assert_eq!(toks(&m, "ab"), [(2, (0, 1)), (0, (1, 2))]);
    assert_eq!(m.token_to_id(""), Some(1));
    let word = "a".repeat(10_000);
    assert_eq!(toks(&m, &word).len(), 10_000);
}
