//! HF's `Encoding` (`tokenizers/src/tokenizer/encoding.rs`) with its truncation (windows with
//! stride, overflowing pieces), merging and padding, and the `truncation` / `padding` sections
//! of a `tokenizer.json` (`TruncationParams`, `PaddingParams`) with HF's `truncate_encodings`
//! and `pad_encodings`.
//!
//! Semantics are HF's to the detail, including the odd ones: truncating drops the sequence
//! ranges and any earlier overflowing; `max_length == 0` moves the whole encoding into
//! `overflowing`; merging two encodings combines their overflowing pieces pairwise; padding
//! pads the overflowing pieces too and, on the left, shifts the sequence ranges.
//! Offsets are BYTE offsets (HF Rust's `encode`); converting them to character offsets (as
//! HF Python reports them) is the caller's job. What this module does not do: tokenize, add
//! special tokens (`processors` does), or the char/word lookups of HF's `Encoding`
//! (`word_to_tokens`, `char_to_token`...), which belong to the Python layer.

use std::ops::Range;

use serde_json::Value;

use super::json::{bad, join, show, Obj};
use crate::error::CoreError;

/// The result of encoding one sequence (or a pair, after post-processing), as HF's `Encoding`.
/// Offsets are byte offsets in the original text of the sequence each token came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoding {
    pub ids: Vec<u32>,
    pub type_ids: Vec<u32>,
    pub tokens: Vec<String>,
    /// The word (pre-token) index of each token; None for special tokens added by processing.
    pub words: Vec<Option<u32>>,
    pub offsets: Vec<(usize, usize)>,
    pub special_tokens_mask: Vec<u32>,
    pub attention_mask: Vec<u32>,
    pub overflowing: Vec<Encoding>,
    /// Which sequence (0 or 1) each token belongs to, as ranges: `(sequence id, token range)`.
    /// A map in HF (one range per sequence id: setting an id replaces its range); empty means
    /// one sequence (id 0) covering every token, padding included.
    pub sequence_ranges: Vec<(usize, Range<usize>)>,
}

/// Which end truncation cuts, or padding fills (HF's `TruncationDirection` and
/// `PaddingDirection`, both serialized `"Left"` / `"Right"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    Left,
    #[default]
    Right,
}

impl Direction {
    fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        match v.as_str() {
            Some("Left") => Ok(Direction::Left),
            Some("Right") => Ok(Direction::Right),
            _ => Err(bad(path, format!("expected \"Left\" or \"Right\", got {}", show(v)))),
        }
    }
}

impl Encoding {
    /// The encoding of one sequence as the model produced it (HF's `PreTokenizedString::
    /// into_encoding`): every token gets `type_id`, attention 1, special-token mask 0, and
    /// `sequence_ranges` stays empty (HF's "one sequence covering everything": a processor
    /// or the pair merge sets the ranges later). `ids`, `tokens`, `offsets` and `words` must
    /// have the same length (the caller builds them together).
    pub fn from_tokens(
        ids: Vec<u32>,
        tokens: Vec<String>,
        offsets: Vec<(usize, usize)>,
        words: Vec<Option<u32>>,
        type_id: u32,
    ) -> Self {
        let n = ids.len();
        Encoding {
            ids,
            type_ids: vec![type_id; n],
            tokens,
            words,
            offsets,
            special_tokens_mask: vec![0; n],
            attention_mask: vec![1; n],
            overflowing: Vec::new(),
            sequence_ranges: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// How many sequences this encoding holds (HF: 1 when `sequence_ranges` is empty).
    pub fn n_sequences(&self) -> usize {
        self.sequence_ranges.len().max(1)
    }

    /// Sets `range` as the range of `sequence_id`, replacing any earlier one (a map insert).
    pub fn set_sequence_range(&mut self, sequence_id: usize, range: Range<usize>) {
        match self.sequence_ranges.iter_mut().find(|(id, _)| *id == sequence_id) {
            Some(entry) => entry.1 = range,
            None => self.sequence_ranges.push((sequence_id, range)),
        }
    }

    /// HF's `set_sequence_id`: the whole encoding is sequence `sequence_id`.
    pub fn set_sequence_id(&mut self, sequence_id: usize) {
        let n = self.len();
        self.set_sequence_range(sequence_id, 0..n);
    }

    /// The range of `sequence_id`, all tokens when it has none (HF's `sequence_range`).
    pub fn sequence_range(&self, sequence_id: usize) -> Range<usize> {
        self.sequence_ranges.iter().find(|(id, _)| *id == sequence_id).map_or(0..self.len(), |(_, r)| r.clone())
    }

    /// HF's `get_sequence_ids` (Python `Encoding.sequence_ids`): for sequence ids
    /// `0..n_sequences()` in turn, the tokens of its range (all tokens when the id has no
    /// range) get that id; the others None.
    pub fn sequence_ids(&self) -> Vec<Option<usize>> {
        let n = self.len();
        let mut out = vec![None; n];
        for seq in 0..self.n_sequences() {
            let r = self.sequence_range(seq);
            let (start, end) = (r.start.min(n), r.end.min(n));
            if start < end {
                out[start..end].fill(Some(seq));
            }
        }
        out
    }

    /// A copy of tokens `start..stop` (no overflowing, no sequence ranges).
    fn slice(&self, start: usize, stop: usize) -> Encoding {
        // Every per-token vector has len() entries; `get` keeps a malformed encoding from panicking.
        fn part<T: Clone>(v: &[T], start: usize, stop: usize) -> Vec<T> {
            v.get(start..stop.min(v.len())).map_or_else(Vec::new, <[T]>::to_vec)
        }
        Encoding {
            ids: part(&self.ids, start, stop),
            type_ids: part(&self.type_ids, start, stop),
            tokens: part(&self.tokens, start, stop),
            words: part(&self.words, start, stop),
            offsets: part(&self.offsets, start, stop),
            special_tokens_mask: part(&self.special_tokens_mask, start, stop),
            attention_mask: part(&self.attention_mask, start, stop),
            overflowing: Vec::new(),
            sequence_ranges: Vec::new(),
        }
    }

    /// HF's `Encoding::truncate`: keeps `max_len` tokens (the first ones for `Right`, the
    /// last ones for `Left`); the rest becomes `overflowing`, as windows of `max_len` tokens
    /// that each overlap the previous one by `stride` tokens, in order away from the kept
    /// part. Truncating drops the sequence ranges and any earlier overflowing. Nothing happens
    /// when the encoding is not longer than `max_len`; `max_len == 0` empties the encoding and
    /// puts all of it (as it was) in `overflowing`. Errors (where HF panics) when
    /// `stride >= max_len` and truncation is needed.
    pub fn truncate(&mut self, max_len: usize, stride: usize, direction: Direction) -> Result<(), CoreError> {
        let len = self.len();
        if max_len >= len {
            return Ok(());
        }
        if max_len == 0 {
            let whole = std::mem::take(self);
            self.overflowing.push(whole);
            return Ok(());
        }
        if stride >= max_len {
            return Err(CoreError::Input(format!(
                "Truncation error: `stride` ({stride}) must be strictly less than `max_len` ({max_len}); \
                 note that `max_len` may be shorter than the max_length of the tokenizer, as it subtracts \
                 the number of special tokens"
            )));
        }
        let step = max_len - stride;
        let mut parts: Vec<(usize, usize)> = Vec::with_capacity(len / step + 1);
        match direction {
            Direction::Right => {
                let mut start = 0;
                while start < len {
                    let stop = (start + max_len).min(len);
                    parts.push((start, stop));
                    if stop == len {
                        break;
                    }
                    start += step;
                }
            }
            Direction::Left => {
                // Window ends len, len - step, ...; the last window is the one reaching token 0.
                let mut stop = len;
                loop {
                    let start = stop.saturating_sub(max_len);
                    parts.push((start, stop));
                    if start == 0 || stop <= step {
                        break;
                    }
                    stop -= step;
                }
            }
        }
        let Some((&(start, stop), rest)) = parts.split_first() else {
            return Ok(()); // cannot happen: len > max_len > 0 gives at least one window
        };
        let mut kept = self.slice(start, stop);
        kept.overflowing = rest.iter().map(|&(start, stop)| self.slice(start, stop)).collect();
        *self = kept;
        Ok(())
    }

    /// HF's `Encoding::merge`: all `encodings` merged in order into an empty one.
    pub fn merge<I: IntoIterator<Item = Encoding>>(encodings: I, growing_offsets: bool) -> Encoding {
        let mut encodings = encodings.into_iter();
        // Merging into an empty encoding gives that encoding unchanged: move the first in.
        let Some(mut out) = encodings.next() else {
            return Encoding::default();
        };
        for e in encodings {
            out.merge_with(e, growing_offsets);
        }
        out
    }

    /// HF's `Encoding::merge_with`: appends `pair` (its sequence ranges shifted after ours;
    /// with `growing_offsets`, its offsets shifted by our last end offset). The overflowing
    /// pieces combine: each of ours with `pair` then with each of `pair`'s, then ourself with
    /// each of `pair`'s.
    pub fn merge_with(&mut self, pair: Encoding, growing_offsets: bool) {
        let mut overflowing = Vec::new();
        if !self.overflowing.is_empty() || !pair.overflowing.is_empty() {
            for mine in &self.overflowing {
                let mut e = mine.clone();
                // The whole pair, its own overflowing included (which nests in e's, as HF).
                e.merge_with(pair.clone(), growing_offsets);
                overflowing.push(e);
                for theirs in &pair.overflowing {
                    let mut e = mine.clone();
                    e.merge_with(theirs.clone(), growing_offsets);
                    overflowing.push(e);
                }
            }
            for theirs in &pair.overflowing {
                let mut e = self.clone();
                e.merge_with(theirs.clone(), growing_offsets);
                overflowing.push(e);
            }
        }

        let base = self.len();
        for (id, r) in pair.sequence_ranges {
            self.set_sequence_range(id, base + r.start..base + r.end);
        }
        self.ids.extend(pair.ids);
        self.type_ids.extend(pair.type_ids);
        self.tokens.extend(pair.tokens);
        self.words.extend(pair.words);
        let shift = if growing_offsets { self.offsets.last().map_or(0, |o| o.1) } else { 0 };
        if shift == 0 {
            self.offsets.extend(pair.offsets);
        } else {
            self.offsets.extend(pair.offsets.into_iter().map(|(s, e)| (s + shift, e + shift)));
        }
        self.special_tokens_mask.extend(pair.special_tokens_mask);
        self.attention_mask.extend(pair.attention_mask);
        self.overflowing = overflowing;
    }

    /// HF's `Encoding::pad`: pads the overflowing pieces, then this encoding, up to
    /// `target_length` tokens (nothing when already as long): pad tokens have `pad_id`,
    /// `pad_type_id`, `pad_token`, no word, offsets (0, 0), attention 0 and special mask 1.
    /// Padding on the left shifts the sequence ranges.
    pub fn pad(&mut self, target_length: usize, pad_id: u32, pad_type_id: u32, pad_token: &str, direction: Direction) {
        for o in &mut self.overflowing {
            o.pad(target_length, pad_id, pad_type_id, pad_token, direction);
        }
        let len = self.len();
        if len >= target_length {
            return;
        }
        let n = target_length - len;
        match direction {
            Direction::Right => {
                self.ids.resize(target_length, pad_id);
                self.type_ids.resize(self.type_ids.len() + n, pad_type_id);
                self.tokens.resize(self.tokens.len() + n, pad_token.to_owned());
                self.words.resize(self.words.len() + n, None);
                self.attention_mask.resize(self.attention_mask.len() + n, 0);
                self.special_tokens_mask.resize(self.special_tokens_mask.len() + n, 1);
                self.offsets.resize(self.offsets.len() + n, (0, 0));
            }
            Direction::Left => {
                fn prepend<T: Clone>(v: &mut Vec<T>, n: usize, value: T) {
                    v.splice(0..0, std::iter::repeat_n(value, n));
                }
                prepend(&mut self.ids, n, pad_id);
                prepend(&mut self.type_ids, n, pad_type_id);
                prepend(&mut self.tokens, n, pad_token.to_owned());
                prepend(&mut self.words, n, None);
                prepend(&mut self.attention_mask, n, 0);
                prepend(&mut self.special_tokens_mask, n, 1);
                prepend(&mut self.offsets, n, (0, 0));
                for (_, r) in &mut self.sequence_ranges {
                    *r = r.start + n..r.end + n;
                }
            }
        }
    }
}

/// Which sequence(s) truncation shortens (HF's `TruncationStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TruncationStrategy {
    /// Shortens the longer of the two (both, to about half each, if need be).
    #[default]
    LongestFirst,
    OnlyFirst,
    OnlySecond,
}

/// The `truncation` section of a `tokenizer.json` (HF's `TruncationParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruncationParams {
    /// Including the special tokens the post-processor adds.
    pub max_length: usize,
    /// Tokens each overflowing window shares with the previous one.
    pub stride: usize,
    pub strategy: TruncationStrategy,
    pub direction: Direction,
}

fn usize_field(o: &Obj, key: &str) -> Result<usize, CoreError> {
    let n = o.u64(key)?;
    usize::try_from(n).map_err(|_| bad(&join(o.path, key), format!("{n} is too large")))
}

impl TruncationParams {
    /// The file's `truncation` field: `null` (or absent) is no truncation. Fields as HF's
    /// serde: `max_length`, `strategy` and `stride` required, `direction` defaults to Right.
    pub fn from_json(v: Option<&Value>, path: &str) -> Result<Option<Self>, CoreError> {
        let v = match v {
            None | Some(Value::Null) => return Ok(None),
            Some(v) => v,
        };
        let o = Obj::new(v, path)?;
        o.only(&["direction", "max_length", "strategy", "stride"])?;
        let strategy_v = o.req("strategy")?;
        let strategy = match strategy_v.as_str() {
            Some("LongestFirst") => TruncationStrategy::LongestFirst,
            Some("OnlyFirst") => TruncationStrategy::OnlyFirst,
            Some("OnlySecond") => TruncationStrategy::OnlySecond,
            _ => {
                return Err(bad(
                    &join(path, "strategy"),
                    format!("expected \"LongestFirst\", \"OnlyFirst\" or \"OnlySecond\", got {}", show(strategy_v)),
                ))
            }
        };
        let direction = match o.opt("direction") {
            None => Direction::Right,
            Some(d) => Direction::from_json(d, &join(path, "direction"))?,
        };
        Ok(Some(TruncationParams {
            max_length: usize_field(&o, "max_length")?,
            stride: usize_field(&o, "stride")?,
            strategy,
            direction,
        }))
    }
}

fn truncation_error(what: &str) -> CoreError {
    CoreError::Input(format!("Truncation error: {what}"))
}

/// HF's `truncate_encodings`: shortens `encoding` (and `pair`) to `params.max_length` tokens
/// in all, by the strategy; what is cut goes to each one's `overflowing`. LongestFirst keeps
/// the shorter sequence whole when the longer can absorb the cut, else gives each half
/// (the longer one the odd token). Errors as HF: OnlySecond without a pair, a sequence too
/// short to absorb the cut, a stride not below the length a sequence is truncated to.
pub fn truncate_encodings(
    mut encoding: Encoding,
    mut pair: Option<Encoding>,
    params: &TruncationParams,
) -> Result<(Encoding, Option<Encoding>), CoreError> {
    let (max, stride, dir) = (params.max_length, params.stride, params.direction);
    if max == 0 {
        encoding.truncate(0, stride, dir)?;
        if let Some(p) = pair.as_mut() {
            p.truncate(0, stride, dir)?;
        }
        return Ok((encoding, pair));
    }
    let total = encoding.len() + pair.as_ref().map_or(0, Encoding::len);
    if total <= max {
        return Ok((encoding, pair));
    }
    let to_remove = total - max;
    match params.strategy {
        TruncationStrategy::LongestFirst => match pair.as_mut() {
            Some(p) => {
                let (mut n1, mut n2) = (encoding.len(), p.len());
                let swap = n1 > n2;
                if swap {
                    std::mem::swap(&mut n1, &mut n2);
                }
                // n1 is the shorter: kept whole when the longer one can take the whole cut.
                // (HF does not cap n2 by the real length: truncating past it is a no-op.)
                n2 = if n1 > max { n1 } else { n1.max(max - n1) };
                if n1 + n2 > max {
                    n1 = max / 2;
                    n2 = n1 + max % 2;
                }
                if swap {
                    std::mem::swap(&mut n1, &mut n2);
                }
                encoding.truncate(n1, stride, dir)?;
                p.truncate(n2, stride, dir)?;
            }
            None => encoding.truncate(max, stride, dir)?,
        },
        TruncationStrategy::OnlyFirst | TruncationStrategy::OnlySecond => {
            let target = if params.strategy == TruncationStrategy::OnlyFirst {
                &mut encoding
            } else {
                pair.as_mut().ok_or_else(|| truncation_error("Second sequence not provided"))?
            };
            let n = target.len();
            if n > to_remove {
                target.truncate(n - to_remove, stride, dir)?;
            } else {
                return Err(truncation_error("Sequence to truncate too short to respect the provided max_length"));
            }
        }
    }
    Ok((encoding, pair))
}

/// How long padding makes the encodings (HF's `PaddingStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaddingStrategy {
    /// As long as the longest encoding of the batch.
    BatchLongest,
    /// This many tokens (encodings already as long are left alone).
    Fixed(usize),
}

/// The `padding` section of a `tokenizer.json` (HF's `PaddingParams`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaddingParams {
    pub strategy: PaddingStrategy,
    pub direction: Direction,
    /// Rounds the padded length up to a multiple of this (0 or None: no rounding).
    pub pad_to_multiple_of: Option<usize>,
    pub pad_id: u32,
    pub pad_type_id: u32,
    pub pad_token: String,
}

/// The longest padding length accepted: padding allocates every pad token of every
/// encoding, so a length in the billions would abort the process instead of failing cleanly.
pub const MAX_PAD_LENGTH: usize = 1 << 24;

fn pad_length(n: usize, path: &str) -> Result<usize, CoreError> {
    if n > MAX_PAD_LENGTH {
        return Err(bad(path, format!("{n} is too large: padding is limited to {MAX_PAD_LENGTH} tokens")));
    }
    Ok(n)
}

impl PaddingParams {
    /// The file's `padding` field: `null` (or absent) is no padding. Fields as HF's serde:
    /// all required but `pad_to_multiple_of` (absent or null: None).
    pub fn from_json(v: Option<&Value>, path: &str) -> Result<Option<Self>, CoreError> {
        let v = match v {
            None | Some(Value::Null) => return Ok(None),
            Some(v) => v,
        };
        let o = Obj::new(v, path)?;
        o.only(&["strategy", "direction", "pad_to_multiple_of", "pad_id", "pad_type_id", "pad_token"])?;
        let sp = join(path, "strategy");
        let sv = o.req("strategy")?;
        let strategy = match sv {
            Value::String(s) if s == "BatchLongest" => PaddingStrategy::BatchLongest,
            Value::Object(m) if m.len() == 1 && m.contains_key("Fixed") => {
                let f = Obj { map: m, path: &sp };
                PaddingStrategy::Fixed(pad_length(usize_field(&f, "Fixed")?, &join(&sp, "Fixed"))?)
            }
            _ => return Err(bad(&sp, format!("expected \"BatchLongest\" or {{\"Fixed\": n}}, got {}", show(sv)))),
        };
        let pad_to_multiple_of = match o.opt_u64("pad_to_multiple_of")? {
            None => None,
            Some(n) => Some(pad_length(
                usize::try_from(n).map_err(|_| bad(&join(path, "pad_to_multiple_of"), format!("{n} is too large")))?,
                &join(path, "pad_to_multiple_of"),
            )?),
        };
        Ok(Some(PaddingParams {
            strategy,
            direction: Direction::from_json(o.req("direction")?, &join(path, "direction"))?,
            pad_to_multiple_of,
            pad_id: o.u32("pad_id")?,
            pad_type_id: o.u32("pad_type_id")?,
            pad_token: o.str("pad_token")?.to_string(),
        }))
    }

    /// The length `encodings` are padded to: the fixed length or the longest, rounded up to
    /// `pad_to_multiple_of`.
    pub fn target_length(&self, encodings: &[Encoding]) -> usize {
        self.target_length_of(encodings.iter().map(Encoding::len).max().unwrap_or(0))
    }

    /// `target_length` of a batch whose longest encoding has `longest` tokens.
    pub fn target_length_of(&self, longest: usize) -> usize {
        let mut n = match self.strategy {
            PaddingStrategy::Fixed(n) => n,
            PaddingStrategy::BatchLongest => longest,
        };
        if let Some(m) = self.pad_to_multiple_of {
            if m > 0 && n % m > 0 {
                n += m - n % m;
            }
        }
        n
    }
}

/// HF's `pad_encodings`: pads every encoding (and its overflowing pieces) to
/// `params.target_length(encodings)`.
pub fn pad_encodings(encodings: &mut [Encoding], params: &PaddingParams) {
    if encodings.is_empty() {
        return;
    }
    let n = params.target_length(encodings);
    for e in encodings {
        e.pad(n, params.pad_id, params.pad_type_id, &params.pad_token, params.direction);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    //! Expected values from HF `tokenizers` 0.23.3 (Python), rendered as
    //! `ids|type_ids|word_ids|special_tokens_mask|attention_mask|sequence_ids[|offsets][|tokens]`
    //! (`-` for None) followed by each overflowing encoding in brackets. Inputs: `t` =
    //! `Tokenizer(WordLevel({w: i for i, w in enumerate(WL)}, unk_token="[UNK]"))` with
    //! `pre_tokenizer = WhitespaceSplit()` (one token per word, ASCII so char = byte offsets).
    use super::*;

    pub(crate) const WL: &[&str] =
        &["[UNK]", "[CLS]", "[SEP]", "[PAD]", "<s>", "</s>", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];

    /// What HF's WordLevel + WhitespaceSplit gives for ASCII `text` (single spaces) before
    /// post-processing.
    pub(crate) fn ws(text: &str, type_id: u32) -> Encoding {
        let (mut ids, mut tokens, mut offsets, mut words) = (vec![], vec![], vec![], vec![]);
        let mut pos = 0;
        for w in text.split(' ') {
            if !w.is_empty() {
                ids.push(WL.iter().position(|x| *x == w).unwrap_or(0) as u32);
                tokens.push(w.to_string());
                offsets.push((pos, pos + w.len()));
                words.push(Some(words.len() as u32));
            }
            pos += w.len() + 1;
        }
        Encoding::from_tokens(ids, tokens, offsets, words, type_id)
    }

    /// HF's encoding of a pair without post-processor (`t.encode(a, b)`).
    fn ws_pair(a: &str, b: &str) -> Encoding {
        let (mut a, mut b) = (ws(a, 0), ws(b, 1));
        a.set_sequence_id(0);
        b.set_sequence_id(1);
        Encoding::merge([a, b], false)
    }

    pub(crate) fn render(e: &Encoding, offsets: bool, tokens: bool) -> String {
        let opt = |o: Option<usize>| o.map_or("-".to_string(), |x| x.to_string());
        let digits = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join("");
        let mut parts = vec![
            e.ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
            digits(&e.type_ids),
            e.words.iter().map(|w| opt(w.map(|x| x as usize))).collect::<Vec<_>>().join(""),
            digits(&e.special_tokens_mask),
            digits(&e.attention_mask),
            e.sequence_ids().into_iter().map(opt).collect::<Vec<_>>().join(""),
        ];
        if offsets {
            parts.push(e.offsets.iter().map(|(a, b)| format!("{a}:{b}")).collect::<Vec<_>>().join(" "));
        }
        if tokens {
            parts.push(e.tokens.join(" "));
        }
        let mut s = parts.join("|");
        for o in &e.overflowing {
            s += &format!(" [{}]", render(o, offsets, tokens));
        }
        s
    }

    // e = t.encode("a b c d e f g"); e.truncate(max_length, stride=stride, direction=direction)
    #[test]
    fn truncate() {
        #[rustfmt::skip]
        let cases: &[(usize, usize, Direction, &str)] = &[
            (3, 0, Direction::Right, "6 7 8|000|012|000|111|000|0:1 2:3 4:5 [9 10 11|000|345|000|111|000|6:7 8:9 10:11] [12|0|6|0|1|0|12:13]"),
            (3, 1, Direction::Left, "10 11 12|000|456|000|111|000|8:9 10:11 12:13 [8 9 10|000|234|000|111|000|4:5 6:7 8:9] [6 7 8|000|012|000|111|000|0:1 2:3 4:5]"),
            (4, 2, Direction::Right, "6 7 8 9|0000|0123|0000|1111|0000|0:1 2:3 4:5 6:7 [8 9 10 11|0000|2345|0000|1111|0000|4:5 6:7 8:9 10:11] [10 11 12|000|456|000|111|000|8:9 10:11 12:13]"),
            (4, 2, Direction::Left, "9 10 11 12|0000|3456|0000|1111|0000|6:7 8:9 10:11 12:13 [7 8 9 10|0000|1234|0000|1111|0000|2:3 4:5 6:7 8:9] [6 7 8|000|012|000|111|000|0:1 2:3 4:5]"),
            (5, 4, Direction::Left, "8 9 10 11 12|00000|23456|00000|11111|00000|4:5 6:7 8:9 10:11 12:13 [7 8 9 10 11|00000|12345|00000|11111|00000|2:3 4:5 6:7 8:9 10:11] [6 7 8 9 10|00000|01234|00000|11111|00000|0:1 2:3 4:5 6:7 8:9]"),
            (6, 5, Direction::Right, "6 7 8 9 10 11|000000|012345|000000|111111|000000|0:1 2:3 4:5 6:7 8:9 10:11 [7 8 9 10 11 12|000000|123456|000000|111111|000000|2:3 4:5 6:7 8:9 10:11 12:13]"),
            (7, 0, Direction::Right, "6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000|0:1 2:3 4:5 6:7 8:9 10:11 12:13"),
            (0, 0, Direction::Left, "|||||| [6 7 8 9 10 11 12|0000000|0123456|0000000|1111111|0000000|0:1 2:3 4:5 6:7 8:9 10:11 12:13]"),
            (1, 0, Direction::Left, "12|0|6|0|1|0|12:13 [11|0|5|0|1|0|10:11] [10|0|4|0|1|0|8:9] [9|0|3|0|1|0|6:7] [8|0|2|0|1|0|4:5] [7|0|1|0|1|0|2:3] [6|0|0|0|1|0|0:1]"),
        ];
        for (max, stride, dir, want) in cases {
            let mut e = ws("a b c d e f g", 0);
            e.truncate(*max, *stride, *dir).unwrap();
            assert_eq!(render(&e, true, false), *want, "{max} {stride} {dir:?}");
        }
        // HF panics here: stride must be below max_len (when truncation happens).
        let mut e = ws("a b c d e f g", 0);
        assert!(matches!(e.truncate(3, 3, Direction::Right), Err(CoreError::Input(_))));
        assert!(e.truncate(7, 9, Direction::Right).is_ok());
    }

    // x = t.encode("a b c d e f g"); x.truncate(3, stride=1); y = t.encode("h i j", "k a");
    // y.truncate(2); z = t.encode("b c"); Encoding.merge([x, y, z], growing_offsets=g)
    #[test]
    fn merge() {
        #[rustfmt::skip]
        let cases: &[(bool, &str)] = &[
            (true, "6 7 8 13 14 7 8|0000000|0120101|0000000|1111111|0000000|0:1 2:3 4:5 5:6 7:8 8:9 10:11 [8 9 10 13 14 7 8|0000000|2340101|0000000|1111111|0000000|4:5 6:7 8:9 9:10 11:12 12:13 14:15 [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 13:14 9:10 10:11 12:13] [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 11:12 12:13 14:15]] [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 13:14 9:10 10:11 12:13] [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 11:12 12:13 14:15] [10 11 12 13 14 7 8|0000000|4560101|0000000|1111111|0000000|8:9 10:11 12:13 13:14 15:16 16:17 18:19 [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 17:18 13:14 14:15 16:17] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 15:16 16:17 18:19]] [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 17:18 13:14 14:15 16:17] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 15:16 16:17 18:19] [6 7 8 15 16 7 8|0000100|0122001|0000000|1111111|0000000|0:1 2:3 4:5 9:10 5:6 6:7 8:9 [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 13:14 9:10 10:11 12:13] [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 17:18 13:14 14:15 16:17]] [6 7 8 6 7 8|000100|012101|000000|111111|000000|0:1 2:3 4:5 7:8 8:9 10:11 [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 11:12 12:13 14:15] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 15:16 16:17 18:19]]"),
            (false, "6 7 8 13 14 7 8|0000000|0120101|0000000|1111111|0000000|0:1 2:3 4:5 0:1 2:3 0:1 2:3 [8 9 10 13 14 7 8|0000000|2340101|0000000|1111111|0000000|4:5 6:7 8:9 0:1 2:3 0:1 2:3 [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 4:5 0:1 0:1 2:3] [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 2:3 0:1 2:3]] [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 4:5 0:1 0:1 2:3] [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 2:3 0:1 2:3] [10 11 12 13 14 7 8|0000000|4560101|0000000|1111111|0000000|8:9 10:11 12:13 0:1 2:3 0:1 2:3 [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 4:5 0:1 0:1 2:3] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 2:3 0:1 2:3]] [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 4:5 0:1 0:1 2:3] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 2:3 0:1 2:3] [6 7 8 15 16 7 8|0000100|0122001|0000000|1111111|0000000|0:1 2:3 4:5 4:5 0:1 0:1 2:3 [8 9 10 15 16 7 8|0000100|2342001|0000000|1111111|0000000|4:5 6:7 8:9 4:5 0:1 0:1 2:3] [10 11 12 15 16 7 8|0000100|4562001|0000000|1111111|0000000|8:9 10:11 12:13 4:5 0:1 0:1 2:3]] [6 7 8 6 7 8|000100|012101|000000|111111|000000|0:1 2:3 4:5 2:3 0:1 2:3 [8 9 10 6 7 8|000100|234101|000000|111111|000000|4:5 6:7 8:9 2:3 0:1 2:3] [10 11 12 6 7 8|000100|456101|000000|111111|000000|8:9 10:11 12:13 2:3 0:1 2:3]]"),
        ];
        for (growing, want) in cases {
            let mut x = ws("a b c d e f g", 0);
            x.truncate(3, 1, Direction::Right).unwrap();
            let mut y = ws_pair("h i j", "k a");
            y.truncate(2, 0, Direction::Right).unwrap();
            let z = ws("b c", 0);
            assert_eq!(render(&Encoding::merge([x, y, z], *growing), true, false), *want, "{growing}");
        }
    }

    // e = t.encode("a b c d e", "f g"); e.truncate(4, stride=1);
    // e.pad(length, direction=..., pad_id=..., pad_type_id=..., pad_token=...)
    #[test]
    fn pad() {
        #[rustfmt::skip]
        let cases: &[(usize, Direction, u32, u32, &str)] = &[
            (10, Direction::Left, 3, 2, "3 3 3 3 3 3 6 7 8 9|2222220000|------0123|1111110000|0000001111|0000000000|0:0 0:0 0:0 0:0 0:0 0:0 0:1 2:3 4:5 6:7|[PAD] [PAD] [PAD] [PAD] [PAD] [PAD] a b c d [3 3 3 3 3 3 9 10 11 12|2222220011|------3401|1111110000|0000001111|0000000000|0:0 0:0 0:0 0:0 0:0 0:0 6:7 8:9 0:1 2:3|[PAD] [PAD] [PAD] [PAD] [PAD] [PAD] d e f g]"),
            (10, Direction::Right, 3, 2, "6 7 8 9 3 3 3 3 3 3|0000222222|0123------|0000111111|1111000000|0000000000|0:1 2:3 4:5 6:7 0:0 0:0 0:0 0:0 0:0 0:0|a b c d [PAD] [PAD] [PAD] [PAD] [PAD] [PAD] [9 10 11 12 3 3 3 3 3 3|0011222222|3401------|0000111111|1111000000|0000000000|6:7 8:9 0:1 2:3 0:0 0:0 0:0 0:0 0:0 0:0|d e f g [PAD] [PAD] [PAD] [PAD] [PAD] [PAD]]"),
            (2, Direction::Left, 0, 0, "6 7 8 9|0000|0123|0000|1111|0000|0:1 2:3 4:5 6:7|a b c d [9 10 11 12|0011|3401|0000|1111|0000|6:7 8:9 0:1 2:3|d e f g]"),
        ];
        for (len, dir, id, type_id, want) in cases {
            let mut e = ws_pair("a b c d e", "f g");
            e.truncate(4, 1, Direction::Right).unwrap();
            let token = if *len == 2 { "x" } else { "[PAD]" };
            e.pad(*len, *id, *type_id, token, *dir);
            assert_eq!(render(&e, true, true), *want);
        }
        // Left padding shifts the sequence ranges (t.encode("a b", "c") padded left to 5).
        let mut e = ws_pair("a b", "c");
        e.pad(5, 0, 0, "[PAD]", Direction::Left);
        assert_eq!(e.sequence_ids(), vec![None, None, Some(0), Some(0), Some(1)]);
    }

    #[test]
    fn params_from_json() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(TruncationParams::from_json(None, "truncation").unwrap(), None);
        assert_eq!(TruncationParams::from_json(Some(&Value::Null), "truncation").unwrap(), None);
        // HF's old files have no "direction": Right.
        let t = TruncationParams::from_json(
            Some(&v(r#"{"max_length":256,"strategy":"LongestFirst","stride":0}"#)),
            "truncation",
        );
        assert_eq!(
            t.unwrap(),
            Some(TruncationParams {
                max_length: 256,
                stride: 0,
                strategy: TruncationStrategy::LongestFirst,
                direction: Direction::Right
            })
        );
        let t = TruncationParams::from_json(
            Some(&v(r#"{"direction":"Left","max_length":5,"strategy":"OnlySecond","stride":1}"#)),
            "truncation",
        );
        assert_eq!(
            t.unwrap(),
            Some(TruncationParams {
                max_length: 5,
                stride: 1,
                strategy: TruncationStrategy::OnlySecond,
                direction: Direction::Left
            })
        );
        let err =
            TruncationParams::from_json(Some(&v(r#"{"max_length":5,"strategy":"Longest","stride":1}"#)), "truncation");
        assert!(matches!(&err, Err(CoreError::Vocab(m)) if m.starts_with("truncation.strategy:")), "{err:?}");
        let err = TruncationParams::from_json(Some(&v(r#"{"max_length":5,"strategy":"OnlyFirst"}"#)), "truncation");
        assert!(matches!(&err, Err(CoreError::Vocab(m)) if m == "truncation.stride: missing"), "{err:?}");
        let err = TruncationParams::from_json(
            Some(&v(r#"{"max_length":5,"strategy":"OnlyFirst","stride":0,"x":1}"#)),
            "truncation",
        );
        assert!(matches!(err, Err(CoreError::Unsupported(_))));

        // As t.enable_padding(length=6, pad_to_multiple_of=4) writes it; pad_to_multiple_of may be absent.
        let p = PaddingParams::from_json(
            Some(&v(
                r#"{"strategy": {"Fixed": 6}, "direction": "Right", "pad_to_multiple_of": 4, "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"}"#,
            )),
            "padding",
        );
        let p = p.unwrap().unwrap();
        assert_eq!((p.strategy, p.pad_to_multiple_of, p.target_length(&[])), (PaddingStrategy::Fixed(6), Some(4), 8));
        let p = PaddingParams::from_json(
            Some(&v(
                r#"{"strategy": "BatchLongest", "direction": "Left", "pad_id": 3, "pad_type_id": 1, "pad_token": "<pad>"}"#,
            )),
            "padding",
        );
        let p = p.unwrap().unwrap();
        assert_eq!(
            (p.strategy, p.direction, p.pad_to_multiple_of, p.pad_id, p.pad_type_id, p.pad_token.as_str()),
            (PaddingStrategy::BatchLongest, Direction::Left, None, 3, 1, "<pad>")
        );
        let err = PaddingParams::from_json(
            Some(&v(
                r#"{"strategy": {"Fixed": -1}, "direction": "Left", "pad_id": 3, "pad_type_id": 1, "pad_token": "<pad>"}"#,
            )),
            "padding",
        );
        assert!(matches!(&err, Err(CoreError::Vocab(m)) if m.starts_with("padding.strategy.Fixed:")), "{err:?}");
        let err = PaddingParams::from_json(
            Some(&v(
                r#"{"strategy": "BatchLongest", "direction": "Up", "pad_id": 3, "pad_type_id": 1, "pad_token": "<pad>"}"#,
            )),
            "padding",
        );
        assert!(matches!(&err, Err(CoreError::Vocab(m)) if m.starts_with("padding.direction:")), "{err:?}");
        assert_eq!(PaddingParams::from_json(Some(&Value::Null), "padding").unwrap(), None);
    }
}
