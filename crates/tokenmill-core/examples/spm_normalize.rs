//! Normalizes stdin lines with a `.model`'s normalizer, for comparison with sentencepiece:
//! `cargo run --release --example spm_normalize -- MODEL [--bench]`. Prints per input line the
//! normalized bytes in hex, a tab and the byte alignment (comma-separated). With `--bench`,
//! prints only the throughput over all lines (MB/s of input, release build).
use std::io::{Read, Write};

use tokenmill_core::spm::normalizer::Normalizer;
use tokenmill_core::spm::{ModelProto, PieceType};

fn main() {
    let mut args = std::env::args().skip(1);
    let model = args.next().expect("usage: spm_normalize MODEL [--bench]");
    let bench = args.next().as_deref() == Some("--bench");
    let proto = ModelProto::parse(&std::fs::read(&model).expect("read model")).expect("parse model");
    let user: Vec<&str> =
        proto.pieces.iter().filter(|p| p.kind == PieceType::UserDefined).map(|p| p.piece.as_str()).collect();
    let norm = Normalizer::new(&proto.normalizer_spec, &proto.trainer_spec, &user).expect("normalizer");
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).expect("stdin");
    let text = String::from_utf8(input).expect("stdin is not UTF-8");
    let (mut out, mut align) = (Vec::new(), Vec::new());
    if bench {
        let lines: Vec<&str> = text.split('\n').collect();
        let mut best = f64::MAX;
        for _ in 0..25 {
            let t = std::time::Instant::now();
            for line in &lines {
                out.clear();
                norm.normalize(line, &mut out, None);
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        let mut best_al = f64::MAX;
        for _ in 0..25 {
            let t = std::time::Instant::now();
            for line in &lines {
                out.clear();
                align.clear();
                norm.normalize(line, &mut out, Some(&mut align));
            }
            best_al = best_al.min(t.elapsed().as_secs_f64());
        }
        let mb = text.len() as f64 / 1e6;
        println!("{:.1} MB: {:.0} MB/s, with alignment {:.0} MB/s", mb, mb / best, mb / best_al);
        return;
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    for line in text.split('\n') {
        out.clear();
        align.clear();
        norm.normalize(line, &mut out, Some(&mut align));
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        let al: Vec<String> = align.iter().map(|a| a.to_string()).collect();
        writeln!(w, "{hex}\t{}", al.join(",")).expect("write");
    }
}
