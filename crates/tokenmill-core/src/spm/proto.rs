//! The `ModelProto` of a sentencepiece `.model` file, decoded and encoded by hand (protobuf wire
//! format: varints, fixed32 floats, length-delimited strings and messages).
//!
//! Field numbers follow sentencepiece's `sentencepiece_model.proto`. Fields that only steer
//! training (and `self_test_data`) are kept as raw bytes (`extra`) so that a load -> save round
//! trip loses nothing that sentencepiece reads: `parse(write(parse(f))) == parse(f)`.
//!
//! Decisions:
//! - `write` emits every modelled field, defaults included (so a `ModelProto` built in code gives
//!   a file sentencepiece loads), in field-number order, each `extra` after the modelled fields
//!   of its message. The bytes differ from protobuf's own output; the values do not.
//! - A message field seen twice is merged into the first (protobuf's rule); a scalar seen twice
//!   keeps the last value.
//! - Unknown fields inside one `SentencePiece` entry (extensions, never written by
//!   sentencepiece) are dropped: `Piece` has no room for them.
//! - Strict where protobuf is lenient: an unknown enum number (piece type, model type) is an
//!   error, not an unknown field. Semantic checks (empty pieces, NaN scores, a missing unknown
//!   piece) are the model's (`spm::model`).
//!
//! Not here: the normalizer (`spm::normalizer`), anything about ids or encoding.

use crate::error::CoreError;

/// `ModelProto.SentencePiece.Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PieceType {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
}

impl PieceType {
    /// The type of a proto enum number, `None` for a number sentencepiece does not define.
    pub fn from_number(n: i64) -> Option<Self> {
        Some(match n {
            1 => Self::Normal,
            2 => Self::Unknown,
            3 => Self::Control,
            4 => Self::UserDefined,
            5 => Self::Unused,
            6 => Self::Byte,
            _ => return None,
        })
    }
}

/// One vocabulary entry; its id is its position in `ModelProto::pieces`.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    pub piece: String,
    pub score: f32,
    pub kind: PieceType,
}

/// `TrainerSpec.ModelType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ModelType {
    Unigram = 1,
    Bpe = 2,
    Word = 3,
    Char = 4,
}

impl ModelType {
    /// The model type of a proto enum number, `None` for an undefined number.
    pub fn from_number(n: i64) -> Option<Self> {
        Some(match n {
            1 => Self::Unigram,
            2 => Self::Bpe,
            3 => Self::Word,
            4 => Self::Char,
            _ => return None,
        })
    }
}

/// The `TrainerSpec` fields that change ids or decoding (defaults: the proto's).
#[derive(Debug, Clone, PartialEq)]
pub struct TrainerSpec {
    pub model_type: ModelType,
    pub vocab_size: i32,
    pub byte_fallback: bool,
    pub split_digits: bool,
    pub split_by_whitespace: bool,
    pub treat_whitespace_as_suffix: bool,
    pub allow_whitespace_only_pieces: bool,
    pub max_sentencepiece_length: i32,
    pub unk_id: i32,
    pub bos_id: i32,
    pub eos_id: i32,
    pub pad_id: i32,
    pub unk_piece: String,
    pub bos_piece: String,
    pub eos_piece: String,
    pub pad_piece: String,
    pub unk_surface: String,
    pub user_defined_symbols: Vec<String>,
    pub control_symbols: Vec<String>,
    /// Every other field of the message, as (field number, wire type, raw value bytes), in file
    /// order: written back unchanged. Raw value bytes: the varint's bytes as stored (wire type
    /// 0), the 8 or 4 bytes (types 1 and 5), the payload without its length (type 2).
    pub extra: Vec<(u32, u8, Vec<u8>)>,
}

impl Default for TrainerSpec {
    fn default() -> Self {
        Self {
            model_type: ModelType::Unigram,
            vocab_size: 8000,
            byte_fallback: false,
            split_digits: false,
            split_by_whitespace: true,
            treat_whitespace_as_suffix: false,
            allow_whitespace_only_pieces: false,
            max_sentencepiece_length: 16,
            unk_id: 0,
            bos_id: 1,
            eos_id: 2,
            pad_id: -1,
            unk_piece: "<unk>".into(),
            bos_piece: "<s>".into(),
            eos_piece: "</s>".into(),
            pad_piece: "<pad>".into(),
            unk_surface: " \u{2047} ".into(),
            user_defined_symbols: Vec::new(),
            control_symbols: Vec::new(),
            extra: Vec::new(),
        }
    }
}

/// `NormalizerSpec` (also the type of `denormalizer_spec`).
#[derive(Debug, Clone, PartialEq)]
pub struct NormalizerSpec {
    pub name: String,
    pub precompiled_charsmap: Vec<u8>,
    pub add_dummy_prefix: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
    pub normalization_rule_tsv: String,
    pub extra: Vec<(u32, u8, Vec<u8>)>,
}

impl Default for NormalizerSpec {
    /// The proto's defaults: no charsmap (identity), the three whitespace switches on.
    fn default() -> Self {
        Self {
            name: String::new(),
            precompiled_charsmap: Vec::new(),
            add_dummy_prefix: true,
            remove_extra_whitespaces: true,
            escape_whitespaces: true,
            normalization_rule_tsv: String::new(),
            extra: Vec::new(),
        }
    }
}

/// A whole `.model` file.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelProto {
    pub pieces: Vec<Piece>,
    pub trainer_spec: TrainerSpec,
    pub normalizer_spec: NormalizerSpec,
    pub denormalizer_spec: Option<NormalizerSpec>,
    /// Unknown top-level fields (self_test_data among them), written back unchanged.
    pub extra: Vec<(u32, u8, Vec<u8>)>,
}

const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;
const FIXED32: u8 = 5;

fn wire_name(wire: u8) -> &'static str {
    match wire {
        VARINT => "varint",
        FIXED64 => "fixed64",
        LEN => "length-delimited",
        FIXED32 => "fixed32",
        _ => "unsupported",
    }
}

fn corrupt(msg: String) -> CoreError {
    CoreError::Vocab(format!("sentencepiece .model: {msg}: the file is corrupted or not a sentencepiece model"))
}

/// One field's value as it sits in the message.
#[derive(Clone, Copy)]
enum Value<'a> {
    /// The decoded varint and its raw bytes.
    Varint(u64, &'a [u8]),
    /// The 8 or 4 bytes of a fixed field.
    Fixed(&'a [u8]),
    /// The payload of a length-delimited field.
    Bytes(&'a [u8]),
}

impl<'a> Value<'a> {
    fn raw(&self) -> &'a [u8] {
        match *self {
            Value::Varint(_, raw) | Value::Fixed(raw) | Value::Bytes(raw) => raw,
        }
    }
}

/// Iterates over the (field number, wire type, value) of one message; `what` names the message
/// in errors.
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    what: &'a str,
}

impl<'a> Fields<'a> {
    fn new(data: &'a [u8], what: &'a str) -> Self {
        Self { data, pos: 0, what }
    }

    fn varint(&mut self, field: &dyn Fn() -> String) -> Result<u64, CoreError> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(corrupt(format!("truncated varint in {}", field())));
            };
            self.pos += 1;
            // The 10th byte carries bit 63 only; higher bits are dropped, as protobuf does.
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt(format!("varint longer than 10 bytes in {}", field())))
    }

    fn next_field(&mut self) -> Result<Option<(u32, u8, Value<'a>)>, CoreError> {
        if self.pos >= self.data.len() {
            return Ok(None);
        }
        let what = self.what;
        let key = self.varint(&|| format!("a field key of {what}"))?;
        let wire = (key & 7) as u8;
        let num = key >> 3;
        if num == 0 {
            return Err(corrupt(format!("field number 0 in {what}")));
        }
        if num > u64::from(u32::MAX >> 3) {
            return Err(corrupt(format!("field number {num} in {what} is above protobuf's maximum 536870911")));
        }
        let num = num as u32;
        let field = || format!("{what}.{num}");
        let value = match wire {
            VARINT => {
                let start = self.pos;
                let v = self.varint(&field)?;
                Value::Varint(v, &self.data[start..self.pos])
            }
            FIXED64 | FIXED32 => {
                let size = if wire == FIXED64 { 8 } else { 4 };
                if self.data.len() - self.pos < size {
                    return Err(corrupt(format!("truncated fixed{} field {}", size * 8, field())));
                }
                self.pos += size;
                Value::Fixed(&self.data[self.pos - size..self.pos])
            }
            LEN => {
                let size = self.varint(&|| format!("{} (length)", field()))?;
                let left = self.data.len() - self.pos;
                if size > left as u64 {
                    return Err(corrupt(format!("field {} claims {size} bytes but only {left} remain", field())));
                }
                let size = size as usize;
                self.pos += size;
                Value::Bytes(&self.data[self.pos - size..self.pos])
            }
            _ => return Err(corrupt(format!("unsupported wire type {wire} in {}", field()))),
        };
        Ok(Some((num, wire, value)))
    }
}

/// Names a known field in errors: `message.name (field N)`.
struct Known<'a> {
    what: &'a str,
    name: &'a str,
    num: u32,
}

impl Known<'_> {
    fn wrong_wire(&self, got: u8, want: u8) -> CoreError {
        corrupt(format!(
            "{}.{} (field {}) has wire type {got} ({}), expected {want} ({})",
            self.what,
            self.name,
            self.num,
            wire_name(got),
            wire_name(want)
        ))
    }

    fn varint(&self, wire: u8, v: Value<'_>) -> Result<u64, CoreError> {
        match v {
            Value::Varint(x, _) => Ok(x),
            _ => Err(self.wrong_wire(wire, VARINT)),
        }
    }

    fn int32(&self, wire: u8, v: Value<'_>) -> Result<i32, CoreError> {
        // int32 values are sign-extended to 64 bits on the wire; protobuf keeps the low 32.
        Ok(self.varint(wire, v)? as u32 as i32)
    }

    fn bool(&self, wire: u8, v: Value<'_>) -> Result<bool, CoreError> {
        Ok(self.varint(wire, v)? != 0)
    }

    fn bytes<'b>(&self, wire: u8, v: Value<'b>) -> Result<&'b [u8], CoreError> {
        match v {
            Value::Bytes(b) => Ok(b),
            _ => Err(self.wrong_wire(wire, LEN)),
        }
    }

    fn string(&self, wire: u8, v: Value<'_>) -> Result<String, CoreError> {
        let b = self.bytes(wire, v)?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(corrupt(format!(
                "{}.{} (field {}) is not valid UTF-8 (byte {})",
                self.what,
                self.name,
                self.num,
                e.valid_up_to()
            ))),
        }
    }
}

fn parse_piece(data: &[u8], index: usize) -> Result<Piece, CoreError> {
    let what = format!("pieces[{index}]");
    let mut fields = Fields::new(data, &what);
    let (mut piece, mut score, mut kind) = (None, 0.0f32, PieceType::Normal);
    while let Some((num, wire, value)) = fields.next_field()? {
        match num {
            1 => piece = Some(Known { what: &what, name: "piece", num }.string(wire, value)?),
            2 => match value {
                Value::Fixed(b) if wire == FIXED32 => score = f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                _ => return Err(Known { what: &what, name: "score", num }.wrong_wire(wire, FIXED32)),
            },
            3 => {
                let n = Known { what: &what, name: "type", num }.varint(wire, value)?;
                kind = PieceType::from_number(n as i64).ok_or_else(|| {
                    corrupt(format!("{what}.type (field 3) is {n}, not a piece type (1 NORMAL .. 6 BYTE)"))
                })?;
            }
            _ => {}
        }
    }
    let piece = piece.ok_or_else(|| corrupt(format!("{what} has no piece string (field 1)")))?;
    Ok(Piece { piece, score, kind })
}

fn parse_trainer(t: &mut TrainerSpec, data: &[u8]) -> Result<(), CoreError> {
    let what = "trainer_spec";
    let mut fields = Fields::new(data, what);
    while let Some((num, wire, v)) = fields.next_field()? {
        let k = |name| Known { what, name, num };
        match num {
            3 => {
                let n = k("model_type").varint(wire, v)?;
                t.model_type = ModelType::from_number(n as u32 as i32 as i64).ok_or_else(|| {
                    corrupt(format!(
                        "trainer_spec.model_type (field 3) is {n}, not a model type (1 UNIGRAM, 2 BPE, 3 WORD, 4 CHAR)"
                    ))
                })?;
            }
            4 => t.vocab_size = k("vocab_size").int32(wire, v)?,
            35 => t.byte_fallback = k("byte_fallback").bool(wire, v)?,
            25 => t.split_digits = k("split_digits").bool(wire, v)?,
            22 => t.split_by_whitespace = k("split_by_whitespace").bool(wire, v)?,
            24 => t.treat_whitespace_as_suffix = k("treat_whitespace_as_suffix").bool(wire, v)?,
            26 => t.allow_whitespace_only_pieces = k("allow_whitespace_only_pieces").bool(wire, v)?,
            20 => t.max_sentencepiece_length = k("max_sentencepiece_length").int32(wire, v)?,
            40 => t.unk_id = k("unk_id").int32(wire, v)?,
            41 => t.bos_id = k("bos_id").int32(wire, v)?,
            42 => t.eos_id = k("eos_id").int32(wire, v)?,
            43 => t.pad_id = k("pad_id").int32(wire, v)?,
            45 => t.unk_piece = k("unk_piece").string(wire, v)?,
            46 => t.bos_piece = k("bos_piece").string(wire, v)?,
            47 => t.eos_piece = k("eos_piece").string(wire, v)?,
            48 => t.pad_piece = k("pad_piece").string(wire, v)?,
            44 => t.unk_surface = k("unk_surface").string(wire, v)?,
            31 => t.user_defined_symbols.push(k("user_defined_symbols").string(wire, v)?),
            30 => t.control_symbols.push(k("control_symbols").string(wire, v)?),
            _ => t.extra.push((num, wire, v.raw().to_vec())),
        }
    }
    Ok(())
}

fn parse_normalizer(n: &mut NormalizerSpec, data: &[u8], what: &str) -> Result<(), CoreError> {
    let mut fields = Fields::new(data, what);
    while let Some((num, wire, v)) = fields.next_field()? {
        let k = |name| Known { what, name, num };
        match num {
            1 => n.name = k("name").string(wire, v)?,
            2 => n.precompiled_charsmap = k("precompiled_charsmap").bytes(wire, v)?.to_vec(),
            3 => n.add_dummy_prefix = k("add_dummy_prefix").bool(wire, v)?,
            4 => n.remove_extra_whitespaces = k("remove_extra_whitespaces").bool(wire, v)?,
            5 => n.escape_whitespaces = k("escape_whitespaces").bool(wire, v)?,
            6 => n.normalization_rule_tsv = k("normalization_rule_tsv").string(wire, v)?,
            _ => n.extra.push((num, wire, v.raw().to_vec())),
        }
    }
    Ok(())
}

/// Appends protobuf's base-128 varint of `v`.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_key(out: &mut Vec<u8>, num: u32, wire: u8) {
    put_varint(out, (u64::from(num) << 3) | u64::from(wire & 7));
}

fn put_int32(out: &mut Vec<u8>, num: u32, v: i32) {
    put_key(out, num, VARINT);
    // Negative int32 values are sign-extended to 10-byte varints, as protobuf writes them.
    put_varint(out, v as i64 as u64);
}

fn put_bool(out: &mut Vec<u8>, num: u32, v: bool) {
    put_key(out, num, VARINT);
    out.push(u8::from(v));
}

fn put_bytes(out: &mut Vec<u8>, num: u32, v: &[u8]) {
    put_key(out, num, LEN);
    put_varint(out, v.len() as u64);
    out.extend_from_slice(v);
}

fn put_extra(out: &mut Vec<u8>, extra: &[(u32, u8, Vec<u8>)]) {
    for (num, wire, raw) in extra {
        if *wire == LEN {
            put_bytes(out, *num, raw);
        } else {
            put_key(out, *num, *wire);
            out.extend_from_slice(raw);
        }
    }
}

fn write_piece(p: &Piece) -> Vec<u8> {
    let mut out = Vec::with_capacity(p.piece.len() + 10);
    put_bytes(&mut out, 1, p.piece.as_bytes());
    put_key(&mut out, 2, FIXED32);
    out.extend_from_slice(&p.score.to_le_bytes());
    // NORMAL is the default; sentencepiece omits it too, which keeps big vocabularies small.
    if p.kind != PieceType::Normal {
        put_key(&mut out, 3, VARINT);
        out.push(p.kind as u8);
    }
    out
}

fn write_trainer(t: &TrainerSpec) -> Vec<u8> {
    let mut out = Vec::new();
    put_key(&mut out, 3, VARINT);
    out.push(t.model_type as u8);
    put_int32(&mut out, 4, t.vocab_size);
    put_int32(&mut out, 20, t.max_sentencepiece_length);
    put_bool(&mut out, 22, t.split_by_whitespace);
    put_bool(&mut out, 24, t.treat_whitespace_as_suffix);
    put_bool(&mut out, 25, t.split_digits);
    put_bool(&mut out, 26, t.allow_whitespace_only_pieces);
    for s in &t.control_symbols {
        put_bytes(&mut out, 30, s.as_bytes());
    }
    for s in &t.user_defined_symbols {
        put_bytes(&mut out, 31, s.as_bytes());
    }
    put_bool(&mut out, 35, t.byte_fallback);
    put_int32(&mut out, 40, t.unk_id);
    put_int32(&mut out, 41, t.bos_id);
    put_int32(&mut out, 42, t.eos_id);
    put_int32(&mut out, 43, t.pad_id);
    put_bytes(&mut out, 44, t.unk_surface.as_bytes());
    put_bytes(&mut out, 45, t.unk_piece.as_bytes());
    put_bytes(&mut out, 46, t.bos_piece.as_bytes());
    put_bytes(&mut out, 47, t.eos_piece.as_bytes());
    put_bytes(&mut out, 48, t.pad_piece.as_bytes());
    put_extra(&mut out, &t.extra);
    out
}

fn write_normalizer(n: &NormalizerSpec) -> Vec<u8> {
    let mut out = Vec::with_capacity(n.precompiled_charsmap.len() + n.normalization_rule_tsv.len() + 32);
    put_bytes(&mut out, 1, n.name.as_bytes());
    put_bytes(&mut out, 2, &n.precompiled_charsmap);
    put_bool(&mut out, 3, n.add_dummy_prefix);
    put_bool(&mut out, 4, n.remove_extra_whitespaces);
    put_bool(&mut out, 5, n.escape_whitespaces);
    if !n.normalization_rule_tsv.is_empty() {
        put_bytes(&mut out, 6, n.normalization_rule_tsv.as_bytes());
    }
    put_extra(&mut out, &n.extra);
    out
}

impl ModelProto {
    /// Decodes a `.model` file. Errors (`CoreError::Vocab`) name the message and field:
    /// truncated data, a wrong wire type for a known field, invalid UTF-8 in a string, an
    /// unknown piece type or model type number.
    pub fn parse(data: &[u8]) -> Result<Self, CoreError> {
        if data.is_empty() {
            return Err(corrupt("empty file (0 bytes)".into()));
        }
        let mut m = ModelProto {
            pieces: Vec::new(),
            trainer_spec: TrainerSpec::default(),
            normalizer_spec: NormalizerSpec::default(),
            denormalizer_spec: None,
            extra: Vec::new(),
        };
        let mut fields = Fields::new(data, "ModelProto");
        while let Some((num, wire, v)) = fields.next_field()? {
            let k = |name| Known { what: "ModelProto", name, num };
            match num {
                1 => {
                    let b = k("pieces").bytes(wire, v)?;
                    m.pieces.push(parse_piece(b, m.pieces.len())?);
                }
                2 => parse_trainer(&mut m.trainer_spec, k("trainer_spec").bytes(wire, v)?)?,
                3 => parse_normalizer(&mut m.normalizer_spec, k("normalizer_spec").bytes(wire, v)?, "normalizer_spec")?,
                5 => {
                    let b = k("denormalizer_spec").bytes(wire, v)?;
                    let spec = m.denormalizer_spec.get_or_insert_with(NormalizerSpec::default);
                    parse_normalizer(spec, b, "denormalizer_spec")?;
                }
                _ => m.extra.push((num, wire, v.raw().to_vec())),
            }
        }
        if m.pieces.is_empty() {
            return Err(corrupt("no pieces (field 1 of ModelProto)".into()));
        }
        Ok(m)
    }

    /// Encodes the file (field order and values such that `parse(write(m)) == m`).
    pub fn write(&self) -> Vec<u8> {
        let charsmaps = self.normalizer_spec.precompiled_charsmap.len()
            + self.denormalizer_spec.as_ref().map_or(0, |d| d.precompiled_charsmap.len());
        let mut out =
            Vec::with_capacity(self.pieces.iter().map(|p| p.piece.len() + 12).sum::<usize>() + charsmaps + 1024);
        for p in &self.pieces {
            put_bytes(&mut out, 1, &write_piece(p));
        }
        put_bytes(&mut out, 2, &write_trainer(&self.trainer_spec));
        put_bytes(&mut out, 3, &write_normalizer(&self.normalizer_spec));
        // Field-number order where it costs nothing: the denormalizer (5) goes before the first
        // unknown field numbered above it; the unknown fields keep their own order.
        let split = self.extra.iter().position(|(num, _, _)| *num > 5).unwrap_or(self.extra.len());
        put_extra(&mut out, &self.extra[..split]);
        if let Some(d) = &self.denormalizer_spec {
            put_bytes(&mut out, 5, &write_normalizer(d));
        }
        put_extra(&mut out, &self.extra[split..]);
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The bytes of a shared `.model` file (`/work/shared/data/sentencepiece`).
    pub(crate) fn shared_model(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/sentencepiece");
        let path = dir.join(name);
        std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "shared test model {} is missing ({e}): the tests need ../shared/data next to the repository",
                path.display()
            )
        })
    }

    pub(crate) const SHARED: [&str; 3] =
        ["botchan_en_bpe_1000.model", "botchan_en_unigram_1000.model", "mistral-7b-v0.1.tokenizer.model"];

    fn small() -> ModelProto {
        ModelProto {
            pieces: vec![
                Piece { piece: "<unk>".into(), score: 0.0, kind: PieceType::Unknown },
                Piece { piece: "<s>".into(), score: 0.0, kind: PieceType::Control },
                Piece { piece: "\u{2581}a".into(), score: -1.5, kind: PieceType::Normal },
                Piece { piece: "<0x41>".into(), score: f32::NEG_INFINITY, kind: PieceType::Byte },
                Piece { piece: "<mask>".into(), score: 0.0, kind: PieceType::UserDefined },
                Piece { piece: "zz".into(), score: 2.0, kind: PieceType::Unused },
            ],
            trainer_spec: TrainerSpec {
                model_type: ModelType::Bpe,
                vocab_size: 6,
                byte_fallback: true,
                pad_id: -1,
                unk_id: 0,
                bos_id: 1,
                eos_id: -1,
                user_defined_symbols: vec!["<mask>".into()],
                control_symbols: vec!["<s>".into()],
                extra: vec![
                    (2, LEN, b"prefix".to_vec()),
                    (10, FIXED32, 0.9995f32.to_le_bytes().to_vec()),
                    (11, VARINT, vec![0x80, 0x01]),
                ],
                ..TrainerSpec::default()
            },
            normalizer_spec: NormalizerSpec {
                name: "identity".into(),
                add_dummy_prefix: false,
                ..NormalizerSpec::default()
            },
            denormalizer_spec: Some(NormalizerSpec { escape_whitespaces: false, ..NormalizerSpec::default() }),
            extra: vec![(4, LEN, vec![0x0a, 0x00]), (200, FIXED64, vec![1, 2, 3, 4, 5, 6, 7, 8])],
        }
    }

    fn err(data: &[u8]) -> String {
        match ModelProto::parse(data) {
            Err(CoreError::Vocab(m)) => m,
            other => panic!("expected a Vocab error, got {other:?}"),
        }
    }

    /// Wraps `body` as the one trainer_spec of a file with one piece.
    fn with_trainer(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        put_bytes(&mut out, 1, &write_piece(&Piece { piece: "<unk>".into(), score: 0.0, kind: PieceType::Unknown }));
        put_bytes(&mut out, 2, body);
        out
    }

    #[test]
    fn hand_built_round_trip() {
        let m = small();
        let bytes = m.write();
        assert_eq!(ModelProto::parse(&bytes).unwrap(), m);
        assert_eq!(ModelProto::parse(&bytes).unwrap().write(), bytes);
    }

    #[test]
    fn defaults_when_absent() {
        // One piece, nothing else: every spec field takes the proto's default.
        let m = ModelProto::parse(b"\x0a\x0e\x0a\x05<unk>\x15\x00\x00\x00\x00\x18\x02").unwrap();
        assert_eq!(m.pieces, vec![Piece { piece: "<unk>".into(), score: 0.0, kind: PieceType::Unknown }]);
        assert_eq!(m.trainer_spec, TrainerSpec::default());
        assert_eq!(m.normalizer_spec, NormalizerSpec::default());
        assert_eq!(m.denormalizer_spec, None);
        assert_eq!(m.trainer_spec.pad_id, -1);
        assert_eq!(m.trainer_spec.unk_surface, " \u{2047} ");
    }

    #[test]
    fn negative_int32_is_a_ten_byte_varint() {
        let mut body = Vec::new();
        put_int32(&mut body, 43, -1);
        assert_eq!(body.len(), 2 + 10);
        assert_eq!(ModelProto::parse(&with_trainer(&body)).unwrap().trainer_spec.pad_id, -1);
    }

    #[test]
    fn repeated_messages_merge() {
        let mut a = Vec::new();
        put_int32(&mut a, 4, 77);
        let mut b = Vec::new();
        put_bool(&mut b, 35, true);
        let mut data = with_trainer(&a);
        put_bytes(&mut data, 2, &b);
        let t = ModelProto::parse(&data).unwrap().trainer_spec;
        assert_eq!((t.vocab_size, t.byte_fallback), (77, true));
    }

    #[test]
    fn shared_files_round_trip() {
        for name in SHARED {
            let data = shared_model(name);
            let m = ModelProto::parse(&data).unwrap();
            assert!(m.pieces.len() >= 1000, "{name}");
            let again = ModelProto::parse(&m.write()).unwrap();
            assert_eq!(again, m, "{name}: parse(write(parse(f))) != parse(f)");
            // Training-only fields survive as extras (input, model_prefix, character_coverage...).
            assert!(!m.trainer_spec.extra.is_empty(), "{name}");
        }
        let bpe = ModelProto::parse(&shared_model(SHARED[0])).unwrap();
        assert_eq!(bpe.trainer_spec.model_type, ModelType::Bpe);
        assert_eq!(bpe.normalizer_spec.name, "nmt_nfkc");
        let mistral = ModelProto::parse(&shared_model(SHARED[2])).unwrap();
        assert!(mistral.trainer_spec.byte_fallback);
        assert_eq!(mistral.pieces.len(), 32000);
        assert_eq!(mistral.pieces[3].kind, PieceType::Byte);
    }

    #[test]
    fn errors_name_the_field() {
        let good = small().write();
        assert!(err(&[]).contains("empty file"));
        // Truncated anywhere: never a panic; inside a field, an error (at a field boundary the
        // rest of the file is a valid, shorter message).
        let whole_fields = (1..good.len()).filter(|&cut| ModelProto::parse(&good[..cut]).is_ok()).count();
        assert!(whole_fields < 12, "{whole_fields} cuts parsed");
        assert!(err(&good[..good.len() - 1]).contains("ModelProto"));
        let e = err(b"\x0a\x02\x18\x80");
        assert!(e.contains("truncated varint in pieces[0].3"), "{e}");
        // Length past the end.
        assert!(err(b"\x0a\x7f\x0a").contains("claims 127 bytes but only 1 remain"));
        // Wrong wire type for known fields.
        assert!(err(b"\x08\x01").contains("ModelProto.pieces (field 1) has wire type 0"));
        let e = err(&with_trainer(b"\x22\x00"));
        assert!(e.contains("trainer_spec.vocab_size (field 4) has wire type 2"), "{e}");
        let e = err(b"\x0a\x05\x0a\x01a\x10\x00");
        assert!(e.contains("pieces[0].score (field 2) has wire type 0"), "{e}");
        // Invalid UTF-8.
        let e = err(b"\x0a\x04\x0a\x02\xc3\x28");
        assert!(e.contains("pieces[0].piece (field 1) is not valid UTF-8"), "{e}");
        let mut bad = Vec::new();
        put_bytes(&mut bad, 45, b"\xff");
        let e = err(&with_trainer(&bad));
        assert!(e.contains("trainer_spec.unk_piece (field 45) is not valid UTF-8"), "{e}");
        // Unknown enum numbers.
        let e = err(b"\x0a\x05\x0a\x01a\x18\x07");
        assert!(e.contains("pieces[0].type (field 3) is 7"), "{e}");
        let e = err(&with_trainer(b"\x18\x05"));
        assert!(e.contains("trainer_spec.model_type (field 3) is 5"), "{e}");
        // Field number 0, an unsupported wire type, an over-long varint, no pieces.
        assert!(err(b"\x02\x00").contains("field number 0 in ModelProto"));
        assert!(err(b"\x0b\x00").contains("unsupported wire type 3"));
        let e = err(b"\x30\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01");
        assert!(e.contains("varint longer than 10 bytes in ModelProto.6"), "{e}");
        assert!(err(b"\x30\x01").contains("no pieces"));
        assert!(err(b"\x0a\x02\x15\x00").contains("truncated fixed32"));
        assert!(err(b"\x0a\x00").contains("pieces[0] has no piece string"));
        for e in [err(b"\x02\x00"), err(b"\x0a\x7f\x0a")] {
            assert!(e.starts_with("sentencepiece .model: ") && e.ends_with("not a sentencepiece model"), "{e}");
        }
    }

    #[test]
    fn nan_and_infinite_scores_are_kept() {
        let mut m = small();
        m.pieces[2].score = f32::NAN;
        let again = ModelProto::parse(&m.write()).unwrap();
        assert!(again.pieces[2].score.is_nan());
        assert_eq!(again.pieces[3].score, f32::NEG_INFINITY);
    }

    /// A small deterministic generator for the fuzz test (xorshift64*).
    struct Rand(u64);
    impl Rand {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// Random flips, cuts and insertions on the shared files: `parse` never panics, and when it
    /// succeeds neither does building and running the normalizer (charsmaps get corrupted too).
    #[test]
    fn fuzz_parse_and_normalize_never_panic() {
        use crate::spm::normalizer::Normalizer;
        let texts = [
            "  Hello  wörld ÅÉ ＡＢＣ ① ﬁ ㍻ e\u{301} \t\u{3000}x  ",
            "日本語のテキスト、カタカナ ｶﾞ ﾊﾟ",
            "\u{0}\u{1}\u{7f}\u{80}\u{fffd}\u{10ffff}",
            "a",
        ];
        let mut rng = Rand(0x9e37_79b9_7f4a_7c15);
        let (mut parsed, mut total) = (0, 0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
        for name in SHARED {
            let base = shared_model(name);
            for _ in 0..800 {
                if std::time::Instant::now() > deadline {
                    break;
                }
                let mut data = base.clone();
                match rng.below(4) {
                    0 => data.truncate(rng.below(data.len())),
                    1 => {
                        for _ in 0..rng.below(3) + 1 {
                            let at = rng.below(data.len());
                            data.insert(at, rng.next() as u8);
                        }
                    }
                    _ => {
                        // Flips, half of them in the first 4 KiB (keys, lengths, the charsmap header).
                        for _ in 0..rng.below(8) + 1 {
                            let at =
                                if rng.below(2) == 0 { rng.below(4096.min(data.len())) } else { rng.below(data.len()) };
                            data[at] ^= 1 << rng.below(8);
                        }
                    }
                }
                total += 1;
                let Ok(m) = ModelProto::parse(&data) else { continue };
                parsed += 1;
                let user: Vec<&str> =
                    m.pieces.iter().filter(|p| p.kind == PieceType::UserDefined).map(|p| p.piece.as_str()).collect();
                if let Ok(norm) = Normalizer::new(&m.normalizer_spec, &m.trainer_spec, &user) {
                    let (mut out, mut align) = (Vec::new(), Vec::new());
                    for t in texts {
                        norm.normalize(t, &mut out, Some(&mut align));
                    }
                    assert!(std::str::from_utf8(&out).is_ok());
                }
                let _ = ModelProto::parse(&m.write());
            }
        }
        eprintln!("fuzz: {total} cases, {parsed} parsed");
        assert!(total > 100 && parsed > 0, "{total} cases, {parsed} parsed");
    }
}
