//! The streaming corpus reader of `prepare`: files in, blocks of whole documents out.
//!
//! Reads plain text (one document per file, or per line with `by_line`) and JSON lines (one
//! document per line: the string in `text_field`), each optionally gzipped (found by its magic
//! bytes, whatever the name). Files are read a block at a time (`block_bytes`), so memory is
//! a few blocks whatever the corpus size; the one exception is a plain-text document that may
//! not be cut (`cut: false`), which is read whole.
//!
//! Every document (or part of one) in a block carries the reader's `Position` after it: the
//! source, the uncompressed byte offset and line count there, and the counters so far. A
//! reader started at such a position (`Reader::new`) yields exactly the documents that
//! followed it, which is how an interrupted `prepare` resumes.
//!
//! Errors name the file: invalid UTF-8 with its byte offset (in the uncompressed stream),
//! a malformed JSON line or a missing or non-string text field with `file:line` (with
//! `skip_bad` these are counted in `Position::skipped` and skipped), a corrupt or truncated
//! gzip stream, a file that cannot be opened.
//!
//! What it does not do: parquet (the binding feeds parquet columns as blocks), tokenize,
//! decide shard boundaries, or look at file names.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::error::CoreError;
use crate::pretokenize::cuts::is_cut_point;

/// What a source file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Plain UTF-8 text: the whole file is one document, or each line with `by_line`.
    Text,
    /// JSON lines: one object per line, the document in its `text_field` string.
    Jsonl,
    /// Rows of a string column read by someone else (`Reader::with_external`: the binding
    /// reads parquet with pyarrow); positions count rows.
    External,
}

impl Format {
    pub fn parse(s: &str) -> Result<Format, CoreError> {
        match s {
            "text" => Ok(Format::Text),
            "jsonl" => Ok(Format::Jsonl),
            "parquet" | "external" => Ok(Format::External),
            _ => Err(CoreError::Input(format!(
                "unknown corpus format {s:?}; the reader takes \"text\", \"jsonl\" or \"parquet\""
            ))),
        }
    }
}

/// One input file.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub format: Format,
}

/// How sources are read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Plain text: one document per line (without its `\n` or `\r\n`).
    pub by_line: bool,
    /// JSON lines: the field that holds the document.
    pub text_field: String,
    /// Count and skip malformed JSON lines instead of failing.
    pub skip_bad: bool,
    /// About how many bytes of text a block holds.
    pub block_bytes: usize,
    /// Whether a plain-text document may be cut into parts at safe points (`is_cut_point`):
    /// only for tokenizers whose ids do not change when the text is cut there.
    pub cut: bool,
    /// Appended to an invalid-UTF-8 error, and to a malformed-record error: what the caller's
    /// user can do about it (the options differ between callers).
    pub utf8_hint: String,
    pub record_hint: String,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            by_line: false,
            text_field: "text".into(),
            skip_bad: false,
            block_bytes: 1 << 20,
            cut: false,
            utf8_hint: "the corpus must be UTF-8".into(),
            record_hint: String::new(),
        }
    }
}

/// Where the reader stands, and what it has counted so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Position {
    /// Index of the source being read (`sources.len()` at the end).
    pub source: usize,
    /// Uncompressed bytes of that source consumed.
    pub offset: u64,
    /// Lines of that source consumed.
    pub line: u64,
    /// Documents of that source completed (empty ones included).
    pub source_documents: u64,
    /// Over all sources: records skipped as malformed (`skip_bad`), and empty documents.
    pub skipped: u64,
    pub empty: u64,
}

/// A document, or a part of one, in a block's text.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    /// Whether this is the document's first part.
    pub first: bool,
    /// Whether the document ends here (else it goes on in the next block).
    pub last: bool,
    /// The reader's position after this span.
    pub pos: Position,
}

/// Consecutive documents (or parts) of one source.
#[derive(Debug, Default)]
pub struct Block {
    pub text: String,
    pub spans: Vec<Span>,
    /// Uncompressed bytes of input this block consumed (progress).
    pub input_bytes: u64,
    /// The position after the block (also after records skipped past its last span).
    pub end: Position,
}

struct Open {
    input: Box<dyn BufRead + Send>,
    path: String,
    /// A plain-text document: its first part was sent; its last part was sent.
    doc_open: bool,
    doc_done: bool,
    /// Bytes read but not yet used (an incomplete line or UTF-8 sequence).
    carry: Vec<u8>,
    eof: bool,
}

/// A batch of rows of an external source: the strings' bytes one after the other,
/// `offsets` (rows + 1 of them, into `data`), and a validity bitmap (bit i, least significant
/// first: row i is not null) when some rows are null.
#[derive(Debug, Default)]
pub struct ExternalBatch {
    pub data: Vec<u8>,
    pub offsets: Vec<i64>,
    pub valid: Option<Vec<u8>>,
}

/// The rows of one external source, from a given row on.
pub type ExternalRows = Box<dyn Iterator<Item = Result<ExternalBatch, CoreError>> + Send>;
/// Opens an external source at a row (the rows before it are skipped).
pub type OpenExternal = Box<dyn FnMut(&Source, u64) -> Result<ExternalRows, CoreError> + Send>;

/// Reads the sources in order from a position; `next_block` until `None`.
pub struct Reader {
    sources: Vec<Source>,
    opts: ReadOptions,
    pos: Position,
    open: Option<Open>,
    external: Option<OpenExternal>,
    rows: Option<ExternalRows>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

fn io_err(path: &str, what: &str, e: std::io::Error) -> CoreError {
    CoreError::Corpus(format!("{path}: {what}: {e}"))
}

impl Reader {
    /// A reader at `start` (`Position::default()` for the beginning): the source there is
    /// opened and `start.offset` bytes of it skipped.
    pub fn new(sources: Vec<Source>, opts: ReadOptions, start: Position) -> Result<Self, CoreError> {
        Self::with_external(sources, opts, start, None)
    }

    /// `new`, with `external` to open the sources of format `External`.
    pub fn with_external(
        sources: Vec<Source>,
        opts: ReadOptions,
        start: Position,
        external: Option<OpenExternal>,
    ) -> Result<Self, CoreError> {
        let mut r = Reader { sources, opts, pos: start, open: None, external, rows: None };
        let whole_file = |r: &Reader| r.sources[r.pos.source].format == Format::Text && !r.opts.by_line;
        if r.pos.source < r.sources.len() && r.pos.offset > 0 && whole_file(&r) {
            // Positions inside a one-document file are those after the document: it is done.
            r.pos = Position { source: r.pos.source + 1, offset: 0, line: 0, source_documents: 0, ..r.pos };
        }
        if r.pos.source < r.sources.len() && r.sources[r.pos.source].format != Format::External {
            r.open_current()?;
            let skip = r.pos.offset;
            if skip > 0 {
                let o = r.open.as_mut().ok_or_else(|| CoreError::Internal("no open source".into()))?;
                let got = std::io::copy(&mut (&mut o.input).take(skip), &mut std::io::sink())
                    .map_err(|e| io_err(&o.path, "reading", e))?;
                if got != skip {
                    return Err(CoreError::Corpus(format!(
                        "{}: the file is shorter ({got} bytes) than where the interrupted run stopped ({skip}); \
                         it changed since: start again with overwrite",
                        o.path
                    )));
                }
            }
        }
        Ok(r)
    }

    pub fn position(&self) -> Position {
        self.pos
    }

    fn open_current(&mut self) -> Result<(), CoreError> {
        let src = &self.sources[self.pos.source];
        let path = src.path.display().to_string();
        let file = File::open(&src.path).map_err(|e| io_err(&path, "cannot open", e))?;
        let mut raw = BufReader::with_capacity(1 << 16, file);
        let head = raw.fill_buf().map_err(|e| io_err(&path, "reading", e))?;
        let input: Box<dyn BufRead + Send> = if head.starts_with(&GZIP_MAGIC) {
            Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(raw)))
        } else {
            Box::new(raw)
        };
        self.open = Some(Open { input, path, doc_open: false, doc_done: false, carry: Vec::new(), eof: false });
        Ok(())
    }

    /// The next block, or `None` after the last source.
    pub fn next_block(&mut self) -> Result<Option<Block>, CoreError> {
        loop {
            if self.pos.source >= self.sources.len() {
                return Ok(None);
            }
            let format = self.sources[self.pos.source].format;
            if self.open.is_none() && format != Format::External {
                self.open_current()?;
            }
            let block = match format {
                Format::External => self.external_block()?,
                Format::Text if !self.opts.by_line => self.text_block()?,
                Format::Text => self.line_block(false)?,
                Format::Jsonl => self.line_block(true)?,
            };
            if let Some(b) = block {
                return Ok(Some(b));
            }
            // This source is done.
            self.open = None;
            self.rows = None;
            self.pos = Position { source: self.pos.source + 1, offset: 0, line: 0, source_documents: 0, ..self.pos };
        }
    }

    /// Reads up to about `want` more bytes into `carry`; false at the end of the input.
    fn fill(o: &mut Open, want: usize) -> Result<bool, CoreError> {
        if o.eof {
            return Ok(false);
        }
        let start = o.carry.len();
        o.carry.reserve(want);
        let got = (&mut o.input).take(want as u64).read_to_end(&mut o.carry).map_err(|e| {
            let what = if e.kind() == std::io::ErrorKind::UnexpectedEof || e.kind() == std::io::ErrorKind::InvalidInput
            {
                "corrupt or truncated gzip data"
            } else {
                "reading"
            };
            io_err(&o.path, what, e)
        })?;
        if got == 0 {
            o.eof = true;
        }
        Ok(o.carry.len() > start)
    }

    fn utf8_error(path: &str, offset: u64, e: std::str::Utf8Error, hint: &str) -> CoreError {
        CoreError::Corpus(format!(
            "{path}: invalid UTF-8 at byte {} (of the uncompressed text); {hint}",
            offset + e.valid_up_to() as u64
        ))
    }

    /// Plain text, one document per file: the next part of the current document.
    fn text_block(&mut self) -> Result<Option<Block>, CoreError> {
        let (want, cut) = (self.opts.block_bytes.max(8), self.opts.cut);
        let o = self.open.as_mut().ok_or_else(|| CoreError::Internal("no open source".into()))?;
        if o.doc_done {
            return Ok(None);
        }
        // Read until a block's worth is there (all of it when the document may not be cut).
        while o.carry.len() < want || !cut {
            if !Self::fill(o, want.max(o.carry.len()))? {
                break;
            }
        }
        // Where this part ends: at the end of the input, else at the last safe point of the
        // second half of what was read (else the last UTF-8 boundary).
        let mut end = o.carry.len();
        if !o.eof {
            let valid = match std::str::from_utf8(&o.carry) {
                Ok(_) => o.carry.len(),
                Err(e) if e.error_len().is_none() => e.valid_up_to(), // a sequence cut by the read
                Err(e) => return Err(Self::utf8_error(&o.path, self.pos.offset, e, &self.opts.utf8_hint)),
            };
            let text = std::str::from_utf8(&o.carry[..valid]).unwrap_or_default();
            end =
                (valid / 2..valid).rev().find(|&i| text.is_char_boundary(i) && is_cut_point(text, i)).unwrap_or(valid);
        }
        let rest = o.carry.split_off(end);
        let bytes = std::mem::replace(&mut o.carry, rest);
        let text = String::from_utf8(bytes)
            .map_err(|e| Self::utf8_error(&o.path, self.pos.offset, e.utf8_error(), &self.opts.utf8_hint))?;
        let first = !o.doc_open;
        o.doc_open = true;
        let last = o.eof && o.carry.is_empty();
        self.pos.offset += text.len() as u64;
        self.pos.line += memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
        if last {
            o.doc_done = true;
            self.pos.source_documents += 1;
            if first && text.is_empty() {
                self.pos.empty += 1;
                return Ok(Some(Block { end: self.pos, ..Block::default() }));
            }
        }
        let span = Span { start: 0, end: text.len(), first, last, pos: self.pos };
        let input_bytes = text.len() as u64;
        Ok(Some(Block { text, spans: vec![span], input_bytes, end: self.pos }))
    }

    /// An external source: the next batch of rows (null rows are counted as skipped).
    fn external_block(&mut self) -> Result<Option<Block>, CoreError> {
        let src = &self.sources[self.pos.source];
        let path = src.path.display().to_string();
        if self.rows.is_none() {
            let open = self
                .external
                .as_mut()
                .ok_or_else(|| CoreError::Input(format!("{path}: this reader has no way to open parquet files")))?;
            self.rows = Some(open(src, self.pos.offset)?);
        }
        let Some(rows) = self.rows.as_mut() else { return Ok(None) };
        let Some(batch) = rows.next().transpose()? else { return Ok(None) };
        let ExternalBatch { data, offsets, valid } = batch;
        let n = offsets.len().saturating_sub(1);
        let base = offsets.first().copied().unwrap_or(0);
        let bad = || CoreError::Internal(format!("{path}: a batch of rows with inconsistent offsets"));
        let len = data.len();
        let rel = |o: i64| usize::try_from(o - base).ok().filter(|&x| x <= len);
        let text = String::from_utf8(data).map_err(|e| {
            let at = e.utf8_error().valid_up_to() as i64 + base;
            let row = offsets.partition_point(|&o| o <= at).saturating_sub(1) as u64 + self.pos.offset;
            CoreError::Corpus(format!("{path}: row {row}: invalid UTF-8 in the text column"))
        })?;
        let mut block = Block { input_bytes: text.len() as u64, ..Block::default() };
        for i in 0..n {
            let (start, end) = (rel(offsets[i]).ok_or_else(bad)?, rel(offsets[i + 1]).ok_or_else(bad)?);
            if start > end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                return Err(bad());
            }
            self.pos.offset += 1;
            self.pos.line += 1;
            if valid.as_ref().is_some_and(|v| v.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 0)) {
                self.pos.skipped += 1;
                continue;
            }
            self.pos.source_documents += 1;
            if start == end {
                self.pos.empty += 1;
                continue;
            }
            block.spans.push(Span { start, end, first: true, last: true, pos: self.pos });
        }
        block.text = text;
        block.end = self.pos;
        Ok(Some(block))
    }

    /// One document per line (plain text or JSON lines): the next block of whole lines.
    fn line_block(&mut self, json: bool) -> Result<Option<Block>, CoreError> {
        let want = self.opts.block_bytes.max(1);
        let o = self.open.as_mut().ok_or_else(|| CoreError::Internal("no open source".into()))?;
        // Whole lines: read until a block's worth holds a line break, or the input ends.
        while !(o.eof || o.carry.len() >= want && memchr::memchr(b'\n', &o.carry).is_some()) {
            Self::fill(o, want)?;
        }
        let cut = if o.eof { o.carry.len() } else { memchr::memrchr(b'\n', &o.carry).map_or(0, |i| i + 1) };
        if cut == 0 {
            return Ok(None);
        }
        let rest = o.carry.split_off(cut);
        let bytes = std::mem::replace(&mut o.carry, rest);
        let mut block = Block { input_bytes: bytes.len() as u64, ..Block::default() };
        let (field, skip_bad, path) = (&self.opts.text_field, self.opts.skip_bad, &o.path);
        let (utf8_hint, record_hint) = (&self.opts.utf8_hint, &self.opts.record_hint);
        let pos = &mut self.pos;
        if !json {
            let text =
                String::from_utf8(bytes).map_err(|e| Self::utf8_error(path, pos.offset, e.utf8_error(), utf8_hint))?;
            let mut start = 0;
            for line_end in
                memchr::memchr_iter(b'\n', text.as_bytes()).chain((!text.ends_with('\n')).then_some(text.len()))
            {
                let next = (line_end + 1).min(text.len());
                let end =
                    if line_end > start && text.as_bytes()[line_end - 1] == b'\r' { line_end - 1 } else { line_end };
                pos.offset += (next - start) as u64;
                pos.line += 1;
                pos.source_documents += 1;
                if end == start {
                    pos.empty += 1;
                } else {
                    block.spans.push(Span { start, end, first: true, last: true, pos: *pos });
                }
                start = next;
            }
            block.text = text;
        } else {
            let mut text = String::with_capacity(bytes.len());
            let mut start = 0;
            for line_end in memchr::memchr_iter(b'\n', &bytes).chain((!bytes.ends_with(b"\n")).then_some(bytes.len())) {
                let next = (line_end + 1).min(bytes.len());
                let line = &bytes[start..line_end];
                let at = pos.offset;
                pos.offset += (next - start) as u64;
                pos.line += 1;
                start = next;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines are not records
                }
                let s = text.len();
                match json_text_into(line, field, &mut text) {
                    Ok(()) => {
                        pos.source_documents += 1;
                        if text.len() == s {
                            pos.empty += 1;
                            continue;
                        }
                        block.spans.push(Span { start: s, end: text.len(), first: true, last: true, pos: *pos });
                    }
                    Err(why) if skip_bad => {
                        let _ = (why, at);
                        pos.skipped += 1;
                    }
                    Err(why) => {
                        let sep = if record_hint.is_empty() { "" } else { " " };
                        return Err(CoreError::Corpus(format!("{path}:{}: {why}{sep}{record_hint}", pos.line)));
                    }
                }
            }
            block.text = text;
        }
        block.end = *pos;
        Ok(Some(block))
    }
}

/// Appends the string in field `field` of the JSON object `line` to `out`, or says why there
/// is none (`out` is then unchanged). Why a seed and not a `Value`: the string goes straight
/// from the parser into the block's text, without a `String` of its own per document.
fn json_text_into(line: &[u8], field: &str, out: &mut String) -> Result<(), String> {
    struct Append<'o>(&'o mut String);
    impl<'de> DeserializeSeed<'de> for Append<'_> {
        type Value = Result<(), &'static str>;
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Append<'_> {
        type Value = Result<(), &'static str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
            self.0.push_str(s);
            Ok(Ok(()))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Err("null"))
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Err("null"))
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Err("a boolean"))
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Err("a number"))
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Err("a number"))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Err("a number"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Err("an array"))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Err("an object"))
        }
    }
    struct Find<'f, 'o>(&'f str, &'o mut String);
    impl<'de> Visitor<'de> for Find<'_, '_> {
        type Value = Option<Result<(), &'static str>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == self.0 && found.is_none() {
                    found = Some(map.next_value_seed(Append(&mut *self.1))?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    let mark = out.len();
    let mut de = serde_json::Deserializer::from_slice(line);
    let got = de
        .deserialize_map(Find(field, out))
        .map_err(|e| {
            if e.is_data() {
                "the line is not a JSON object".to_string()
            } else {
                format!("malformed JSON ({e})")
            }
        })
        .and_then(|got| de.end().map(|_| got).map_err(|e| format!("malformed JSON ({e})")));
    let r = match got {
        Ok(Some(Ok(()))) => return Ok(()),
        Ok(Some(Err(kind))) => Err(format!("field {field:?} is {kind}, not a string")),
        Ok(None) => Err(format!("no field {field:?}")),
        Err(e) => Err(e),
    };
    out.truncate(mark);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tm-reader-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    fn docs(
        sources: &[(PathBuf, Format)],
        opts: ReadOptions,
        start: Position,
    ) -> Result<Vec<(String, Position)>, CoreError> {
        let sources = sources.iter().map(|(p, f)| Source { path: p.clone(), format: *f }).collect();
        let mut r = Reader::new(sources, opts, start)?;
        let mut out: Vec<(String, Position)> = Vec::new();
        let mut open = String::new();
        while let Some(b) = r.next_block()? {
            for s in &b.spans {
                open.push_str(&b.text[s.start..s.end]);
                if s.last {
                    out.push((std::mem::take(&mut open), s.pos));
                }
            }
        }
        Ok(out)
    }

    #[test]
    fn lines_json_and_resume() {
        let t = tmp("a.txt", b"one\r\ntwo\n\nthree");
        let j =
            tmp("b.jsonl", b"{\"text\": \"x\\u00e9\", \"n\": [1, {\"text\": 2}]}\n\n{\"id\": 1, \"text\": \"y\"}\n");
        let srcs = [(t, Format::Text), (j, Format::Jsonl)];
        let o = ReadOptions { by_line: true, block_bytes: 4, ..ReadOptions::default() };
        let all = docs(&srcs, o.clone(), Position::default()).unwrap();
        let texts: Vec<&str> = all.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["one", "two", "three", "x\u{e9}", "y"]);
        assert_eq!(all[2].1.empty, 1);
        // Resuming after each document yields exactly the rest.
        for k in 0..all.len() {
            let rest = docs(&srcs, o.clone(), all[k].1).unwrap();
            assert_eq!(rest.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(), texts[k + 1..]);
        }
    }

    #[test]
    fn whole_files_cut_and_gzip() {
        let text = "word ".repeat(5000) + "end";
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
        let g = tmp("c.txt.gz", &gz.finish().unwrap());
        let e = tmp("empty.txt", b"");
        let srcs = [(g.clone(), Format::Text), (e, Format::Text), (g, Format::Text)];
        for cut in [false, true] {
            let o = ReadOptions { cut, block_bytes: 1000, ..ReadOptions::default() };
            let all = docs(&srcs, o, Position::default()).unwrap();
            // The empty file is an empty document: counted, not yielded.
            assert_eq!(all.len(), 2);
            assert_eq!(all[0].0, text);
            assert_eq!(all[1].0, text);
            assert_eq!((all[0].1.empty, all[1].1.empty, all[1].1.source), (0, 1, 2));
        }
    }

    #[test]
    fn errors_name_the_place() {
        let bad = tmp("bad.txt", b"ok\nbad \xff here\n");
        let o = ReadOptions { by_line: true, ..ReadOptions::default() };
        let e = docs(&[(bad.clone(), Format::Text)], o, Position::default()).unwrap_err().to_string();
        assert!(e.contains("bad.txt") && e.contains("invalid UTF-8 at byte 7"), "{e}");
        let j = tmp("bad.jsonl", b"{\"text\": \"a\"}\n{\"text\": 3}\n[1]\n{\"t\": \"x\"}\n{oops\n");
        let e = docs(&[(j.clone(), Format::Jsonl)], ReadOptions::default(), Position::default()).unwrap_err();
        assert!(e.to_string().contains("bad.jsonl:2: field \"text\" is a number"), "{e}");
        let o = ReadOptions { skip_bad: true, ..ReadOptions::default() };
        let all = docs(&[(j, Format::Jsonl)], o, Position::default()).unwrap();
        assert_eq!(all.len(), 1);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, "x".repeat(100000).as_bytes()).unwrap();
        let mut g = gz.finish().unwrap();
        g.truncate(g.len() / 2);
        let g = tmp("trunc.txt.gz", &g);
        let e = docs(&[(g, Format::Text)], ReadOptions::default(), Position::default()).unwrap_err().to_string();
        assert!(e.contains("trunc.txt.gz") && e.contains("gzip"), "{e}");
        let e =
            docs(&[(PathBuf::from("/nonexistent/x.txt"), Format::Text)], ReadOptions::default(), Position::default())
                .unwrap_err()
                .to_string();
        assert!(e.contains("/nonexistent/x.txt: cannot open"), "{e}");
    }
}
