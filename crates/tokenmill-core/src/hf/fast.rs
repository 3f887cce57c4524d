//! The byte-level fast path: a `tokenizer.json` that is byte-level BPE (GPT-2, o200k, Llama 3,
//! Qwen2, DeepSeek V3...) runs on tokenmill's own byte-level engine (`bpe::CoreBpe`: the hand-written
//! pre-tokenizers and the tiktoken-style merge loop) instead of the general pipeline.
//!
//! When it applies (`FastBpe::new` decides, at load time, and says None otherwise): no
//! normalizer; a pre-tokenizer that is `ByteLevel` with its GPT-2 regex, or a regex `Split`
//! followed by `ByteLevel` without regex (the pieces of the split are then exactly
//! `find_iter`'s: a `Removed` + `invert` split, or an `Isolated` one whose regex covers every
//! character, which the hand-written matchers' patterns do), or DeepSeek V3's three `Isolated`
//! splits followed by `ByteLevel` without regex (one hand-written matcher gives the pieces of
//! the whole sequence), neither adding a prefix space;
//! a BPE model with no continuing prefix or end-of-word suffix whose vocabulary has all 256
//! byte characters.
//!
//! Why the result is HF's: HF merges the adjacent pair of lowest merge rank; the engine merges
//! the adjacent pair whose concatenation has the lowest id. These agree when (checked here,
//! or no fast path) each merge makes a token no other merge makes, the ids of the tokens the
//! merges make grow with the merge rank, and merging each such token's own bytes the HF way
//! gives back that one token by the merges alone (the engine builds a token wherever its bytes
//! allow, HF only where its merges rebuild it: `ignore_merges` spares whole pieces, not a
//! token inside a longer piece; this check also catches a token made from a pair whose parts
//! the merges never leave side by side). Tokens that no
//! merge makes are left out of the engine's vocabulary (HF's merges never produce them); with
//! `ignore_merges` HF could return such a token for a whole piece, so each must be an added
//! token (found before the model) and a call that encodes one as text takes the full path. The tests compare
//! the two paths with HF on real files and random text.
//!
//! The BERT fast path: `BertNormalizer` + `BertPreTokenizer` + a WordPiece model is exactly
//! `pipeline::BertWordPiece` (tokenmill's own BERT pipeline, tested against HF), as long as
//! no added token is matched in normalized text (the fast paths get the original text between
//! added tokens).
//!
//! What it does not do: offsets (the full path gives them), other normalizers, added tokens
//! (split off before, by `added`).

use super::added::AddedVocabulary;
use super::bytes::BYTE_TO_CHAR;
use super::models::Model;
use super::normalized::{CompiledPattern, SplitBehavior};
use super::normalizers::Normalizer;
use super::pretokenizers::PreTokenizer;
use crate::bpe::{CoreBpe, Scratch};
use crate::error::CoreError;
use crate::pipeline::{BertScratch, BertWordPiece};
use crate::pretokenize::Pretokenizer;

/// An engine equivalent to the file's normalizer, pre-tokenizer and model.
#[derive(Debug, Clone)]
pub enum Fast {
    /// Byte-level BPE on tokenmill's byte-level engine. `whole_only`: with `ignore_merges`,
    /// the added tokens that the model alone would also return for a whole piece (tokens no
    /// merge makes); a call that encodes one of them as text takes the full path.
    Bpe { bpe: Box<CoreBpe>, whole_only: Vec<u32> },
    /// BERT's normalizer and pre-tokenizer with WordPiece.
    Bert(BertWordPiece),
}

/// Per-thread working memory of the fast paths.
#[derive(Debug, Default)]
pub struct FastScratch {
    bpe: Scratch,
    bert: BertScratch,
}

/// The regex pre-tokenizer of a byte-level pipeline, if it has that shape: `ByteLevel` with its
/// own regex, a single regex `Split` whose pieces are `find_iter`'s, or DeepSeek V3's three
/// `Isolated` regex splits (`DEEPSEEK_V3_SPLITS`, string for string) whose combined pieces the
/// hand-written `DeepSeekV3` matcher gives; each before a `ByteLevel` without regex. Anything
/// else (another sequence of splits, another regex spelling) keeps the general pipeline.
fn byte_level_splitter(pre: &PreTokenizer) -> Option<&Pretokenizer> {
    use crate::pretokenize::{patterns::DEEPSEEK_V3_SPLITS, KnownPattern};
    // A static, so that this splitter too is borrowed.
    static DEEPSEEK_V3: Pretokenizer = Pretokenizer::Fast(KnownPattern::DeepSeekV3);
    // An `Isolated`, not inverted `Split` whose regex is exactly `pattern`.
    let isolated = |p: &PreTokenizer, pattern: &str| {
        matches!(p, PreTokenizer::Split {
            pattern: CompiledPattern::Regex(re),
            behavior: SplitBehavior::Isolated,
            invert: false,
        } if re.source() == Some(pattern))
    };
    match pre {
        PreTokenizer::ByteLevel { add_prefix_space: false, use_regex: true, re } => Some(re),
        PreTokenizer::Sequence(v) => match v.as_slice() {
            [PreTokenizer::Split { pattern: CompiledPattern::Regex(re), behavior, invert }, PreTokenizer::ByteLevel { add_prefix_space: false, use_regex: false, .. }] =>
            {
                let find_iter = matches!((behavior, invert), (SplitBehavior::Removed, true))
                    || (matches!((behavior, invert), (SplitBehavior::Isolated, false)) && re.is_fast());
                find_iter.then_some(re)
            }
            [d, k, m, PreTokenizer::ByteLevel { add_prefix_space: false, use_regex: false, .. }]
                if [d, k, m].into_iter().zip(DEEPSEEK_V3_SPLITS).all(|(p, pattern)| isolated(p, pattern)) =>
            {
                Some(&DEEPSEEK_V3)
            }
            _ => None,
        },
        _ => None,
    }
}

impl Fast {
    /// The fast path for these stages, or None when it would not give HF's ids (see the
    /// module docstring). Errors only on an internal inconsistency.
    pub fn new(
        normalizer: Option<&Normalizer>,
        pre: Option<&PreTokenizer>,
        model: &Model,
        added: &AddedVocabulary,
    ) -> Result<Option<Self>, CoreError> {
        if let (Some(Normalizer::Bert(n)), Some(PreTokenizer::Bert), Model::WordPiece(wp)) = (normalizer, pre, model) {
            if added.has_normalized() {
                return Ok(None);
            }
            return Ok(Some(Fast::Bert(BertWordPiece::new(*n, wp.inner().clone()))));
        }
        if normalizer.is_some() {
            return Ok(None);
        }
        Self::byte_level(pre, model, added)
    }

    /// True when a call that encodes the added tokens `skip` as text must take the full path.
    pub fn needs_full_path(&self, skip: &[u32]) -> bool {
        match self {
            Fast::Bpe { whole_only, .. } => !whole_only.is_empty() && skip.iter().any(|id| whole_only.contains(id)),
            Fast::Bert(_) => false,
        }
    }

    fn byte_level(
        pre: Option<&PreTokenizer>,
        model: &Model,
        added: &AddedVocabulary,
    ) -> Result<Option<Self>, CoreError> {
        let Some(re) = pre.and_then(byte_level_splitter) else { return Ok(None) };
        let Model::Bpe(bpe) = model else { return Ok(None) };
        if !bpe.is_plain() {
            return Ok(None);
        }
        // Token bytes by id, starting from the 256 byte characters: spans of one arena (no
        // allocation per token).
        let mut arena: Vec<u8> = Vec::with_capacity(8 * model.vocab_size());
        let mut span_of: rustc_hash::FxHashMap<u32, (u32, u32)> = rustc_hash::FxHashMap::default();
        span_of.reserve(model.vocab_size());
        let mut byte_id = [0u32; 256];
        for b in 0..=255u8 {
            let mut buf = [0u8; 4];
            let Some(id) = model.token_to_id(BYTE_TO_CHAR[b as usize].encode_utf8(&mut buf)) else {
                return Ok(None);
            };
            if span_of.insert(id, (arena.len() as u32, 1)).is_some() {
                return Ok(None);
            }
            arena.push(b);
            byte_id[b as usize] = id;
        }
        let mut last: Option<u32> = None;
        let mut made = Vec::new();
        for (a, b, id) in bpe.merges_in_rank_order() {
            if last.is_some_and(|l| id <= l) || span_of.contains_key(&id) {
                return Ok(None); // ids not growing with the rank, or a token made twice
            }
            let (Some(&(xs, xl)), Some(&(ys, yl))) = (span_of.get(&a), span_of.get(&b)) else { return Ok(None) };
            let start = arena.len();
            if start.checked_add(xl as usize + yl as usize).is_none_or(|end| end > u32::MAX as usize) {
                return Ok(None);
            }
            arena.extend_from_within(xs as usize..(xs + xl) as usize);
            arena.extend_from_within(ys as usize..(ys + yl) as usize);
            span_of.insert(id, (start as u32, xl + yl));
            made.push(id);
            last = Some(id);
        }
        let bytes_of = |id: u32| span_of.get(&id).map(|&(s, l)| &arena[s as usize..(s + l) as usize]);
        // With `ignore_merges`, a whole piece that is a token no merge makes is that token: the
        // engine never gives it. That is only safe when each such token is an added token (the
        // split finds it first), and is handled per call when one is encoded as text.
        let mut whole_only = Vec::new();
        if bpe.ignores_merges() && model.vocab_size() > span_of.len() {
            for (token, id) in model.vocab() {
                if span_of.contains_key(&id) {
                    continue;
                }
                if added.token_to_id(&token) != Some(id) {
                    return Ok(None);
                }
                whole_only.push(id);
            }
        }
        let mut mergeable: Vec<(Vec<u8>, u32)> = Vec::with_capacity(256 + made.len());
        mergeable.extend(byte_id.iter().zip(0..=255u8).map(|(&id, b)| (vec![b], id)));
        for &id in &made {
            mergeable.push((bytes_of(id).unwrap_or_default().to_vec(), id));
        }
        // Each made token must come back whole from its own characters by HF's merges alone:
        // the engine may build it inside a longer piece, where HF merges (`ignore_merges` only
        // spares whole pieces, so it does not excuse this). The characters of a made token are
        // byte characters (the merges built it from them), so its symbols start as the bytes'
        // ids; `merged_whole` then runs HF's merge loop on them. The check runs on two threads
        // while this one builds the engine's vocabulary.
        let half = made.len() / 2;
        let (first, second) = made.split_at(half);
        let pairs = BytePairs::new(&byte_id, bpe);
        let whole = |ids: &[u32]| -> bool {
            let (mut syms, mut ranks) = (Vec::new(), Vec::new());
            ids.iter().all(|&id| {
                model.id_to_token(id).is_some()
                    && bytes_of(id).is_some_and(|b| merged_whole(b, &pairs, bpe, id, &mut syms, &mut ranks))
            })
        };
        let name = format!("hf:{}", re.name());
        let (ok1, ok2, bpe) = std::thread::scope(|sc| {
            let h1 = sc.spawn(|| whole(first));
            let h2 = sc.spawn(|| whole(second));
            let bpe = CoreBpe::from_parts(mergeable, Vec::new(), re.clone(), name);
            let join = |h: std::thread::ScopedJoinHandle<'_, bool>| {
                h.join().map_err(|_| CoreError::Internal("a load thread panicked".into()))
            };
            (join(h1), join(h2), bpe)
        });
        let ok = ok1.and_then(|a| ok2.map(|b| a && b));
        if !ok? {
            return Ok(None);
        }
        let bpe = bpe?;
        Ok(Some(Fast::Bpe { bpe: Box::new(bpe), whole_only }))
    }

    /// Appends the ids of a piece of the original text with no added token in it.
    #[inline]
    pub fn encode_segment(&self, text: &str, ids: &mut Vec<u32>, scratch: &mut FastScratch) -> Result<(), CoreError> {
        match self {
            Fast::Bpe { bpe, .. } => bpe.encode_segment(text, ids, &mut scratch.bpe),
            Fast::Bert(bert) => {
                bert.encode_ids_into(text, ids, &mut scratch.bert);
                Ok(())
            }
        }
    }

    /// Which pre-tokenizer splits the text: the byte-level engine's matcher (`"r50k"`,
    /// `"o200k"`, `"llama3"`, ..., or `"regex"`), or `"bert"`.
    pub fn pretokenizer_name(&self) -> &'static str {
        match self {
            Fast::Bpe { bpe, .. } => bpe.pretokenizer.name(),
            Fast::Bert(_) => "bert",
        }
    }
}

/// No merge: the rank and id of a pair that does not merge.
const NO_MERGE: (u32, u32) = (u32::MAX, u32::MAX);

/// The merge of each pair of bytes' tokens, by `(first byte << 8) | second byte`: the first
/// round of `merged_whole` without a hash lookup.
struct BytePairs {
    ids: [u32; 256],
    merges: Vec<(u32, u32)>,
}

impl BytePairs {
    fn new(ids: &[u32; 256], bpe: &super::models::Bpe) -> Self {
        let merges = (0..1usize << 16).map(|k| bpe.merge_of(ids[k >> 8], ids[k & 255]).unwrap_or(NO_MERGE)).collect();
        BytePairs { ids: *ids, merges }
    }
}

/// True when HF's merge loop (`Bpe::merge_all`) on the byte tokens of `bytes` ends in the one
/// token `want`. The loop applies the adjacent pair of lowest merge rank, leftmost first; as
/// every merge makes its own token (checked before), a rank names one pair, and scanning the
/// current pairs for that minimum is exactly what HF's heap pops (its stale entries are the
/// pairs no longer present). Tokens are short, so a scan beats a heap.
fn merged_whole(
    bytes: &[u8],
    pairs: &BytePairs,
    bpe: &super::models::Bpe,
    want: u32,
    syms: &mut Vec<u32>,
    ranks: &mut Vec<(u32, u32)>,
) -> bool {
    syms.clear();
    syms.extend(bytes.iter().map(|&b| pairs.ids[b as usize]));
    // ranks[i]: (rank, merged id) of the pair (syms[i], syms[i + 1]).
    ranks.clear();
    ranks.extend(bytes.windows(2).map(|w| pairs.merges[(w[0] as usize) << 8 | w[1] as usize]));
    let pair = |syms: &[u32], i: usize| bpe.merge_of(syms[i], syms[i + 1]).unwrap_or(NO_MERGE);
    while let Some((i, &(rank, id))) = ranks.iter().enumerate().min_by_key(|&(i, &(r, _))| (r, i)) {
        if rank == u32::MAX {
            break;
        }
        syms[i] = id;
        syms.remove(i + 1);
        ranks.remove(i);
        if i < ranks.len() {
            ranks[i] = pair(syms, i);
        }
        if i > 0 {
            ranks[i - 1] = pair(syms, i - 1);
        }
    }
    syms.len() == 1 && syms[0] == want
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};

    /// A byte-level BPE model: the 256 byte characters, then each merge's token in order.
    fn model(merges: &[(&str, &str)]) -> Model {
        let mut vocab = Map::new();
        for (i, c) in BYTE_TO_CHAR.iter().enumerate() {
            vocab.insert(c.to_string(), json!(i));
        }
        for (a, b) in merges {
            let n = vocab.len();
            vocab.entry(format!("{a}{b}")).or_insert(json!(n));
        }
        let merges: Vec<Value> = merges.iter().map(|(a, b)| json!([a, b])).collect();
        Model::from_json(&json!({"type": "BPE", "vocab": vocab, "merges": merges}), "model").unwrap()
    }

    /// `merged_whole` agrees with HF's own loop (`Bpe::tokenize`) on every merged token.
    #[test]
    fn merged_whole_is_hf_merging() {
        let cases: &[&[(&str, &str)]] = &[
            &[("a", "b"), ("b", "c"), ("ab", "c"), ("c", "c"), ("abc", "cc")],
            // "abc" = a + bc, but HF merges a b first: not rebuilt.
            &[("a", "b"), ("b", "c"), ("a", "bc")],
            &[("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("e", "e"), ("Ġthe", "e"), ("ee", "e")],
        ];
        for merges in cases {
            let m = model(merges);
            let Model::Bpe(bpe) = &m else { panic!("not BPE") };
            let mut byte_id = [0u32; 256];
            for (b, c) in BYTE_TO_CHAR.iter().enumerate() {
                byte_id[b] = m.token_to_id(&c.to_string()).unwrap();
            }
            let pairs = BytePairs::new(&byte_id, bpe);
            let (mut syms, mut ranks) = (Vec::new(), Vec::new());
            for (a, b) in *merges {
                let token = format!("{a}{b}");
                let id = m.token_to_id(&token).unwrap();
                let bytes: Vec<u8> = token.chars().map(|c| crate::hf::bytes::char_to_byte(c).unwrap()).collect();
                let mut toks = Vec::new();
                m.tokenize(&token, &mut toks).unwrap();
                let hf = toks.len() == 1 && toks[0].id == id;
                assert_eq!(merged_whole(&bytes, &pairs, bpe, id, &mut syms, &mut ranks), hf, "{token}");
            }
        }
    }

    /// With `ignore_merges`, a made token the merges do not rebuild ("abc" = a + bc, but HF
    /// merges a b first) still rules the fast path out: inside "abcx" HF gives ab c x.
    #[test]
    fn ignore_merges_does_not_excuse_a_token_not_rebuilt() {
        let m = model(&[("a", "b"), ("b", "c"), ("a", "bc")]);
        let Model::Bpe(mut bpe) = m else { panic!("not BPE") };
        bpe.set_ignore_merges_for_test(true);
        let m = Model::Bpe(bpe);
        let pre = PreTokenizer::from_json(
            &json!({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}),
            "pre_tokenizer",
        )
        .unwrap();
        assert!(Fast::new(None, Some(&pre), &m, &AddedVocabulary::default()).unwrap().is_none());
        let ok = model(&[("a", "b"), ("ab", "c")]);
        assert!(Fast::new(None, Some(&pre), &ok, &AddedVocabulary::default()).unwrap().is_some());
    }
}
