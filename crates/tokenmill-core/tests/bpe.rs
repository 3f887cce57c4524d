//! BPE merging and rank-file parsing, without Python: the two merge algorithms agree, the
//! vocabulary and parser reject malformed input with the documented messages.

use tokenmill_core::bpe::backtrack;
use tokenmill_core::bpe::merge::{
    encode_piece, few_bytes, merge_bytewise, merge_long, merge_long_scanning, merge_small, MinTree,
};
use tokenmill_core::formats::tiktoken::{dump, parse, unformable};
use tokenmill_core::{CoreBpe, CoreError, Vocab};

mod common;
use common::Rng;

fn bytes256() -> Vec<(Vec<u8>, u32)> {
    (0..=255u8).map(|b| (vec![b], b as u32)).collect()
}

/// A random vocabulary over "abc " built by random merges of existing tokens.
fn toy_vocab(seed: u64, merges: usize) -> Vocab {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut v = bytes256();
    let mut toks: Vec<Vec<u8>> = vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec(), b" ".to_vec()];
    while v.len() < 256 + merges {
        let t = [toks[rng.below(toks.len())].clone(), toks[rng.below(toks.len())].clone()].concat();
        if t.len() <= 16 && !v.iter().any(|(b, _)| *b == t) {
            let r = v.len() as u32;
            v.push((t.clone(), r));
            toks.push(t);
        }
    }
    Vocab::new(v, vec![]).unwrap()
}

#[test]
fn long_merge_equals_flat_merge() {
    for seed in 0..40u64 {
        let vocab = toy_vocab(seed, 80);
        let mut rng = Rng(seed + 1000);
        for _ in 0..50 {
            let len = rng.below(400);
            let piece: Vec<u8> = (0..len).map(|_| b"abc "[rng.below(4)]).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            merge_small(&vocab, &piece, &mut a, &mut Default::default());
            merge_long(&vocab, &piece, &mut b, &mut Default::default());
            assert_eq!(a, b, "seed {seed}, piece {:?}", String::from_utf8_lossy(&piece));
            let mut c = Vec::new();
            merge_long_scanning(&vocab, &piece, &mut c);
            assert_eq!(a, c, "scanning, seed {seed}, piece {:?}", String::from_utf8_lossy(&piece));
            let decoded: Vec<u8> = a.iter().flat_map(|&t| vocab.token_bytes(t as u64).unwrap().to_vec()).collect();
            assert_eq!(decoded, piece);
        }
    }
}

/// Vocabularies built by merges (ranks grow; even seeds) and shuffled ones (unreachable
/// tokens, ranks below their parts; odd seeds), of varied sizes and alphabets.
fn mixed_vocab(seed: u64) -> Vocab {
    if seed.is_multiple_of(2) {
        toy_vocab(seed, 40 + seed as usize % 60 * 3)
    } else {
        shuffled_vocab(seed, [&b"ab c"[..], b"ab", b"abc"][seed as usize % 3], [20, 60, 150][seed as usize % 5 % 3])
    }
}

#[test]
fn short_merge_equals_the_plain_rule() {
    // Pieces of up to 15 bytes take `merge_loop_short` in `merge_small`; `merge_bytewise` is
    // the generic loop. Shuffled ranks put the lowest rank anywhere: first, last, repeated.
    for seed in 0..200u64 {
        let vocab = mixed_vocab(seed);
        let mut rng = Rng(seed + 11);
        for round in 0..100 {
            let len = rng.below(18);
            let piece: Vec<u8> = match round % 3 {
                0 => vec![b"abc "[rng.below(4)]; len],
                // NUL bytes, which the packing must not confuse with its zero padding.
                1 => (0..len).map(|_| b"abc \0"[rng.below(5)]).collect(),
                _ => (0..len).map(|_| b"abc "[rng.below(4)]).collect(),
            };
            let (mut want, mut got) = (Vec::new(), Vec::new());
            merge_bytewise(&vocab, &piece, &mut want);
            merge_small(&vocab, &piece, &mut got, &mut Default::default());
            assert_eq!(got, want, "seed {seed}, piece {:?}", String::from_utf8_lossy(&piece));
            // A piece that is not a token merges on the stack (`merge_short_bytes`) when it
            // is ASCII (or has one character of two bytes) and packs (up to 15 bytes).
            if vocab.rank(&piece).is_none() {
                got.clear();
                encode_piece(&vocab, &piece, &mut got);
                assert_eq!(got, want, "seed {seed}, piece {:?} through encode_piece", String::from_utf8_lossy(&piece));
            }
        }
    }
}

#[test]
fn pieces_with_bytes_above_ascii_merge_by_the_plain_rule() {
    // Whole pieces go to `merge_short_bytes` when they are ASCII with at most two bytes of
    // 0x80-0xDF (`merge::merges_from_bytes`), else to `merge_piece`; both must give the rule's
    // tokens, with such bytes among the vocabulary's tokens and anywhere in the piece
    // (`é` is C3 A9; E3 leads a character of three bytes; lone continuation bytes too).
    let alphabet = [b'a', b'b', b' ', 0xC3, 0xA9, 0xE3, 0x81, 0x82];
    for seed in 0..120u64 {
        let vocab = shuffled_vocab(seed, &alphabet, [40, 120, 300][seed as usize % 3]);
        let mut rng = Rng(seed + 7);
        for round in 0..150 {
            let len = 1 + rng.below(17);
            // A high byte in 1, 2 or 3 draws of 8, or in every draw.
            let high = [1, 2, 3, 8][round % 4];
            let piece: Vec<u8> = (0..len)
                .map(|_| if rng.below(8) < high { alphabet[3 + rng.below(5)] } else { alphabet[rng.below(3)] })
                .collect();
            if vocab.rank(&piece).is_some() {
                continue;
            }
            let (mut want, mut got) = (Vec::new(), Vec::new());
            merge_bytewise(&vocab, &piece, &mut want);
            encode_piece(&vocab, &piece, &mut got);
            assert_eq!(got, want, "seed {seed}, piece {piece:02x?}");
        }
    }
}

/// A vocabulary over `alphabet` whose multi-byte tokens are random strings with shuffled
/// ranks: many are unreachable (BPE of their bytes gives something else) and a token may rank
/// below the tokens it is built from, which the backtracking search must handle exactly.
fn shuffled_vocab(seed: u64, alphabet: &[u8], n: usize) -> Vocab {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let mut toks: Vec<Vec<u8>> = Vec::new();
    while toks.len() < n {
        let len = 2 + rng.below(7);
        let t: Vec<u8> = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
        if !toks.contains(&t) {
            toks.push(t);
        }
    }
    let mut v = bytes256();
    let mut ranks: Vec<u32> = (256..256 + n as u32).collect();
    for i in (1..ranks.len()).rev() {
        ranks.swap(i, rng.below(i + 1));
    }
    v.extend(toks.into_iter().zip(ranks));
    Vocab::new(v, vec![]).unwrap()
}

#[test]
fn backtracking_equals_merging() {
    // The linear search over token boundaries against the merge rule itself, on vocabularies
    // built by merges (ranks grow) and on shuffled ones (unreachable tokens, ranks below their
    // parts), over random strings, runs of one byte and of two alternating bytes.
    for seed in 0..300u64 {
        let vocab = mixed_vocab(seed);
        let mut rng = Rng(seed + 7);
        for round in 0..60 {
            let len = rng.below(300);
            let piece: Vec<u8> = match round % 4 {
                0 => vec![b"abc "[rng.below(4)]; len],
                1 => (0..len).map(|i| b"ab"[i % 2]).collect(),
                _ => (0..len).map(|_| b"abc "[rng.below(4)]).collect(),
            };
            let (mut want, mut got) = (Vec::new(), Vec::new());
            merge_bytewise(&vocab, &piece, &mut want);
            // The piece's own byte set where it is small, else every byte.
            let set = few_bytes(&piece).unwrap_or([u64::MAX; 4]);
            // The search itself, not `merge_backtrack`, which would hide a failed search
            // behind its fallback to merging.
            let found = backtrack::encode(&vocab, &piece, &set, &mut got, &mut backtrack::Search::default());
            assert!(found, "seed {seed} round {round}: no valid sequence found");
            assert_eq!(got, want, "seed {seed} round {round}, piece {:?}", String::from_utf8_lossy(&piece));
        }
    }
}

#[test]
fn backtracking_over_many_distinct_bytes_equals_merging() {
    // Tries whose tokens use more than 16 distinct bytes walk a hash map of edges instead of
    // the dense table of `TokenTrie` (the pieces `merge` sends here have at most 8, so only
    // this test takes that walk); a run of one byte takes the table by length.
    let alphabet = b"abcdefghijklmnopqrstu \n";
    for seed in 0..40u64 {
        let vocab = shuffled_vocab(seed, alphabet, 400);
        let mut rng = Rng(seed + 11);
        for round in 0..40 {
            let len = 1 + rng.below(400);
            let piece: Vec<u8> = match round % 4 {
                0 => vec![alphabet[rng.below(alphabet.len())]; len],
                1 => (0..len).map(|i| alphabet[i % 3]).collect(),
                _ => (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect(),
            };
            let (mut want, mut got) = (Vec::new(), Vec::new());
            merge_bytewise(&vocab, &piece, &mut want);
            let found = backtrack::encode(&vocab, &piece, &[u64::MAX; 4], &mut got, &mut backtrack::Search::default());
            assert!(found, "seed {seed} round {round}: no valid sequence found");
            assert_eq!(got, want, "seed {seed} round {round}, piece {:?}", String::from_utf8_lossy(&piece));
        }
    }
}

#[test]
fn min_tree_answers_like_a_scan() {
    let mut rng = Rng(77);
    for &n in &[1usize, 5, 32, 33, 1000, 1025, 40_000] {
        let mut base: Vec<u32> = (0..n).map(|_| rng.below(50) as u32).collect();
        let mut tree = MinTree::default();
        tree.build(&base);
        for step in 0..2000 {
            let i = rng.below(n);
            let v = if rng.below(4) == 0 { u32::MAX } else { rng.below(60) as u32 };
            tree.set(&mut base, i, v);
            let m = base.iter().copied().min().filter(|&m| m != u32::MAX);
            let want = m.map(|m| (m, base.iter().position(|&x| x == m).unwrap()));
            assert_eq!(tree.min(&base), want, "n {n}, step {step}");
        }
    }
}

#[test]
fn repeated_byte_merges_leftmost_first() {
    // "aaa" with only "aa": the leftmost pair merges first -> [aa, a].
    let mut v = bytes256();
    v.push((b"aa".to_vec(), 256));
    let vocab = Vocab::new(v, vec![]).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    merge_small(&vocab, b"aaa", &mut a, &mut Default::default());
    merge_long(&vocab, b"aaa", &mut b, &mut Default::default());
    assert_eq!(a, vec![256, 97]);
    assert_eq!(b, a);
}

#[test]
fn core_roundtrip_and_specials() {
    let mut v = bytes256();
    v.push((b"ab".to_vec(), 256));
    let core = CoreBpe::new(v, vec![("<|e|>".into(), 257)], r"\w+|\s+|[^\w\s]+").unwrap();
    let allowed = core.special_matcher(&["<|e|>".to_string()]).unwrap();
    let ids = core.encode("ab <|e|>abc", &allowed).unwrap();
    assert_eq!(ids, vec![256, 32, 257, 256, 99]);
    assert_eq!(core.decode_bytes(&ids).unwrap(), b"ab <|e|>abc");
    assert!(matches!(core.decode_bytes(&[999]), Err(CoreError::TokenId { id: 999, position: 0, .. })));
    let disallowed = core.special_matcher(&["<|e|>".to_string()]).unwrap();
    assert!(matches!(core.check_disallowed("x<|e|>", &disallowed), Err(CoreError::DisallowedSpecial { start: 1, .. })));
}

#[test]
fn vocab_rejects_malformed() {
    let msg = |r: Result<Vocab, CoreError>| format!("{}", r.unwrap_err());
    let mut missing = bytes256();
    missing.remove(0);
    assert!(msg(Vocab::new(missing, vec![])).contains("single-byte tokens missing: 0x00"));
    let mut dup_rank = bytes256();
    dup_rank.push((b"ab".to_vec(), 5));
    assert!(msg(Vocab::new(dup_rank, vec![])).contains("rank 5 is assigned to two tokens"));
    assert!(msg(Vocab::new(bytes256(), vec![("<|x|>".into(), 7)])).contains("already the rank of ordinary token"));
    assert!(msg(Vocab::new(bytes256(), vec![("<|x|>".into(), 4_000_000_000)])).contains("ids must be dense"));
    // Two specials may share an id (tiktoken's o200k_harmony); decoding gives the first.
    let v = Vocab::new(bytes256(), vec![("<|a|>".into(), 300), ("<|b|>".into(), 300)]).unwrap();
    assert_eq!(v.token_bytes(300).unwrap(), b"<|a|>");
}

#[test]
fn rank_file_errors_name_the_line() {
    let valid = dump(&bytes256());
    assert_eq!(parse(&valid, false).unwrap().len(), 256);
    let with = |extra: &[u8]| [valid.clone(), extra.to_vec()].concat();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "empty vocabulary file"),
        (with(b"!!!! 256\n"), "line 257: invalid base64"),
        (with(b"= 256\n"), "line 257: invalid base64"),
        (with(b"YWI=\n"), "line 257: expected '<base64> <rank>'"),
        (with(b"YWI=\t256\n"), "line 257: expected '<base64> <rank>'"),
        (with(b"AA== 256\n"), "line 257: duplicate token (first defined on line 1)"),
        (with(b"YWI= 255\n"), "line 257: duplicate rank 255 (first on line 256)"),
        (with(b"YWI= 300\n"), "line 257: expected rank 256, got 300"),
        (with(b"YWI= -5\n"), "line 257: invalid rank"),
        (with(b"YWI= 4294967296\n"), "line 257: invalid rank"),
        (with(b"YWI= 0x10\n"), "line 257: invalid rank"),
    ];
    for (data, want) in cases {
        let e = parse(&data, false).unwrap_err();
        let got = if e.line == 0 { e.reason.clone() } else { format!("line {}: {}", e.line, e.reason) };
        assert!(got.contains(want), "want {want:?}, got {got:?}");
    }
    // Gaps are accepted on request; CRLF and a BOM are accepted.
    assert!(parse(&with(b"YWI= 300\n"), true).is_ok());
    let crlf: Vec<u8> = String::from_utf8(valid.clone()).unwrap().replace('\n', "\r\n").into_bytes();
    assert_eq!(parse(&crlf, false).unwrap(), parse(&valid, false).unwrap());
    assert_eq!(parse(&[b"\xef\xbb\xbf".as_slice(), &valid].concat(), false).unwrap().len(), 256);
}

#[test]
fn unformable_tokens_are_found() {
    let mut v = bytes256();
    v.push((b"abc".to_vec(), 256)); // no "ab" or "bc": BPE can never produce it
    v.push((b"cd".to_vec(), 257));
    assert_eq!(unformable(&v), vec![256]);
}
