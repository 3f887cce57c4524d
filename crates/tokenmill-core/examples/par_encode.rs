//! One large text on 1 and 2 threads (`encode_ordinary_parallel`), no Python involved:
//! `cargo run --release --example par_encode -- RANKFILE cl100k|o200k TEXTFILE [ROUNDS]`.
//! Prints each round's wall times and ratio, and the threads' CPU time over twice the wall time.

use std::time::Instant;

use tokenmill_core::formats::tiktoken::parse;
use tokenmill_core::pretokenize::{CL100K_PAT, O200K_PAT};
use tokenmill_core::CoreBpe;

fn cpu() -> f64 {
    // This process's user+system time (all threads), in seconds.
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 4 {
        eprintln!("usage: par_encode RANKFILE cl100k|o200k TEXTFILE [ROUNDS]");
        std::process::exit(2);
    }
    let ranks = parse(&std::fs::read(&a[1]).expect("rank file"), true).expect("parse");
    let pat = if a[2] == "o200k" { O200K_PAT } else { CL100K_PAT };
    let core = CoreBpe::new(ranks, vec![], pat).expect("build");
    let text = std::fs::read_to_string(&a[3]).expect("text");
    let rounds = a.get(4).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mb = text.len() as f64 / 1e6;
    // A warm-up on the first 100 kB (cut at a character boundary).
    let warm = (0..=text.len().min(100_000)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    core.encode_ordinary(&text[..warm]).expect("encode");
    for _ in 0..rounds {
        let t = Instant::now();
        let one = core.encode_ordinary_parallel(&text, 1).expect("encode");
        let t1 = t.elapsed().as_secs_f64();
        let (c, t) = (cpu(), Instant::now());
        let two = core.encode_ordinary_parallel(&text, 2).expect("encode");
        let t2 = t.elapsed().as_secs_f64();
        let busy = (cpu() - c) / (2.0 * t2);
        assert_eq!(one, two);
        println!(
            "{mb:.1} MB: 1 thread {:.1} MB/s, 2 threads {:.1} MB/s, {:.2}x, busy {busy:.2}",
            mb / t1,
            mb / t2,
            t1 / t2
        );
    }
}
