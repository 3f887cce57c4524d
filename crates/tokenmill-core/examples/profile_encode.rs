//! Where does encoding time go? `cargo run --release --example profile_encode -- RANKFILE PATTERN_NAME TEXTFILE...`
//! Prints MB/s for pre-tokenization alone and for the full encode (no Python involved).
//! PROFILE_LOOP=N encodes each text N times and PRETOKENIZE_LOOP=N only pre-tokenizes (for
//! `perf record`, with CARGO_PROFILE_RELEASE_DEBUG=line-tables-only for source lines);
//! LINES=N encodes line by line, one call each; PASSES=N prints the MB/s of each of N passes
//! (a first pass, then passes that find the encoder's cache filled); CHAR_STATS=1 counts the
//! characters that merging may start whole; CACHE_SLOTS=N sizes the encoder's shared cache of
//! merged pieces (0: none); FRESH=1 empties that cache before each pass of PASSES or
//! PROFILE_LOOP, so every pass is a first pass. ALT=N compares two versions of a code path
//! in one process: N rounds of two passes, one with `tokenmill_core::EXPERIMENT` at 0 and one
//! at ALT_V (default 1), in turn first; with ALT_BUILD=1 the second by an encoder built with
//! that value; prints the medians, the geometric mean of the rounds' ratios and how many
//! rounds the second version won (FRESH applies); AFTER=FILE, with PASSES, ALT or PROFILE_LOOP, empties
//! that cache and encodes FILE (untimed) before each pass, so that every pass is new text of
//! the same kind after a first pass (issue 14's "new B": the first half of a text as FILE, the
//! second as the text);
//! EXPERIMENT=V sets it for the other modes (callgrind of one version); with SUBSET=1 the
//! second version is an encoder of only the tokens the first text encodes to (and the 256
//! bytes): what a token table holding just a text's pieces would gain (timing only: merged
//! pieces may take other ids).

use std::time::Instant;

use tokenmill_core::formats::tiktoken::parse;
use tokenmill_core::pretokenize::{CL100K_PAT, O200K_PAT, R50K_PAT};
use tokenmill_core::CoreBpe;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: profile_encode RANKFILE [dfa:]r50k|cl100k|o200k TEXTFILE...  (dfa: the lazy-DFA engine)");
        std::process::exit(2);
    }
    let ranks = parse(&std::fs::read(&args[1]).expect("read rank file"), true).expect("parse rank file");
    let dfa = args[2].starts_with("dfa:");
    let pat = match args[2].trim_start_matches("dfa:") {
        "r50k" => R50K_PAT,
        "cl100k" => CL100K_PAT,
        "o200k" => O200K_PAT,
        other => {
            eprintln!("unknown pattern {other:?}: r50k, cl100k or o200k");
            std::process::exit(2);
        }
    };
    if let Some(v) = std::env::var("EXPERIMENT").ok().and_then(|v| v.parse::<u32>().ok()) {
        tokenmill_core::EXPERIMENT.store(v, std::sync::atomic::Ordering::Relaxed);
    }
    let mut core = CoreBpe::new(ranks.clone(), vec![], pat).expect("build");
    if dfa {
        core.pretokenizer = tokenmill_core::pretokenize::Pretokenizer::dfa(pat).expect("the DFA runs the pattern");
    }
    if let Some(n) = std::env::var("CACHE_SLOTS").ok().and_then(|v| v.parse::<usize>().ok()) {
        core.vocab.set_cache_slots(n);
    }
    println!(
        "short table: {} keys, {} spilled from their line, {} MB",
        core.vocab.short_table().len(),
        core.vocab.short_table().lines().map_or(0, |t| t.spilled()),
        core.vocab.short_table().memory_bytes() / 1_000_000
    );
    if std::env::var("CHAR_STATS").is_ok() {
        for path in &args[3..] {
            let text = std::fs::read_to_string(path).expect("read text");
            let b = text.as_bytes();
            let (mut ok, mut multi) = (0, 0);
            core.pretokenizer
                .for_each_piece(&text, |s, e| {
                    let piece = &b[s..e];
                    for (i, c) in std::str::from_utf8(piece).unwrap().char_indices() {
                        if (0x80..0x10000).contains(&(c as u32)) {
                            multi += 1;
                            ok += core.vocab.char_rank(piece, i).is_some() as usize;
                        }
                    }
                })
                .unwrap();
            println!("{path}: {ok} of {multi} two/three-byte characters start whole");
        }
        return;
    }
    if let Some(n) = std::env::var("PRETOKENIZE_LOOP").ok().and_then(|v| v.parse::<usize>().ok()) {
        for path in &args[3..] {
            let text = std::fs::read_to_string(path).expect("read text");
            let t = Instant::now();
            let mut pieces = 0usize;
            for _ in 0..n {
                core.pretokenizer.for_each_piece(&text, |_, _| pieces += 1).unwrap();
            }
            println!(
                "{path}: pretokenize {:.0} MB/s ({} pieces)",
                (text.len() * n) as f64 / 1e6 / t.elapsed().as_secs_f64(),
                pieces / n
            );
        }
        return;
    }
    // LINES=N: encode each non-empty line of each text in its own call, N times (the shape of
    // `benchmarks/formats.py`: one call per line, so per-call costs show).
    if let Some(n) = std::env::var("LINES").ok().and_then(|v| v.parse::<usize>().ok()) {
        for path in &args[3..] {
            let text = String::from_utf8(std::fs::read(path).expect("read text")).expect("utf-8");
            let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
            let t = Instant::now();
            let total: usize =
                (0..n).map(|_| lines.iter().map(|l| core.encode_ordinary(l).unwrap().len()).sum::<usize>()).sum();
            println!(
                "{path}: per line {:.1} MB/s ({total} tokens)",
                (text.len() * n) as f64 / 1e6 / t.elapsed().as_secs_f64()
            );
        }
        return;
    }
    // PASSES=N: encode each text N times in one process and print each pass's MB/s (the first
    // is a first pass over new text; the later ones find the encoder's cache filled).
    let after =
        std::env::var("AFTER").ok().map(|p| String::from_utf8(std::fs::read(p).expect("read AFTER")).expect("utf-8"));
    let fresh = std::env::var("FRESH").is_ok() || after.is_some();
    let slots = core.vocab.shared_cache().slots();
    // Before a timed pass: an empty cache (FRESH), then the AFTER text.
    let prepare = |c: &mut CoreBpe| {
        if fresh {
            c.vocab.set_cache_slots(slots);
        }
        if let Some(t) = &after {
            std::hint::black_box(c.encode_ordinary(t).unwrap());
        }
    };
    if let Some(n) = std::env::var("PASSES").ok().and_then(|v| v.parse::<usize>().ok()) {
        for path in &args[3..] {
            let text = String::from_utf8(std::fs::read(path).expect("read text")).expect("utf-8");
            let speeds: Vec<String> = (0..n)
                .map(|_| {
                    prepare(&mut core);
                    let t = Instant::now();
                    std::hint::black_box(core.encode_ordinary(&text).unwrap());
                    format!("{:.1}", text.len() as f64 / 1e6 / t.elapsed().as_secs_f64())
                })
                .collect();
            println!("{path}: passes MB/s {}", speeds.join(" "));
        }
        return;
    }
    // ALT=N: rounds of a pass with EXPERIMENT at 0 and one at ALT_V, in turn first.
    if let Some(n) = std::env::var("ALT").ok().and_then(|v| v.parse::<usize>().ok()) {
        let alt_v = std::env::var("ALT_V").ok().and_then(|v| v.parse::<u32>().ok()).unwrap_or(1);
        // A second encoder only for a switch read when an encoder is built: a pass after
        // another encoder's finds its tables colder in the CPU's caches than a pass after its
        // own, so with one encoder per version the first pass of a round is the faster.
        let mut other = std::env::var("ALT_BUILD").is_ok().then(|| {
            tokenmill_core::EXPERIMENT.store(alt_v, std::sync::atomic::Ordering::Relaxed);
            CoreBpe::new(ranks.clone(), vec![], pat).expect("build")
        });
        if std::env::var("SUBSET").is_ok() {
            // The tokens the first text encodes to, and the bytes: a token table a fifth the
            // size whose slots are nearly all ones the text reads. (Merged pieces may take
            // other ids with it; its passes are for timing only.)
            let text = std::fs::read_to_string(&args[3]).expect("read text");
            let used: std::collections::HashSet<u32> = core.encode_ordinary(&text).unwrap().into_iter().collect();
            let keep: Vec<_> = ranks.into_iter().filter(|(b, r)| b.len() == 1 || used.contains(r)).collect();
            let sub = CoreBpe::new(keep, vec![], pat).expect("build");
            println!(
                "subset: {} tokens, {} MB",
                sub.vocab.short_table().len(),
                sub.vocab.short_table().memory_bytes() / 1_000_000
            );
            other = Some(sub);
        }
        for path in &args[3..] {
            let text = String::from_utf8(std::fs::read(path).expect("read text")).expect("utf-8");
            let mut speeds = [Vec::new(), Vec::new()];
            for round in 0..n {
                for k in [round % 2, 1 - round % 2] {
                    let c = match (k, other.as_mut()) {
                        (1, Some(o)) => o,
                        _ => &mut core,
                    };
                    tokenmill_core::EXPERIMENT.store(k as u32 * alt_v, std::sync::atomic::Ordering::Relaxed);
                    prepare(c);
                    let t = Instant::now();
                    std::hint::black_box(c.encode_ordinary(&text).unwrap());
                    speeds[k].push(text.len() as f64 / 1e6 / t.elapsed().as_secs_f64());
                }
            }
            let med = |v: &[f64]| {
                let mut v = v.to_vec();
                v.sort_by(|a, b| a.partial_cmp(b).unwrap());
                v[v.len() / 2]
            };
            // The geometric mean of the rounds' ratios: an effect of going first cancels out.
            let logs: f64 = (0..n).map(|r| (speeds[1][r] / speeds[0][r]).ln()).sum();
            let wins = (0..n).filter(|&r| speeds[1][r] > speeds[0][r]).count();
            println!(
                "{path}: medians {:.1} -> {:.1} MB/s, mean ratio {:.3}, {alt_v} faster in {wins} of {n} rounds",
                med(&speeds[0]),
                med(&speeds[1]),
                (logs / n as f64).exp()
            );
        }
        return;
    }
    // PROFILE_LOOP=N: only encode each text N times (for `perf record`).
    if let Some(n) = std::env::var("PROFILE_LOOP").ok().and_then(|v| v.parse::<usize>().ok()) {
        for path in &args[3..] {
            let text = String::from_utf8(std::fs::read(path).expect("read text")).expect("utf-8");
            let (mut total, mut seconds) = (0, 0.0);
            // PERF_CTL=FIFO: `perf record -D -1 --control fifo:FIFO` samples the timed passes only.
            let mut ctl = std::env::var("PERF_CTL")
                .ok()
                .map(|p| std::fs::OpenOptions::new().write(true).open(p).expect("open PERF_CTL"));
            let mut say = |what: &str| {
                if let Some(f) = ctl.as_mut() {
                    use std::io::Write;
                    f.write_all(what.as_bytes()).and_then(|_| f.flush()).expect("write PERF_CTL");
                }
            };
            for _ in 0..n {
                prepare(&mut core);
                say("enable\n");
                let t = Instant::now();
                total += core.encode_ordinary(&text).unwrap().len();
                seconds += t.elapsed().as_secs_f64();
                say("disable\n");
            }
            println!("{path}: {:.1} MB/s ({total} tokens)", (text.len() * n) as f64 / 1e6 / seconds);
        }
        return;
    }
    for path in &args[3..] {
        let text = String::from_utf8(std::fs::read(path).expect("read text")).expect("utf-8");
        let mb = text.len() as f64 / 1e6;
        let best = |f: &dyn Fn() -> usize| {
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(f());
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::MAX, f64::min)
        };
        let t_pre = best(&|| {
            let mut n = 0;
            core.pretokenizer.for_each_piece(&text, |_, _| n += 1).unwrap();
            n
        });
        let b0 = text.as_bytes();
        let t_look = best(&|| {
            let mut n = 0;
            core.pretokenizer
                .for_each_piece(&text, |s, e| {
                    if core.vocab.rank(&b0[s..e]).is_some() {
                        n += 1
                    }
                })
                .unwrap();
            n
        });
        let t_enc = best(&|| core.encode_ordinary(&text).unwrap().len());
        let mut whole = 0usize;
        let mut pieces = 0usize;
        let b = text.as_bytes();
        core.pretokenizer
            .for_each_piece(&text, |s, e| {
                pieces += 1;
                if core.vocab.rank(&b[s..e]).is_some() {
                    whole += 1
                }
            })
            .unwrap();
        println!("{path}: {mb:.1} MB  pretokenize {:.0} MB/s  +lookup {:.0} MB/s  encode {:.1} MB/s  pieces {pieces} whole-token {:.1}%", mb / t_pre, mb / t_look, mb / t_enc, 100.0 * whole as f64 / pieces as f64);
    }
}
