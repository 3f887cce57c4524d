//! One large text on 1 and 2 threads (`encode_ordinary_parallel`), no Python involved:
//! `cargo run --release --example par_encode -- RANKFILE cl100k|o200k TEXTFILE [ROUNDS]`.
//! Prints each round's wall times and ratio, and the threads' CPU time over twice the wall time.
//! CACHE_SLOTS=N sizes the encoder's caches across calls (0: none); SERIAL_PARTS=1 also times
//! the two-thread path's parts on one thread, in turn, and their join; ALT=V compares two-thread
//! calls with `tokenmill_core::EXPERIMENT` at 0 and at V, in turn first (medians, rounds won).

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
    let mut core = CoreBpe::new(ranks, vec![], pat).expect("build");
    // CACHE_SLOTS=N sizes the encoder's caches across calls (0: none), as in `profile_encode`.
    if let Some(n) = std::env::var("CACHE_SLOTS").ok().and_then(|v| v.parse::<usize>().ok()) {
        core.vocab.set_cache_slots(n);
    }
    let text = std::fs::read_to_string(&a[3]).expect("text");
    let rounds = a.get(4).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mb = text.len() as f64 / 1e6;
    // A warm-up on the first 100 kB (cut at a character boundary).
    let warm = (0..=text.len().min(100_000)).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    core.encode_ordinary(&text[..warm]).expect("encode");
    // ALT=V: rounds of two-thread calls with `tokenmill_core::EXPERIMENT` at 0 and at V, in
    // turn first; prints the medians and how many rounds V won.
    if let Some(v) = std::env::var("ALT").ok().and_then(|v| v.parse::<u32>().ok()) {
        let mut speeds = [Vec::new(), Vec::new()];
        for round in 0..rounds {
            for k in [round % 2, 1 - round % 2] {
                tokenmill_core::EXPERIMENT.store(k as u32 * v, std::sync::atomic::Ordering::Relaxed);
                let t = Instant::now();
                std::hint::black_box(core.encode_ordinary_parallel(&text, 2).expect("encode"));
                speeds[k].push(mb / t.elapsed().as_secs_f64());
            }
        }
        let med = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v[v.len() / 2]
        };
        let wins = (0..rounds).filter(|&r| speeds[1][r] > speeds[0][r]).count();
        let logs: f64 = (0..rounds).map(|r| (speeds[1][r] / speeds[0][r]).ln()).sum();
        println!(
            "two threads: medians {:.1} -> {:.1} MB/s, mean ratio {:.3}, {v} faster in {wins} of {rounds} rounds",
            med(&speeds[0]),
            med(&speeds[1]),
            (logs / rounds as f64).exp()
        );
        return;
    }
    for _ in 0..rounds {
        if std::env::var("SERIAL_PARTS").is_ok() {
            // The two-thread path's parts (32 of them) on this thread, in turn, then joined.
            let cuts = tokenmill_core::pretokenize::safe_cuts(&text, 32);
            let t = Instant::now();
            let mut scratch = tokenmill_core::bpe::merge::Scratch::default();
            let parts: Vec<Vec<u32>> = cuts
                .windows(2)
                .map(|w| core.encode_with(&text[w[0]..w[1]], None, &mut scratch).expect("encode"))
                .collect();
            let encode = t.elapsed().as_secs_f64();
            let joined = parts.concat();
            let all = t.elapsed().as_secs_f64();
            std::hint::black_box(joined);
            println!("serial parts: encode {:.1} MB/s, with the join {:.1} MB/s", mb / encode, mb / all);
        }
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
