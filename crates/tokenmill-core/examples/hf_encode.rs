//! Times encoding the lines of a text file with a tokenizer.json, one line per call, on one
//! thread, a vector per line and then into one buffer:
//! `cargo run --release --example hf_encode -- TOKENIZER.json LINES.txt [REPEAT]`.
use std::time::Instant;

use tokenmill_core::hf::HfTokenizer;

fn main() {
    let mut args = std::env::args().skip(1);
    let (tok, text) = (args.next().expect("tokenizer"), args.next().expect("lines"));
    let repeat: usize = args.next().map(|r| r.parse().expect("repeat")).unwrap_or(5);
    let tok = HfTokenizer::from_json_bytes(&std::fs::read(tok).expect("read tokenizer")).expect("load");
    let text = std::fs::read_to_string(text).expect("read lines");
    let lines: Vec<&str> = text.lines().collect();
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..repeat {
        let t = Instant::now();
        let all = tok.encode_ids_batch(&lines, false, &[], 1).expect("encode");
        best = best.min(t.elapsed().as_secs_f64());
        n = all.iter().map(|v| v.len()).sum::<usize>();
    }
    println!("{} ({} tokens): {:.1} MB/s", tok.pretokenizer_name(), n, text.len() as f64 / best / 1e6);
    // With the special tokens, gathered in one buffer as a Python batch does: a vector per
    // line copied in (`encode_ids`), or appended directly (`encode_ids_into`).
    let (mut flat, mut s) = (Vec::new(), Default::default());
    for into in [false, true] {
        let mut best = f64::MAX;
        for _ in 0..repeat {
            let t = Instant::now();
            flat.clear();
            for l in &lines {
                if into {
                    tok.encode_ids_into(l, true, &[], &mut s, &mut flat).expect("encode");
                } else {
                    flat.extend_from_slice(&tok.encode_ids(l, true, &[], &mut s).expect("encode"));
                }
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        let how = if into { "encode_ids_into" } else { "encode_ids + copy" };
        println!("{how} ({} tokens): {:.1} MB/s", flat.len(), text.len() as f64 / best / 1e6);
    }
}
