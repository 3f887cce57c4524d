//! What does the `tokenizer.json` wrapper cost over the byte-level engine it runs on?
//! `cargo run --release --example hf_overhead -- TOKENIZER_JSON LINES_FILE [ROUNDS]`
//!
//! Encodes each line of LINES_FILE (no Python involved) three ways, interleaved, best of
//! ROUNDS (default 5): the engine alone (`CoreBpe::encode_with`, no specials, as an
//! `Encoding`'s `encode_ordinary_batch` runs it), `HfTokenizer::encode_ids` per line and
//! `encode_ids_batch` on one thread, and checks that all three give the same ids. Only for
//! files that take the byte-level fast path. ONLY=engine|ids|batch runs one of them (for
//! `perf record`).

use std::time::Instant;

use tokenmill_core::bpe::Scratch;
use tokenmill_core::hf::fast::Fast;
use tokenmill_core::hf::tokenizer::Scratch as HfScratch;
use tokenmill_core::hf::HfTokenizer;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: hf_overhead TOKENIZER_JSON LINES_FILE [ROUNDS]");
        std::process::exit(2);
    }
    let tok = HfTokenizer::from_json_bytes(&std::fs::read(&args[1]).expect("read tokenizer")).expect("load");
    let text = std::fs::read_to_string(&args[2]).expect("read lines");
    let lines: Vec<&str> = text.split('\n').collect();
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let only = std::env::var("ONLY").ok();
    let Some(Fast::Bpe { bpe, .. }) = &tok.pipeline.fast else {
        eprintln!("{}: not on the byte-level fast path", args[1]);
        std::process::exit(1);
    };
    let mb = text.len() as f64 / 1e6;
    let run = |name: &str| -> Vec<Vec<u32>> {
        match name {
            "engine" => {
                let mut s = Scratch::default();
                lines.iter().map(|l| bpe.encode_with(l, None, &mut s).expect("engine")).collect()
            }
            "ids" => {
                let mut s = HfScratch::default();
                lines.iter().map(|l| tok.encode_ids(l, false, &[], &mut s).expect("ids")).collect()
            }
            _ => tok.encode_ids_batch(&lines, true, &[], 1).expect("batch"),
        }
    };
    let names: Vec<&str> = match &only {
        Some(o) => vec![o.as_str()],
        None => vec!["engine", "ids", "batch"],
    };
    let mut best = vec![f64::MAX; names.len()];
    let mut results: Vec<Vec<Vec<u32>>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        for (i, name) in names.iter().enumerate() {
            let t = Instant::now();
            results[i] = run(name);
            best[i] = best[i].min(t.elapsed().as_secs_f64());
        }
    }
    for r in &results[1..] {
        assert!(r == &results[0], "different ids");
    }
    let line: Vec<String> = names.iter().zip(&best).map(|(n, t)| format!("{n} {:.2} MB/s", mb / t)).collect();
    println!("{}: {}", tok.pretokenizer_name(), line.join(", "));
}
