//! Tests for `normalizers.rs`: each normalizer's text and alignments against HF `tokenizers` 0.23.3.

use super::*;
use crate::hf::normalized::tests::{check, run, Case};

// Expected values from HF tokenizers 0.23.3 (Python): the piece texts and, for each character,
// its original offsets (characters), from
//   Tokenizer.from_str(json with this "normalizer"/"pre_tokenizer" and model
//     BPE(vocab = every character of the pieces, merges = [])).encode(input, add_special_tokens=False)
// grouped by word_ids (one token per character; texts cross-checked against
//   normalizer.normalize_str(input) and pre_tokenizer.pre_tokenize_str(...)).
const NORMALIZER_CASES: &[Case] = &[
    (Some(r#"{"type": "NFC"}"#), None, "", &[]),
    (Some(r#"{"type": "NFC"}"#), None, "abc", &[("abc", &[(0, 1), (1, 2), (2, 3)])]),
    (Some(r#"{"type": "NFC"}"#), None, "\u{fb01}", &[("\u{fb01}", &[(0, 1)])]),
    (Some(r#"{"type": "NFC"}"#), None, "\u{e9}", &[("\u{e9}", &[(0, 1)])]),
    (Some(r#"{"type": "NFC"}"#), None, "e\u{301}", &[("\u{e9}", &[(0, 1)])]),
    (Some(r#"{"type": "NFC"}"#), None, "e\u{301}\u{323}x", &[("\u{1eb9}\u{301}x", &[(0, 1), (2, 3), (3, 4)])]),
    (Some(r#"{"type": "NFC"}"#), None, "\u{c5}", &[("\u{c5}", &[(0, 1)])]),
    (
        Some(r#"{"type": "NFC"}"#),
        None,
        "\u{d55c}\u{ad6d}\u{c5b4}",
        &[("\u{d55c}\u{ad6d}\u{c5b4}", &[(0, 1), (1, 2), (2, 3)])],
    ),
    (Some(r#"{"type": "NFC"}"#), None, "\u{2460}\u{ff76}", &[("\u{2460}\u{ff76}", &[(0, 1), (1, 2)])]),
    (
        Some(r#"{"type": "NFC"}"#),
        None,
        "a\u{308}\u{301}b \u{c9}COLE",
        &[("\u{e4}\u{301}b \u{c9}COLE", &[(0, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)])],
    ),
    (Some(r#"{"type": "NFD"}"#), None, "", &[]),
    (Some(r#"{"type": "NFD"}"#), None, "abc", &[("abc", &[(0, 1), (1, 2), (2, 3)])]),
    (Some(r#"{"type": "NFD"}"#), None, "\u{fb01}", &[("\u{fb01}", &[(0, 1)])]),
    (Some(r#"{"type": "NFD"}"#), None, "\u{e9}", &[("e\u{301}", &[(0, 1), (0, 1)])]),
    (Some(r#"{"type": "NFD"}"#), None, "e\u{301}", &[("e\u{301}", &[(0, 1), (1, 2)])]),
    (Some(r#"{"type": "NFD"}"#), None, "e\u{301}\u{323}x", &[("e\u{323}\u{301}x", &[(0, 1), (1, 2), (2, 3), (3, 4)])]),
    (Some(r#"{"type": "NFD"}"#), None, "\u{c5}", &[("A\u{30a}", &[(0, 1), (0, 1)])]),
    (
        Some(r#"{"type": "NFD"}"#),
        None,
        "\u{d55c}\u{ad6d}\u{c5b4}",
        &[(
            "\u{1112}\u{1161}\u{11ab}\u{1100}\u{116e}\u{11a8}\u{110b}\u{1165}",
            &[(0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (1, 2), (2, 3), (2, 3)],
        )],
    ),
    (Some(r#"{"type": "NFD"}"#), None, "\u{2460}\u{ff76}", &[("\u{2460}\u{ff76}", &[(0, 1), (1, 2)])]),
    (
        Some(r#"{"type": "NFD"}"#),
        None,
        "a\u{308}\u{301}b \u{c9}COLE",
        &[(
            "a\u{308}\u{301}b E\u{301}COLE",
            &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)],
        )],
    ),
    (Some(r#"{"type": "NFKC"}"#), None, "", &[]),
    (Some(r#"{"type": "NFKC"}"#), None, "abc", &[("abc", &[(0, 1), (1, 2), (2, 3)])]),
    (Some(r#"{"type": "NFKC"}"#), None, "\u{fb01}", &[("fi", &[(0, 1), (0, 1)])]),
    (Some(r#"{"type": "NFKC"}"#), None, "\u{e9}", &[("\u{e9}", &[(0, 1)])]),
    (Some(r#"{"type": "NFKC"}"#), None, "e\u{301}", &[("\u{e9}", &[(0, 1)])]),
    (Some(r#"{"type": "NFKC"}"#), None, "e\u{301}\u{323}x", &[("\u{1eb9}\u{301}x", &[(0, 1), (2, 3), (3, 4)])]),
    (Some(r#"{"type": "NFKC"}"#), None, "\u{c5}", &[("\u{c5}", &[(0, 1)])]),
    (
        Some(r#"{"type": "NFKC"}"#),
        None,
        "\u{d55c}\u{ad6d}\u{c5b4}",
        &[("\u{d55c}\u{ad6d}\u{c5b4}", &[(0, 1), (1, 2), (2, 3)])],
    ),
    (Some(r#"{"type": "NFKC"}"#), None, "\u{2460}\u{ff76}", &[("1\u{30ab}", &[(0, 1), (1, 2)])]),
    (
        Some(r#"{"type": "NFKC"}"#),
        None,
        "a\u{308}\u{301}b \u{c9}COLE",
        &[("\u{e4}\u{301}b \u{c9}COLE", &[(0, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)])],
    ),
    (Some(r#"{"type": "NFKD"}"#), None, "", &[]),
    (Some(r#"{"type": "NFKD"}"#), None, "abc", &[("abc", &[(0, 1), (1, 2), (2, 3)])]),
    (Some(r#"{"type": "NFKD"}"#), None, "\u{fb01}", &[("fi", &[(0, 1), (0, 1)])]),
    (Some(r#"{"type": "NFKD"}"#), None, "\u{e9}", &[("e\u{301}", &[(0, 1), (0, 1)])]),
    (Some(r#"{"type": "NFKD"}"#), None, "e\u{301}", &[("e\u{301}", &[(0, 1), (1, 2)])]),
    (Some(r#"{"type": "NFKD"}"#), None, "e\u{301}\u{323}x", &[("e\u{323}\u{301}x", &[(0, 1), (1, 2), (2, 3), (3, 4)])]),
    (Some(r#"{"type": "NFKD"}"#), None, "\u{c5}", &[("A\u{30a}", &[(0, 1), (0, 1)])]),
    (
        Some(r#"{"type": "NFKD"}"#),
        None,
        "\u{d55c}\u{ad6d}\u{c5b4}",
        &[(
            "\u{1112}\u{1161}\u{11ab}\u{1100}\u{116e}\u{11a8}\u{110b}\u{1165}",
            &[(0, 1), (0, 1), (0, 1), (1, 2), (1, 2), (1, 2), (2, 3), (2, 3)],
        )],
    ),
    (Some(r#"{"type": "NFKD"}"#), None, "\u{2460}\u{ff76}", &[("1\u{30ab}", &[(0, 1), (1, 2)])]),
    (
        Some(r#"{"type": "NFKD"}"#),
        None,
        "a\u{308}\u{301}b \u{c9}COLE",
        &[(
            "a\u{308}\u{301}b E\u{301}COLE",
            &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)],
        )],
    ),
    (
        Some(r#"{"type": "Lowercase"}"#),
        None,
        "\u{130}stanbul",
        &[("i\u{307}stanbul", &[(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8)])],
    ),
    (
        Some(r#"{"type": "Lowercase"}"#),
        None,
        "\u{391}\u{3a3} Hello",
        &[("\u{3b1}\u{3c3} hello", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8)])],
    ),
    (Some(r#"{"type": "Lowercase"}"#), None, "\u{1e9e}", &[("\u{df}", &[(0, 1)])]),
    (Some(r#"{"type": "Lowercase"}"#), None, "", &[]),
    (Some(r#"{"type": "StripAccents"}"#), None, "e\u{301}", &[("e", &[(0, 1)])]),
    (Some(r#"{"type": "StripAccents"}"#), None, "caf\u{e9}", &[("caf\u{e9}", &[(0, 1), (1, 2), (2, 3), (3, 4)])]),
    (Some(r#"{"type": "StripAccents"}"#), None, "\u{301}a", &[("a", &[(1, 2)])]),
    (Some(r#"{"type": "StripAccents"}"#), None, "a\u{308}\u{301}b", &[("ab", &[(0, 1), (3, 4)])]),
    (
        Some(r#"{"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]}"#),
        None,
        "na\u{ef}ve caf\u{e9}",
        &[("naive cafe", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 10)])],
    ),
    (
        Some(r#"{"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]}"#),
        None,
        "\u{1fa}",
        &[("A", &[(0, 1)])],
    ),
    (
        Some(r#"{"type": "Nmt"}"#),
        None,
        "a\u{1}b\u{9}c\u{200b}d\u{feff}e\u{b}",
        &[("ab c d e", &[(0, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9)])],
    ),
    (Some(r#"{"type": "Nmt"}"#), None, "\u{1}\u{2}ab", &[("ab", &[(2, 3), (3, 4)])]),
    (
        Some(r#"{"type": "ByteLevel"}"#),
        None,
        "h\u{e9}llo \u{1f917}",
        &[(
            "h\u{c3}\u{a9}llo\u{120}\u{f0}\u{141}\u{a4}\u{139}",
            &[(0, 1), (1, 2), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (6, 7), (6, 7), (6, 7)],
        )],
    ),
    (Some(r#"{"type": "ByteLevel"}"#), None, "", &[]),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
        ),
        None,
        "H\u{e9}llo\u{9}W\u{0}orld \u{4e2d}\u{6587} \u{fb01}",
        &[(
            "hello world  \u{4e2d}  \u{6587}  \u{fb01}",
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 12),
                (12, 13),
                (13, 14),
                (13, 14),
                (13, 14),
                (14, 15),
                (14, 15),
                (14, 15),
                (15, 16),
                (16, 17),
            ],
        )],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
        ),
        None,
        "\u{130}x",
        &[("ix", &[(0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
        ),
        None,
        "\u{3000}a\u{301}\u{fffd}",
        &[(" a", &[(0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
        ),
        None,
        "\u{c0}B\u{7f}c",
        &[("abc", &[(0, 1), (1, 2), (3, 4)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true}"#,
        ),
        None,
        "",
        &[],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": null, "lowercase": false}"#,
        ),
        None,
        "H\u{e9}llo\u{9}W\u{0}orld \u{4e2d}\u{6587} \u{fb01}",
        &[(
            "H\u{e9}llo\u{9}W\u{0}orld \u{4e2d}\u{6587} \u{fb01}",
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 8),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 12),
                (12, 13),
                (13, 14),
                (14, 15),
                (15, 16),
                (16, 17),
            ],
        )],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": null, "lowercase": false}"#,
        ),
        None,
        "\u{130}x",
        &[("\u{130}x", &[(0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": null, "lowercase": false}"#,
        ),
        None,
        "\u{3000}a\u{301}\u{fffd}",
        &[("\u{3000}a\u{301}\u{fffd}", &[(0, 1), (1, 2), (2, 3), (3, 4)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": null, "lowercase": false}"#,
        ),
        None,
        "\u{c0}B\u{7f}c",
        &[("\u{c0}B\u{7f}c", &[(0, 1), (1, 2), (2, 3), (3, 4)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": false, "handle_chinese_chars": false, "strip_accents": null, "lowercase": false}"#,
        ),
        None,
        "",
        &[],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false}"#,
        ),
        None,
        "H\u{e9}llo\u{9}W\u{0}orld \u{4e2d}\u{6587} \u{fb01}",
        &[(
            "Hello World  \u{4e2d}  \u{6587}  \u{fb01}",
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 12),
                (12, 13),
                (13, 14),
                (13, 14),
                (13, 14),
                (14, 15),
                (14, 15),
                (14, 15),
                (15, 16),
                (16, 17),
            ],
        )],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false}"#,
        ),
        None,
        "\u{130}x",
        &[("Ix", &[(0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false}"#,
        ),
        None,
        "\u{3000}a\u{301}\u{fffd}",
        &[(" a", &[(0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false}"#,
        ),
        None,
        "\u{c0}B\u{7f}c",
        &[("ABc", &[(0, 1), (1, 2), (3, 4)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": true, "lowercase": false}"#,
        ),
        None,
        "",
        &[],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}"#,
        ),
        None,
        "H\u{e9}llo\u{9}W\u{0}orld \u{4e2d}\u{6587} \u{fb01}",
        &[(
            "h\u{e9}llo world \u{4e2d}\u{6587} \u{fb01}",
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (8, 9),
                (9, 10),
                (10, 11),
                (11, 12),
                (12, 13),
                (13, 14),
                (14, 15),
                (15, 16),
                (16, 17),
            ],
        )],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}"#,
        ),
        None,
        "\u{130}x",
        &[("i\u{307}x", &[(0, 1), (0, 1), (1, 2)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}"#,
        ),
        None,
        "\u{3000}a\u{301}\u{fffd}",
        &[(" a\u{301}", &[(0, 1), (1, 2), (2, 3)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}"#,
        ),
        None,
        "\u{c0}B\u{7f}c",
        &[("\u{e0}bc", &[(0, 1), (1, 2), (3, 4)])],
    ),
    (
        Some(
            r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": false, "strip_accents": false, "lowercase": true}"#,
        ),
        None,
        "",
        &[],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}"#),
        None,
        " a  b ",
        &[("\u{2581}a\u{2581}\u{2581}b\u{2581}", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6)])],
    ),
    (Some(r#"{"type": "Replace", "pattern": {"String": " "}, "content": "▁"}"#), None, "", &[]),
    (
        Some(r#"{"type": "Replace", "pattern": {"String": "a"}, "content": "xyz"}"#),
        None,
        "banana",
        &[(
            "bxyznxyznxyz",
            &[(0, 1), (1, 2), (1, 2), (1, 2), (2, 3), (3, 4), (3, 4), (3, 4), (4, 5), (5, 6), (5, 6), (5, 6)],
        )],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"String": "a"}, "content": "xyz"}"#),
        None,
        "a",
        &[("xyz", &[(0, 1), (0, 1), (0, 1)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"String": "aé"}, "content": ""}"#),
        None,
        "ba\u{e9}ba\u{e9}",
        &[("bb", &[(0, 1), (3, 4)])],
    ),
    (Some(r#"{"type": "Replace", "pattern": {"String": "aé"}, "content": ""}"#), None, "a\u{e9}a\u{e9}", &[]),
    (
        Some(r#"{"type": "Replace", "pattern": {"String": ""}, "content": "-"}"#),
        None,
        "a\u{e9}",
        &[("-a-\u{e9}-", &[(0, 0), (0, 1), (0, 1), (1, 2), (1, 2)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "}"#),
        None,
        "a \u{9}\u{a} b\u{3000}c",
        &[("a b c", &[(0, 1), (4, 5), (5, 6), (6, 7), (7, 8)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "x*"}, "content": "-"}"#),
        None,
        "abxxc",
        &[("-a-b-c-", &[(0, 0), (0, 1), (0, 1), (1, 2), (3, 4), (4, 5), (4, 5)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "x*"}, "content": "-"}"#),
        None,
        "\u{e9}",
        &[("-\u{e9}-", &[(0, 0), (0, 1), (0, 1)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "(?=b)"}, "content": "XY"}"#),
        None,
        "abcb",
        &[("aXYbcXYb", &[(0, 1), (0, 1), (0, 1), (1, 2), (2, 3), (2, 3), (2, 3), (3, 4)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "$"}, "content": "X"}"#),
        None,
        "ab",
        &[("abX", &[(0, 1), (1, 2), (1, 2)])],
    ),
    (
        Some(r#"{"type": "Replace", "pattern": {"Regex": "é+"}, "content": "e"}"#),
        None,
        "\u{e9}\u{e9}-\u{e9}",
        &[("e-e", &[(1, 2), (2, 3), (3, 4)])],
    ),
    (
        Some(r#"{"type": "Prepend", "prepend": "▁"}"#),
        None,
        "hello",
        &[("\u{2581}hello", &[(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])],
    ),
    (Some(r#"{"type": "Prepend", "prepend": "▁"}"#), None, "", &[]),
    (Some(r#"{"type": "Prepend", "prepend": "▁"}"#), None, " a", &[("\u{2581} a", &[(0, 1), (0, 1), (1, 2)])]),
    (Some(r#"{"type": "Prepend", "prepend": "▁"}"#), None, "\u{e9}", &[("\u{2581}\u{e9}", &[(0, 1), (0, 1)])]),
    (Some(r#"{"type": "Prepend", "prepend": ""}"#), None, "ab", &[("ab", &[(0, 0), (1, 2)])]),
    (
        Some(r#"{"type": "Strip", "strip_left": true, "strip_right": true}"#),
        None,
        "  a b \u{9}",
        &[("a b", &[(2, 3), (3, 4), (4, 5)])],
    ),
    (
        Some(r#"{"type": "Strip", "strip_left": true, "strip_right": true}"#),
        None,
        "\u{3000}x\u{3000}",
        &[("x", &[(1, 2)])],
    ),
    (Some(r#"{"type": "Strip", "strip_left": true, "strip_right": true}"#), None, "   ", &[]),
    (Some(r#"{"type": "Strip", "strip_left": true, "strip_right": true}"#), None, "", &[]),
    (
        Some(r#"{"type": "Strip", "strip_left": true, "strip_right": false}"#),
        None,
        "  a b \u{9}",
        &[("a b \u{9}", &[(2, 3), (3, 4), (4, 5), (5, 6), (6, 7)])],
    ),
    (Some(r#"{"type": "Strip", "strip_left": true, "strip_right": false}"#), None, "   ", &[]),
    (
        Some(r#"{"type": "Strip", "strip_left": false, "strip_right": true}"#),
        None,
        "  a b \u{9}",
        &[("  a b", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])],
    ),
    (
        Some(r#"{"type": "Strip", "strip_left": false, "strip_right": true}"#),
        None,
        "\u{e9}  ",
        &[("\u{e9}", &[(0, 1)])],
    ),
    (
        Some(
            r#"{"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#,
        ),
        None,
        "\u{fb01} \u{130} Ab",
        &[(
            "\u{2581}fi\u{2581}i\u{307}\u{2581}ab",
            &[(0, 1), (0, 1), (0, 1), (1, 2), (2, 3), (2, 3), (3, 4), (4, 5), (5, 6)],
        )],
    ),
    (
        Some(
            r#"{"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}, {"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}"#,
        ),
        None,
        "",
        &[],
    ),
    (Some(r#"{"type": "Sequence", "normalizers": []}"#), None, "ab", &[("ab", &[(0, 1), (1, 2)])]),
];

#[test]
fn normalizers_match_hf() {
    check(NORMALIZER_CASES, false);
}

fn load(j: &str) -> Result<Normalizer, CoreError> {
    Normalizer::from_json(&serde_json::from_str(j).unwrap(), "normalizer")
}

#[test]
fn from_json_errors_name_the_field() {
    let e = load(r#"{"type": "Precompiled", "precompiled_charsmap": "x"}"#).unwrap_err();
    assert!(e.to_string().starts_with("normalizer.precompiled_charsmap: not base64"), "{e}");
    let e = load(r#"{"type": "Precompiled", "precompiled_charsmap": ""}"#).unwrap_err();
    assert!(e.to_string().starts_with("normalizer.precompiled_charsmap: 0 bytes"), "{e}");
    let e = load(r#"{"type": "Precompiled", "precompiled_charsmap": null}"#).unwrap_err();
    assert!(e.to_string().starts_with("normalizer.precompiled_charsmap: expected a string"), "{e}");
    let e = load(r#"{"type": "Precompiled"}"#).unwrap_err();
    assert_eq!(e.to_string(), "normalizer.precompiled_charsmap: missing");
    let e = load(r#"{"type": "Precompiled", "precompiled_charsmap": "AAAAAA==", "x": 1}"#).unwrap_err();
    assert!(matches!(e, CoreError::Unsupported(_)));
    // A trie size that is not whole units, replacements that are not UTF-8, no unit at all.
    for (blob, what) in [("BQAAAGFiY2Rl", "multiple of 4"), ("BAAAAGFiY2T/", "UTF-8"), ("AAAAAA==", "no unit")] {
        let e = load(&format!(r#"{{"type": "Precompiled", "precompiled_charsmap": "{blob}"}}"#)).unwrap_err();
        assert!(e.to_string().starts_with("normalizer.precompiled_charsmap: ") && e.to_string().contains(what), "{e}");
    }
    let e = load(r#"{"type": "Foo"}"#).unwrap_err();
    assert!(matches!(&e, CoreError::Unsupported(m) if m.contains("\"Foo\"") && m.contains("NFKC")));
    let e = load(r#"{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Strip", "strip_left": true}]}"#)
        .unwrap_err();
    assert_eq!(e.to_string(), "normalizer.normalizers[1].strip_right: missing");
    let e = load(r#"{"type": "NFC", "x": 1}"#).unwrap_err();
    assert!(matches!(e, CoreError::Unsupported(_)));
    let e = load(r#"{"type": "Replace", "pattern": {"Regex": "("}, "content": ""}"#).unwrap_err();
    assert!(matches!(&e, CoreError::Unsupported(m) if m.starts_with("normalizer.pattern:")));
    let e = load(r#"{"type": "BertNormalizer", "clean_text": true, "lowercase": true}"#).unwrap_err();
    assert_eq!(e.to_string(), "normalizer.handle_chinese_chars: missing");
    // strip_accents may be absent or null.
    assert!(load(r#"{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "lowercase": true}"#)
        .is_ok());
}

#[test]
fn normalize_str() {
    // HF: NFKC().normalize_str("ﬁ") == "fi"
    assert_eq!(load(r#"{"type": "NFKC"}"#).unwrap().normalize_str("ﬁ").unwrap(), "fi");
}

#[test]
fn grapheme_clusters_follow_uax29() {
    use super::precompiled::clusters;
    let cases: &[(&str, &[&str])] = &[
        ("ab", &["a", "b"]),
        ("a\r\nb\r\r\n", &["a", "\r\n", "b", "\r", "\r\n"]),
        ("\u{ff01}\u{301}\u{200d}x", &["\u{ff01}\u{301}\u{200d}", "x"]),
        ("e\u{301}\u{308}a", &["e\u{301}\u{308}", "a"]),
        // Emoji ZWJ sequences and skin tones are one cluster; a ZWJ before a letter is not.
        ("👨\u{200d}👩\u{200d}👧👍🏽a\u{200d}b", &["👨\u{200d}👩\u{200d}👧", "👍🏽", "a\u{200d}", "b"]),
        // Flags: regional indicators in pairs.
        ("🇫🇷🇩🇪🇺", &["🇫🇷", "🇩🇪", "🇺"]),
        // Hangul syllables from jamo (L V T), and LV T.
        ("\u{1100}\u{1161}\u{11a8}가\u{11a8}각", &["\u{1100}\u{1161}\u{11a8}", "가\u{11a8}", "각"]),
        // GB9c: consonant, virama, consonant; and prepend, spacing marks.
        ("क्षि", &["क्षि"]),
        ("\u{600}1", &["\u{600}1"]),
        ("\u{0}\u{301}", &["\u{0}", "\u{301}"]),
    ];
    for &(text, want) in cases {
        assert_eq!(clusters(text), want, "{text:?}");
    }
}

/// The botchan model's charsmap (`nmt_nfkc`) as a `Precompiled` normalizer's JSON.
fn botchan_precompiled() -> String {
    use base64::Engine as _;
    let path = "/work/shared/data/sentencepiece/botchan_en_unigram_1000.model";
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e} (the shared test data is required)"));
    let m = crate::spm::ModelProto::parse(&data).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&m.normalizer_spec.precompiled_charsmap);
    format!(r#"{{"type": "Precompiled", "precompiled_charsmap": "{b64}"}}"#)
}

#[test]
fn precompiled_matches_hf() {
    // HF: a tokenizer with this normalizer and a BPE whose tokens are single characters;
    // encode(input).tokens joined (the normalized text) and .offsets (characters of the input).
    type Expected = (&'static str, &'static str, &'static [(usize, usize)]);
    let cases: &[Expected] = &[
        ("\u{ff21}\u{ff22}\u{ff23} x", "ABC x", &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),
        ("\u{ff21}\u{301}b", "Ab", &[(0, 1), (2, 3)]),
        ("e\u{301}\u{200d}x", "e\u{301}\u{200d}x", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
        ("\u{ff01}\u{301}\u{200d}", "!\u{301}\u{200d}", &[(0, 1), (1, 2), (2, 3)]),
        ("\u{2122}\u{1e}g", "TM\u{1e}g", &[(0, 1), (0, 1), (1, 2), (2, 3)]),
        (
            "\u{fb01}\u{2460}\u{337f}",
            "fi1\u{682a}\u{5f0f}\u{4f1a}\u{793e}",
            &[(0, 1), (0, 1), (1, 2), (2, 3), (2, 3), (2, 3), (2, 3)],
        ),
        (
            "\u{1f44d}\u{1f3fd} \u{1f1eb}\u{1f1f7}",
            "\u{1f44d}\u{1f3fd} \u{1f1eb}\u{1f1f7}",
            &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
        ),
        ("\u{0}a\u{0}", "\u{0}a\u{0}", &[(0, 1), (1, 2), (2, 3)]),
        ("a\u{d}\u{a}b", "a\u{d}\u{a}b", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
        ("\u{ff76}\u{ff9e}\u{ff77}\u{ff9e}", "\u{30ab}\u{3099}\u{30ad}\u{3099}", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
        ("\u{ac01}\u{11a8}", "\u{ac01}\u{11a8}", &[(0, 1), (1, 2)]),
        ("  x", "  x", &[(0, 1), (1, 2), (2, 3)]),
        ("\u{a0}\u{3000}x\u{2003}", "  x ", &[(0, 1), (1, 2), (2, 3), (3, 4)]),
        ("e\u{301}\u{308}", "\u{e9}", &[(0, 1)]),
    ];
    let norm = botchan_precompiled();
    for &(input, text, offsets) in cases {
        let want = vec![(text.to_string(), offsets.to_vec())];
        assert_eq!(run(Some(&norm), None, input, 0, true), want, "{input:?}");
        assert_eq!(run(Some(&norm), None, input, 7, true), want, "{input:?} at 7");
        let untracked: Vec<String> = run(Some(&norm), None, input, 0, false).into_iter().map(|x| x.0).collect();
        assert_eq!(untracked, [text], "{input:?} untracked");
    }
}
