//! The byte-level fast path: a `tokenizer.json` that is byte-level BPE (GPT-2, o200k, Llama 3,
//! Qwen2...) runs on tokenmill's own byte-level engine (`bpe::CoreBpe`: the hand-written
//! pre-tokenizers and the tiktoken-style merge loop) instead of the general pipeline.
//!
//! When it applies (`FastBpe::new` decides, at load time, and says None otherwise): no
//! normalizer; a pre-tokenizer that is `ByteLevel` with its GPT-2 regex, or a regex `Split`
//! followed by `ByteLevel` without regex (the pieces of the split are then exactly
//! `find_iter`'s: a `Removed` + `invert` split, or an `Isolated` one whose regex covers every
//! character, which the hand-written matchers' patterns do), neither adding a prefix space;
//! a BPE model with no continuing prefix or end-of-word suffix whose vocabulary has all 256
//! byte characters.
//!
//! Why the result is HF's: HF merges the adjacent pair of lowest merge rank; the engine merges
//! the adjacent pair whose concatenation has the lowest id. These agree when (checked here,
//! or no fast path) each merge makes a token no other merge makes, the ids of the tokens the
//! merges make grow with the merge rank, and merging each such token's own bytes the HF way
//! gives back that one token (the engine returns a piece that is a token as that token, HF
//! does so only with `ignore_merges` or when the merges rebuild it; this check also catches a
//! token made from a pair whose parts the merges never leave side by side). Tokens that no
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
            pattern: CompiledPattern::Regex(Pretokenizer::Regex(re)),
            behavior: SplitBehavior::Isolated,
            invert: false,
        } if re.as_str() == pattern)
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
        // Token bytes by id, starting from the 256 byte characters.
        let mut bytes_of: rustc_hash::FxHashMap<u32, Vec<u8>> = rustc_hash::FxHashMap::default();
        let mut mergeable: Vec<(Vec<u8>, u32)> = Vec::with_capacity(model.vocab_size());
        for b in 0..=255u8 {
            let mut buf = [0u8; 4];
            let Some(id) = model.token_to_id(BYTE_TO_CHAR[b as usize].encode_utf8(&mut buf)) else {
                return Ok(None);
            };
            if bytes_of.insert(id, vec![b]).is_some() {
                return Ok(None);
            }
            mergeable.push((vec![b], id));
        }
        let mut last: Option<u32> = None;
        let mut made = Vec::new();
        for (a, b, id) in bpe.merges_in_rank_order() {
            if last.is_some_and(|l| id <= l) || bytes_of.contains_key(&id) {
                return Ok(None); // ids not growing with the rank, or a token made twice
            }
            let (Some(x), Some(y)) = (bytes_of.get(&a), bytes_of.get(&b)) else { return Ok(None) };
            let t = [x.as_slice(), y.as_slice()].concat();
            bytes_of.insert(id, t.clone());
            mergeable.push((t, id));
            made.push(id);
            last = Some(id);
        }
        // With `ignore_merges`, a whole piece that is a token no merge makes is that token: the
        // engine never gives it. That is only safe when each such token is an added token (the
        // split finds it first), and is handled per call when one is encoded as text.
        let mut whole_only = Vec::new();
        if bpe.ignores_merges() && model.vocab_size() > mergeable.len() {
            for (token, id) in model.vocab() {
                if bytes_of.contains_key(&id) {
                    continue;
                }
                if added.token_to_id(&token) != Some(id) {
                    return Ok(None);
                }
                whole_only.push(id);
            }
        }
        // Each made token must come back whole from its own characters, merged HF's way. The
        // check (about a microsecond per token) runs on two threads while a third builds the
        // engine's vocabulary: loading stays as fast as HF's for 200k-token files.
        let half = made.len() / 2;
        let (first, second) = made.split_at(half);
        let whole = |ids: &[u32]| -> Result<bool, CoreError> {
            let mut toks = Vec::new();
            for &id in ids {
                let Some(s) = model.id_to_token(id) else { return Ok(false) };
                toks.clear();
                model.tokenize(s, &mut toks)?;
                if toks.len() != 1 || toks[0].id != id {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let name = format!("hf:{}", re.name());
        let (ok1, ok2, bpe) = std::thread::scope(|sc| {
            let h1 = sc.spawn(|| whole(first));
            let h2 = sc.spawn(|| whole(second));
            let bpe = CoreBpe::from_parts(mergeable, Vec::new(), re.clone(), name);
            let join = |h: std::thread::ScopedJoinHandle<'_, Result<bool, CoreError>>| {
                h.join().unwrap_or_else(|_| Err(CoreError::Internal("a load thread panicked".into())))
            };
            (join(h1), join(h2), bpe)
        });
        if !(ok1? && ok2?) {
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
