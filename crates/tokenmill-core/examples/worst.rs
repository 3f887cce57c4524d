//! R10 of single-piece inputs without Python: `cargo run --release --example worst -- RANKFILE`.
use std::time::Instant;
use tokenmill_core::formats::tiktoken::parse;
use tokenmill_core::pretokenize::O200K_PAT;
use tokenmill_core::CoreBpe;

/// A named input family: the name, and the input of a given size in bytes.
type Input<'a> = (&'a str, Box<dyn Fn(usize) -> String>);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ranks = parse(&std::fs::read(&args[1]).unwrap(), true).unwrap();
    let core = CoreBpe::new(ranks, vec![], O200K_PAT).unwrap();
    let mut seed = 12345u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let letters: String = (0..2_000_000).map(|_| (b'a' + (rnd() % 26) as u8) as char).collect();
    let inputs: Vec<Input> = vec![
        ("a", Box::new(|n| "a".repeat(n))),
        ("letters", Box::new(move |n| letters[..n].to_string())),
        ("spaces", Box::new(|n| " ".repeat(n - 1) + "x")),
        ("caret", Box::new(|n| "^".repeat(n))),
    ];
    for (name, make) in &inputs {
        let t = |n: usize| {
            let s = make(n);
            (0..3)
                .map(|_| {
                    let t0 = Instant::now();
                    std::hint::black_box(core.encode_ordinary(&s).unwrap());
                    t0.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let (a, b) = (t(102_400), t(1_048_576));
        println!("{name:8} 100K {:7.1} ms  1M {:7.1} ms  R10 {:.1}", a * 1e3, b * 1e3, b / a);
    }
}
