//! Throughput of `spm::SentencePiece::encode_into` over a file's lines, single thread.
//!
//! `cargo run --release --example spm_encode -- MODEL FILE [--ids OUT] [--nbest K OUT]
//! [--sample ALPHA NBEST SEED OUT] [--offsets OUT] [--decode OUT] [--repeat N]`
//!
//! FILE may be gzip-compressed (`.gz`); lines are split on `\n` (the newline is not encoded).
//! `--ids` writes one line of space-separated ids per input line (for comparing with
//! sentencepiece); `--nbest` writes per input line `score<TAB>ids` rows followed by an empty
//! row; `--sample` one sampled segmentation per line; `--offsets` `id:begin:end` per line;
//! `--decode` the decoded text of each line's ids. Prints MB/s of the encode loop (normalization
//! included, file reading and output excluded): the best of `--repeat` runs (default 3) by wall
//! clock, and the mean by this thread's CPU time (tick-grained: use enough repeats for ~1 s; the
//! figure to trust on a busy machine).

use std::io::{Read, Write};
use std::time::Instant;

use tokenmill_core::spm::model::Scratch;
use tokenmill_core::spm::SentencePiece;

fn read_text(path: &str) -> String {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let bytes = if path.ends_with(".gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).expect("gzip");
        out
    } else {
        raw
    };
    String::from_utf8_lossy(&bytes).into_owned()
}

/// CPU time of this thread in seconds (Linux `schedstat`), so that figures survive a busy
/// machine; falls back to 0 elsewhere.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

fn writer(path: &str) -> std::io::BufWriter<std::fs::File> {
    std::io::BufWriter::new(std::fs::File::create(path).unwrap_or_else(|e| panic!("cannot create {path}: {e}")))
}

fn join(ids: &[u32]) -> String {
    ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: spm_encode MODEL FILE [--ids OUT] [--nbest K OUT] [--sample ALPHA NBEST SEED OUT] [--offsets OUT] [--decode OUT] [--repeat N]");
        std::process::exit(2);
    }
    let data = std::fs::read(&args[0]).expect("model");
    let t = Instant::now();
    let model = SentencePiece::from_bytes(&data).unwrap_or_else(|e| panic!("{e}"));
    let load = t.elapsed();
    let text = read_text(&args[1]);
    let lines: Vec<&str> = text.split('\n').collect();
    let opt = |name: &str| args.iter().position(|a| a == name).map(|i| &args[i + 1..]);
    let repeat: usize = opt("--repeat").map_or(3, |a| a[0].parse().expect("--repeat N"));

    let mut scratch = Scratch::default();
    let mut out = Vec::new();
    let mut best = f64::MAX;
    let mut cpu = 0.0;
    let mut count = 0;
    for _ in 0..repeat {
        let t = Instant::now();
        let c = cpu_seconds();
        count = 0;
        for line in &lines {
            out.clear();
            model.encode_into(line, &mut scratch, &mut out);
            count += out.len();
        }
        best = best.min(t.elapsed().as_secs_f64());
        cpu += cpu_seconds() - c;
    }
    let bytes: usize = lines.iter().map(|l| l.len()).sum();
    println!(
        "{}: {} lines, {:.2} MB, {} tokens, {:.1} MB/s wall, {:.1} MB/s cpu (load {:.1} ms)",
        args[0].rsplit('/').next().unwrap_or(""),
        lines.len(),
        bytes as f64 / 1e6,
        count,
        bytes as f64 / 1e6 / best,
        (bytes * repeat) as f64 / 1e6 / cpu,
        load.as_secs_f64() * 1e3
    );

    if let Some(a) = opt("--ids") {
        let mut w = writer(&a[0]);
        for line in &lines {
            writeln!(w, "{}", join(&model.encode(line))).unwrap();
        }
    }
    if let Some(a) = opt("--decode") {
        let mut w = writer(&a[0]);
        for line in &lines {
            let s = model.decode(&model.encode(line)).unwrap_or_else(|e| panic!("{e}"));
            writeln!(w, "{}", s.replace('\n', "\\n")).unwrap();
        }
    }
    if let Some(a) = opt("--offsets") {
        let mut w = writer(&a[0]);
        for line in &lines {
            let (ids, offs) = model.encode_with_offsets(line);
            let row: Vec<String> = ids.iter().zip(&offs).map(|(i, (b, e))| format!("{i}:{b}:{e}")).collect();
            writeln!(w, "{}", row.join(" ")).unwrap();
        }
    }
    if let Some(a) = opt("--nbest") {
        let k: usize = a[0].parse().expect("--nbest K");
        let mut w = writer(&a[1]);
        for line in &lines {
            for (ids, score) in model.nbest(line, k).unwrap_or_else(|e| panic!("{e}")) {
                writeln!(w, "{score}\t{}", join(&ids)).unwrap();
            }
            writeln!(w).unwrap();
        }
    }
    if let Some(a) = opt("--sample") {
        let alpha: f32 = a[0].parse().expect("ALPHA");
        let nbest: i32 = a[1].parse().expect("NBEST");
        let seed: u64 = a[2].parse().expect("SEED");
        let mut w = writer(&a[3]);
        for (i, line) in lines.iter().enumerate() {
            out.clear();
            model
                .sample_into(line, alpha, nbest, seed + i as u64, &mut scratch, &mut out)
                .unwrap_or_else(|e| panic!("{e}"));
            writeln!(w, "{}", join(&out)).unwrap();
        }
    }
}
