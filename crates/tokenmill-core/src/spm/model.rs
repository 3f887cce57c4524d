//! A loaded SentencePiece model: normalizer + Unigram or BPE segmentation + byte fallback, with
//! encode (ids, offsets, n-best, sampling) and decode exactly as `sentencepiece` 0.2.
//!
//! After segmentation (spans of the normalized bytes with ids), an unknown span becomes one
//! `<0xNN>` piece per byte when `byte_fallback` is on; otherwise consecutive unknown spans
//! become a single unknown id (sentencepiece's `PopulateSentencePieceText`). Offsets map span
//! ends back to the original text through the normalizer's alignment; byte pieces of one
//! unknown character all begin where it begins and only the last one ends where it ends, as in
//! sentencepiece's `SentencePieceText`. Not here: bos/eos, WORD and CHAR models, the
//! `denormalizer_spec`, Gumbel sampling with scores (`SampleEncodeAndScore`).

use rustc_hash::FxHashMap;

use super::bpe::{Bpe, BpeScratch};
use super::normalizer::Normalizer;
use super::proto::{ModelProto, ModelType, PieceType};
use super::unigram::{one_char_len, Rng, Span, Unigram, UnigramScratch};
use crate::error::CoreError;

/// Per-thread working memory for encoding (reused across calls; never shared).
#[derive(Debug, Default)]
pub struct Scratch {
    norm: Vec<u8>,
    spans: Vec<Span>,
    unigram: UnigramScratch,
    bpe: BpeScratch,
}

#[derive(Debug, Clone)]
enum Segmenter {
    Unigram(Unigram),
    Bpe(Box<Bpe>),
}

/// An immutable SentencePiece model (share it between threads; each thread has a `Scratch`).
#[derive(Debug, Clone)]
pub struct SentencePiece {
    proto: ModelProto,
    normalizer: Normalizer,
    seg: Segmenter,
    /// UNKNOWN, CONTROL and BYTE pieces (looked up first), then the others.
    reserved: FxHashMap<String, u32>,
    vocab: FxHashMap<String, u32>,
    unk_id: u32,
    byte_fallback: bool,
    /// Id of `<0xNN>` per byte (the unknown id when absent).
    byte_ids: [u32; 256],
    /// Byte value of each BYTE piece, -1 for other pieces.
    byte_value: Vec<i16>,
}

impl SentencePiece {
    /// Builds the model. Errors: `CoreError::Vocab` naming the field (an empty or duplicate
    /// piece, a NaN or infinite score, no UNKNOWN piece, a BYTE piece not of the form `<0xNN>` or without
    /// `byte_fallback`, a bad charsmap); `CoreError::Unsupported` for WORD and CHAR models.
    pub fn new(proto: ModelProto) -> Result<Self, CoreError> {
        let model_type = proto.trainer_spec.model_type;
        if !matches!(model_type, ModelType::Unigram | ModelType::Bpe) {
            return Err(CoreError::Unsupported(format!(
                "trainer_spec.model_type: {model_type:?} is not supported (supported: UNIGRAM=1, BPE=2)"
            )));
        }
        let byte_fallback = proto.trainer_spec.byte_fallback;
        let mut reserved = FxHashMap::default();
        let mut vocab = FxHashMap::default();
        let mut unk_id = None;
        let mut byte_value = vec![-1i16; proto.pieces.len()];
        if proto.pieces.len() >= u32::MAX as usize {
            return Err(CoreError::Vocab(format!("pieces: {} pieces do not fit 32-bit ids", proto.pieces.len())));
        }
        for (i, p) in proto.pieces.iter().enumerate() {
            let piece = &p.piece;
            if piece.is_empty() {
                return Err(CoreError::Vocab(format!("pieces[{i}] is empty: every piece needs at least one byte")));
            }
            // Decided (ADVERSARIAL G6): refused, as sentencepiece 0.2.2+ refuses it, so that every
            // model tokenmill reads is one sentencepiece reads and encodes the same way.
            if piece.contains('\0') {
                return Err(CoreError::Vocab(format!(
                    "pieces[{i}] ({piece:?}) contains a NUL character, which sentencepiece (0.2.2+) refuses too"
                )));
            }
            if piece.len() >= 8000 {
                return Err(CoreError::Vocab(format!(
                    "pieces[{i}] is {} bytes long: sentencepiece refuses pieces of 8000 bytes or more",
                    piece.len()
                )));
            }
            // Infinite scores too, as sentencepiece 0.2.3 refuses them ("score is NaN or Inf"):
            // a Viterbi sum of -inf and +inf would be NaN, and no order of paths is defined.
            if !p.score.is_finite() {
                return Err(CoreError::Vocab(format!(
                    "pieces[{i}] ({piece:?}) has score {}: scores must be finite numbers",
                    p.score
                )));
            }
            // Unigram keeps reserved pieces (UNKNOWN, CONTROL, BYTE) in a table of their own,
            // so a normal piece may share their text; BPE (0.2.3) has one table for all.
            let table = match p.kind {
                PieceType::Normal | PieceType::UserDefined | PieceType::Unused => &mut vocab,
                _ if model_type == ModelType::Bpe => &mut vocab,
                _ => &mut reserved,
            };
            if let Some(first) = table.insert(piece.clone(), i as u32) {
                return Err(CoreError::Vocab(format!("pieces[{i}]: {piece:?} appears twice (first at id {first})")));
            }
            if p.kind == PieceType::Unknown {
                if let Some(first) = unk_id {
                    return Err(CoreError::Vocab(format!(
                        "pieces[{i}] ({piece:?}) is a second UNKNOWN piece (first at id {first}): sentencepiece allows one"
                    )));
                }
                unk_id = Some(i as u32);
            }
            if p.kind == PieceType::Byte {
                if !byte_fallback {
                    return Err(CoreError::Vocab(format!(
                        "pieces[{i}] ({piece:?}) is a byte piece but trainer_spec.byte_fallback is off"
                    )));
                }
                let b = piece.as_bytes();
                let hex = |c: u8| c.is_ascii_digit() || (b'A'..=b'F').contains(&c);
                if !(b.len() == 6 && piece.starts_with("<0x") && b[5] == b'>' && hex(b[3]) && hex(b[4])) {
                    return Err(CoreError::Vocab(format!(
                        "pieces[{i}] ({piece:?}) is a byte piece but not of the form <0xNN>"
                    )));
                }
                byte_value[i] = i16::from_str_radix(&piece[3..5], 16).unwrap_or(-1);
            }
        }
        let Some(unk_id) = unk_id else {
            return Err(CoreError::Vocab(
                "pieces: no piece of type UNKNOWN: sentencepiece requires an unknown piece".into(),
            ));
        };
        let lookup = |piece: &str| reserved.get(piece).or_else(|| vocab.get(piece)).copied();
        let byte_ids: [u32; 256] = std::array::from_fn(|b| lookup(&format!("<0x{b:02X}>")).unwrap_or(unk_id));
        if byte_fallback {
            if let Some(b) = (0..256).find(|&b| !byte_value.contains(&(b as i16))) {
                return Err(CoreError::Vocab(format!(
                    "trainer_spec.byte_fallback is on but there is no BYTE piece <0x{b:02X}>: sentencepiece requires all 256"
                )));
            }
        }
        let user: Vec<&str> =
            proto.pieces.iter().filter(|p| p.kind == PieceType::UserDefined).map(|p| p.piece.as_str()).collect();
        let normalizer = Normalizer::new(&proto.normalizer_spec, &proto.trainer_spec, &user)?;
        let seg = match model_type {
            ModelType::Bpe => Segmenter::Bpe(Box::new(Bpe::new(&proto, unk_id))),
            _ => Segmenter::Unigram(Unigram::new(&proto, unk_id)),
        };
        Ok(SentencePiece { proto, normalizer, seg, reserved, vocab, unk_id, byte_fallback, byte_ids, byte_value })
    }

    /// Parses and builds a `.model` file's bytes.
    pub fn from_bytes(data: &[u8]) -> Result<Self, CoreError> {
        Self::new(ModelProto::parse(data)?)
    }

    /// The proto it was built from (for saving and for the Python side's introspection).
    pub fn proto(&self) -> &ModelProto {
        &self.proto
    }

    /// Number of pieces (ids are `0..vocab_size`).
    pub fn vocab_size(&self) -> usize {
        self.proto.pieces.len()
    }

    /// The id of a piece as sentencepiece's `PieceToId` finds it, `None` when absent.
    pub fn piece_to_id(&self, piece: &str) -> Option<u32> {
        self.reserved.get(piece).or_else(|| self.vocab.get(piece)).copied()
    }

    /// The piece of `id`, `None` when out of range.
    pub fn id_to_piece(&self, id: u32) -> Option<&str> {
        self.proto.pieces.get(id as usize).map(|p| p.piece.as_str())
    }

    /// The score of `id`, `None` when out of range.
    pub fn score(&self, id: u32) -> Option<f32> {
        self.proto.pieces.get(id as usize).map(|p| p.score)
    }

    /// The type of `id`, `None` when out of range.
    pub fn kind(&self, id: u32) -> Option<PieceType> {
        self.proto.pieces.get(id as usize).map(|p| p.kind)
    }

    /// The id of the UNKNOWN piece.
    pub fn unk_id(&self) -> u32 {
        self.unk_id
    }

    /// The normalized text segmentation sees (spaces as U+2581 when escaping is on).
    pub fn normalize(&self, text: &str) -> String {
        let mut out = Vec::new();
        self.normalizer.normalize(text, &mut out, None);
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// Segments the normalized bytes in `scratch.norm` into `scratch.spans`.
    fn segment(&self, scratch: &mut Scratch) {
        scratch.spans.clear();
        match &self.seg {
            Segmenter::Unigram(u) => u.viterbi(&scratch.norm, &mut scratch.unigram, &mut scratch.spans),
            Segmenter::Bpe(b) => b.encode(&scratch.norm, &mut scratch.bpe, &mut scratch.spans),
        }
    }

    /// Spans to ids: byte fallback, or runs of unknowns merged.
    fn emit(&self, norm: &[u8], spans: &[Span], out: &mut Vec<u32>) {
        let mut prev_unk = false;
        for sp in spans {
            let unk = sp.id == self.unk_id;
            if unk && self.byte_fallback {
                out.extend(norm[sp.start as usize..sp.end as usize].iter().map(|&b| self.byte_ids[b as usize]));
            } else if !(unk && prev_unk) {
                out.push(sp.id);
            }
            prev_unk = unk;
        }
    }

    /// Appends the ids of `text` to `out` (as `SentencePieceProcessor.encode(text)`).
    pub fn encode_into(&self, text: &str, scratch: &mut Scratch, out: &mut Vec<u32>) {
        scratch.norm.clear();
        self.normalizer.normalize(text, &mut scratch.norm, None);
        if let Segmenter::Unigram(u) = &self.seg {
            // Ids straight from the backtrace: no spans to emit (5% of a batch's instructions);
            // the text ends in the 0xFF its walks stop at (`Unigram::viterbi_ids`).
            let bytes = self.byte_fallback.then_some(&self.byte_ids);
            scratch.norm.push(0xFF);
            return u.viterbi_ids(&scratch.norm, bytes, &mut scratch.unigram, out);
        }
        self.segment(scratch);
        self.emit(&scratch.norm, &scratch.spans, out);
    }

    /// Ids of `text`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.encode_into(text, &mut Scratch::default(), &mut out);
        out
    }

    /// Ids with the byte span of `text` each token comes from (sentencepiece's `begin`/`end`
    /// of its `SentencePieceText`, in bytes).
    pub fn encode_with_offsets(&self, text: &str) -> (Vec<u32>, Vec<(u32, u32)>) {
        let mut scratch = Scratch::default();
        let mut align = Vec::new();
        self.normalizer.normalize(text, &mut scratch.norm, Some(&mut align));
        self.segment(&mut scratch);
        let (mut ids, mut offsets) = (Vec::new(), Vec::new());
        let at = |i: u32| align.get(i as usize).copied().unwrap_or(text.len() as u32);
        let mut prev_unk = false;
        for sp in &scratch.spans {
            let unk = sp.id == self.unk_id;
            let (begin, end) = (at(sp.start), at(sp.end));
            if unk && self.byte_fallback {
                for k in sp.start..sp.end {
                    ids.push(self.byte_ids[scratch.norm[k as usize] as usize]);
                    offsets.push((begin, if k + 1 == sp.end { end } else { begin }));
                }
            } else if unk && prev_unk {
                if let Some(last) = offsets.last_mut() {
                    last.1 = end;
                }
            } else {
                ids.push(sp.id);
                offsets.push((begin, end));
            }
            prev_unk = unk;
        }
        (ids, offsets)
    }

    /// The `k` best segmentations with their scores, best first (Unigram only: BPE gives
    /// `CoreError::Unsupported`, as sentencepiece does).
    pub fn nbest(&self, text: &str, k: usize) -> Result<Vec<(Vec<u32>, f32)>, CoreError> {
        let Segmenter::Unigram(u) = &self.seg else {
            return Err(CoreError::Unsupported(
                "n-best encoding is only available for Unigram models (this one is BPE)".into(),
            ));
        };
        let mut scratch = Scratch::default();
        self.normalizer.normalize(text, &mut scratch.norm, None);
        let paths = u.nbest(&scratch.norm, k, &mut scratch.unigram);
        Ok(paths
            .into_iter()
            .map(|(spans, score)| {
                let mut ids = Vec::new();
                self.emit(&scratch.norm, &spans, &mut ids);
                (ids, score)
            })
            .collect())
    }

    /// One sampled segmentation (subword regularization), reproducible from `seed`. Unigram:
    /// `nbest_size` -1 samples from the whole lattice (forward-filtering backward-sampling with
    /// scores scaled by `alpha`), 0/1 is Viterbi, > 1 samples among the n-best. BPE: BPE-dropout
    /// with probability `alpha` (`nbest_size` ignored).
    pub fn sample_into(
        &self,
        text: &str,
        alpha: f32,
        nbest_size: i32,
        seed: u64,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) -> Result<(), CoreError> {
        if nbest_size > 512 {
            return Err(CoreError::Input(format!("nbest_size must be at most 512, got {nbest_size}")));
        }
        if !(alpha.is_finite() && alpha >= 0.0) {
            return Err(CoreError::Input(format!("alpha must be a finite number >= 0, got {alpha}")));
        }
        scratch.norm.clear();
        self.normalizer.normalize(text, &mut scratch.norm, None);
        scratch.spans.clear();
        let mut rng = Rng::new(seed);
        match &self.seg {
            Segmenter::Bpe(b) => b.sample(&scratch.norm, alpha, &mut rng, &mut scratch.bpe, &mut scratch.spans),
            Segmenter::Unigram(u) if nbest_size < 0 => u.sample(&scratch.norm, alpha, &mut rng, &mut scratch.spans),
            Segmenter::Unigram(u) if nbest_size <= 1 => {
                u.viterbi(&scratch.norm, &mut scratch.unigram, &mut scratch.spans)
            }
            Segmenter::Unigram(u) => {
                let paths = u.nbest(&scratch.norm, nbest_size as usize, &mut scratch.unigram);
                // Weights exp(alpha * score), shifted by the maximum (the normalizer cancels).
                let logp: Vec<f64> = paths.iter().map(|(_, s)| (alpha * s) as f64).collect();
                let top = logp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let weights: Vec<f64> = logp.iter().map(|l| (l - top).exp()).collect();
                if !paths.is_empty() {
                    scratch.spans.extend_from_slice(&paths[rng.pick(&weights)].0);
                }
            }
        }
        self.emit(&scratch.norm, &scratch.spans, out);
        Ok(())
    }

    /// Text of `ids` (as `SentencePieceProcessor.decode`). Errors: an id out of range.
    pub fn decode(&self, ids: &[u32]) -> Result<String, CoreError> {
        let norm = &self.proto.normalizer_spec;
        let strip = norm.add_dummy_prefix || norm.remove_extra_whitespaces;
        let mut out = String::new();
        let mut pending: Vec<u8> = Vec::new();
        // Only a U+2581 at the very start of the text is the dummy prefix.
        let (mut bos_ws, mut bos_ws_seen) = (true, false);
        for (position, &id) in ids.iter().enumerate() {
            let Some(p) = self.proto.pieces.get(id as usize) else {
                return Err(CoreError::TokenId { id: id as u64, position, n_vocab: self.proto.pieces.len() as u64 });
            };
            if p.kind == PieceType::Byte {
                pending.push(self.byte_value[id as usize] as u8);
                continue;
            }
            if !pending.is_empty() {
                push_bytes_text(&mut out, &pending);
                pending.clear();
            }
            if bos_ws_seen || !out.is_empty() {
                bos_ws = false;
            }
            bos_ws_seen = false;
            match p.kind {
                PieceType::Control => {}
                PieceType::Unknown => out.push_str(&self.proto.trainer_spec.unk_surface),
                _ => {
                    let mut piece = p.piece.as_str();
                    if bos_ws && strip {
                        if let Some(rest) = piece.strip_prefix('\u{2581}') {
                            piece = rest;
                            bos_ws_seen = !norm.remove_extra_whitespaces;
                        }
                    }
                    for c in piece.chars() {
                        out.push(if c == '\u{2581}' { ' ' } else { c });
                    }
                }
            }
        }
        if !pending.is_empty() {
            push_bytes_text(&mut out, &pending);
        }
        Ok(out)
    }
}

/// UTF-8 bytes to text, each byte of an invalid sequence becoming one U+FFFD (sentencepiece
/// steps by the lead byte's length and falls back one byte at a time).
fn push_bytes_text(out: &mut String, data: &[u8]) {
    let mut pos = 0;
    while pos < data.len() {
        let n = one_char_len(data[pos]);
        match data.get(pos..pos + n).and_then(|c| std::str::from_utf8(c).ok()) {
            Some(c) => {
                out.push_str(c);
                pos += n;
            }
            None => {
                out.push('\u{FFFD}');
                pos += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spm::proto::{NormalizerSpec, Piece, TrainerSpec};
    use PieceType::{Byte as B, Control as C, Normal as N, Unknown as U, Unused as X};

    fn proto(pieces: &[(&str, f32, PieceType)], model_type: ModelType, byte_fallback: bool) -> ModelProto {
        let mut all: Vec<Piece> =
            pieces.iter().map(|&(p, s, k)| Piece { piece: p.into(), score: s, kind: k }).collect();
        if byte_fallback {
            all.extend((0..256).map(|b| Piece { piece: format!("<0x{b:02X}>"), score: 0.0, kind: B }));
        }
        ModelProto {
            pieces: all,
            trainer_spec: TrainerSpec { model_type, byte_fallback, ..Default::default() },
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
            extra: Vec::new(),
        }
    }

    fn model(pieces: &[(&str, f32, PieceType)], model_type: ModelType, byte_fallback: bool) -> SentencePiece {
        SentencePiece::new(proto(pieces, model_type, byte_fallback)).unwrap()
    }

    const PIECES: [(&str, f32, PieceType); 6] = [
        ("<unk>", 0.0, U),
        ("<s>", 0.0, C),
        ("\u{2581}a", -1.0, N),
        ("b", -2.0, N),
        ("\u{2581}", -3.0, N),
        ("a", -3.0, N),
    ];

    #[test]
    fn unknown_runs_merge_and_byte_fallback_spells_bytes() {
        for t in [ModelType::Unigram, ModelType::Bpe] {
            let m = model(&PIECES, t, false);
            assert_eq!(m.encode("a éé b"), [2, 4, 0, 4, 3], "{t:?}");
            let m = model(&PIECES, t, true);
            let e = 6 + 0xC3;
            assert_eq!(m.encode("a é"), [2, 4, e, 6 + 0xA9], "{t:?}");
            assert_eq!(m.decode(&m.encode("a é b")).unwrap(), "a é b");
        }
    }

    #[test]
    fn offsets_point_into_the_original_text() {
        let m = model(&PIECES, ModelType::Unigram, true);
        let (ids, offs) = m.encode_with_offsets("a  é");
        // "▁a" <- "a"; "▁" <- the kept space; é as two bytes: the first empty, the last whole.
        assert_eq!(ids, [2, 4, 6 + 0xC3, 6 + 0xA9]);
        assert_eq!(offs, [(0, 1), (1, 3), (3, 3), (3, 5)]);
        let m = model(&PIECES, ModelType::Unigram, false);
        assert_eq!(m.encode_with_offsets("éé"), (vec![4, 0], vec![(0, 0), (0, 4)]));
    }

    #[test]
    fn decode_follows_sentencepiece() {
        let m = model(&PIECES, ModelType::Unigram, true);
        // The first piece's dummy-prefix space goes; control pieces are empty; unknown is " ⁇ ".
        assert_eq!(m.decode(&[2, 2]).unwrap(), "a a");
        assert_eq!(m.decode(&[1, 2, 0, 3]).unwrap(), "a ⁇ b");
        // With remove_extra_whitespaces every leading U+2581 goes (sentencepiece: "a").
        assert_eq!(m.decode(&[4, 4, 2]).unwrap(), "a");
        assert_eq!(m.decode(&[5, 4, 2]).unwrap(), "a  a");
        // Byte runs as UTF-8, each invalid byte one U+FFFD.
        assert_eq!(m.decode(&[6 + 0xC3, 6 + 0xA9, 6 + 0xFF, 6 + 0xC3, 3]).unwrap(), "é\u{FFFD}\u{FFFD}b");
        assert_eq!(m.decode(&[2, 9999]), Err(CoreError::TokenId { id: 9999, position: 1, n_vocab: 262 }));
        assert_eq!(m.id_to_piece(2), Some("\u{2581}a"));
        assert_eq!(m.kind(1), Some(PieceType::Control));
        assert_eq!(m.score(3), Some(-2.0));
        assert_eq!(m.piece_to_id("<s>"), Some(1));
        assert_eq!(m.piece_to_id("zz"), None);
    }

    #[test]
    fn nbest_and_sampling_entry_points() {
        let m = model(&PIECES, ModelType::Unigram, false);
        let nb = m.nbest("a", 5).unwrap();
        assert_eq!(nb, [(vec![2], -1.0), (vec![4, 5], -6.0)]);
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        m.sample_into("a", 0.5, 0, 1, &mut scratch, &mut out).unwrap();
        assert_eq!(out, [2]);
        assert!(matches!(m.sample_into("a", 0.5, 513, 1, &mut scratch, &mut out), Err(CoreError::Input(_))));
        assert!(matches!(m.sample_into("a", f32::NAN, -1, 1, &mut scratch, &mut out), Err(CoreError::Input(_))));
        // nbest_size > 1: frequencies follow exp(alpha * score) over the two paths.
        let mut first = 0;
        for seed in 0..4000 {
            out.clear();
            m.sample_into("a", 0.5, 2, seed, &mut scratch, &mut out).unwrap();
            first += (out == [2]) as usize;
        }
        let p = 1.0 / (1.0 + (-2.5f64).exp());
        assert!((first as f64 / 4000.0 - p).abs() < 0.03, "{first}");
        let b = model(&PIECES, ModelType::Bpe, false);
        assert!(matches!(b.nbest("a", 2), Err(CoreError::Unsupported(_))));
        out.clear();
        b.sample_into("a b", 1.0, -1, 1, &mut scratch, &mut out).unwrap();
        assert_eq!(out, [4, 5, 4, 3]);
    }

    #[test]
    fn load_errors_name_the_piece() {
        let err = |pieces: &[(&str, f32, PieceType)], t: ModelType, bf: bool| match SentencePiece::new(proto(
            pieces, t, bf,
        )) {
            Err(CoreError::Vocab(m)) => m,
            other => panic!("{other:?}"),
        };
        assert!(err(&[("<unk>", 0.0, U), ("", 0.0, N)], ModelType::Unigram, false).contains("pieces[1] is empty"));
        assert!(err(&[("<unk>", 0.0, U), ("a", f32::NAN, N)], ModelType::Unigram, false).contains("NaN"));
        assert!(err(&[("<unk>", 0.0, U), ("a", f32::NEG_INFINITY, N)], ModelType::Bpe, false).contains("-inf"));
        assert!(err(&[("<unk>", 0.0, U), ("a", 0.0, N), ("a", 0.0, X)], ModelType::Unigram, false).contains("twice"));
        // BPE has one table: a normal piece may not repeat a control piece's text.
        assert!(err(&[("<unk>", 0.0, U), ("<s>", 0.0, C), ("<s>", 0.0, N)], ModelType::Bpe, false).contains("twice"));
        assert!(SentencePiece::new(proto(
            &[("<unk>", 0.0, U), ("<s>", 0.0, C), ("<s>", 0.0, N)],
            ModelType::Unigram,
            false
        ))
        .is_ok());
        assert!(err(&[("a", 0.0, N)], ModelType::Unigram, false).contains("UNKNOWN"));
        assert!(err(&[("<unk>", 0.0, U), ("<unk2>", 0.0, U)], ModelType::Unigram, false).contains("second UNKNOWN"));
        assert!(
            err(&[("<unk>", 0.0, U), ("<0x41>", 0.0, B)], ModelType::Unigram, false).contains("byte_fallback is off")
        );
        assert!(err(&[("<unk>", 0.0, U), ("<0xZZ>", 0.0, B)], ModelType::Unigram, true).contains("<0xNN>"));
        let mut p = proto(&[("<unk>", 0.0, U)], ModelType::Unigram, true);
        p.pieces.pop();
        assert!(matches!(SentencePiece::new(p), Err(CoreError::Vocab(m)) if m.contains("<0xFF>")));
        let mut p = proto(&[("<unk>", 0.0, U)], ModelType::Unigram, false);
        p.trainer_spec.model_type = ModelType::Word;
        assert!(matches!(SentencePiece::new(p), Err(CoreError::Unsupported(_))));
    }
}
