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
    // Sized from the line count: no growing and rehashing at every load.
    let lines = memchr::memchr_iter(b'\n', data).count() + 1;
    let mut out: Vec<(Vec<u8>, Rank)> = Vec::with_capacity(lines);
    let mut first_line_of_token: FxHashMap<&[u8], usize> =
        FxHashMap::with_capacity_and_hasher(lines, Default::default());
    let mut last_rank: Option<(Rank, usize)> = None;
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
        let Some(buf) = decode_base64(tok) else {
            return Err(err(line_no, format!("invalid base64 {:?}", String::from_utf8_lossy(tok))));
        };
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
        out.push((buf, rank));
    }
    if out.is_empty() {
        return Err(err(0, "empty vocabulary file"));
    }
    Ok(out)
}

fn parse_rank(s: &[u8]) -> Option<Rank> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut v = 0u64;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + u64::from(b - b'0');
    }
    if v >= u32::MAX as u64 {
        return None;
    }
    Some(v as Rank)
}

/// Value of each base64 character (standard alphabet), `INVALID` for the others.
const INVALID: u8 = 0xFF;
const BASE64_VALUES: [u8; 256] = {
    let mut t = [INVALID; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Decodes canonical padded base64 (what the `base64` crate's `STANDARD` engine accepts: a
/// length that is a multiple of 4, `=` padding only at the end, unused bits zero), or None.
/// Why not that crate here: its per-call set-up costs more than decoding a token does, and a
/// rank file is 100k-200k tokens decoded at every load.
fn decode_base64(s: &[u8]) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(4) {
        return None;
    }
    let pad = s.iter().rev().take(2).take_while(|&&c| c == b'=').count();
    let mut out = Vec::with_capacity(s.len() / 4 * 3 - pad);
    for (g, quad) in s.chunks_exact(4).enumerate() {
        let last = (g + 1) * 4 == s.len();
        let used = if last { 4 - pad } else { 4 };
        let mut n = 0u32;
        for (k, &c) in quad.iter().enumerate() {
            let v = if k < used { BASE64_VALUES[c as usize] } else { 0 };
            if v == INVALID {
                return None;
            }
            n = n << 6 | u32::from(v);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        match used {
            4 => out.extend_from_slice(&bytes),
            // 2 characters carry 12 bits: one byte and 4 bits that must be zero.
            2 if n & 0xFFFF == 0 => out.push(bytes[0]),
            // 3 characters carry 18 bits: two bytes and 2 bits that must be zero.
            3 if n & 0xFF == 0 => out.extend_from_slice(&bytes[..2]),
            _ => return None,
        }
    }
    Some(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written decoder accepts exactly what the `base64` crate's `STANDARD` engine
    /// accepts, with the same bytes: valid encodings of random bytes, and random strings over
    /// an alphabet with padding and invalid characters (mostly invalid).
    #[test]
    fn base64_decoder_agrees_with_the_crate() {
        let mut rng = crate::testing::xorshift(0x9E37_79B9_7F4A_7C15);
        let mut next = move |n: u64| rng() % n;
        for _ in 0..20_000 {
            let len = next(12) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| next(256) as u8).collect();
            let text = STANDARD.encode(&bytes);
            assert_eq!(decode_base64(text.as_bytes()), Some(bytes.clone()));
            // one character changed, or the padding moved
            let mut t = text.clone().into_bytes();
            if !t.is_empty() {
                let i = next(t.len() as u64) as usize;
                let swaps = b"AQgw=/+-_ \t9z";
                t[i] = swaps[next(swaps.len() as u64) as usize];
                assert_eq!(decode_base64(&t), STANDARD.decode(&t).ok(), "{:?}", String::from_utf8_lossy(&t));
            }
        }
        let alphabet = b"AQgBwz09+/=-_ ";
        for _ in 0..50_000 {
            let len = next(10) as usize;
            let t: Vec<u8> = (0..len).map(|_| alphabet[next(alphabet.len() as u64) as usize]).collect();
            assert_eq!(decode_base64(&t), STANDARD.decode(&t).ok(), "{:?}", String::from_utf8_lossy(&t));
        }
    }

    #[test]
    fn ranks_parse_as_before() {
        for (s, want) in [
            (&b"0"[..], Some(0)),
            (b"4294967294", Some(u32::MAX - 1)),
            (b"4294967295", None),
            (b"", None),
            (b"12a", None),
            (b"00012", Some(12)),
            (b"99999999999", None),
            (b"-1", None),
            (b"+1", None),
        ] {
            assert_eq!(parse_rank(s), want, "{:?}", String::from_utf8_lossy(s));
        }
    }
}
