//! Times loading a tokenizer.json in a fresh process (first load, then the best of N more):
//! `cargo run --release --example cold_load -- FILE [N]`.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: cold_load FILE [N]");
    let n: usize = std::env::args().nth(2).map_or(5, |s| s.parse().expect("N"));
    let data = std::fs::read(path).expect("read");
    let mut times = Vec::new();
    for _ in 0..=n {
        let t = Instant::now();
        let tok = tokenmill_core::hf::HfTokenizer::from_json_bytes(&data).expect("load");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(tok);
    }
    let best = times[1..].iter().copied().fold(f64::MAX, f64::min);
    println!("first {:.1} ms, best of the next {n}: {best:.1} ms", times[0]);
}
