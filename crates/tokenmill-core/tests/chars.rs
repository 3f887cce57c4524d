//! Starting BPE from whole characters (`tokenmill_core::bpe::chars`) gives exactly the tokens of
//! starting from bytes: checked on the real OpenAI vocabularies, on windows of real
//! multilingual text taken at arbitrary byte offsets (so every kind of neighbour, broken
//! characters included), and on random mixes of scripts. Also: cutting pieces where no token
//! holds the two bytes side by side, or spans the two characters (`bpe::merge::split_points`),
//! changes nothing.

use tokenmill_core::bpe::backtrack;
use tokenmill_core::bpe::merge::{
    encode_piece, encode_piece_with, few_bytes, merge_bytewise, merge_long, merge_long_scanning, merge_small,
    split_points, Scratch,
};
use tokenmill_core::formats::tiktoken::parse;
use tokenmill_core::Vocab;

mod common;
use common::{read_text_file, shared_data, Rng};

fn vocab(name: &str) -> Vocab {
    let data = std::fs::read(shared_data(&format!("tiktoken/{name}.tiktoken"))).unwrap();
    Vocab::new(parse(&data, true).unwrap(), vec![]).unwrap()
}

fn check(vocab: &Vocab, piece: &[u8], what: &str) {
    let mut want = Vec::new();
    merge_bytewise(vocab, piece, &mut want);
    let (mut small, mut long, mut full) = (Vec::new(), Vec::new(), Vec::new());
    merge_small(vocab, piece, &mut small, &mut Default::default());
    merge_long(vocab, piece, &mut long, &mut Default::default());
    encode_piece(vocab, piece, &mut full);
    let mut scanning = Vec::new();
    merge_long_scanning(vocab, piece, &mut scanning);
    assert_eq!(scanning, want, "merge_long_scanning, {what}: {:?}", String::from_utf8_lossy(piece));
    assert_eq!(small, want, "merge_small, {what}: {:?}", String::from_utf8_lossy(piece));
    assert_eq!(long, want, "merge_long, {what}: {:?}", String::from_utf8_lossy(piece));
    assert_eq!(full, want, "encode_piece, {what}: {:?}", String::from_utf8_lossy(piece));
}

/// Code point ranges the random mixes draw from: CJK, kana, hangul, Cyrillic, Greek,
/// Latin-1, Arabic, CJK punctuation, full-width forms, emoji (four bytes), ASCII.
const RANGES: &[(u32, u32)] = &[
    (0x4E00, 0x9FFF),
    (0x3040, 0x30FF),
    (0xAC00, 0xD7A3),
    (0x0400, 0x04FF),
    (0x0370, 0x03FF),
    (0x00A0, 0x00FF),
    (0x0600, 0x06FF),
    (0x3000, 0x303F),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1F64F),
    (0x20, 0x7E),
    (0x0080, 0x07FF),
    (0x0800, 0xFFFD),
];

#[test]
fn char_start_equals_byte_start() {
    let texts: Vec<Vec<u8>> = ["ja-JP", "zh-CN", "fr-FR"]
        .iter()
        .map(|l| {
            read_text_file(&shared_data(&format!("corpus/debian-handbook.{l}.txt.gz"))).expect("gzip -dc").into_bytes()
        })
        .collect();
    // TOKENMILL_STRESS=N multiplies the work (for a long run by hand).
    let rounds = 20_000 * std::env::var("TOKENMILL_STRESS").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(1);
    for name in ["o200k_base", "cl100k_base", "r50k_base"] {
        let v = vocab(name);
        let mut rng = Rng(0x5EED ^ name.len() as u64);
        // Windows of real text at arbitrary byte offsets and lengths.
        for text in &texts {
            for _ in 0..rounds {
                let len = 1 + rng.below(96);
                let start = rng.below(text.len() - len);
                check(&v, &text[start..start + len], name);
            }
        }
        // Random mixes of scripts, and of a few characters repeated (to meet the same
        // neighbours often), with the occasional stray byte.
        for round in 0..rounds {
            let want = 1 + rng.below(6);
            let mut pool: Vec<char> = Vec::new();
            while pool.len() < want {
                let (lo, hi) = RANGES[rng.below(RANGES.len())];
                // Surrogate code points are not chars: from_u32 skips them.
                pool.extend(char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32));
            }
            let mut piece = Vec::new();
            for _ in 0..1 + rng.below(40) {
                let c = pool[rng.below(pool.len())];
                piece.extend_from_slice(c.to_string().as_bytes());
            }
            if round % 7 == 0 && !piece.is_empty() {
                let at = rng.below(piece.len());
                piece.insert(at, rng.below(256) as u8);
            }
            check(&v, &piece, name);
        }
    }
}

#[test]
fn malformed_bytes_and_empty_pieces() {
    // The byte-level APIs take any bytes: truncated characters at either end, overlong forms,
    // encoded surrogates, stray continuation bytes and four-byte characters must all merge
    // exactly as from single bytes, and an empty piece gives no tokens.
    let v = vocab("o200k_base");
    let cases: &[&[u8]] = &[
        b"",
        b"\xe6",
        b"\xe6\x97",
        "日本".as_bytes(),
        b"\xe6\x97\xa5\xe6",
        b"\x97\xa5\xe6\x9c\xac",
        b"\xe0\x80\x80\xe0\x82\x80\xc0\xaf\xc1\xbf",
        b"\xed\xa0\x80\xed\xbf\xbf",
        b"\x80\x80\x80\xbf\xbf",
        "😀日😀本".as_bytes(),
        b"\xf0\x9f\x98\xe6\x97\xa5",
        b"\xff\xfe\xe6\x97\xa5\xff",
        b" \xe6\x97\xa5",
        "\u{3000}\u{3001}本\u{FFFD}".as_bytes(),
    ];
    for &piece in cases {
        check(&v, piece, "malformed");
    }
    let mut out = Vec::new();
    encode_piece(&v, b"", &mut out);
    assert!(out.is_empty());
    // A long run of malformed bytes takes the long-piece paths.
    let junk: Vec<u8> = (0..5000u32).map(|i| [0xe6, 0x97, 0xa5, 0x80, 0xff, 0xc2][(i * 7 % 6) as usize]).collect();
    check(&v, &junk, "malformed run");
}

/// The Japanese and Chinese Debian handbooks.
fn cjk_handbooks() -> Vec<String> {
    ["ja-JP", "zh-CN"]
        .iter()
        .map(|l| read_text_file(&shared_data(&format!("corpus/debian-handbook.{l}.txt.gz"))).expect("gzip -dc"))
        .collect()
}

#[test]
fn cjk_runs_split_between_characters_no_token_spans() {
    // Runs of CJK text are cut where no token spans the two characters (`chars::CharJoins`),
    // though nearly every byte pair there occurs in some token; each part is merged alone.
    // Windows of real ja/zh text from a character start (runs of up to 200 characters, with
    // their kana, punctuation and Latin neighbours), and with a stray byte, must give the
    // whole piece's BPE; and many cuts must be ones the byte-pair test alone would not make.
    let texts = cjk_handbooks();
    let mut rng = Rng(0xC7C7);
    for name in ["o200k_base", "cl100k_base"] {
        let v = vocab(name);
        let (mut by_chars, mut all) = (0, 0);
        for text in &texts {
            let b = text.as_bytes();
            for round in 0..3000 {
                let mut start = rng.below(b.len() - 700);
                while !text.is_char_boundary(start) {
                    start += 1;
                }
                let mut piece = b[start..start + 16 + rng.below(600)].to_vec();
                if round % 5 == 0 {
                    piece.insert(rng.below(piece.len()), rng.below(256) as u8);
                }
                let (mut got, mut want) = (Vec::new(), Vec::new());
                encode_piece(&v, &piece, &mut got);
                merge_bytewise(&v, &piece, &mut want);
                if v.rank(&piece).is_none() {
                    assert_eq!(got, want, "{name} round {round} piece {:?}", String::from_utf8_lossy(&piece));
                }
                for cut in split_points(&v, &piece) {
                    all += 1;
                    by_chars += v.joinable(piece[cut - 1], piece[cut]) as usize;
                }
            }
        }
        assert!(by_chars > all / 5 && by_chars > 10_000, "{name}: {by_chars} of {all} cuts by characters");
    }
}

#[test]
fn cached_parts_of_runs_give_pieces_of_the_same_bytes_their_own_tokens() {
    // The parts a CJK run falls apart into go through the call's cache and the encoder's
    // cache, the same caches whole pieces use. Encode runs of real ja/zh text with one
    // scratch (one call), then each of their parts as a piece of its own, in the same call
    // and in a new one: a part's bytes as a piece must still give the piece's tokens (the
    // token, where the bytes are one; else the merge from bytes).
    let texts = cjk_handbooks();
    for name in ["o200k_base", "cl100k_base"] {
        let v = vocab(name);
        let want = |piece: &[u8]| match v.rank(piece) {
            Some(r) => vec![r],
            None => {
                let mut w = Vec::new();
                merge_bytewise(&v, piece, &mut w);
                w
            }
        };
        let (mut scratch, mut parts) = (Scratch::default(), Vec::new());
        for text in &texts {
            let runs = text.split(|c: char| c.is_ascii() || c.is_whitespace()).filter(|r| r.len() > 15);
            for run in runs.take(3000) {
                let run = run.as_bytes();
                let mut got = Vec::new();
                encode_piece_with(&v, run, &mut got, &mut scratch);
                assert_eq!(got, want(run), "{name} run {:?}", String::from_utf8_lossy(run));
                let mut start = 0;
                for cut in split_points(&v, run).chain([run.len()]) {
                    parts.push(run[start..cut].to_vec());
                    start = cut;
                }
            }
        }
        let mut tokens_parts = 0;
        for fresh in [false, true] {
            if fresh {
                scratch = Scratch::default();
            }
            for part in &parts {
                let mut got = Vec::new();
                encode_piece_with(&v, part, &mut got, &mut scratch);
                let w = want(part);
                tokens_parts += (w.len() == 1 && part.len() > 3) as usize;
                assert_eq!(got, w, "{name} part {:?} (new call: {fresh})", String::from_utf8_lossy(part));
            }
        }
        assert!(tokens_parts > 100, "{name}: only {tokens_parts} parts of several characters are tokens");
    }
}

#[test]
fn no_token_spans_a_boundary_the_character_test_cuts() {
    // The claim behind each cut, checked by brute force against every token: at a boundary
    // between characters C1 and C2 that `split_points` cuts, no token has, at any point,
    // bytes before it that end with C1 (or are a suffix of it) and bytes after it that start
    // with C2 (or are a prefix of it).
    let v = vocab("o200k_base");
    let mut by_pair: std::collections::HashMap<(u8, u8), Vec<(u32, usize)>> = Default::default();
    for r in 0..200_000u32 {
        if let Some(t) = v.token_bytes(r as u64) {
            for k in 1..t.len() {
                by_pair.entry((t[k - 1], t[k])).or_default().push((r, k));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    for l in ["ja-JP", "zh-CN"] {
        let text = read_text_file(&shared_data(&format!("corpus/debian-handbook.{l}.txt.gz"))).expect("gzip -dc");
        let chars: Vec<&str> = text.split_terminator("").skip(1).take(200_000).collect();
        for w in chars.windows(2) {
            let piece = format!("{}{}", w[0], w[1]);
            let piece = piece.as_bytes();
            if split_points(&v, piece).next().is_none() || !seen.insert(piece.to_vec()) {
                continue;
            }
            let (c1, c2) = (w[0].as_bytes(), w[1].as_bytes());
            for &(r, k) in by_pair.get(&(c1[c1.len() - 1], c2[0])).map_or(&[][..], |x| x) {
                let t = v.token_bytes(r as u64).unwrap();
                let (left, right) = (&t[..k], &t[k..]);
                let l_ok = if left.len() >= c1.len() { left.ends_with(c1) } else { c1.ends_with(left) };
                let r_ok = if right.len() >= c2.len() { right.starts_with(c2) } else { c2.starts_with(right) };
                assert!(!(l_ok && r_ok), "token {r} {:?} spans the cut {:?}", String::from_utf8_lossy(t), w);
            }
        }
    }
    assert!(seen.len() > 5000, "the test should check many cut pairs ({})", seen.len());
}

#[test]
fn split_long_pieces_equal_byte_start() {
    // Long pieces are cut between bytes that no token holds side by side, and the parts are
    // merged alone; the result must be the whole piece's BPE. Random letters, digits, mixed
    // scripts and token salad (many such points), and runs (none), for three vocabularies.
    let mut rng = Rng(4242);
    let alphabets: [&[u8]; 4] =
        [b"abcdefghijklmnopqrstuvwxyz", b"qxzjkvwQXZJ0123456789", b"aeiou \xc3\xa9\xe6\xbc\xa2", b"aaaaab"];
    for name in ["o200k_base", "cl100k_base", "r50k_base"] {
        let v = vocab(name);
        let mut splits = 0;
        let toks: Vec<Vec<u8>> =
            (0..2000u64).filter_map(|r| v.token_bytes(r * 37 % 50_000).map(|b| b.to_vec())).collect();
        for round in 0..300 {
            let len = 33 + rng.below(3000);
            let piece: Vec<u8> = if round % 5 == 4 {
                let mut p = Vec::new();
                while p.len() < len {
                    p.extend_from_slice(&toks[rng.below(toks.len())]);
                }
                p
            } else {
                let a = alphabets[round % 4];
                (0..len).map(|_| a[rng.below(a.len())]).collect()
            };
            let (mut got, mut want) = (Vec::new(), Vec::new());
            encode_piece(&v, &piece, &mut got);
            merge_bytewise(&v, &piece, &mut want);
            if v.rank(&piece).is_none() {
                assert_eq!(got, want, "{name} round {round} piece {:?}", String::from_utf8_lossy(&piece));
            }
            splits += split_points(&v, &piece).count();
        }
        assert!(splits > 1000, "{name}: the test should exercise split pieces ({splits} points)");
    }
}

#[test]
fn long_runs_of_few_bytes_take_the_backtracking_path_exactly() {
    // Parts of 8 KiB and more with at most 8 distinct bytes go to `merge_backtrack` (see
    // `merge::few_bytes`): runs of one byte, short patterns repeated, and random mixes of a
    // few bytes (UTF-8 pieces of a CJK space and an accented letter among them), checked
    // against `merge_long` (itself checked against the byte-start rule above).
    let mut rng = Rng(8192);
    let pool: &[u8] = b" \t\n\r=-_*#0a'sE\xe3\x80\x80\xc3\xa9";
    for name in ["o200k_base", "cl100k_base", "r50k_base"] {
        let v = vocab(name);
        for round in 0..24 {
            let len = 8192 + rng.below(12_000);
            let alphabet: Vec<u8> = (0..1 + round % 8).map(|_| pool[rng.below(pool.len())]).collect();
            let piece: Vec<u8> = match round % 3 {
                0 => vec![alphabet[0]; len],
                1 => (0..len).map(|i| alphabet[i % alphabet.len()]).collect(),
                _ => (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect(),
            };
            let set = few_bytes(&piece).expect("at most 8 distinct bytes");
            let (mut got, mut want, mut searched) = (Vec::new(), Vec::new(), Vec::new());
            encode_piece(&v, &piece, &mut got);
            merge_long(&v, &piece, &mut want, &mut Default::default());
            let what = format!("{name} round {round}, alphabet {:?}", String::from_utf8_lossy(&alphabet));
            assert_eq!(got, want, "{what}");
            // The search itself succeeds (no fallback to merging).
            assert!(backtrack::encode(&v, &piece, &set, &mut searched, &mut Default::default()), "{what}");
            assert_eq!(searched, want, "{what}");
        }
    }
}

#[test]
fn long_runs_of_one_byte_take_the_run_table_exactly() {
    // A long run of one ASCII byte skips `split_points` and `few_bytes` (`merge::one_byte_run`)
    // and its search reads the longest token from a table by length (`TokenTrie::run`), not
    // the trie: every ASCII byte, at lengths around the path's threshold and one much longer,
    // against `merge_long`.
    for name in ["o200k_base", "cl100k_base", "r50k_base"] {
        let v = vocab(name);
        for b in 0..128u8 {
            for len in [8191, 8192, 8193 + b as usize, 20_011] {
                let piece = vec![b; len];
                let (mut got, mut want) = (Vec::new(), Vec::new());
                encode_piece(&v, &piece, &mut got);
                merge_long(&v, &piece, &mut want, &mut Default::default());
                assert_eq!(got, want, "{name}: {len} of byte {b}");
                // The search itself (`merge_backtrack` would hide a failed one by merging).
                let set = few_bytes(&piece).expect("one byte");
                let mut searched = Vec::new();
                assert!(backtrack::encode(&v, &piece, &set, &mut searched, &mut Default::default()), "{name}: {b}");
                assert_eq!(searched, want, "{name}: {len} of byte {b}");
            }
        }
    }
}

#[test]
fn parts_of_two_to_four_bytes_merge_as_from_bytes() {
    // Random letters of several scripts (the worst-case input `letters`) fall apart into
    // parts of one character or a few; parts of 2-4 bytes merge without the caches
    // (`merge::merge_two`, `merge::merge_tiny`). Stray bytes and ASCII punctuation make parts
    // that start with any byte, and short alphabets make every tie of ranks likely.
    let alphabets: [&str; 4] = [
        "abcdefghijklmnopqrstuvwxyzéèàüöäßçñøåæœабвгдежзийклмнопрстуфхцчшщыэюяαβγδεζηθικλμνξοπρστυφχψω",
        "aeé,.бв \u{80}",
        "qxzαωйщ",
        "tthhee",
    ];
    let mut rng = Rng(0x7177);
    for name in ["o200k_base", "cl100k_base", "r50k_base"] {
        let v = vocab(name);
        let mut tiny = [0usize; 5];
        for round in 0..3000 {
            let a: Vec<char> = alphabets[round % alphabets.len()].chars().collect();
            let (mut piece, len) = (Vec::new(), 33 + rng.below(200));
            while piece.len() < len {
                piece.extend_from_slice(a[rng.below(a.len())].to_string().as_bytes());
            }
            if round % 3 == 0 {
                let at = rng.below(piece.len());
                piece.insert(at, 0x80 + rng.below(0x42) as u8);
            }
            let (mut got, mut want) = (Vec::new(), Vec::new());
            encode_piece(&v, &piece, &mut got);
            merge_bytewise(&v, &piece, &mut want);
            if v.rank(&piece).is_none() {
                assert_eq!(got, want, "{name} round {round} piece {:?}", String::from_utf8_lossy(&piece));
            }
            let mut start = 0;
            for cut in split_points(&v, &piece).chain([piece.len()]) {
                if let Some(n) = tiny.get_mut(cut - start) {
                    *n += 1;
                }
                start = cut;
            }
        }
        assert!(tiny[2..].iter().all(|&n| n > 300), "{name}: the test should meet many parts of 2-4 bytes ({tiny:?})");
    }
}

#[test]
fn one_call_of_random_letters_then_cjk_words_stays_exact() {
    // Parts of split pieces stop going through the caches in a call where they rarely come
    // back (`merge::PartCaching`) and go through them again later: the tokens must not
    // change either way. One scratch (one call) over 30,000 pieces of random letters, then
    // the CJK runs of the handbooks, then random letters again.
    let letters: Vec<char> = "éèàüöäßçñøåæœабвгдежзийклмнопрстуфхцчшщыэюяαβγδεζηθικλμνξοπρστυφχψω".chars().collect();
    let cjk: Vec<Vec<u8>> = cjk_handbooks()
        .iter()
        .flat_map(|t| t.split(|c: char| c.is_ascii() || c.is_whitespace()).map(|r| r.as_bytes().to_vec()))
        .filter(|r| r.len() > 32)
        .take(20_000)
        .collect();
    let mut rng = Rng(0xCAC4E);
    let random = |rng: &mut Rng| {
        let (mut p, len) = (Vec::new(), 33 + rng.below(100));
        while p.len() < len {
            p.extend_from_slice(letters[rng.below(letters.len())].to_string().as_bytes());
        }
        p
    };
    let v = vocab("o200k_base");
    let mut scratch = Scratch::default();
    let mut pieces: Vec<Vec<u8>> = (0..30_000).map(|_| random(&mut rng)).collect();
    pieces.extend(cjk);
    pieces.extend((0..30_000).map(|_| random(&mut rng)));
    for piece in &pieces {
        let (mut got, mut want) = (Vec::new(), Vec::new());
        encode_piece_with(&v, piece, &mut got, &mut scratch);
        merge_bytewise(&v, piece, &mut want);
        if v.rank(piece).is_none() {
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(piece));
        }
    }
}

#[test]
fn one_call_of_random_words_then_prose_stays_exact() {
    // Merged whole pieces stop being written to the caches in a call where they rarely come
    // back (`merge::PieceWrites`: random identifiers, base64) and are written again later;
    // the caches are still read meanwhile. The tokens must not change either way: one scratch
    // (one call) over 40,000 random mixed-case words, then the words of English prose (many
    // repeated), then random words again and prose again.
    let alphabet: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/0123456789";
    let mut rng = Rng(0xB64);
    let mut random = |n: usize| -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                let len = 3 + rng.below(12);
                let mut w: Vec<u8> = (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect();
                w[0] = b" +/"[rng.below(3)];
                w
            })
            .collect()
    };
    let prose = read_text_file(&shared_data("the-verdict.txt")).expect("read the-verdict.txt");
    let words: Vec<Vec<u8>> = prose.split_inclusive(' ').map(|w| format!(" {}", w.trim()).into_bytes()).collect();
    let v = vocab("cl100k_base");
    let mut scratch = Scratch::default();
    let mut pieces = random(40_000);
    pieces.extend(words.iter().cycle().take(60_000).cloned());
    pieces.extend(random(40_000));
    pieces.extend(words.iter().cycle().take(60_000).cloned());
    let mut merged = 0;
    for piece in pieces.iter().filter(|p| p.len() <= 15) {
        let (mut got, mut want) = (Vec::new(), Vec::new());
        encode_piece_with(&v, piece, &mut got, &mut scratch);
        if v.rank(piece).is_none() {
            merge_bytewise(&v, piece, &mut want);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(piece));
            merged += 1;
        }
    }
    assert!(merged > 60_000, "the test should merge many pieces ({merged})");
}

/// `split_points` by its rule, one boundary at a time, without the table of decisions for
/// characters below U+0800 (`chars::PairCuts`) or the short reading of one- and two-byte
/// characters.
fn split_points_by_rule(v: &Vocab, piece: &[u8]) -> Vec<usize> {
    use tokenmill_core::bpe::chars::code_point;
    let next_start =
        |s: usize| piece[s + 1..].iter().position(|&b| b & 0xC0 != 0x80).map_or(piece.len(), |x| s + 1 + x);
    let mut s = next_start(0);
    let mut prev = code_point(&piece[..s]);
    let mut cuts = Vec::new();
    while s < piece.len() {
        let e = next_start(s);
        let c = code_point(&piece[s..e]);
        let (x, y) = (piece[s - 1], piece[s]);
        if !v.joinable(x, y) || (x >= 0x80 || y >= 0x80) && !v.char_joins().spanned(prev, c, x, y) {
            cuts.push(s);
        }
        (prev, s) = (c, e);
    }
    cuts
}

#[test]
fn cuts_between_characters_below_u0800_follow_the_rule() {
    // Random one- and two-byte characters (the ones whose decisions `PairCuts` keeps), with
    // now and then a three- or four-byte character, a stray continuation byte or a lone lead
    // byte; two threads at once on one new vocabulary, so that they work out the same
    // decisions side by side.
    let ranges: &[(u32, u32)] =
        &[(0x61, 0x7A), (0x20, 0x7E), (0xC0, 0x17F), (0x370, 0x3FF), (0x400, 0x4FF), (0x80, 0x7FF), (0x4E00, 0x4E40)];
    for name in ["o200k_base", "cl100k_base"] {
        let v = vocab(name);
        std::thread::scope(|scope| {
            for seed in [1u64, 2] {
                let v = &v;
                scope.spawn(move || {
                    let mut rng = Rng(0x5EED + seed);
                    for round in 0..4000 {
                        let mut piece = Vec::new();
                        for _ in 0..1 + rng.below(40) {
                            let (lo, hi) = ranges[rng.below(if round % 3 == 0 { ranges.len() } else { 5 })];
                            let c = char::from_u32(lo + rng.below((hi - lo + 1) as usize) as u32).unwrap_or('a');
                            piece.extend_from_slice(c.to_string().as_bytes());
                            if rng.below(30) == 0 {
                                piece.push([0x80, 0xBF, 0xC3, 0xE6, 0xF0][rng.below(5)]);
                            }
                        }
                        let got: Vec<usize> = split_points(v, &piece).collect();
                        assert_eq!(
                            got,
                            split_points_by_rule(v, &piece),
                            "{name}: {:?}",
                            String::from_utf8_lossy(&piece)
                        );
                    }
                });
            }
        });
    }
}
