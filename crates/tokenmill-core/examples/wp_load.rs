//! Times building a WordPiece model from a vocab.txt: `cargo run --release --example wp_load -- VOCAB`.
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: wp_load VOCAB");
    let data = std::fs::read_to_string(path).expect("read");
    let vocab: Vec<(String, u32)> = data.lines().enumerate().map(|(i, t)| (t.to_string(), i as u32)).collect();
    let mut best = f64::MAX;
    for _ in 0..10 {
        let v = vocab.clone();
        let t = Instant::now();
        let m = tokenmill_core::WordPiece::new(v, "[UNK]", "##", 100).expect("model");
        best = best.min(t.elapsed().as_secs_f64());
        std::hint::black_box(m);
    }
    println!("WordPiece::new best of 10: {:.1} ms", best * 1e3);
}
