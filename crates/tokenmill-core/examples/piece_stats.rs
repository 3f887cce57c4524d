//! How the pieces of a text fall for BPE: whole tokens, short pieces that need merging
//! (distinct and repeated), long pieces: `cargo run --release --example piece_stats -- RANKS TEXT`.
use std::collections::HashMap;

fn main() {
    let mut args = std::env::args().skip(1);
    let (ranks, text) = (args.next().expect("RANKS"), args.next().expect("TEXT"));
    let mut mergeable = Vec::new();
    for line in std::fs::read_to_string(ranks).expect("ranks").lines() {
        let (b64, r) = line.split_once(' ').expect("line");
        mergeable.push((base64_decode(b64), r.parse().expect("rank")));
    }
    let vocab = tokenmill_core::bpe::vocab::Vocab::new(mergeable, vec![]).expect("vocab");
    let pre =
        tokenmill_core::pretokenize::Pretokenizer::new(tokenmill_core::pretokenize::patterns::R50K_PAT).expect("pat");
    let text = std::fs::read_to_string(text).expect("text");
    let (mut pieces, mut whole, mut long) = (0u64, 0u64, 0u64);
    let mut short: HashMap<&str, u64> = HashMap::new();
    pre.for_each_piece(&text, |s, e| {
        pieces += 1;
        let p = &text[s..e];
        if vocab.rank(p.as_bytes()).is_some() {
            whole += 1;
        } else if p.len() <= 15 {
            *short.entry(p).or_default() += 1;
        } else {
            long += 1;
        }
    })
    .expect("split");
    let occ: u64 = short.values().sum();
    println!("pieces {pieces}, whole tokens {whole}, short to merge {occ} ({} distinct), long {long}", short.len());
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for &c in s.as_bytes().iter().filter(|&&c| c != b'=') {
        acc = acc << 6 | val(c) as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
