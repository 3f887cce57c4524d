//! The tiktoken rank file: one `<base64 token> <rank>` line per token.
//!
//! Stricter than tiktoken's own loader, which silently accepts bad base64 as an empty token,
//! lets a duplicate token win silently and panics later on duplicate ranks. Each error
//! carries the 1-based line number. Accepted leniencies, on purpose: CRLF line endings,
//! blank lines, a UTF-8 byte-order mark at the start (stripped). Ranks must be contiguous
//! from 0 in file order unless `allow_gaps` is set (then only strictly increasing).

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rustc_hash::FxHashMap;

use crate::types::Rank;

/// Longest token accepted, in bytes: real vocabularies stay far below this; a longer one
/// means a corrupted file, not a token.
pub const MAX_TOKEN_BYTES: usize = 4096;

/// A parse error: the 1-based line (0 when it concerns the whole file) and a reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub reason: String,
}

fn err(line: usize, reason: impl Into<String>) -> ParseError {
    ParseError { line, reason: reason.into() }
}

/// Parses a rank file into `(token bytes, rank)` pairs, in file order.
pub fn parse(data: &[u8], allow_gaps: bool) -> Result<Vec<(Vec<u8>, Rank)>, ParseError> {
    let data = data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data);
    let mut out: Vec<(Vec<u8>, Rank)> = Vec::with_capacity(data.len() / 12);
    let mut first_line_of_token: FxHashMap<&[u8], usize> = FxHashMap::default();
    let mut last_rank: Option<(Rank, usize)> = None;
    let mut buf = Vec::with_capacity(64);
    for (idx, raw) in data.split(|&b| b == b'\n').enumerate() {
        let line_no = idx + 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.iter().all(|b| *b == b' ' || *b == b'\t') {
            continue;
        }
        let sp = match line.iter().position(|&b| b == b' ') {
            Some(p) if p > 0 => p,
            _ => return Err(err(line_no, "expected '<base64> <rank>' (one space between)")),
        };
        let (tok, rank) = (&line[..sp], &line[sp + 1..]);
        if rank.contains(&b' ') || rank.contains(&b'\t') || tok.contains(&b'\t') {
            return Err(err(line_no, "expected '<base64> <rank>' (one space between)"));
        }
        if tok.len() > MAX_TOKEN_BYTES * 2 {
            return Err(err(line_no, format!("token longer than {MAX_TOKEN_BYTES} bytes")));
        }
        buf.clear();
        if STANDARD.decode_vec(tok, &mut buf).is_err() {
            return Err(err(line_no, format!("invalid base64 {:?}", String::from_utf8_lossy(tok))));
        }
        if buf.is_empty() {
            return Err(err(line_no, "empty token"));
        }
        if buf.len() > MAX_TOKEN_BYTES {
            return Err(err(line_no, format!("token longer than {MAX_TOKEN_BYTES} bytes")));
        }
        let rank = parse_rank(rank).ok_or_else(|| {
            err(
                line_no,
                format!(
                    "invalid rank {:?} (expected a whole number from 0 to {})",
                    String::from_utf8_lossy(rank),
                    u32::MAX - 1
                ),
            )
        })?;
        match last_rank {
            None if !allow_gaps && rank != 0 => {
                return Err(err(line_no, format!("expected rank 0, got {rank} (ranks must be contiguous from 0; pass allow_gaps=True to accept gaps)")))
            }
            Some((prev, prev_line)) => {
                if rank == prev {
                    return Err(err(line_no, format!("duplicate rank {rank} (first on line {prev_line})")));
                }
                if !allow_gaps && rank != prev + 1 {
                    return Err(err(line_no, format!("expected rank {}, got {rank} (ranks must be contiguous from 0; pass allow_gaps=True to accept gaps, as p50k_base needs)", prev + 1)));
                }
                if allow_gaps && rank < prev {
                    return Err(err(line_no, format!("rank {rank} after rank {prev}: ranks must increase")));
                }
            }
            None => {}
        }
        last_rank = Some((rank, line_no));
        if let Some(first) = first_line_of_token.get(&tok) {
            return Err(err(line_no, format!("duplicate token (first defined on line {first})")));
        }
        first_line_of_token.insert(tok, line_no);
        out.push((buf.clone(), rank));
    }
    if out.is_empty() {
        return Err(err(0, "empty vocabulary file"));
    }
    Ok(out)
}

fn parse_rank(s: &[u8]) -> Option<Rank> {
    if s.is_empty() || s.len() > 10 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let v: u64 = std::str::from_utf8(s).ok()?.parse().ok()?;
    if v >= u32::MAX as u64 {
        return None;
    }
    Some(v as Rank)
}

/// Tokens that no merge can produce: longer than one byte, yet no split into two tokens
/// both ranked lower. BPE can never output such a token (rust-gems panics on them), so a
/// vocabulary holding one is suspect. Returns their indices in `ranks`.
pub fn unformable(ranks: &[(Vec<u8>, Rank)]) -> Vec<usize> {
    let map: FxHashMap<&[u8], Rank> = ranks.iter().map(|(b, r)| (b.as_slice(), *r)).collect();
    let lower = |b: &[u8], r: Rank| map.get(b).is_some_and(|x| *x < r);
    ranks
        .iter()
        .enumerate()
        .filter(|(_, (b, r))| b.len() > 1 && !(1..b.len()).any(|k| lower(&b[..k], *r) && lower(&b[k..], *r)))
        .map(|(i, _)| i)
        .collect()
}

/// Serializes `(bytes, rank)` pairs (any order) as a rank file, sorted by rank.
pub fn dump(ranks: &[(Vec<u8>, Rank)]) -> Vec<u8> {
    let mut sorted: Vec<&(Vec<u8>, Rank)> = ranks.iter().collect();
    sorted.sort_by_key(|(_, r)| *r);
    let mut out = Vec::with_capacity(ranks.len() * 16);
    for (b, r) in sorted {
        out.extend_from_slice(STANDARD.encode(b).as_bytes());
        out.push(b' ');
        out.extend_from_slice(r.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}
