//! Trains a Unigram vocabulary the sentencepiece way on a text file (plain or `.gz`) and writes
//! `piece<TAB>score<TAB>type` lines (sentencepiece type numbers; id = line number):
//! `cargo run --release --example train_unigram -- CORPUS VOCAB_SIZE THREADS [OUT.tsv]`
//! (stdout without OUT). Timings and progress go to stderr.
use std::io::{Read, Write};
use std::time::Instant;

use tokenmill_core::train::merge::Control;
use tokenmill_core::train::unigram::{self, Stage, UnigramOptions, UnigramWords};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: train_unigram CORPUS VOCAB_SIZE THREADS [OUT.tsv]";
    let path = args.next().expect(usage);
    let vocab_size: usize = args.next().expect(usage).parse().expect("VOCAB_SIZE must be a number");
    let threads: usize = args.next().expect(usage).parse().expect("THREADS must be a number");
    let out = args.next();
    let start = Instant::now();
    // Read and count in blocks of about 8 MB cut at line ends (the whole file is never held).
    let file = std::fs::File::open(&path).expect("cannot open CORPUS");
    let reader: Box<dyn Read> =
        if path.ends_with(".gz") { Box::new(flate2::read::GzDecoder::new(file)) } else { Box::new(file) };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, reader);
    let mut words = UnigramWords::new();
    let mut block = String::new();
    loop {
        let n = std::io::BufRead::read_line(&mut reader, &mut block).expect("CORPUS is not UTF-8");
        if (n == 0 || block.len() >= 8 << 20) && !block.is_empty() {
            words.add_texts(&[block.as_str()], &[], None, threads).expect("count");
            block.clear();
        }
        if n == 0 {
            break;
        }
    }
    eprintln!(
        "read+count: {:.2}s, {} distinct words, peak={}MB",
        start.elapsed().as_secs_f64(),
        words.len(),
        peak_rss_mb()
    );
    let opts = UnigramOptions { vocab_size, num_threads: threads, ..Default::default() };
    let t = Instant::now();
    let progress = |p: &unigram::Progress| {
        let at = t.elapsed().as_secs_f64();
        let mb = peak_rss_mb();
        match p.stage {
            Stage::Em => eprintln!("{at:7.2}s EM size={} obj={:.4} peak={mb}MB", p.pieces, p.objective),
            Stage::Pruned => eprintln!("{at:7.2}s Pruned size={} tokens={} peak={mb}MB", p.pieces, p.tokens),
            s => eprintln!("{at:7.2}s {s:?} size={} peak={mb}MB", p.pieces),
        }
    };
    let pieces = unigram::train(words.into_sorted(), &opts, &progress, &Control::default()).expect("train");
    eprintln!("train: {:.2}s; total {:.2}s", t.elapsed().as_secs_f64(), start.elapsed().as_secs_f64());
    let mut w: Box<dyn Write> = match out {
        Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p).expect("cannot create OUT"))),
        None => Box::new(std::io::BufWriter::new(std::io::stdout())),
    };
    for (p, s, k) in pieces {
        writeln!(w, "{p}\t{s}\t{}", k.sentencepiece_type()).expect("write");
    }
}

/// Peak resident memory so far (Linux `VmHWM`), in MB; 0 elsewhere.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}
