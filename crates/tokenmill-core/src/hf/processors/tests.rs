//! Tests for `processors.rs`: post-processed encodings (pairs, truncation, padding) against HF `tokenizers` 0.23.3.
//!
//! Expected values from HF `tokenizers` 0.23.3 (Python), rendered as
//! `ids|type_ids|word_ids|special_tokens_mask|attention_mask|sequence_ids[|offsets]`
//! (`-` for None) followed by each overflowing encoding in brackets; "ERR:..." for an error.
//! WordLevel inputs: `Tokenizer(WordLevel({w: i for i, w in enumerate(WL)}, unk_token="[UNK]"))`
//! with `pre_tokenizer = WhitespaceSplit()`, so each word is one token; the tables were made
//! with `post_processor = ...`, `enable_truncation(...)`, `enable_padding(...)` and the
//! `encode(a, b, add_special_tokens=...)` / `encode_batch(...)` calls named above each table;
//! the JSON columns are what `tokenizer.to_str()` wrote for them.
use super::*;
use crate::hf::encoding::tests::{render as render_all, ws};
use crate::hf::encoding::{pad_encodings, PaddingParams, TruncationParams};

/// A raw encoding written "token:id:start-end:word ...".
fn parse_raw(raw: &str, type_id: u32) -> Encoding {
    let (mut ids, mut tokens, mut offsets, mut words) = (vec![], vec![], vec![], vec![]);
    for t in raw.split(' ') {
        let f: Vec<&str> = t.split(':').collect();
        let (s, e) = f[2].split_once('-').unwrap();
        tokens.push(f[0].to_string());
        ids.push(f[1].parse().unwrap());
        offsets.push((s.parse().unwrap(), e.parse().unwrap()));
        words.push(Some(f[3].parse().unwrap()));
    }
    Encoding::from_tokens(ids, tokens, offsets, words, type_id)
}

fn render(e: &Encoding, offsets: bool) -> String {
    render_all(e, offsets, false)
}

/// (a, b, add_special_tokens, expected)
type Rows = &'static [(&'static str, Option<&'static str>, bool, &'static str)];

fn value(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

fn processor(s: &str) -> Option<PostProcessor> {
    let v = value(s);
    (!v.is_null()).then(|| PostProcessor::from_json(&v, "post_processor").unwrap())
}

fn shown(r: Result<Encoding, CoreError>, offsets: bool) -> String {
    match r {
        Ok(e) => render(&e, offsets),
        Err(CoreError::Input(m)) if m.contains("`stride`") => "ERR:stride".into(),
        Err(e) => format!("ERR:{e}"),
    }
}

#[test]
fn truncation_table() {
    for (t, a, b, want) in TRUNC_CASES {
        let t = TruncationParams::from_json(Some(&value(t)), "truncation").unwrap();
        let got = shown(post_process(ws(a, 0), b.map(|b| ws(b, 1)), true, None, t.as_ref(), None), false);
        assert_eq!(got, *want, "{t:?} {a:?} {b:?}");
    }
}

#[test]
fn processor_table() {
    for (p, t, rows) in PROC_CASES {
        let proc = processor(p);
        let t = TruncationParams::from_json(Some(&value(t)), "truncation").unwrap();
        for (a, b, add, want) in rows.iter() {
            let got = shown(post_process(ws(a, 0), b.map(|b| ws(b, 1)), *add, proc.as_ref(), t.as_ref(), None), false);
            assert_eq!(got, *want, "{p} {t:?} {a:?} {b:?} {add}");
        }
    }
}

#[test]
fn padding_table() {
    for (p, t, pad, singles, batch1, batch2) in PAD_CASES {
        let proc = processor(p);
        let t = TruncationParams::from_json(Some(&value(t)), "truncation").unwrap();
        let pad = PaddingParams::from_json(Some(&value(pad)), "padding").unwrap();
        let (a, b, c) = ("a b c d e f g", "h i j", "");
        let inputs = [(a, None), (a, Some(b)), (c, None)];
        for ((x, y), want) in inputs.iter().zip(singles.iter()) {
            let got = shown(
                post_process(ws(x, 0), y.map(|y| ws(y, 1)), true, proc.as_ref(), t.as_ref(), pad.as_ref()),
                false,
            );
            assert_eq!(got, *want, "{p} {t:?} {pad:?} {x:?} {y:?}");
        }
        let render_batch = |inputs: Vec<(Encoding, Option<Encoding>)>| {
            let out = post_process_batch(inputs, true, proc.as_ref(), t.as_ref(), pad.as_ref()).unwrap();
            out.iter().map(|e| render(e, false)).collect::<Vec<_>>().join(" ;; ")
        };
        assert_eq!(render_batch(vec![(ws(a, 0), None), (ws(b, 0), None), (ws(c, 0), None)]), *batch1);
        assert_eq!(render_batch(vec![(ws(a, 0), Some(ws(b, 1))), (ws(b, 0), Some(ws(c, 1)))]), *batch2);
    }
}

#[test]
fn byte_level_table() {
    let raw = |aps: bool, text: &str, type_id: u32| {
        let (_, _, r) = BL_RAW.iter().find(|(a, t, _)| *a == aps && *t == text).unwrap();
        parse_raw(r, type_id)
    };
    for (aps, p, t, rows) in BL_CASES {
        let proc = processor(p);
        let t = TruncationParams::from_json(Some(&value(t)), "truncation").unwrap();
        for (a, b, add, want) in rows.iter() {
            let got = shown(
                post_process(raw(*aps, a, 0), b.map(|b| raw(*aps, b, 1)), *add, proc.as_ref(), t.as_ref(), None),
                true,
            );
            assert_eq!(got, *want, "{p} {t:?} {a:?} {b:?} {add}");
        }
    }
}

// Trimming non-ASCII text: HF Python trims in chars, on char offsets (as we pass them).
// t = Tokenizer(WordLevel(vocab of the pieces)); t.pre_tokenizer = <pre-tokenizer>;
// raw = t.encode(text); t.post_processor = ByteLevel(trim_offsets=True, add_prefix_space=aps);
// t.encode(text).offsets (the same for aps=True and False unless two are given)
#[test]
fn trim_offsets_non_ascii() {
    type Raw<'a> = &'a [(&'a str, (usize, usize))];
    type Offsets<'a> = &'a [(usize, usize)];
    #[rustfmt::skip]
    let cases: &[(&str, Raw, Offsets, Offsets)] = &[
        // ByteLevel(add_prefix_space=True)
        (
            "héllo  wörld  ü",
            &[("ĠhÃ©llo", (0, 5)), ("Ġ", (5, 6)), ("ĠwÃ¶rld", (6, 12)), ("Ġ", (12, 13)), ("ĠÃ¼", (13, 15))],
            &[(0, 5), (6, 6), (7, 12), (13, 13), (14, 15)],
            &[(1, 5), (6, 6), (7, 12), (13, 13), (14, 15)],
        ),
        // Split(Regex("x"), "isolated")
        (
            "a\u{3000}\u{3000}x\u{3000}b\u{3000} ",
            &[("a\u{3000}\u{3000}", (0, 3)), ("x", (3, 4)), ("\u{3000}b\u{3000} ", (4, 8))],
            &[(0, 1), (3, 4), (5, 6)],
            &[(0, 1), (3, 4), (5, 6)],
        ),
        (
            "\u{3000}\u{3000}ax\u{3000}",
            &[("\u{3000}\u{3000}a", (0, 3)), ("x", (3, 4)), ("\u{3000}", (4, 5))],
            &[(2, 3), (3, 4), (5, 5)],
            &[(2, 3), (3, 4), (5, 5)],
        ),
    ];
    for (text, raw, want_aps, want_no_aps) in cases {
        // Character offsets, as the tokenizer passes them.
        let offsets: Vec<_> = raw.iter().map(|&(_, o)| o).collect();
        let tokens: Vec<String> = raw.iter().map(|(t, _)| t.to_string()).collect();
        let n = raw.len();
        let words = (0..n as u32).map(Some).collect();
        let enc = Encoding::from_tokens((0..n as u32).collect(), tokens, offsets, words, 0);
        for (aps, want) in [(true, want_aps), (false, want_no_aps)] {
            let p = PostProcessor::ByteLevel { trim_offsets: true, add_prefix_space: aps };
            let out = post_process(enc.clone(), None, true, Some(&p), None, None).unwrap();
            assert_eq!(out.offsets, want.to_vec(), "{text:?} {aps}");
        }
    }
}

// t.post_processor = BertProcessing(("[SEP]", 2), ("[CLS]", 1)), then "truncation":
// {"max_length": ml, "strategy": "LongestFirst", "stride": 0} written in the JSON (HF does
// not check it on load) and Tokenizer.from_str(...).encode(a, b): when the processor adds
// more than max_length, HF's usize subtraction wraps and nothing is truncated.
#[test]
fn max_length_below_added_tokens() {
    let bert = processor(r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#);
    #[rustfmt::skip]
    let cases: &[(usize, Option<&str>, &str)] = &[
        (1, None, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-"),
        (1, Some("h"), "1 6 7 8 9 10 11 12 2 13 2|00000000011|-0123456-0-|10000000101|11111111111|-0000000-1-"),
        (2, None, "1 2|00|--|11|11|-- [1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-]"),
        (2, Some("h"), "1 6 7 8 9 10 11 12 2 13 2|00000000011|-0123456-0-|10000000101|11111111111|-0000000-1-"),
        (3, None, "1 6 2|000|-0-|101|111|-0- [1 7 2|000|-1-|101|111|-0-] [1 8 2|000|-2-|101|111|-0-] [1 9 2|000|-3-|101|111|-0-] [1 10 2|000|-4-|101|111|-0-] [1 11 2|000|-5-|101|111|-0-] [1 12 2|000|-6-|101|111|-0-]"),
        (3, Some("h"), "1 2 2|001|---|111|111|--- [1 6 7 8 9 10 11 12 2 2|0000000001|-0123456--|1000000011|1111111111|-0000000-- [1 6 7 8 9 10 11 12 2 13 2|00000000011|-0123456-0-|10000000101|11111111111|-0000000-1-]] [1 6 7 8 9 10 11 12 2 13 2|00000000011|-0123456-0-|10000000101|11111111111|-0000000-1-] [1 2 13 2|0011|--0-|1101|1111|--1- [1 6 7 8 9 10 11 12 2 13 2|00000000011|-0123456-0-|10000000101|11111111111|-0000000-1-]]"),
    ];
    for (ml, b, want) in cases {
        let t = TruncationParams {
            max_length: *ml,
            stride: 0,
            strategy: crate::hf::encoding::TruncationStrategy::LongestFirst,
            direction: crate::hf::encoding::Direction::Right,
        };
        let got = post_process(ws("a b c d e f g", 0), b.map(|b| ws(b, 1)), true, bert.as_ref(), Some(&t), None);
        assert_eq!(shown(got, false), *want, "{ml} {b:?}");
    }
}

#[test]
fn from_json_forms_and_errors() {
    let v = value;
    // HF reads post-processors untagged: no "type" is Bert, or Roberta with its fields.
    // Tokenizer.from_str with {"sep": ..., "cls": ...} then t.encode("a b", "c"):
    let bert = processor(r#"{"sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#);
    assert_eq!(
        render(&post_process(ws("a b", 0), Some(ws("c", 1)), true, bert.as_ref(), None, None).unwrap(), false),
        "1 6 7 2 8 2|000011|-01-0-|100101|111111|-00-1-"
    );
    let roberta =
        processor(r#"{"sep": ["</s>", 5], "cls": ["<s>", 4], "trim_offsets": false, "add_prefix_space": true}"#);
    assert_eq!(
        render(&post_process(ws("a b", 0), Some(ws("c", 1)), true, roberta.as_ref(), None, None).unwrap(), false),
        "4 6 7 5 5 8 5|0000000|-01--0-|1001101|1111111|-00--1-"
    );
    assert_eq!(roberta.unwrap().added_tokens(true), 4);

    let err = |s: &str| PostProcessor::from_json(&v(s), "post_processor").unwrap_err();
    let e = err(r#"{"type": "Foo"}"#);
    assert!(
        matches!(&e, CoreError::Unsupported(m) if m.contains("post_processor.type") && m.contains("TemplateProcessing")),
        "{e}"
    );
    let e = err(r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1], "trim_offsets": true}"#);
    assert!(matches!(&e, CoreError::Unsupported(m) if m.contains("trim_offsets")), "{e}");
    let e = err(r#"{"type": "BertProcessing", "sep": ["[SEP]", -2], "cls": ["[CLS]", 1]}"#);
    assert_eq!(e.to_string(), "post_processor.sep[1]: expected a token id, got -2");
    let e = err(r#"{"type": "ByteLevel", "trim_offsets": true}"#);
    assert_eq!(e.to_string(), "post_processor.add_prefix_space: missing");
    let e = err(
        r#"{"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": true, "add_prefix_space": 1}]}"#,
    );
    assert_eq!(e.to_string(), "post_processor.processors[0].add_prefix_space: expected true or false, got 1");
    let e = err(r#"{"type": "TemplateProcessing", "single": ["$A"], "pair": [], "special_tokens": {}}"#);
    assert!(e.to_string().starts_with("post_processor.single[0]: expected an object"), "{e}");
    let e = err(
        r#"{"type": "TemplateProcessing", "single": [{"Sequence": {"id": "C", "type_id": 0}}], "pair": [], "special_tokens": {}}"#,
    );
    assert_eq!(e.to_string(), "post_processor.single[0].Sequence.id: expected \"A\" or \"B\", got \"C\"");
    let e = err(
        r#"{"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": {"x": {"id": "x", "ids": [1, 2], "tokens": ["x"]}}}"#,
    );
    assert_eq!(e.to_string(), "post_processor.special_tokens.x: 2 ids but 1 tokens");
}

// A template whose special token is missing from special_tokens: HF loads it and panics
// when it adds the token; refused at load here, naming the field.
#[test]
fn template_missing_special_token() {
    let p = PostProcessor::from_json(
        &value(
            r#"{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}}}"#,
        ),
        "post_processor",
    );
    assert!(
        matches!(&p, Err(CoreError::Vocab(m)) if m.contains("\"[SEP]\" is not in post_processor.special_tokens")),
        "{p:?}"
    );
}

// Where HF panics (index out of bounds / todo!()), an error.
#[test]
fn template_misuse_errors() {
    let single_b = processor(
        r#"{"type": "TemplateProcessing", "single": [{"Sequence": {"id": "B", "type_id": 0}}], "pair": [], "special_tokens": {}}"#,
    );
    assert!(post_process(ws("a", 0), None, true, single_b.as_ref(), None, None).is_err());
    // A pair template may drop a sequence (HF does not check that either).
    assert_eq!(
        render(&post_process(ws("a", 0), Some(ws("b", 1)), true, single_b.as_ref(), None, None).unwrap(), false),
        "|||||"
    );
    let t = r#"{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "x", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "x", "type_id": 0}}], "pair": [], "special_tokens": {"x": {"id": "x", "ids": [1], "tokens": ["x"]}}}"#;
    // The first template makes 3 encodings (one per piece), which the second cannot take.
    let twice = processor(&format!(r#"{{"type": "Sequence", "processors": [{t}, {t}]}}"#));
    assert!(matches!(post_process(ws("a", 0), None, true, twice.as_ref(), None, None), Err(CoreError::Input(_))));
}

#[test]
fn pad_encodings_empty_batch() {
    let pad = PaddingParams::from_json(Some(&value(r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 8, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#)), "padding").unwrap().unwrap();
    pad_encodings(&mut [], &pad);
}

// truncation only (no post-processor): t.enable_truncation(max_length, stride=..., strategy=..., direction=...);
// t.encode(a, b)
#[rustfmt::skip]
const TRUNC_CASES: &[(&str, &str, Option<&str>, &str)] = &[
    (r#"{"direction": "Right", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "6|0|0|0|1|0 [7|0|1|0|1|0] [8|0|2|0|1|0] [9|0|3|0|1|0] [10|0|4|0|1|0] [11|0|5|0|1|0] [12|0|6|0|1|0] [13|0|7|0|1|0] [14|0|8|0|1|0]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "6|0|0|0|1|0 [7|0|1|0|1|0 [7 13 14 15|0111|1012|0000|1111|0000]] [7 13 14 15|0111|1012|0000|1111|0000] [8|0|2|0|1|0 [8 13 14 15|0111|2012|0000|1111|0000]] [8 13 14 15|0111|2012|0000|1111|0000] [9|0|3|0|1|0 [9 13 14 15|0111|3012|0000|1111|0000]] [9 13 14 15|0111|3012|0000|1111|0000] [10|0|4|0|1|0 [10 13 14 15|0111|4012|0000|1111|0000]] [10 13 14 15|0111|4012|0000|1111|0000] [11|0|5|0|1|0 [11 13 14 15|0111|5012|0000|1111|0000]] [11 13 14 15|0111|5012|0000|1111|0000] [12|0|6|0|1|0 [12 13 14 15|0111|6012|0000|1111|0000]] [12 13 14 15|0111|6012|0000|1111|0000] [13|0|7|0|1|0 [13 13 14 15|0111|7012|0000|1111|0000]] [13 13 14 15|0111|7012|0000|1111|0000] [14|0|8|0|1|0 [14 13 14 15|0111|8012|0000|1111|0000]] [14 13 14 15|0111|8012|0000|1111|0000] [6 13 14 15|0111|0012|0000|1111|0--- [7 13 14 15|0111|1012|0000|1111|0000] [8 13 14 15|0111|2012|0000|1111|0000] [9 13 14 15|0111|3012|0000|1111|0000] [10 13 14 15|0111|4012|0000|1111|0000] [11 13 14 15|0111|5012|0000|1111|0000] [12 13 14 15|0111|6012|0000|1111|0000] [13 13 14 15|0111|7012|0000|1111|0000] [14 13 14 15|0111|8012|0000|1111|0000]]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "6|1|0|0|1|1 [13 14 15 6|0001|0120|0000|1111|0000 [13 14 15 7|0001|0121|0000|1111|0000] [13 14 15 8|0001|0122|0000|1111|0000] [13 14 15 9|0001|0123|0000|1111|0000] [13 14 15 10|0001|0124|0000|1111|0000] [13 14 15 11|0001|0125|0000|1111|0000] [13 14 15 12|0001|0126|0000|1111|0000] [13 14 15 13|0001|0127|0000|1111|0000] [13 14 15 14|0001|0128|0000|1111|0000]] [13 14 15 7|0001|0121|0000|1111|0000] [13 14 15 8|0001|0122|0000|1111|0000] [13 14 15 9|0001|0123|0000|1111|0000] [13 14 15 10|0001|0124|0000|1111|0000] [13 14 15 11|0001|0125|0000|1111|0000] [13 14 15 12|0001|0126|0000|1111|0000] [13 14 15 13|0001|0127|0000|1111|0000] [13 14 15 14|0001|0128|0000|1111|0000] [7|1|1|0|1|- [13 14 15 7|0001|0121|0000|1111|0000]] [8|1|2|0|1|- [13 14 15 8|0001|0122|0000|1111|0000]] [9|1|3|0|1|- [13 14 15 9|0001|0123|0000|1111|0000]] [10|1|4|0|1|- [13 14 15 10|0001|0124|0000|1111|0000]] [11|1|5|0|1|- [13 14 15 11|0001|0125|0000|1111|0000]] [12|1|6|0|1|- [13 14 15 12|0001|0126|0000|1111|0000]] [13|1|7|0|1|- [13 14 15 13|0001|0127|0000|1111|0000]] [14|1|8|0|1|- [13 14 15 14|0001|0128|0000|1111|0000]]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "13|1|0|0|1|1 [14|1|1|0|1|-] [15|1|2|0|1|-]"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "a b c d e f g h i", None, "6 7|00|01|00|11|00 [7 8|00|12|00|11|00] [8 9|00|23|00|11|00] [9 10|00|34|00|11|00] [10 11|00|45|00|11|00] [11 12|00|56|00|11|00] [12 13|00|67|00|11|00] [13 14|00|78|00|11|00]"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "", Some("h i j"), "13 14|11|01|00|11|11 [14 15|11|12|00|11|--]"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "a b c d e f g h i", None, "6 7 8 9 10|00000|01234|00000|11111|00000 [8 9 10 11 12|00000|23456|00000|11111|00000] [10 11 12 13 14|00000|45678|00000|11111|00000]"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 [13 14|00|78|00|11|00]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "6 7 8 9 13 14 15|0000111|0123012|0000000|1111111|0000111 [10 11 12 13 13 14 15|0000111|4567012|0000000|1111111|0000000] [14 13 14 15|0111|8012|0000|1111|0000]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "13 14 15 6 7 8 9|0001111|0120123|0000000|1111111|0001111 [13 14 15 10 11 12 13|0001111|0124567|0000000|1111111|000----] [13 14 15 14|0001|0128|0000|1111|000-]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "14|0|8|0|1|0 [13|0|7|0|1|0] [12|0|6|0|1|0] [11|0|5|0|1|0] [10|0|4|0|1|0] [9|0|3|0|1|0] [8|0|2|0|1|0] [7|0|1|0|1|0] [6|0|0|0|1|0]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "14|0|8|0|1|0 [13|0|7|0|1|0 [13 13 14 15|0111|7012|0000|1111|0000]] [13 13 14 15|0111|7012|0000|1111|0000] [12|0|6|0|1|0 [12 13 14 15|0111|6012|0000|1111|0000]] [12 13 14 15|0111|6012|0000|1111|0000] [11|0|5|0|1|0 [11 13 14 15|0111|5012|0000|1111|0000]] [11 13 14 15|0111|5012|0000|1111|0000] [10|0|4|0|1|0 [10 13 14 15|0111|4012|0000|1111|0000]] [10 13 14 15|0111|4012|0000|1111|0000] [9|0|3|0|1|0 [9 13 14 15|0111|3012|0000|1111|0000]] [9 13 14 15|0111|3012|0000|1111|0000] [8|0|2|0|1|0 [8 13 14 15|0111|2012|0000|1111|0000]] [8 13 14 15|0111|2012|0000|1111|0000] [7|0|1|0|1|0 [7 13 14 15|0111|1012|0000|1111|0000]] [7 13 14 15|0111|1012|0000|1111|0000] [6|0|0|0|1|0 [6 13 14 15|0111|0012|0000|1111|0000]] [6 13 14 15|0111|0012|0000|1111|0000] [14 13 14 15|0111|8012|0000|1111|0--- [13 13 14 15|0111|7012|0000|1111|0000] [12 13 14 15|0111|6012|0000|1111|0000] [11 13 14 15|0111|5012|0000|1111|0000] [10 13 14 15|0111|4012|0000|1111|0000] [9 13 14 15|0111|3012|0000|1111|0000] [8 13 14 15|0111|2012|0000|1111|0000] [7 13 14 15|0111|1012|0000|1111|0000] [6 13 14 15|0111|0012|0000|1111|0000]]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "14|1|8|0|1|1 [13 14 15 14|0001|0128|0000|1111|0000 [13 14 15 13|0001|0127|0000|1111|0000] [13 14 15 12|0001|0126|0000|1111|0000] [13 14 15 11|0001|0125|0000|1111|0000] [13 14 15 10|0001|0124|0000|1111|0000] [13 14 15 9|0001|0123|0000|1111|0000] [13 14 15 8|0001|0122|0000|1111|0000] [13 14 15 7|0001|0121|0000|1111|0000] [13 14 15 6|0001|0120|0000|1111|0000]] [13 14 15 13|0001|0127|0000|1111|0000] [13 14 15 12|0001|0126|0000|1111|0000] [13 14 15 11|0001|0125|0000|1111|0000] [13 14 15 10|0001|0124|0000|1111|0000] [13 14 15 9|0001|0123|0000|1111|0000] [13 14 15 8|0001|0122|0000|1111|0000] [13 14 15 7|0001|0121|0000|1111|0000] [13 14 15 6|0001|0120|0000|1111|0000] [13|1|7|0|1|- [13 14 15 13|0001|0127|0000|1111|0000]] [12|1|6|0|1|- [13 14 15 12|0001|0126|0000|1111|0000]] [11|1|5|0|1|- [13 14 15 11|0001|0125|0000|1111|0000]] [10|1|4|0|1|- [13 14 15 10|0001|0124|0000|1111|0000]] [9|1|3|0|1|- [13 14 15 9|0001|0123|0000|1111|0000]] [8|1|2|0|1|- [13 14 15 8|0001|0122|0000|1111|0000]] [7|1|1|0|1|- [13 14 15 7|0001|0121|0000|1111|0000]] [6|1|0|0|1|- [13 14 15 6|0001|0120|0000|1111|0000]]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "15|1|2|0|1|1 [14|1|1|0|1|-] [13|1|0|0|1|-]"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "a b c d e f g h i", None, "13 14|00|78|00|11|00 [12 13|00|67|00|11|00] [11 12|00|56|00|11|00] [10 11|00|45|00|11|00] [9 10|00|34|00|11|00] [8 9|00|23|00|11|00] [7 8|00|12|00|11|00] [6 7|00|01|00|11|00]"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "LongestFirst", "stride": 1}"#, "", Some("h i j"), "14 15|11|12|00|11|11 [13 14|11|01|00|11|--]"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "a b c d e f g h i", None, "10 11 12 13 14|00000|45678|00000|11111|00000 [8 9 10 11 12|00000|23456|00000|11111|00000] [6 7 8 9 10|00000|01234|00000|11111|00000]"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "LongestFirst", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", None, "8 9 10 11 12 13 14|0000000|2345678|0000000|1111111|0000000 [6 7|00|01|00|11|00]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "11 12 13 14 13 14 15|0000111|5678012|0000000|1111111|0000111 [7 8 9 10 13 14 15|0000111|1234012|0000000|1111111|0000000] [6 13 14 15|0111|0012|0000|1111|0000]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "13 14 15 11 12 13 14|0001111|0125678|0000000|1111111|0001111 [13 14 15 7 8 9 10|0001111|0121234|0000000|1111111|000----] [13 14 15 6|0001|0120|0000|1111|000-]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "LongestFirst", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "6|0|0|0|1|0 [7|0|1|0|1|0] [8|0|2|0|1|0] [9|0|3|0|1|0] [10|0|4|0|1|0] [11|0|5|0|1|0] [12|0|6|0|1|0] [13|0|7|0|1|0] [14|0|8|0|1|0]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "a b c d e f g h i", None, "6 7|00|01|00|11|00 [7 8|00|12|00|11|00] [8 9|00|23|00|11|00] [9 10|00|34|00|11|00] [10 11|00|45|00|11|00] [11 12|00|56|00|11|00] [12 13|00|67|00|11|00] [13 14|00|78|00|11|00]"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "a b c d e f g h i", None, "6 7 8 9 10|00000|01234|00000|11111|00000 [8 9 10 11 12|00000|23456|00000|11111|00000] [10 11 12 13 14|00000|45678|00000|11111|00000]"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 [13 14|00|78|00|11|00]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "6 7 8 9 13 14 15|0000111|0123012|0000000|1111111|0000111 [10 11 12 13 13 14 15|0000111|4567012|0000000|1111111|0000000] [14 13 14 15|0111|8012|0000|1111|0000]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "14|0|8|0|1|0 [13|0|7|0|1|0] [12|0|6|0|1|0] [11|0|5|0|1|0] [10|0|4|0|1|0] [9|0|3|0|1|0] [8|0|2|0|1|0] [7|0|1|0|1|0] [6|0|0|0|1|0]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "a b c d e f g h i", None, "13 14|00|78|00|11|00 [12 13|00|67|00|11|00] [11 12|00|56|00|11|00] [10 11|00|45|00|11|00] [9 10|00|34|00|11|00] [8 9|00|23|00|11|00] [7 8|00|12|00|11|00] [6 7|00|01|00|11|00]"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlyFirst", "stride": 1}"#, "", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "a b c d e f g h i", None, "10 11 12 13 14|00000|45678|00000|11111|00000 [8 9 10 11 12|00000|23456|00000|11111|00000] [6 7 8 9 10|00000|01234|00000|11111|00000]"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlyFirst", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", None, "8 9 10 11 12 13 14|0000000|2345678|0000000|1111111|0000000 [6 7|00|01|00|11|00]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "11 12 13 14 13 14 15|0000111|5678012|0000000|1111111|0000111 [7 8 9 10 13 14 15|0000111|1234012|0000000|1111111|0000000] [6 13 14 15|0111|0012|0000|1111|0000]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlyFirst", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Right", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "13|1|0|0|1|1 [14|1|1|0|1|-] [15|1|2|0|1|-]"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "", Some("h i j"), "13 14|11|01|00|11|11 [14 15|11|12|00|11|--]"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Right", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "13 14 15 6 7 8 9|0001111|0120123|0000000|1111111|0001111 [13 14 15 10 11 12 13|0001111|0124567|0000000|1111111|000----] [13 14 15 14|0001|0128|0000|1111|000-]"),
    (r#"{"direction": "Right", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "||||| [6 7 8 9 10 11 12 13 14|000000000|012345678|000000000|111111111|000000000 [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]] [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000] [13 14 15|111|012|000|111|--- [6 7 8 9 10 11 12 13 14 13 14 15|000000000111|012345678012|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "||||| [13 14 15|000|012|000|111|000 [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]] [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000] [6 7 8 9 10 11 12 13 14|111111111|012345678|000000000|111111111|--------- [13 14 15 6 7 8 9 10 11 12 13 14|000111111111|012012345678|000000000000|111111111111|000000000000]]"),
    (r#"{"direction": "Left", "max_length": 0, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "||||| [13 14 15|111|012|000|111|---]"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 1, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "15|1|2|0|1|1 [14|1|1|0|1|-] [13|1|0|0|1|-]"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "h i j", Some("a b c d e f g h i"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 2, "strategy": "OnlySecond", "stride": 1}"#, "", Some("h i j"), "14 15|11|12|00|11|11 [13 14|11|01|00|11|--]"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "h i j", Some("a b c d e f g h i"), "ERR:stride"),
    (r#"{"direction": "Left", "max_length": 5, "strategy": "OnlySecond", "stride": 3}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", None, "ERR:Truncation error: Second sequence not provided"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "a b c d e f g h i", Some("h i j"), "ERR:Truncation error: Sequence to truncate too short to respect the provided max_length"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "h i j", Some("a b c d e f g h i"), "13 14 15 11 12 13 14|0001111|0125678|0000000|1111111|0001111 [13 14 15 7 8 9 10|0001111|0121234|0000000|1111111|000----] [13 14 15 6|0001|0120|0000|1111|000-]"),
    (r#"{"direction": "Left", "max_length": 7, "strategy": "OnlySecond", "stride": 0}"#, "", Some("h i j"), "13 14 15|111|012|000|111|111"),
];

// t.post_processor = <processor>; t.enable_truncation(**truncation); t.encode(a, b, add_special_tokens=add)
#[rustfmt::skip]
const PROC_CASES: &[(&str, &str, Rows)] = &[
    // none, truncation None
    (r#"null"#, r#"null"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "13 14 15|111|012|000|111|111"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "|||||"),
        ("", None, false, "|||||"),
    ]),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000000]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000000]"),
    ]),
    // none, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"null"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00000]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00000]"),
    ]),
    // bert, truncation None
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "1 2 13 14 15 2|001111|--012-|110001|111111|--111-"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "1 2|00|--|11|11|--"),
        ("", None, false, "|||||"),
    ]),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2|0000|-56-|1001|1111|-00-]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
    ]),
    // bert, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 10 11 12 2 13 14 15 2|000001111|-456-012-|100010001|111111111|-000-111- [1 8 9 10 2 13 14 15 2|000001111|-234-012-|100010001|111111111|-000-111-] [1 6 7 8 2 13 14 15 2|000001111|-012-012-|100010001|111111111|-000-111-]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
    ]),
    // templ_bert, truncation None
    (r#"{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "1 2 13 14 15 2|001111|--012-|110001|111111|--111-"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "1 2|00|--|11|11|--"),
        ("", None, false, "|||||"),
    ]),
    // templ_bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2|0000|-56-|1001|1111|-00-]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
    ]),
    // templ_bert, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 10 11 12 2 13 14 15 2|000001111|-456-012-|100010001|111111111|-000-111- [1 8 9 10 2 13 14 15 2|000001111|-234-012-|100010001|111111111|-000-111-] [1 6 7 8 2 13 14 15 2|000001111|-012-012-|100010001|111111111|-000-111-]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
    ]),
    // templ_odd, truncation None
    (r#"{"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 1}}, {"SpecialToken": {"id": "[X]", "type_id": 2}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 3}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 2}}, {"Sequence": {"id": "B", "type_id": 0}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}, "[X]": {"id": "[X]", "ids": [4, 5], "tokens": ["<s>", "</s>"]}}}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12 4 5|111111122|0123456--|000000011|111111111|0000000--"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|1111111|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 13 14 15 2 6 7 8 9 10 11 12 13 14 15|311102222222000|-012-0123456012|100010000000000|111111111111111|-----0000000111"),
        ("a b c d e f g", Some("h i j"), false, "13 14 15 6 7 8 9 10 11 12 13 14 15|1112222222000|0120123456012|0000000000000|1111111111111|---0000000111"),
        ("", Some("h i j"), true, "1 13 14 15 2 13 14 15|31110000|-012-012|10001000|11111111|-----111"),
        ("", Some("h i j"), false, "13 14 15 13 14 15|111000|012012|000000|111111|---111"),
        ("", None, true, "4 5|22|--|11|11|--"),
        ("", None, false, "|||||"),
    ]),
    // templ_odd, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 1}}, {"SpecialToken": {"id": "[X]", "type_id": 2}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 3}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 2}}, {"Sequence": {"id": "B", "type_id": 0}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}, "[X]": {"id": "[X]", "ids": [4, 5], "tokens": ["<s>", "</s>"]}}}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 4 5|11111122|012345--|00000011|11111111|000000-- [11 12 4 5|0022|56--|0011|1111|00--]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|1111111|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 13 14 15 2 6 7 8 13 14 15|31110222000|-012-012012|10001000000|11111111111|-----000111 [1 13 14 15 2 8 9 10 13 14 15|31110000000|-012-234012|10001000000|11111111111|-----000111] [1 13 14 15 2 10 11 12 13 14 15|31110000000|-012-456012|10001000000|11111111111|-----000111]"),
        ("a b c d e f g", Some("h i j"), false, "13 14 15 6 7 8 9 10 13 14 15|11122222000|01201234012|00000000000|11111111111|---00000111 [13 14 15 10 11 12 13 14 15|111000000|012456012|000000000|111111111|---000111]"),
    ]),
    // templ_odd, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 1}}, {"SpecialToken": {"id": "[X]", "type_id": 2}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 3}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 2}}, {"Sequence": {"id": "B", "type_id": 0}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}, "[X]": {"id": "[X]", "ids": [4, 5], "tokens": ["<s>", "</s>"]}}}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12 4 5|111111122|0123456--|000000011|111111111|0000000--"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|1111111|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 13 14 15 2 9 10 11 12 13 14 15|311102222000|-012-3456012|100010000000|111111111111|-----0000111 [1 13 14 15 2 6 7 8 9 13 14 15|311100000000|-012-0123012|100010000000|111111111111|-----0000111]"),
        ("a b c d e f g", Some("h i j"), false, "13 14 15 7 8 9 10 11 12 13 14 15|111222222000|012123456012|000000000000|111111111111|---000000111 [13 14 15 6 7 13 14 15|11100000|01201012|00000000|11111111|---00111]"),
    ]),
    // seq_bert_bl, truncation None
    (r#"{"type": "Sequence", "processors": [{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}]}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|000000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|0000000001111"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "1 2 13 14 15 2|001111|--012-|110001|111111|001111"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "1 2|00|--|11|11|00"),
        ("", None, false, "|||||"),
    ]),
    // seq_bert_bl, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "Sequence", "processors": [{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|00000000 [1 11 12 2|0000|-56-|1001|1111|-00-]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|00000111 [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-111 [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-111 [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|0000011- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
    ]),
    // seq_bert_bl, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "Sequence", "processors": [{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}]}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|000000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 10 11 12 2 13 14 15 2|000001111|-456-012-|100010001|111111111|000001111 [1 8 9 10 2 13 14 15 2|000001111|-234-012-|100010001|111111111|-000-1111] [1 6 7 8 2 13 14 15 2|000001111|-012-012-|100010001|111111111|-000-1111]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
    ]),
    // seq_templ_bl, truncation None
    (r#"{"type": "Sequence", "processors": [{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}]}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-11111112"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-000000023334"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "1 2 13 14 15 2|001111|--012-|110001|111111|-23334"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "1 2|00|--|11|11|-2"),
        ("", None, false, "|||||"),
    ]),
    // seq_templ_bl, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "Sequence", "processors": [{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-1111112 [1 11 12 2|0000|-56-|1001|1111|1111]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-0002334 [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-0002334 [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|33333333]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|33333333] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-0002334 [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|33333333]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|33333333] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|33333333 [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|33333333] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|33333333]]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
    ]),
    // seq_templ_bl, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "Sequence", "processors": [{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}]}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-11111112"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "1 10 11 12 2 13 14 15 2|000001111|-456-012-|100010001|111111111|-00023334 [1 8 9 10 2 13 14 15 2|000001111|-234-012-|100010001|111111111|-00023334] [1 6 7 8 2 13 14 15 2|000001111|-012-012-|100010001|111111111|-00023334]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
    ]),
    // seq_empty, truncation None
    (r#"{"type": "Sequence", "processors": []}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "13 14 15|111|012|000|111|111"),
        ("", Some("h i j"), false, "13 14 15|111|012|000|111|111"),
        ("", None, true, "|||||"),
        ("", None, false, "|||||"),
    ]),
    // seq_empty, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "Sequence", "processors": []}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000111]"),
    ]),
    // seq_empty, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "Sequence", "processors": []}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000111|123456012|000000000|111111111|000000111 [6 7 13 14 15|00111|01012|00000|11111|00111]"),
    ]),
    // roberta, truncation None
    (r#"{"type": "RobertaProcessing", "sep": ["</s>", 5], "cls": ["<s>", 4], "trim_offsets": false, "add_prefix_space": true}"#, r#"null"#, &[
        ("a b c d e f g", None, true, "4 6 7 8 9 10 11 12 5|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "4 6 7 8 9 10 11 12 5 5 13 14 15 5|00000000000000|-0123456--012-|10000000110001|11111111111111|-0000000--111-"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 11 12 13 14 15|0000000000|0123456012|0000000000|1111111111|0000000111"),
        ("", Some("h i j"), true, "4 5 5 13 14 15 5|0000000|---012-|1110001|1111111|---111-"),
        ("", Some("h i j"), false, "13 14 15|000|012|000|111|111"),
        ("", None, true, "4 5|00|--|11|11|--"),
        ("", None, false, "|||||"),
    ]),
    // roberta, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}
    (r#"{"type": "RobertaProcessing", "sep": ["</s>", 5], "cls": ["<s>", 4], "trim_offsets": false, "add_prefix_space": true}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "4 6 7 8 9 10 11 5|00000000|-012345-|10000001|11111111|-000000- [4 11 12 5|0000|-56-|1001|1111|-00-]"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "4 6 7 5 5 13 14 5|00000000|-01--01-|10011001|11111111|-00--11- [4 7 8 5 5 13 14 5|00000000|-12--01-|10011001|11111111|-00--11- [4 7 8 5 5 14 15 5|00000000|-12--12-|10011001|11111111|-00--11-]] [4 7 8 5 5 14 15 5|00000000|-12--12-|10011001|11111111|-00--11-] [4 8 9 5 5 13 14 5|00000000|-23--01-|10011001|11111111|-00--11- [4 8 9 5 5 14 15 5|00000000|-23--12-|10011001|11111111|-00--11-]] [4 8 9 5 5 14 15 5|00000000|-23--12-|10011001|11111111|-00--11-] [4 9 10 5 5 13 14 5|00000000|-34--01-|10011001|11111111|-00--11- [4 9 10 5 5 14 15 5|00000000|-34--12-|10011001|11111111|-00--11-]] [4 9 10 5 5 14 15 5|00000000|-34--12-|10011001|11111111|-00--11-] [4 10 11 5 5 13 14 5|00000000|-45--01-|10011001|11111111|-00--11- [4 10 11 5 5 14 15 5|00000000|-45--12-|10011001|11111111|-00--11-]] [4 10 11 5 5 14 15 5|00000000|-45--12-|10011001|11111111|-00--11-] [4 11 12 5 5 13 14 5|00000000|-56--01-|10011001|11111111|-00--11- [4 11 12 5 5 14 15 5|00000000|-56--12-|10011001|11111111|-00--11-]] [4 11 12 5 5 14 15 5|00000000|-56--12-|10011001|11111111|-00--11-] [4 6 7 5 5 14 15 5|00000000|-01--12-|10011001|11111111|-00--11- [4 7 8 5 5 14 15 5|00000000|-12--12-|10011001|11111111|-00--11-] [4 8 9 5 5 14 15 5|00000000|-23--12-|10011001|11111111|-00--11-] [4 9 10 5 5 14 15 5|00000000|-34--12-|10011001|11111111|-00--11-] [4 10 11 5 5 14 15 5|00000000|-45--12-|10011001|11111111|-00--11-] [4 11 12 5 5 14 15 5|00000000|-56--12-|10011001|11111111|-00--11-]]"),
        ("a b c d e f g", Some("h i j"), false, "6 7 8 9 10 13 14 15|00000000|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000000|456012|000000|111111|000111]"),
    ]),
    // roberta, truncation {'max_length': 9, 'stride': 1, 'strategy': 'only_first', 'direction': 'left'}
    (r#"{"type": "RobertaProcessing", "sep": ["</s>", 5], "cls": ["<s>", 4], "trim_offsets": false, "add_prefix_space": true}"#, r#"{"direction": "Left", "max_length": 9, "strategy": "OnlyFirst", "stride": 1}"#, &[
        ("a b c d e f g", None, true, "4 6 7 8 9 10 11 12 5|000000000|-0123456-|100000001|111111111|-0000000-"),
        ("a b c d e f g", None, false, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000"),
        ("a b c d e f g", Some("h i j"), true, "4 11 12 5 5 13 14 15 5|000000000|-56--012-|100110001|111111111|-00--111- [4 10 11 5 5 13 14 15 5|000000000|-45--012-|100110001|111111111|-00--111-] [4 9 10 5 5 13 14 15 5|000000000|-34--012-|100110001|111111111|-00--111-] [4 8 9 5 5 13 14 15 5|000000000|-23--012-|100110001|111111111|-00--111-] [4 7 8 5 5 13 14 15 5|000000000|-12--012-|100110001|111111111|-00--111-] [4 6 7 5 5 13 14 15 5|000000000|-01--012-|100110001|111111111|-00--111-]"),
        ("a b c d e f g", Some("h i j"), false, "7 8 9 10 11 12 13 14 15|000000000|123456012|000000000|111111111|000000111 [6 7 13 14 15|00000|01012|00000|11111|00111]"),
    ]),
];

// t.enable_padding(**padding); singles: t.encode(a), t.encode(a, b), t.encode("") with a, b = "a b c d e f g", "h i j";
// then t.encode_batch([a, b, ""]) and t.encode_batch([(a, b), (b, "")]), joined by " ;; "
/// (post_processor, truncation, padding, [encode(a), encode(a, b), encode("")], batch 1, batch 2)
type PadCase = (&'static str, &'static str, &'static str, [&'static str; 3], &'static str, &'static str);
#[rustfmt::skip]
const PAD_CASES: &[PadCase] = &[
    // none, truncation None, padding {}
    (r#"null"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111", "|||||"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 0 0 0 0|0000000|012----|0001111|1110000|0000000 ;; 0 0 0 0 0 0 0|0000000|-------|1111111|0000000|0000000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111 ;; 13 14 15 0 0 0 0 0 0 0|0000000000|012-------|0001111111|1110000000|000-------"),
    // none, truncation None, padding {'direction': 'left', 'pad_id': 3, 'pad_type_id': 5, 'pad_token': '[PAD]', 'length': 12}
    (r#"null"#, r#"null"#, r#"{"strategy": {"Fixed": 12}, "direction": "Left", "pad_to_multiple_of": null, "pad_id": 3, "pad_type_id": 5, "pad_token": "[PAD]"}"#, ["3 3 3 3 3 6 7 8 9 10 11 12|555550000000|-----0123456|111110000000|000001111111|000000000000", "3 3 6 7 8 9 10 11 12 13 14 15|550000000111|--0123456012|110000000000|001111111111|--0000000111", "3 3 3 3 3 3 3 3 3 3 3 3|555555555555|------------|111111111111|000000000000|000000000000"], "3 3 3 3 3 6 7 8 9 10 11 12|555550000000|-----0123456|111110000000|000001111111|000000000000 ;; 3 3 3 3 3 3 3 3 3 13 14 15|555555555000|---------012|111111111000|000000000111|000000000000 ;; 3 3 3 3 3 3 3 3 3 3 3 3|555555555555|------------|111111111111|000000000000|000000000000", "3 3 6 7 8 9 10 11 12 13 14 15|550000000111|--0123456012|110000000000|001111111111|--0000000111 ;; 3 3 3 3 3 3 3 3 3 13 14 15|555555555000|---------012|111111111000|000000000111|---------000"),
    // none, truncation None, padding {'length': 4}
    (r#"null"#, r#"null"#, r#"{"strategy": {"Fixed": 4}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111", "0 0 0 0|0000|----|1111|0000|0000"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 0|0000|012-|0001|1110|0000 ;; 0 0 0 0|0000|----|1111|0000|0000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111 ;; 13 14 15 0|0000|012-|0001|1110|000-"),
    // none, truncation None, padding {'direction': 'left', 'pad_to_multiple_of': 4}
    (r#"null"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["0 6 7 8 9 10 11 12|00000000|-0123456|10000000|01111111|00000000", "0 0 6 7 8 9 10 11 12 13 14 15|000000000111|--0123456012|110000000000|001111111111|--0000000111", "|||||"], "0 6 7 8 9 10 11 12|00000000|-0123456|10000000|01111111|00000000 ;; 0 0 0 0 0 13 14 15|00000000|-----012|11111000|00000111|00000000 ;; 0 0 0 0 0 0 0 0|00000000|--------|11111111|00000000|00000000", "0 0 6 7 8 9 10 11 12 13 14 15|000000000111|--0123456012|110000000000|001111111111|--0000000111 ;; 0 0 0 0 0 0 0 0 0 13 14 15|000000000000|---------012|111111111000|000000000111|---------000"),
    // none, truncation None, padding {'length': 9, 'pad_to_multiple_of': 4}
    (r#"null"#, r#"null"#, r#"{"strategy": {"Fixed": 9}, "direction": "Right", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12 0 0 0 0 0|000000000000|0123456-----|000000011111|111111100000|000000000000", "6 7 8 9 10 11 12 13 14 15 0 0|000000011100|0123456012--|000000000011|111111111100|0000000111--", "0 0 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|000000000000|000000000000"], "6 7 8 9 10 11 12 0 0 0 0 0|000000000000|0123456-----|000000011111|111111100000|000000000000 ;; 13 14 15 0 0 0 0 0 0 0 0 0|000000000000|012---------|000111111111|111000000000|000000000000 ;; 0 0 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|000000000000|000000000000", "6 7 8 9 10 11 12 13 14 15 0 0|000000011100|0123456012--|000000000011|111111111100|0000000111-- ;; 13 14 15 0 0 0 0 0 0 0 0 0|000000000000|012---------|000111111111|111000000000|000---------"),
    // none, truncation None, padding {'pad_to_multiple_of': 0, 'pad_token': '<s>', 'pad_id': 4}
    (r#"null"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 0, "pad_id": 4, "pad_type_id": 0, "pad_token": "<s>"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111", "|||||"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 4 4 4 4|0000000|012----|0001111|1110000|0000000 ;; 4 4 4 4 4 4 4|0000000|-------|1111111|0000000|0000000", "6 7 8 9 10 11 12 13 14 15|0000000111|0123456012|0000000000|1111111111|0000000111 ;; 13 14 15 4 4 4 4 4 4 4|0000000000|012-------|0001111111|1110000000|000-------"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15 0 0|00011100|456012--|00000011|11111100|00000000]", "|||||"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 0 0 0 0|0000000|012----|0001111|1110000|0000000 ;; 0 0 0 0 0 0 0|0000000|-------|1111111|0000000|0000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15 0 0|00011100|456012--|00000011|11111100|00000000] ;; 13 14 15 0 0 0 0 0|00000000|012-----|00011111|11100000|000-----"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'direction': 'left', 'pad_id': 3, 'pad_type_id': 5, 'pad_token': '[PAD]', 'length': 12}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 12}, "direction": "Left", "pad_to_multiple_of": null, "pad_id": 3, "pad_type_id": 5, "pad_token": "[PAD]"}"#, ["3 3 3 3 3 6 7 8 9 10 11 12|555550000000|-----0123456|111110000000|000001111111|000000000000", "3 3 3 3 6 7 8 9 10 13 14 15|555500000111|----01234012|111100000000|000011111111|----00000111 [3 3 3 3 3 3 10 11 12 13 14 15|555555000111|------456012|111111000000|000000111111|000000000000]", "3 3 3 3 3 3 3 3 3 3 3 3|555555555555|------------|111111111111|000000000000|000000000000"], "3 3 3 3 3 6 7 8 9 10 11 12|555550000000|-----0123456|111110000000|000001111111|000000000000 ;; 3 3 3 3 3 3 3 3 3 13 14 15|555555555000|---------012|111111111000|000000000111|000000000000 ;; 3 3 3 3 3 3 3 3 3 3 3 3|555555555555|------------|111111111111|000000000000|000000000000", "3 3 3 3 6 7 8 9 10 13 14 15|555500000111|----01234012|111100000000|000011111111|----00000111 [3 3 3 3 3 3 10 11 12 13 14 15|555555000111|------456012|111111000000|000000111111|000000000000] ;; 3 3 3 3 3 3 3 3 3 13 14 15|555555555000|---------012|111111111000|000000000111|---------000"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'length': 4}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 4}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000000]", "0 0 0 0|0000|----|1111|0000|0000"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 0|0000|012-|0001|1110|0000 ;; 0 0 0 0|0000|----|1111|0000|0000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15|000111|456012|000000|111111|000000] ;; 13 14 15 0|0000|012-|0001|1110|000-"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'direction': 'left', 'pad_to_multiple_of': 4}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["0 6 7 8 9 10 11 12|00000000|-0123456|10000000|01111111|00000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [0 0 10 11 12 13 14 15|00000111|--456012|11000000|00111111|00000000]", "|||||"], "0 6 7 8 9 10 11 12|00000000|-0123456|10000000|01111111|00000000 ;; 0 0 0 0 0 13 14 15|00000000|-----012|11111000|00000111|00000000 ;; 0 0 0 0 0 0 0 0|00000000|--------|11111111|00000000|00000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [0 0 10 11 12 13 14 15|00000111|--456012|11000000|00111111|00000000] ;; 0 0 0 0 0 13 14 15|00000000|-----012|11111000|00000111|-----000"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'length': 9, 'pad_to_multiple_of': 4}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 9}, "direction": "Right", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["6 7 8 9 10 11 12 0 0 0 0 0|000000000000|0123456-----|000000011111|111111100000|000000000000", "6 7 8 9 10 13 14 15 0 0 0 0|000001110000|01234012----|000000001111|111111110000|00000111---- [10 11 12 13 14 15 0 0 0 0 0 0|000111000000|456012------|000000111111|111111000000|000000000000]", "0 0 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|000000000000|000000000000"], "6 7 8 9 10 11 12 0 0 0 0 0|000000000000|0123456-----|000000011111|111111100000|000000000000 ;; 13 14 15 0 0 0 0 0 0 0 0 0|000000000000|012---------|000111111111|111000000000|000000000000 ;; 0 0 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|000000000000|000000000000", "6 7 8 9 10 13 14 15 0 0 0 0|000001110000|01234012----|000000001111|111111110000|00000111---- [10 11 12 13 14 15 0 0 0 0 0 0|000111000000|456012------|000000111111|111111000000|000000000000] ;; 13 14 15 0 0 0 0 0 0 0 0 0|000000000000|012---------|000111111111|111000000000|000---------"),
    // none, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'pad_to_multiple_of': 0, 'pad_token': '<s>', 'pad_id': 4}
    (r#"null"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 0, "pad_id": 4, "pad_type_id": 0, "pad_token": "<s>"}"#, ["6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15 4 4|00011100|456012--|00000011|11111100|00000000]", "|||||"], "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000 ;; 13 14 15 4 4 4 4|0000000|012----|0001111|1110000|0000000 ;; 4 4 4 4 4 4 4|0000000|-------|1111111|0000000|0000000", "6 7 8 9 10 13 14 15|00000111|01234012|00000000|11111111|00000111 [10 11 12 13 14 15 4 4|00011100|456012--|00000011|11111100|00000000] ;; 13 14 15 4 4 4 4 4|00000000|012-----|00011111|11100000|000-----"),
    // bert, truncation None, padding {}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-", "1 2|00|--|11|11|--"], "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000- ;; 1 13 14 15 2 0 0 0 0|000000000|-012-----|100011111|111110000|-000----- ;; 1 2 0 0 0 0 0 0 0|000000000|---------|111111111|110000000|---------", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111- ;; 1 13 14 15 2 2 0 0 0 0 0 0 0|0000010000000|-012---------|1000111111111|1111110000000|-000---------"),
    // bert, truncation None, padding {'direction': 'left', 'pad_id': 3, 'pad_type_id': 5, 'pad_token': '[PAD]', 'length': 12}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": {"Fixed": 12}, "direction": "Left", "pad_to_multiple_of": null, "pad_id": 3, "pad_type_id": 5, "pad_token": "[PAD]"}"#, ["3 3 3 1 6 7 8 9 10 11 12 2|555000000000|----0123456-|111100000001|000111111111|----0000000-", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-", "3 3 3 3 3 3 3 3 3 3 1 2|555555555500|------------|111111111111|000000000011|------------"], "3 3 3 1 6 7 8 9 10 11 12 2|555000000000|----0123456-|111100000001|000111111111|----0000000- ;; 3 3 3 3 3 3 3 1 13 14 15 2|555555500000|--------012-|111111110001|000000011111|--------000- ;; 3 3 3 3 3 3 3 3 3 3 1 2|555555555500|------------|111111111111|000000000011|------------", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111- ;; 3 3 3 3 3 3 1 13 14 15 2 2|555555000001|-------012--|111111100011|000000111111|-------000--"),
    // bert, truncation None, padding {'length': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": {"Fixed": 4}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-", "1 2 0 0|0000|----|1111|1100|----"], "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000- ;; 1 13 14 15 2|00000|-012-|10001|11111|-000- ;; 1 2 0 0|0000|----|1111|1100|----", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111- ;; 1 13 14 15 2 2|000001|-012--|100011|111111|-000--"),
    // bert, truncation None, padding {'direction': 'left', 'pad_to_multiple_of': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["0 0 0 1 6 7 8 9 10 11 12 2|000000000000|----0123456-|111100000001|000111111111|----0000000-", "0 0 0 1 6 7 8 9 10 11 12 2 13 14 15 2|0000000000001111|----0123456-012-|1111000000010001|0001111111111111|----0000000-111-", "0 0 1 2|0000|----|1111|0011|----"], "0 0 0 1 6 7 8 9 10 11 12 2|000000000000|----0123456-|111100000001|000111111111|----0000000- ;; 0 0 0 0 0 0 0 1 13 14 15 2|000000000000|--------012-|111111110001|000000011111|--------000- ;; 0 0 0 0 0 0 0 0 0 0 1 2|000000000000|------------|111111111111|000000000011|------------", "0 0 0 1 6 7 8 9 10 11 12 2 13 14 15 2|0000000000001111|----0123456-012-|1111000000010001|0001111111111111|----0000000-111- ;; 0 0 0 0 0 0 0 0 0 0 1 13 14 15 2 2|0000000000000001|-----------012--|1111111111100011|0000000000111111|-----------000--"),
    // bert, truncation None, padding {'length': 9, 'pad_to_multiple_of': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": {"Fixed": 9}, "direction": "Right", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 12 2 0 0 0|000000000000|-0123456----|100000001111|111111111000|-0000000----", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-", "1 2 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|110000000000|------------"], "1 6 7 8 9 10 11 12 2 0 0 0|000000000000|-0123456----|100000001111|111111111000|-0000000---- ;; 1 13 14 15 2 0 0 0 0 0 0 0|000000000000|-012--------|100011111111|111110000000|-000-------- ;; 1 2 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|110000000000|------------", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111- ;; 1 13 14 15 2 2 0 0 0 0 0 0|000001000000|-012--------|100011111111|111111000000|-000--------"),
    // bert, truncation None, padding {'pad_to_multiple_of': 0, 'pad_token': '<s>', 'pad_id': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"null"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 0, "pad_id": 4, "pad_type_id": 0, "pad_token": "<s>"}"#, ["1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000-", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111-", "1 2|00|--|11|11|--"], "1 6 7 8 9 10 11 12 2|000000000|-0123456-|100000001|111111111|-0000000- ;; 1 13 14 15 2 4 4 4 4|000000000|-012-----|100011111|111110000|-000----- ;; 1 2 4 4 4 4 4 4 4|000000000|---------|111111111|110000000|---------", "1 6 7 8 9 10 11 12 2 13 14 15 2|0000000001111|-0123456-012-|1000000010001|1111111111111|-0000000-111- ;; 1 13 14 15 2 2 4 4 4 4 4 4 4|0000010000000|-012---------|1000111111111|1111110000000|-000---------"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2 0 0 0 0|00000000|-56-----|10011111|11110000|-00-----]", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]", "1 2|00|--|11|11|--"], "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2 0 0 0 0|00000000|-56-----|10011111|11110000|-00-----] ;; 1 13 14 15 2 0 0 0|00000000|-012----|10001111|11111000|-000---- ;; 1 2 0 0 0 0 0 0|00000000|--------|11111111|11000000|--------", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] ;; 1 13 14 15 2 2 0 0|00000100|-012----|10001111|11111100|-000----"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'direction': 'left', 'pad_id': 3, 'pad_type_id': 5, 'pad_token': '[PAD]', 'length': 12}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 12}, "direction": "Left", "pad_to_multiple_of": null, "pad_id": 3, "pad_type_id": 5, "pad_token": "[PAD]"}"#, ["3 3 3 3 1 6 7 8 9 10 11 2|555500000000|-----012345-|111110000001|000011111111|-----000000- [3 3 3 3 3 3 3 3 1 11 12 2|555555550000|---------56-|111111111001|000000001111|---------00-]", "3 3 3 3 1 6 7 8 2 13 14 2|555500000111|-----012-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 13 14 2|555500000111|-----234-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-]] [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 10 11 12 2 13 14 2|555500000111|-----456-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-]] [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 6 7 8 2 14 15 2|555500000111|-----012-12-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-]]", "3 3 3 3 3 3 3 3 3 3 1 2|555555555500|------------|111111111111|000000000011|------------"], "3 3 3 3 1 6 7 8 9 10 11 2|555500000000|-----012345-|111110000001|000011111111|-----000000- [3 3 3 3 3 3 3 3 1 11 12 2|555555550000|---------56-|111111111001|000000001111|---------00-] ;; 3 3 3 3 3 3 3 1 13 14 15 2|555555500000|--------012-|111111110001|000000011111|--------000- ;; 3 3 3 3 3 3 3 3 3 3 1 2|555555555500|------------|111111111111|000000000011|------------", "3 3 3 3 1 6 7 8 2 13 14 2|555500000111|-----012-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 13 14 2|555500000111|-----234-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-]] [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 10 11 12 2 13 14 2|555500000111|-----456-01-|111110001001|000011111111|-----000-11- [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-]] [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 6 7 8 2 14 15 2|555500000111|-----012-12-|111110001001|000011111111|-----000-11- [3 3 3 3 1 8 9 10 2 14 15 2|555500000111|-----234-12-|111110001001|000011111111|-----000-11-] [3 3 3 3 1 10 11 12 2 14 15 2|555500000111|-----456-12-|111110001001|000011111111|-----000-11-]] ;; 3 3 3 3 3 3 1 13 14 15 2 2|555555000001|-------012--|111111100011|000000111111|-------000--"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'length': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 4}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2|0000|-56-|1001|1111|-00-]", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]", "1 2 0 0|0000|----|1111|1100|----"], "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2|0000|-56-|1001|1111|-00-] ;; 1 13 14 15 2|00000|-012-|10001|11111|-000- ;; 1 2 0 0|0000|----|1111|1100|----", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] ;; 1 13 14 15 2 2|000001|-012--|100011|111111|-000--"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'direction': 'left', 'pad_to_multiple_of': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Left", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [0 0 0 0 1 11 12 2|00000000|-----56-|11111001|00001111|-----00-]", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]", "0 0 1 2|0000|----|1111|0011|----"], "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [0 0 0 0 1 11 12 2|00000000|-----56-|11111001|00001111|-----00-] ;; 0 0 0 1 13 14 15 2|00000000|----012-|11110001|00011111|----000- ;; 0 0 0 0 0 0 1 2|00000000|--------|11111111|00000011|--------", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] ;; 0 0 1 13 14 15 2 2|00000001|---012--|11100011|00111111|---000--"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'length': 9, 'pad_to_multiple_of': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": {"Fixed": 9}, "direction": "Right", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#, ["1 6 7 8 9 10 11 2 0 0 0 0|000000000000|-012345-----|100000011111|111111110000|-000000----- [1 11 12 2 0 0 0 0 0 0 0 0|000000000000|-56---------|100111111111|111100000000|-00---------]", "1 6 7 8 2 13 14 2 0 0 0 0|000001110000|-012-01-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 13 14 2 0 0 0 0|000001110000|-234-01-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----]] [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----] [1 10 11 12 2 13 14 2 0 0 0 0|000001110000|-456-01-----|100010011111|111111110000|-000-11----- [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----]] [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----] [1 6 7 8 2 14 15 2 0 0 0 0|000001110000|-012-12-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----] [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----]]", "1 2 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|110000000000|------------"], "1 6 7 8 9 10 11 2 0 0 0 0|000000000000|-012345-----|100000011111|111111110000|-000000----- [1 11 12 2 0 0 0 0 0 0 0 0|000000000000|-56---------|100111111111|111100000000|-00---------] ;; 1 13 14 15 2 0 0 0 0 0 0 0|000000000000|-012--------|100011111111|111110000000|-000-------- ;; 1 2 0 0 0 0 0 0 0 0 0 0|000000000000|------------|111111111111|110000000000|------------", "1 6 7 8 2 13 14 2 0 0 0 0|000001110000|-012-01-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 13 14 2 0 0 0 0|000001110000|-234-01-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----]] [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----] [1 10 11 12 2 13 14 2 0 0 0 0|000001110000|-456-01-----|100010011111|111111110000|-000-11----- [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----]] [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----] [1 6 7 8 2 14 15 2 0 0 0 0|000001110000|-012-12-----|100010011111|111111110000|-000-11----- [1 8 9 10 2 14 15 2 0 0 0 0|000001110000|-234-12-----|100010011111|111111110000|-000-11-----] [1 10 11 12 2 14 15 2 0 0 0 0|000001110000|-456-12-----|100010011111|111111110000|-000-11-----]] ;; 1 13 14 15 2 2 0 0 0 0 0 0|000001000000|-012--------|100011111111|111111000000|-000--------"),
    // bert, truncation {'max_length': 8, 'stride': 1, 'strategy': 'longest_first', 'direction': 'right'}, padding {'pad_to_multiple_of': 0, 'pad_token': '<s>', 'pad_id': 4}
    (r#"{"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]}"#, r#"{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 1}"#, r#"{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": 0, "pad_id": 4, "pad_type_id": 0, "pad_token": "<s>"}"#, ["1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2 4 4 4 4|00000000|-56-----|10011111|11110000|-00-----]", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]]", "1 2|00|--|11|11|--"], "1 6 7 8 9 10 11 2|00000000|-012345-|10000001|11111111|-000000- [1 11 12 2 4 4 4 4|00000000|-56-----|10011111|11110000|-00-----] ;; 1 13 14 15 2 4 4 4|00000000|-012----|10001111|11111000|-000---- ;; 1 2 4 4 4 4 4 4|00000000|--------|11111111|11000000|--------", "1 6 7 8 2 13 14 2|00000111|-012-01-|10001001|11111111|-000-11- [1 8 9 10 2 13 14 2|00000111|-234-01-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-]] [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 13 14 2|00000111|-456-01-|10001001|11111111|-000-11- [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-] [1 6 7 8 2 14 15 2|00000111|-012-12-|10001001|11111111|-000-11- [1 8 9 10 2 14 15 2|00000111|-234-12-|10001001|11111111|-000-11-] [1 10 11 12 2 14 15 2|00000111|-456-12-|10001001|11111111|-000-11-]] ;; 1 13 14 15 2 2 4 4|00000100|-012----|10001111|11111100|-000----"),
];

// raw encodings: (pre-tokenizer add_prefix_space, text, "token:id:start-end:word ...")
#[rustfmt::skip]
const BL_RAW: &[(bool, &str, &str)] = &[
    (true, "hello world", "Ġhello:3:0-5:0 Ġworld:4:5-11:1"),
    (true, "  hello   world  ", "Ġ:5:0-1:0 Ġhello:3:1-7:1 ĠĠ:6:7-9:2 Ġworld:4:9-15:3 ĠĠ:6:15-17:4"),
    (true, "a  b", "Ġa:7:0-1:0 Ġ:5:1-2:1 Ġb:8:2-4:2"),
    (true, " x y ", "Ġx:9:0-2:0 Ġy:10:2-4:1 Ġ:5:4-5:2"),
    (true, "hello", "Ġhello:3:0-5:0"),
    (false, "hello world", "hello:11:0-5:0 Ġworld:4:5-11:1"),
    (false, "  hello   world  ", "Ġ:5:0-1:0 Ġhello:3:1-7:1 ĠĠ:6:7-9:2 Ġworld:4:9-15:3 ĠĠ:6:15-17:4"),
    (false, "a  b", "a:12:0-1:0 Ġ:5:1-2:1 Ġb:8:2-4:2"),
    (false, " x y ", "Ġx:9:0-2:0 Ġy:10:2-4:1 Ġ:5:4-5:2"),
    (false, "hello", "hello:11:0-5:0"),
];
// ByteLevel(add_prefix_space=aps) pre-tokenizer + WordLevel over its pieces; t.post_processor = <processor>;
// t.enable_truncation(**truncation); t.encode(a, b, add_special_tokens=add) with offsets
#[rustfmt::skip]
const BL_CASES: &[(bool, &str, &str, Rows)] = &[
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 3 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 6:11 0:0 0:0 0:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 7 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 2:2 3:4 0:0 0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": false}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 3 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 1:5 6:11 0:0 0:0 1:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 7 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 1:1 2:2 3:4 0:0 0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": false}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|1:1 2:2 3:4 10:15 17:17]"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|1:1 2:2 3:4 10:15 17:17]"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|1:1 2:2 3:4 10:15 17:17]"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "0 3 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 5:11 0:0 0:0 0:2 2:4 4:5 0:0"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "0 7 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 1:2 2:4 0:0 0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": false}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "0 3 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 5:11 0:0 0:0 0:2 2:4 4:5 0:0"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "0 7 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 1:2 2:4 0:0 0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (true, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": false}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (true, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [7 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (true, r#"{"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}, "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}}]}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 3 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 1:5 6:11 0:0 0:0 1:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 7 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 1:1 2:2 3:4 0:0 0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (true, r#"{"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}, "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}}]}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "3 4 9 10 5|00000|01012|00000|11111|00111|1:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "7 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|1:1 2:2 3:4 1:1 2:7 9:9 10:15 [7 5 8 4 6|00011|01234|00000|11111|00011|1:1 2:2 3:4 10:15 17:17]"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 11 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 6:11 0:0 0:0 0:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 12 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 2:2 3:4 0:0 0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:0 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 17:17"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:0 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 0:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 0:0 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 9:15 17:17]"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": false}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 11 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 6:11 0:0 0:0 1:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 12 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 2:2 3:4 0:0 0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": false}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 10:15 17:17]"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 10:15 17:17]"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 10:15 17:17]"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "0 11 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 5:11 0:0 0:0 0:2 2:4 4:5 0:0"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "0 12 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 1:2 2:4 0:0 0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": false}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "0 11 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 5:11 0:0 0:0 0:2 2:4 4:5 0:0"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "0 12 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 1:2 2:4 0:0 0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (false, r#"{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": false}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 0:1 1:7 7:9 9:15 15:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00011111|01201234|00000000|11111111|00011111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 15:17"),
    ]),
    (false, r#"{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": true}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|0:1 1:7 7:9 9:15 15:17"),
        ("hello world", Some(" x y "), true, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00111|01012|00000|11111|00111|0:5 5:11 0:2 2:4 4:5"),
        ("a  b", Some("  hello   world  "), true, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0001111|0120123|0000000|1111111|0001111|0:1 1:2 2:4 0:1 1:7 7:9 9:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 1:2 2:4 9:15 15:17]"),
    ]),
    (false, r#"{"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}, "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}}]}"#, r#"null"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "0 11 4 1 1 9 10 5 1|000000000|-01--012-|100110001|111111111|-00--111-|0:0 0:5 6:11 0:0 0:0 1:2 3:4 5:5 0:0"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "0 12 5 8 1 1 5 3 6 4 6 1|000000000000|-012--01234-|100011000001|111111111111|-000--11111-|0:0 0:1 2:2 3:4 0:0 0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4 6|00000000|01201234|00000000|11111111|00011111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 17:17"),
    ]),
    (false, r#"{"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}], "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}, "<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}}]}"#, r#"{"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 1}"#, &[
        ("  hello   world  ", None, true, "0 5 3 6 4 6 1|0000000|-01234-|1000001|1111111|-00000-|0:0 1:1 2:7 9:9 10:15 17:17 0:0"),
        ("  hello   world  ", None, false, "5 3 6 4 6|00000|01234|00000|11111|00000|1:1 2:7 9:9 10:15 17:17"),
        ("hello world", Some(" x y "), true, "ERR:stride"),
        ("hello world", Some(" x y "), false, "11 4 9 10 5|00000|01012|00000|11111|00111|0:5 6:11 1:2 3:4 5:5"),
        ("a  b", Some("  hello   world  "), true, "ERR:stride"),
        ("a  b", Some("  hello   world  "), false, "12 5 8 5 3 6 4|0000000|0120123|0000000|1111111|0001111|0:1 2:2 3:4 1:1 2:7 9:9 10:15 [12 5 8 4 6|00011|01234|00000|11111|00011|0:1 2:2 3:4 10:15 17:17]"),
    ]),
];
