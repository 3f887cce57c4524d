//! Times encoding the lines of a text file with a tokenizer.json, one line per call, on one
//! thread: `cargo run --release --example hf_encode -- TOKENIZER.json LINES.txt [REPEAT]`.
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
}
