//! HF post-processors (`post_processor` of a `tokenizer.json`: `BertProcessing`,
//! `RobertaProcessing`, `ByteLevel`, `TemplateProcessing`, `Sequence`) and the whole
//! post-processing step of HF's `TokenizerImpl::post_process` (truncate, process, pad) and of
//! `encode_batch` (then pad across the batch).
//!
//! Semantics are HF's `PostProcessor::process` (type ids reset to the sequence index, then
//! each processor's `process_encodings`, then one merge), including how the overflowing
//! pieces get the special tokens and how the sequence ranges and type ids of each come out.
//! Offsets are byte offsets; the offset trimming of `ByteLevel` / `RobertaProcessing` works
//! from the token text (see `trim_offsets`). What this module does not do: check that the ids
//! of the special tokens exist in the vocabulary (HF does not either).

use serde_json::Value;

use super::encoding::{pad_encodings, truncate_encodings, Encoding, PaddingParams, TruncationParams};
use super::json::{bad, index, join, show, unsupported, Obj};
use crate::error::CoreError;

/// A special token of `TemplateProcessing` (`special_tokens` map value): one or more ids with
/// their token strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialToken {
    pub ids: Vec<u32>,
    pub tokens: Vec<String>,
}

/// A piece of a template: a sequence (`$A` = 0, `$B` = 1) or a special token, with a type id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Sequence {
        seq: usize,
        type_id: u32,
    },
    /// `token`: index into `Template::special_tokens`, None when the file's `special_tokens`
    /// does not have it (HF loads such a file and panics when it adds the token).
    SpecialToken {
        id: String,
        token: Option<usize>,
        type_id: u32,
    },
}

/// `TemplateProcessing`: where the special tokens go, for one sequence and for a pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub single: Vec<Piece>,
    pub pair: Vec<Piece>,
    pub special_tokens: Vec<SpecialToken>,
    added_single: usize,
    added_pair: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostProcessor {
    Bert { sep: (String, u32), cls: (String, u32) },
    Roberta { sep: (String, u32), cls: (String, u32), trim_offsets: bool, add_prefix_space: bool },
    ByteLevel { trim_offsets: bool, add_prefix_space: bool },
    Template(Template),
    Sequence(Vec<PostProcessor>),
}

const SUPPORTED: &[&str] = &["BertProcessing", "RobertaProcessing", "ByteLevel", "TemplateProcessing", "Sequence"];

/// A `[token, id]` pair (`sep`, `cls`).
fn token_id_pair(o: &Obj, key: &str) -> Result<(String, u32), CoreError> {
    let path = join(o.path, key);
    let v = o.req(key)?;
    match v.as_array().map(Vec::as_slice) {
        Some([Value::String(t), id]) => match id.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(id) => Ok((t.clone(), id)),
            None => Err(bad(&index(&path, 1), format!("expected a token id, got {}", show(id)))),
        },
        _ => Err(bad(&path, format!("expected [token, id], got {}", show(v)))),
    }
}

fn type_id(o: &Obj) -> Result<u32, CoreError> {
    o.u32("type_id")
}

impl Template {
    fn from_json(o: &Obj) -> Result<Self, CoreError> {
        o.only(&["type", "single", "pair", "special_tokens"])?;
        let sp_path = join(o.path, "special_tokens");
        let mut names: Vec<&str> = Vec::new();
        let mut special_tokens = Vec::new();
        for (name, v) in o.object("special_tokens")? {
            let path = join(&sp_path, name);
            let t = Obj::new(v, &path)?;
            t.only(&["id", "ids", "tokens"])?;
            t.str("id")?;
            let ids_path = join(&path, "ids");
            let ids = t
                .array("ids")?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_u64()
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| bad(&index(&ids_path, i), format!("expected a token id, got {}", show(v))))
                })
                .collect::<Result<Vec<u32>, _>>()?;
            let tokens_path = join(&path, "tokens");
            let tokens = t
                .array("tokens")?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| bad(&index(&tokens_path, i), format!("expected a string, got {}", show(v))))
                })
                .collect::<Result<Vec<String>, _>>()?;
            if ids.len() != tokens.len() {
                return Err(bad(&path, format!("{} ids but {} tokens", ids.len(), tokens.len())));
            }
            names.push(name);
            special_tokens.push(SpecialToken { ids, tokens });
        }
        let pieces = |key: &str| -> Result<Vec<Piece>, CoreError> {
            let path = join(o.path, key);
            let mut out = Vec::new();
            for (i, v) in o.array(key)?.iter().enumerate() {
                let p_path = index(&path, i);
                let p = Obj::new(v, &p_path)?;
                let expected = || {
                    bad(
                        &p_path,
                        format!("expected {{\"Sequence\": ...}} or {{\"SpecialToken\": ...}}, got {}", show(v)),
                    )
                };
                if p.map.len() != 1 {
                    return Err(expected());
                }
                if let Some(inner) = p.get("Sequence") {
                    let in_path = join(&p_path, "Sequence");
                    let s = Obj::new(inner, &in_path)?;
                    s.only(&["id", "type_id"])?;
                    let seq = match s.str("id")? {
                        "A" => 0,
                        "B" => 1,
                        other => {
                            return Err(bad(&join(&in_path, "id"), format!("expected \"A\" or \"B\", got {other:?}")))
                        }
                    };
                    out.push(Piece::Sequence { seq, type_id: type_id(&s)? });
                } else if let Some(inner) = p.get("SpecialToken") {
                    let in_path = join(&p_path, "SpecialToken");
                    let s = Obj::new(inner, &in_path)?;
                    s.only(&["id", "type_id"])?;
                    let id = s.str("id")?;
                    // HF loads such a file and panics when it adds the token; refusing it here
                    // names the file and the field instead.
                    let Some(token) = names.iter().position(|n| *n == id) else {
                        return Err(bad(
                            &join(&in_path, "id"),
                            format!("special token {id:?} is not in {}; add it there", join(o.path, "special_tokens")),
                        ));
                    };
                    out.push(Piece::SpecialToken { id: id.to_string(), token: Some(token), type_id: type_id(&s)? });
                } else {
                    return Err(expected());
                }
            }
            Ok(out)
        };
        let single = pieces("single")?;
        let pair = pieces("pair")?;
        // HF's count_added: a special token missing from `special_tokens` counts 0.
        let added = |t: &[Piece]| -> usize {
            t.iter()
                .map(|p| match p {
                    Piece::SpecialToken { token: Some(k), .. } => special_tokens.get(*k).map_or(0, |s| s.ids.len()),
                    _ => 0,
                })
                .sum()
        };
        let (added_single, added_pair) = (added(&single), added(&pair));
        Ok(Template { single, pair, special_tokens, added_single, added_pair })
    }

    /// HF's `apply_template`: one encoding per piece (sequence pieces get the piece's type
    /// id on their tokens, not on their overflowing, and their sequence id), special tokens
    /// only when `add_special_tokens`.
    fn apply(&self, mut encodings: Vec<Encoding>, add_special_tokens: bool) -> Result<Vec<Encoding>, CoreError> {
        let template = match encodings.len() {
            1 => &self.single,
            2 => &self.pair,
            n => {
                return Err(CoreError::Input(format!(
                    "TemplateProcessing can only process 1 or 2 sequences, got {n} (a processor before it in a Sequence split them)"
                )))
            }
        };
        // The last piece using each sequence can move it instead of cloning.
        let last_use = |s: usize| template.iter().rposition(|p| matches!(p, Piece::Sequence { seq, .. } if *seq == s));
        let last = [last_use(0), last_use(1)];
        let mut out = Vec::with_capacity(template.len());
        for (k, piece) in template.iter().enumerate() {
            match piece {
                Piece::Sequence { seq, type_id } => {
                    let n_enc = encodings.len();
                    let e = encodings.get_mut(*seq).ok_or_else(|| {
                        CoreError::Vocab(format!(
                            "post_processor: the template for {n_enc} sequence(s) uses sequence {}",
                            if *seq == 0 { "$A" } else { "$B" }
                        ))
                    })?;
                    let n = e.len();
                    e.type_ids.clear();
                    e.type_ids.resize(n, *type_id);
                    e.set_sequence_id(*seq);
                    out.push(if last[*seq] == Some(k) { std::mem::take(e) } else { e.clone() });
                }
                Piece::SpecialToken { id, token, type_id } => {
                    if !add_special_tokens {
                        continue;
                    }
                    let t = token.and_then(|k| self.special_tokens.get(k)).ok_or_else(|| {
                        CoreError::Vocab(format!(
                            "post_processor: the template uses special token {id:?}, missing from special_tokens"
                        ))
                    })?;
                    let n = t.ids.len();
                    out.push(Encoding {
                        ids: t.ids.clone(),
                        type_ids: vec![*type_id; n],
                        tokens: t.tokens.clone(),
                        words: vec![None; n],
                        offsets: vec![(0, 0); n],
                        special_tokens_mask: vec![1; n],
                        attention_mask: vec![1; n],
                        overflowing: Vec::new(),
                        sequence_ranges: Vec::new(),
                    });
                }
            }
        }
        Ok(out)
    }
}

/// Whether `c`, a char of a token, is trimmed from its offsets: 'Ġ' (the byte-level form of
/// the space) or a whitespace char.
fn is_space(c: char) -> bool {
    c == 'Ġ' || c.is_whitespace()
}

/// HF's `process_offsets` (ByteLevel / Roberta `trim_offsets`): offsets exclude the leading
/// and trailing whitespace of each token ('Ġ' or a whitespace char), except the one space
/// `add_prefix_space` added before the first token (one at offset 0). As HF, each trimmed
/// char counts as one unit of the offsets, which are character offsets here (the tokenizer
/// converts them before post-processing, as HF's Python binding does).
fn trim_offsets(e: &mut Encoding, add_prefix_space: bool) {
    for (i, (token, off)) in e.tokens.iter().zip(e.offsets.iter_mut()).enumerate() {
        let lead_chars = token.chars().take_while(|&c| is_space(c)).count();
        let trail_chars = token.chars().rev().take_while(|&c| is_space(c)).count();
        if lead_chars > 0 {
            let is_first = i == 0 || off.0 == 0;
            // The one space add_prefix_space put before the first word is kept.
            if !(is_first && add_prefix_space && lead_chars == 1) {
                off.0 = (off.0 + lead_chars).min(off.1);
            }
        }
        if trail_chars > 0 && off.1 >= trail_chars {
            off.1 = (off.1 - trail_chars).max(off.0);
        }
    }
}

fn trim_all(encodings: &mut [Encoding], add_prefix_space: bool) {
    for e in encodings {
        trim_offsets(e, add_prefix_space);
        for o in &mut e.overflowing {
            trim_offsets(o, add_prefix_space);
        }
    }
}

/// `e` with `before` and `after` tokens around it (special tokens: no word, offsets (0, 0),
/// special mask 1; the others special mask 0, as HF rebuilds it), attention all 1, type ids
/// `type_before` / the current ones / `type_after`, and one sequence range `seq` over the
/// tokens of `e`. No overflowing.
fn wrap(e: Encoding, before: Option<&(String, u32)>, after: &(String, u32), seq: usize, types: (u32, u32)) -> Encoding {
    let n = e.len();
    let total = n + 1 + usize::from(before.is_some());
    let mut out = Encoding {
        ids: Vec::with_capacity(total),
        type_ids: Vec::with_capacity(total),
        tokens: Vec::with_capacity(total),
        words: Vec::with_capacity(total),
        offsets: Vec::with_capacity(total),
        special_tokens_mask: Vec::with_capacity(total),
        attention_mask: vec![1; total],
        overflowing: Vec::new(),
        sequence_ranges: Vec::new(),
    };
    let push_special = |out: &mut Encoding, (token, id): &(String, u32), type_id: u32| {
        out.ids.push(*id);
        out.type_ids.push(type_id);
        out.tokens.push(token.clone());
        out.words.push(None);
        out.offsets.push((0, 0));
        out.special_tokens_mask.push(1);
    };
    if let Some(b) = before {
        push_special(&mut out, b, types.0);
    }
    let start = out.ids.len();
    out.ids.extend(e.ids);
    out.type_ids.extend(e.type_ids);
    out.tokens.extend(e.tokens);
    out.words.extend(e.words);
    out.offsets.extend(e.offsets);
    out.special_tokens_mask.resize(start + n, 0);
    push_special(&mut out, after, types.1);
    out.sequence_ranges.push((seq, start..start + n));
    out
}

impl PostProcessor {
    pub fn from_json(v: &Value, path: &str) -> Result<Self, CoreError> {
        let o = Obj::new(v, path)?;
        let tag = match o.opt("type") {
            Some(_) => o.type_tag()?,
            // HF reads post-processors untagged: without "type", sep + cls is Roberta when it
            // has Roberta's fields, else Bert.
            None if o.get("sep").is_some() && o.get("cls").is_some() => {
                if o.get("trim_offsets").is_some() && o.get("add_prefix_space").is_some() {
                    "RobertaProcessing"
                } else {
                    "BertProcessing"
                }
            }
            None => o.type_tag()?,
        };
        match tag {
            "BertProcessing" => {
                o.only(&["type", "sep", "cls"])?;
                Ok(PostProcessor::Bert { sep: token_id_pair(&o, "sep")?, cls: token_id_pair(&o, "cls")? })
            }
            "RobertaProcessing" => {
                o.only(&["type", "sep", "cls", "trim_offsets", "add_prefix_space"])?;
                Ok(PostProcessor::Roberta {
                    sep: token_id_pair(&o, "sep")?,
                    cls: token_id_pair(&o, "cls")?,
                    trim_offsets: o.bool("trim_offsets")?,
                    add_prefix_space: o.bool("add_prefix_space")?,
                })
            }
            "ByteLevel" => {
                // use_regex only matters to the pre-tokenizer.
                o.only(&["type", "add_prefix_space", "trim_offsets", "use_regex"])?;
                o.bool_or("use_regex", true)?;
                Ok(PostProcessor::ByteLevel {
                    trim_offsets: o.bool("trim_offsets")?,
                    add_prefix_space: o.bool("add_prefix_space")?,
                })
            }
            "TemplateProcessing" => Ok(PostProcessor::Template(Template::from_json(&o)?)),
            "Sequence" => {
                o.only(&["type", "processors"])?;
                let p_path = join(path, "processors");
                let list = o
                    .array("processors")?
                    .iter()
                    .enumerate()
                    .map(|(i, v)| PostProcessor::from_json(v, &index(&p_path, i)))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(PostProcessor::Sequence(list))
            }
            other => Err(unsupported(&join(path, "type"), &format!("{other:?}"), SUPPORTED)),
        }
    }

    /// How many tokens `process` adds to a single sequence (`is_pair=false`) or a pair.
    /// True when `process_ids` knows what `process(.., None, true)` does to one sequence's
    /// ids (false for a template that names `$B` or a special token it lacks: the full path
    /// gives the exact error).
    pub fn can_process_ids(&self) -> bool {
        match self {
            PostProcessor::Bert { .. } | PostProcessor::Roberta { .. } | PostProcessor::ByteLevel { .. } => true,
            PostProcessor::Template(t) => t.single.iter().all(|p| match p {
                Piece::Sequence { seq, .. } => *seq == 0,
                Piece::SpecialToken { token, .. } => token.is_some_and(|i| i < t.special_tokens.len()),
            }),
            PostProcessor::Sequence(v) => v.iter().all(PostProcessor::can_process_ids),
        }
    }

    /// True when `process_ids` never changes the ids (ByteLevel, which only trims offsets, or a
    /// template that is `$A` alone), so the ids-only path can skip it.
    pub fn leaves_ids_alone(&self) -> bool {
        match self {
            PostProcessor::Bert { .. } | PostProcessor::Roberta { .. } => false,
            PostProcessor::ByteLevel { .. } => true,
            PostProcessor::Template(t) => matches!(t.single.as_slice(), [Piece::Sequence { seq: 0, .. }]),
            PostProcessor::Sequence(v) => v.iter().all(PostProcessor::leaves_ids_alone),
        }
    }

    /// The ids `process(.., None, true)` gives for one sequence, in place, without building an
    /// `Encoding` (the ids-only path). Call only when `can_process_ids`.
    pub fn process_ids(&self, ids: &mut Vec<u32>) {
        match self {
            PostProcessor::Bert { sep, cls } | PostProcessor::Roberta { sep, cls, .. } => {
                ids.insert(0, cls.1);
                ids.push(sep.1);
            }
            PostProcessor::ByteLevel { .. } => {}
            PostProcessor::Template(t) => {
                let mut out = Vec::with_capacity(ids.len() + t.added_single);
                for piece in &t.single {
                    match piece {
                        Piece::Sequence { .. } => out.extend_from_slice(ids),
                        Piece::SpecialToken { token, .. } => {
                            if let Some(st) = token.and_then(|i| t.special_tokens.get(i)) {
                                out.extend_from_slice(&st.ids);
                            }
                        }
                    }
                }
                *ids = out;
            }
            PostProcessor::Sequence(v) => v.iter().for_each(|p| p.process_ids(ids)),
        }
    }

    /// `process_ids` appending to `out` with no vector of its own: this processor's special
    /// tokens around the sequence's ids, which `seq` appends. `Ok(false)` with nothing written
    /// for a `Sequence` of processors (each wraps the previous one's result: use `process_ids`).
    /// Call only when `can_process_ids`.
    pub fn emit_ids<E>(
        &self,
        out: &mut Vec<u32>,
        mut seq: impl FnMut(&mut Vec<u32>) -> Result<(), E>,
    ) -> Result<bool, E> {
        match self {
            PostProcessor::Bert { sep, cls } | PostProcessor::Roberta { sep, cls, .. } => {
                out.push(cls.1);
                seq(out)?;
                out.push(sep.1);
            }
            PostProcessor::ByteLevel { .. } => seq(out)?,
            PostProcessor::Template(t) => {
                for piece in &t.single {
                    match piece {
                        Piece::Sequence { .. } => seq(out)?,
                        Piece::SpecialToken { token, .. } => {
                            if let Some(st) = token.and_then(|i| t.special_tokens.get(i)) {
                                out.extend_from_slice(&st.ids);
                            }
                        }
                    }
                }
            }
            PostProcessor::Sequence(_) => return Ok(false),
        }
        Ok(true)
    }

    pub fn added_tokens(&self, is_pair: bool) -> usize {
        match self {
            PostProcessor::Bert { .. } => 2 + usize::from(is_pair),
            PostProcessor::Roberta { .. } => 2 + 2 * usize::from(is_pair),
            PostProcessor::ByteLevel { .. } => 0,
            PostProcessor::Template(t) => {
                if is_pair {
                    t.added_pair
                } else {
                    t.added_single
                }
            }
            PostProcessor::Sequence(list) => list.iter().map(|p| p.added_tokens(is_pair)).sum(),
        }
    }

    /// HF's `process`: the encoding (and pair) with special tokens added when
    /// `add_special_tokens`, merged into one. First each sequence (and its overflowing) gets
    /// its sequence id and its tokens (not the overflowing's) type id = its index; then the
    /// processor's `process_encodings`; then all merge (overflowing pieces combining).
    pub fn process(
        &self,
        encoding: Encoding,
        pair: Option<Encoding>,
        add_special_tokens: bool,
    ) -> Result<Encoding, CoreError> {
        let mut encodings = Vec::with_capacity(2);
        encodings.push(encoding);
        encodings.extend(pair);
        for (i, e) in encodings.iter_mut().enumerate() {
            e.set_sequence_id(i);
            for o in &mut e.overflowing {
                o.set_sequence_id(i);
            }
            let n = e.len();
            e.type_ids.clear();
            e.type_ids.resize(n, i as u32);
        }
        let encodings = self.process_encodings(encodings, add_special_tokens)?;
        Ok(Encoding::merge(encodings, false))
    }

    /// HF's `process_encodings` of each processor (a `Sequence` chains them).
    pub fn process_encodings(
        &self,
        mut encodings: Vec<Encoding>,
        add_special_tokens: bool,
    ) -> Result<Vec<Encoding>, CoreError> {
        match self {
            PostProcessor::Bert { sep, cls } => {
                if !add_special_tokens {
                    return Ok(encodings);
                }
                Ok(encodings
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut e)| {
                        let overflowing = std::mem::take(&mut e.overflowing);
                        let wrap_one = |e: Encoding| {
                            if i == 0 {
                                wrap(e, Some(cls), sep, 0, (0, 0))
                            } else {
                                wrap(e, None, sep, 1, (0, 1))
                            }
                        };
                        let mut out = wrap_one(e);
                        out.overflowing = overflowing.into_iter().map(wrap_one).collect();
                        out
                    })
                    .collect())
            }
            PostProcessor::Roberta { sep, cls, trim_offsets, add_prefix_space } => {
                if *trim_offsets {
                    trim_all(&mut encodings, *add_prefix_space);
                }
                // Roberta: every type id is 0 (the overflowing's become 0 below, when wrapped).
                for e in &mut encodings {
                    e.type_ids.fill(0);
                }
                if !add_special_tokens {
                    return Ok(encodings);
                }
                Ok(encodings
                    .into_iter()
                    .enumerate()
                    .map(|(i, mut e)| {
                        let overflowing = std::mem::take(&mut e.overflowing);
                        let wrap_one = |mut e: Encoding| {
                            e.type_ids.fill(0);
                            if i == 0 {
                                wrap(e, Some(cls), sep, 0, (0, 0))
                            } else {
                                wrap(e, Some(sep), sep, 1, (0, 0))
                            }
                        };
                        let mut out = wrap_one(e);
                        out.overflowing = overflowing.into_iter().map(wrap_one).collect();
                        out
                    })
                    .collect())
            }
            PostProcessor::ByteLevel { trim_offsets, add_prefix_space } => {
                if *trim_offsets {
                    trim_all(&mut encodings, *add_prefix_space);
                }
                for (i, e) in encodings.iter_mut().enumerate() {
                    e.set_sequence_id(i);
                }
                Ok(encodings)
            }
            PostProcessor::Template(t) => t.apply(encodings, add_special_tokens),
            PostProcessor::Sequence(list) => {
                for p in list {
                    encodings = p.process_encodings(encodings, add_special_tokens)?;
                }
                Ok(encodings)
            }
        }
    }
}

/// HF's `TokenizerImpl::post_process`: truncates (to `max_length` minus the tokens the
/// processor will add, when adding them), processes (without a processor: the pair is
/// appended, each with its sequence id), pads (a single encoding: `Fixed` length, or with
/// `BatchLongest` its own length rounded up to `pad_to_multiple_of`).
pub fn post_process(
    encoding: Encoding,
    pair: Option<Encoding>,
    add_special_tokens: bool,
    processor: Option<&PostProcessor>,
    truncation: Option<&TruncationParams>,
    padding: Option<&PaddingParams>,
) -> Result<Encoding, CoreError> {
    let (encoding, pair) = match truncation {
        Some(t) => {
            let added = processor.map_or(0, |p| p.added_tokens(pair.is_some()));
            if add_special_tokens && added > 0 {
                // HF subtracts in usize, wrapping when the processor adds more than
                // max_length (then nothing is truncated): same here.
                let reduced = TruncationParams { max_length: t.max_length.wrapping_sub(added), ..*t };
                truncate_encodings(encoding, pair, &reduced)?
            } else {
                truncate_encodings(encoding, pair, t)?
            }
        }
        None => (encoding, pair),
    };
    let mut out = match processor {
        Some(p) => p.process(encoding, pair, add_special_tokens)?,
        None => match pair {
            None => encoding,
            Some(mut pair) => {
                let mut encoding = encoding;
                encoding.set_sequence_id(0);
                pair.set_sequence_id(1);
                Encoding::merge([encoding, pair], false)
            }
        },
    };
    if let Some(params) = padding {
        pad_encodings(std::slice::from_mut(&mut out), params);
    }
    Ok(out)
}

/// HF's `encode_batch` after the model: `post_process` on each input, then padding across
/// the batch (`BatchLongest`: to the longest of the batch).
pub fn post_process_batch(
    inputs: Vec<(Encoding, Option<Encoding>)>,
    add_special_tokens: bool,
    processor: Option<&PostProcessor>,
    truncation: Option<&TruncationParams>,
    padding: Option<&PaddingParams>,
) -> Result<Vec<Encoding>, CoreError> {
    let mut out = inputs
        .into_iter()
        .map(|(e, p)| post_process(e, p, add_special_tokens, processor, truncation, padding))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(params) = padding {
        pad_encodings(&mut out, params);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
