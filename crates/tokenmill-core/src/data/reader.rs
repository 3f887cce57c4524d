//! The streaming corpus reader of `prepare` and of the trainers: files in, blocks of whole
//! documents (or parts of plain-text documents) out.
//!
//! Reads plain text (one document per file, or per line with `by_line`) and JSON lines (one
//! document per line: the string in `text_field`), each optionally gzipped (found by its magic
//! bytes; a `.gz` name without them is an error), and rows of a string column that the caller
//! reads (`Format::External`: the binding's parquet). Files are read a block at a time
//! (`block_bytes`), so memory is a few blocks whatever the corpus size; a plain-text document
//! is cut into parts at `ReadOptions::cut` points, and read whole where it has none in reach.
//! A file can be read in ranges (`Source::range`: the lines that start in a byte range; for a
//! plain text cut at safe points, the part between the safe points at or after its ends; rows
//! of a parquet file), so that work units can share one big file.
//!
//! Every document (or part of one) in a block carries the reader's `Position` after it: the
//! source, the uncompressed byte offset and line count there, and the counters so far. A
//! reader started at such a position (`Reader::new`) yields exactly the documents that
//! followed it, which is how an interrupted `prepare` resumes.
//!
//! Errors name the file and the place, worded as the Python reader worded them: invalid UTF-8
//! with its byte offset (in the uncompressed stream) and reason (`lossy` replaces it with U+FFFD
//! as Python's decoder does instead), a malformed JSON line, a missing or non-string text
//! field, a lone surrogate escape in it, or a null row with `file:line` or `row N` (with
//! `skip_bad` these are counted in `Position::skipped` and skipped), a corrupt or truncated
//! gzip stream, a file that cannot be opened.
//!
//! What it does not do: open parquet (the binding does), tokenize, decide shard boundaries,
//! or choose formats from file names.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::error::CoreError;
use crate::pretokenize::cuts::{is_cut_point, is_line_point, CutMode};

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

/// One input file, or a byte range of one.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub format: Format,
    /// Read only the lines (of a JSON lines or `by_line` text file, not gzipped) whose first
    /// byte lies in `start..end`: so consecutive ranges split a file between work units, each
    /// line read by exactly one of them, whatever the ranges' ends cut. For a plain-text
    /// document read with `cut: Safe`: its part from the first safe cut point at or after
    /// `start` to the first at or after `end` (parts of one document; only the first range
    /// counts it). For `External` rows (parquet), the rows `start..end`.
    pub range: Option<(u64, u64)>,
}

impl Source {
    /// The whole file.
    pub fn new(path: impl Into<PathBuf>, format: Format) -> Self {
        Source { path: path.into(), format, range: None }
    }
}

/// How sources are read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Plain text: one document per line (without its `\n` or `\r\n`).
    pub by_line: bool,
    /// JSON lines: the field that holds the document.
    pub text_field: String,
    /// Count and skip malformed records (JSON lines, null parquet rows) instead of failing.
    pub skip_bad: bool,
    /// About how many bytes of text a block holds.
    pub block_bytes: usize,
    /// Whether, and where, a plain-text document may be cut into parts: `Safe` points only
    /// for tokenizers whose ids do not change when the text is cut there; `Line` points for
    /// counting with any other pattern (`pretokenize::cuts`). A document with no such point
    /// in reach is read on until one comes (so memory holds it whole at worst).
    pub cut: Option<CutMode>,
    /// Invalid UTF-8 becomes U+FFFD (as Python's `errors="replace"`: one per maximal invalid
    /// subsequence), and so does a lone surrogate escape in a JSON string, instead of an
    /// error. Positions then count decoded bytes, so a lossy read cannot be resumed.
    pub lossy: bool,
    /// Drop a byte-order mark (U+FEFF) at the start of each file: training drops it (it marks
    /// the encoding; it is not text); `prepare` keeps it, as Python's "utf-8" codec does, so
    /// that a file's ids are `encode(open(path, encoding="utf-8").read())`.
    pub strip_bom: bool,
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
            cut: None,
            lossy: false,
            strip_bom: false,
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
    gz: bool,
    /// A plain-text document: its first part was sent; its last part was sent.
    doc_open: bool,
    doc_done: bool,
    /// Bytes read but not yet used (an incomplete line or UTF-8 sequence).
    carry: Vec<u8>,
    /// Whether the source's first bytes were looked at (for a byte-order mark).
    started: bool,
    /// Whether the document's end counts as a document (not for a range after the first of
    /// a plain-text file: its parts are one document).
    counts: bool,
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
    /// Bytes read from the files on disk (compressed bytes for gzip), for progress bars.
    disk: Arc<AtomicU64>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const BOM: &[u8] = b"\xef\xbb\xbf";
const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

fn io_err(path: &str, what: &str, e: std::io::Error) -> CoreError {
    CoreError::Corpus(format!("{path}: {what}: {e}"))
}

/// A file that counts the bytes read from it.
struct Counted {
    file: File,
    n: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.file.read(buf)?;
        self.n.fetch_add(k as u64, Ordering::Relaxed);
        Ok(k)
    }
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
        if opts.lossy && start != Position::default() {
            return Err(CoreError::Input("a lossy read (errors=\"replace\") cannot resume from a position".into()));
        }
        let disk = Arc::new(AtomicU64::new(0));
        let mut r = Reader { sources, opts, pos: start, open: None, external, rows: None, disk };
        let whole_file = |r: &Reader| r.sources[r.pos.source].format == Format::Text && !r.opts.by_line;
        if r.pos.source < r.sources.len() && r.pos.offset > 0 && whole_file(&r) {
            // Positions inside a one-document file are those after the document: it is done.
            r.pos = Position { source: r.pos.source + 1, offset: 0, line: 0, source_documents: 0, ..r.pos };
        }
        if r.pos.source < r.sources.len() && r.sources[r.pos.source].format != Format::External {
            let skip = r.pos.offset; // a resumed run's place (`open_current` may move to a range's start)
            r.open_current()?;
            let text_range = r.sources[r.pos.source].range.is_some()
                && r.sources[r.pos.source].format == Format::Text
                && !r.opts.by_line;
            if skip > 0 && !text_range {
                let o = r.open.as_mut().ok_or_else(|| CoreError::Internal("no open source".into()))?;
                o.started = true;
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

    /// Bytes read so far from the files on disk (compressed bytes of a gzip file; a parquet
    /// file counts in full once read): with read-ahead, a little more than was used.
    pub fn disk_bytes(&self) -> u64 {
        self.disk.load(Ordering::Relaxed)
    }

    fn open_current(&mut self) -> Result<(), CoreError> {
        let src = &self.sources[self.pos.source];
        let path = src.path.display().to_string();
        let file = File::open(&src.path).map_err(|e| io_err(&path, "cannot open", e))?;
        let mut raw = BufReader::with_capacity(1 << 16, Counted { file, n: self.disk.clone() });
        let head = raw.fill_buf().map_err(|e| io_err(&path, "reading", e))?;
        let gz = head.starts_with(&GZIP_MAGIC);
        if !gz && path.to_lowercase().ends_with(".gz") {
            // The name promises gzip: reading the bytes as text would train on garbage.
            return Err(CoreError::Corpus(format!(
                "{path}: corrupt or truncated gzip data (no gzip header); check it with 'gzip -t'"
            )));
        }
        let input: Box<dyn BufRead + Send> = if gz {
            Box::new(BufReader::with_capacity(1 << 16, flate2::bufread::MultiGzDecoder::new(raw)))
        } else {
            Box::new(raw)
        };
        let (doc_open, doc_done, carry, started, counts, eof) = (false, false, Vec::new(), false, true, false);
        let mut o = Open { input, path, gz, doc_open, doc_done, carry, started, counts, eof };
        if let Some((start, end)) = src.range {
            let by_lines = src.format == Format::Jsonl || self.opts.by_line;
            let safe_text = src.format == Format::Text && self.opts.cut == Some(CutMode::Safe) && !self.opts.lossy;
            if gz || !(by_lines || safe_text) {
                return Err(CoreError::Input(format!(
                    "{}: a byte range can only be read from a plain (not gzipped) file of lines, or of text \
                     cut at safe points (strict UTF-8)",
                    o.path
                )));
            }
            if !by_lines {
                // One document in parts: this range reads from the first safe cut point at or
                // after its start to the first at or after its end (the next range's start), so
                // the ranges of a file read every byte once and cut only where cutting is exact.
                let (from, to) = (first_cut_at(&src.path, start)?, first_cut_at(&src.path, end)?);
                let from = from.max(self.pos.offset);
                let got = std::io::copy(&mut (&mut o.input).take(from), &mut std::io::sink())
                    .map_err(|e| io_err(&o.path, "reading", e))?;
                self.pos.offset = got;
                o.started = start > 0;
                o.counts = start == 0;
                o.input = Box::new(o.input.take(to.saturating_sub(from)));
                self.open = Some(o);
                return Ok(());
            }
            if self.pos.offset == 0 && start > 0 {
                // The line holding byte `start - 1` belongs to the range before this one.
                let got = std::io::copy(&mut (&mut o.input).take(start - 1), &mut std::io::sink())
                    .map_err(|e| io_err(&o.path, "reading", e))?;
                let mut rest = Vec::new();
                let n = o.input.read_until(b'\n', &mut rest).map_err(|e| io_err(&o.path, "reading", e))?;
                self.pos.offset = got + n as u64;
                o.started = true;
            }
        }
        self.open = Some(o);
        Ok(())
    }

    /// The end of the current source's range (`u64::MAX` for a whole file).
    fn range_end(&self) -> u64 {
        self.sources.get(self.pos.source).and_then(|s| s.range).map_or(u64::MAX, |r| r.1)
    }

    /// Line `rel` of the current source counted from the start of the file: the reader counts
    /// lines from where it started, which is not the file's start in a range, so there the
    /// line breaks before `line_start` are counted (for an error message only).
    fn file_line(&self, rel: u64, line_start: u64) -> u64 {
        let src = &self.sources[self.pos.source];
        if src.range.is_none_or(|r| r.0 == 0) {
            return rel;
        }
        let count = || -> std::io::Result<u64> {
            let mut f = BufReader::new(File::open(&src.path)?).take(line_start);
            let (mut n, mut buf) = (0u64, vec![0u8; 1 << 16]);
            loop {
                let k = f.read(&mut buf)?;
                if k == 0 {
                    return Ok(n + 1);
                }
                n += memchr::memchr_iter(b'\n', &buf[..k]).count() as u64;
            }
        };
        count().unwrap_or(rel)
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
            if format == Format::External {
                let size = std::fs::metadata(&self.sources[self.pos.source].path).map_or(0, |m| m.len());
                self.disk.fetch_add(size, Ordering::Relaxed);
            }
            self.open = None;
            self.rows = None;
            self.pos = Position { source: self.pos.source + 1, offset: 0, line: 0, source_documents: 0, ..self.pos };
        }
    }

    /// Reads up to about `want` more bytes into `carry`; false at the end of the input. A
    /// byte-order mark at the start of the source is dropped (counted in `pos.offset`: it was
    /// consumed). In a lossy read, invalid UTF-8 in `carry` becomes U+FFFD as it arrives.
    fn fill(o: &mut Open, want: usize, pos: &mut Position, opts: &ReadOptions) -> Result<bool, CoreError> {
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
        if !o.started && (o.carry.len() >= BOM.len() || o.eof) {
            o.started = true;
            if opts.strip_bom && o.carry.starts_with(BOM) {
                o.carry.drain(..BOM.len());
                pos.offset += BOM.len() as u64;
            }
        }
        if opts.lossy {
            replace_invalid(&mut o.carry, start.saturating_sub(3), o.eof);
        }
        Ok(got > 0)
    }

    /// Invalid UTF-8 in `bytes`, which start at byte `offset` of the source (line `line`,
    /// when lines are counted): the error, worded as Python words it.
    fn utf8_error(&self, o: &Open, bytes: &[u8], e: std::str::Utf8Error, line: Option<u64>) -> CoreError {
        let at = e.valid_up_to();
        let bad = &bytes[at..at + e.error_len().unwrap_or(bytes.len() - at)];
        let reason = match (e.error_len(), bytes[at]) {
            (None, _) => "unexpected end of data",
            (_, 0x80..=0xbf | 0xc0 | 0xc1 | 0xf5..) => "invalid start byte",
            _ => "invalid continuation byte",
        };
        let hex: Vec<String> = bad.iter().map(|b| format!("{b:02x}")).collect();
        let where_ = if o.gz { " (offset in the uncompressed data)" } else { "" };
        CoreError::CorpusAt {
            reason: format!("invalid UTF-8{where_} ({reason}: {}); {}", hex.join(" "), self.opts.utf8_hint),
            path: o.path.clone(),
            line,
            offset: Some(self.pos.offset + at as u64),
        }
    }

    /// Plain text, one document per file: the next part of the current document.
    fn text_block(&mut self) -> Result<Option<Block>, CoreError> {
        let (want, cut) = (self.opts.block_bytes.max(8), self.opts.cut);
        let mut o = self.open.take().ok_or_else(|| CoreError::Internal("no open source".into()))?;
        let r = self.text_part(&mut o, want, cut);
        self.open = Some(o);
        r
    }

    fn text_part(&mut self, o: &mut Open, want: usize, cut: Option<CutMode>) -> Result<Option<Block>, CoreError> {
        if o.doc_done {
            return Ok(None);
        }
        // Where this part ends: at the end of the input, else at the last cut point of what
        // was read; without one, read on (all of it when the document may not be cut).
        let mut searched = 0;
        let end = loop {
            while cut.is_none() || o.carry.len() < searched + want {
                if !Self::fill(o, want.max(o.carry.len() / 2), &mut self.pos, &self.opts)? {
                    break;
                }
            }
            let valid = match std::str::from_utf8(&o.carry) {
                Ok(_) => o.carry.len(),
                Err(e) if e.error_len().is_none() && !o.eof => e.valid_up_to(), // a sequence cut by the read
                Err(e) => return Err(self.utf8_error(o, &o.carry, e, None)),
            };
            let Some(mode) = cut.filter(|_| !o.eof) else { break o.carry.len() };
            let text = std::str::from_utf8(&o.carry[..valid]).unwrap_or_default();
            if let Some(p) = last_point(text, searched.max(1), mode) {
                break p;
            }
            searched = valid;
        };
        let rest = o.carry.split_off(end);
        let bytes = std::mem::replace(&mut o.carry, rest);
        let text = String::from_utf8(bytes).map_err(|e| CoreError::Internal(format!("{}: {e}", o.path)))?;
        let first = !o.doc_open;
        o.doc_open = true;
        let last = o.eof && o.carry.is_empty();
        self.pos.offset += text.len() as u64;
        self.pos.line += memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
        if last {
            o.doc_done = true;
            self.pos.source_documents += o.counts as u64;
            if first && text.is_empty() {
                self.pos.empty += 1;
                return Ok(Some(Block { end: self.pos, ..Block::default() }));
            }
        }
        let span = Span { start: 0, end: text.len(), first, last, pos: self.pos };
        let input_bytes = text.len() as u64;
        Ok(Some(Block { text, spans: vec![span], input_bytes, end: self.pos }))
    }

    /// An external source: the next batch of rows. A null row is a malformed record.
    fn external_block(&mut self) -> Result<Option<Block>, CoreError> {
        let src = &self.sources[self.pos.source];
        let (path, range) = (src.path.display().to_string(), src.range);
        if self.rows.is_none() {
            let open = self
                .external
                .as_mut()
                .ok_or_else(|| CoreError::Input(format!("{path}: this reader has no way to open parquet files")))?;
            // A range of rows starts at its first row (a resumed run, further on).
            self.pos.offset = self.pos.offset.max(range.map_or(0, |r| r.0));
            self.rows = Some(open(src, self.pos.offset)?);
        }
        let end = range.map_or(u64::MAX, |r| r.1);
        if self.pos.offset >= end {
            return Ok(None);
        }
        let Some(rows) = self.rows.as_mut() else { return Ok(None) };
        let Some(batch) = rows.next().transpose()? else { return Ok(None) };
        let ExternalBatch { data, mut offsets, valid } = batch;
        // Rows from the range's end on belong to the next range.
        let room = usize::try_from(end - self.pos.offset).unwrap_or(usize::MAX);
        if offsets.len() > room.saturating_add(1) {
            offsets.truncate(room + 1);
        }
        let n = offsets.len().saturating_sub(1);
        let base = offsets.first().copied().unwrap_or(0);
        let bad = || CoreError::Internal(format!("{path}: a batch of rows with inconsistent offsets"));
        let len = data.len();
        let rel = |o: i64| usize::try_from(o - base).ok().filter(|&x| x <= len);
        let row_at =
            |at: i64, pos: &Position| offsets.partition_point(|&o| o <= at).saturating_sub(1) as u64 + pos.offset;
        let text = match String::from_utf8(data) {
            Ok(t) => t,
            Err(e) if !self.opts.lossy => {
                let row = row_at(e.utf8_error().valid_up_to() as i64 + base, &self.pos);
                let reason = format!("row {row}: invalid UTF-8 in the text column; {}", self.opts.utf8_hint);
                return Err(CoreError::CorpusAt { reason, path, line: None, offset: None });
            }
            // Replacing would move the rows' offsets: each row is decoded on its own.
            Err(e) => return self.external_lossy(e.into_bytes(), &offsets, valid.as_deref(), &path),
        };
        let mut block = Block { input_bytes: text.len() as u64, ..Block::default() };
        for i in 0..n {
            let (start, end) = (rel(offsets[i]).ok_or_else(bad)?, rel(offsets[i + 1]).ok_or_else(bad)?);
            if start > end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                return Err(bad());
            }
            if self.null_row(valid.as_deref(), i, &path)? {
                continue;
            }
            self.pos.offset += 1;
            self.pos.line += 1;
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

    /// Row `i` of a batch is null: counted as skipped with `skip_bad`, else an error.
    fn null_row(&mut self, valid: Option<&[u8]>, i: usize, path: &str) -> Result<bool, CoreError> {
        let null = valid.is_some_and(|v| v.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 0));
        if !null {
            return Ok(false);
        }
        if !self.opts.skip_bad {
            let (row, field, hint) = (self.pos.offset, &self.opts.text_field, &self.opts.record_hint);
            let sep = if hint.is_empty() { "" } else { " " };
            let reason = format!("row {row}: column '{field}' is null, not a string{sep}{hint}");
            return Err(CoreError::CorpusAt { reason, path: path.into(), line: None, offset: None });
        }
        self.pos.offset += 1;
        self.pos.line += 1;
        self.pos.skipped += 1;
        Ok(true)
    }

    /// `external_block` for a lossy read of a batch with invalid UTF-8: row by row.
    fn external_lossy(
        &mut self,
        data: Vec<u8>,
        offsets: &[i64],
        valid: Option<&[u8]>,
        path: &str,
    ) -> Result<Option<Block>, CoreError> {
        let base = offsets.first().copied().unwrap_or(0);
        let mut block = Block { input_bytes: data.len() as u64, ..Block::default() };
        for i in 0..offsets.len().saturating_sub(1) {
            let range = usize::try_from(offsets[i] - base).ok().zip(usize::try_from(offsets[i + 1] - base).ok());
            let Some(row) = range.and_then(|(a, z)| data.get(a..z)) else {
                return Err(CoreError::Internal(format!("{path}: a batch of rows with inconsistent offsets")));
            };
            if self.null_row(valid, i, path)? {
                continue;
            }
            self.pos.offset += 1;
            self.pos.line += 1;
            self.pos.source_documents += 1;
            if row.is_empty() {
                self.pos.empty += 1;
                continue;
            }
            let start = block.text.len();
            block.text.push_str(&String::from_utf8_lossy(row));
            block.spans.push(Span { start, end: block.text.len(), first: true, last: true, pos: self.pos });
        }
        block.end = self.pos;
        Ok(Some(block))
    }

    /// One document per line (plain text or JSON lines): the next block of whole lines.
    fn line_block(&mut self, json: bool) -> Result<Option<Block>, CoreError> {
        let mut o = self.open.take().ok_or_else(|| CoreError::Internal("no open source".into()))?;
        let r = self.lines(&mut o, json);
        self.open = Some(o);
        r
    }

    fn lines(&mut self, o: &mut Open, json: bool) -> Result<Option<Block>, CoreError> {
        let (want, lossy, end) = (self.opts.block_bytes.max(1), self.opts.lossy, self.range_end());
        if self.pos.offset >= end {
            return Ok(None);
        }
        let first_offset = self.pos.offset;
        // Whole lines: read until a block's worth holds a line break, or the input ends.
        while !(o.eof || o.carry.len() >= want && memchr::memchr(b'\n', &o.carry).is_some()) {
            Self::fill(o, want, &mut self.pos, &self.opts)?;
        }
        let cut = if o.eof { o.carry.len() } else { memchr::memrchr(b'\n', &o.carry).map_or(0, |i| i + 1) };
        if cut == 0 {
            return Ok(None);
        }
        let rest = o.carry.split_off(cut);
        let bytes = std::mem::replace(&mut o.carry, rest);
        let mut block = Block::default();
        // A range that ends inside these bytes: its last line is the one holding byte `end - 1`.
        let bytes = match end.checked_sub(self.pos.offset).filter(|&k| k < bytes.len() as u64) {
            Some(k) => {
                let last = k as usize - 1; // `pos.offset < end`: k >= 1
                let stop = memchr::memchr(b'\n', &bytes[last..]).map_or(bytes.len(), |i| last + i + 1);
                o.eof = true;
                o.carry.clear();
                bytes[..stop].to_vec()
            }
            None => bytes,
        };
        if !json {
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let (bytes, e) = (e.as_bytes(), e.utf8_error());
                    let before = &bytes[..e.valid_up_to()];
                    let line = self.pos.line + 1 + memchr::memchr_iter(b'\n', before).count() as u64;
                    let start = self.pos.offset + memchr::memrchr(b'\n', before).map_or(0, |i| i as u64 + 1);
                    let line = self.file_line(line, start);
                    return Err(self.utf8_error(o, bytes, e, Some(line)));
                }
            };
            let pos = &mut self.pos;
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
            if let Err(e) = std::str::from_utf8(&bytes) {
                let before = &bytes[..e.valid_up_to()];
                let line = self.pos.line + 1 + memchr::memchr_iter(b'\n', before).count() as u64;
                let start = self.pos.offset + memchr::memrchr(b'\n', before).map_or(0, |i| i as u64 + 1);
                let line = self.file_line(line, start);
                return Err(self.utf8_error(o, &bytes, e, Some(line)));
            }
            let mut text = String::with_capacity(bytes.len());
            let (field, skip_bad) = (&self.opts.text_field, self.opts.skip_bad);
            let record_hint = &self.opts.record_hint;
            let mut failed = None;
            let pos = &mut self.pos;
            let mut start = 0;
            for line_end in memchr::memchr_iter(b'\n', &bytes).chain((!bytes.ends_with(b"\n")).then_some(bytes.len())) {
                let next = (line_end + 1).min(bytes.len());
                let line = &bytes[start..line_end];
                let line_start = pos.offset;
                pos.offset += (next - start) as u64;
                pos.line += 1;
                start = next;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines are not records
                }
                let s = text.len();
                match json_record(line, field, lossy, &mut text) {
                    Ok(()) => {
                        pos.source_documents += 1;
                        if text.len() == s {
                            pos.empty += 1;
                            continue;
                        }
                        block.spans.push(Span { start: s, end: text.len(), first: true, last: true, pos: *pos });
                    }
                    Err(_) if skip_bad => pos.skipped += 1,
                    Err(why) => {
                        let sep = if record_hint.is_empty() { "" } else { " " };
                        failed = Some((format!("{why}{sep}{record_hint}"), pos.line, line_start));
                        break;
                    }
                }
            }
            if let Some((reason, rel, line_start)) = failed {
                let line = Some(self.file_line(rel, line_start));
                return Err(CoreError::CorpusAt { reason, path: o.path.clone(), line, offset: None });
            }
            block.text = text;
        }
        block.input_bytes = self.pos.offset - first_offset;
        block.end = self.pos;
        Ok(Some(block))
    }
}

/// The first safe cut point (`is_cut_point`) at or after byte `at` of the text file at `path`,
/// or its size if there is none (0 for 0). Reads from a few bytes before `at` (a point depends
/// on the two characters before it), in growing windows.
fn first_cut_at(path: &std::path::Path, at: u64) -> Result<u64, CoreError> {
    use std::io::{Seek, SeekFrom};
    let name = path.display().to_string();
    let mut f = File::open(path).map_err(|e| io_err(&name, "cannot open", e))?;
    let size = f.metadata().map_err(|e| io_err(&name, "reading", e))?.len();
    if at == 0 || at >= size {
        return Ok(at.min(size));
    }
    let base = at.saturating_sub(8);
    f.seek(SeekFrom::Start(base)).map_err(|e| io_err(&name, "reading", e))?;
    let mut buf = Vec::new();
    let mut want = 1u64 << 16;
    loop {
        let got = (&mut f).take(want).read_to_end(&mut buf).map_err(|e| io_err(&name, "reading", e))?;
        let end = base + buf.len() as u64;
        // From the first character start of the window, as much as is valid UTF-8.
        let skip = buf.iter().take(4).take_while(|&&b| b & 0xc0 == 0x80).count();
        let valid = match std::str::from_utf8(&buf[skip..]) {
            Ok(t) => t.len(),
            Err(e) => e.valid_up_to(),
        };
        let text = std::str::from_utf8(&buf[skip..skip + valid]).unwrap_or_default();
        let lo = (at - base) as usize - skip.min((at - base) as usize);
        if let Some(p) = (lo..text.len()).find(|&i| text.is_char_boundary(i) && i > 0 && is_cut_point(text, i)) {
            return Ok(base + (skip + p) as u64);
        }
        if got == 0 || end >= size || valid + skip + 4 < buf.len() {
            // The end of the file, or invalid UTF-8 (the reader will name it): no point before.
            return Ok(size);
        }
        want = want.saturating_mul(2);
    }
}

/// The last cut point `p` of `text` with `lo <= p < text.len()` (see `ReadOptions::cut`).
fn last_point(text: &str, lo: usize, mode: CutMode) -> Option<usize> {
    let hi = text.len();
    let mut points = (lo..hi).rev().filter(|&i| text.is_char_boundary(i));
    match mode {
        CutMode::Safe => points.find(|&i| is_cut_point(text, i)),
        // Rule A anywhere in reach beats any line break (`cuts::last_cut`'s `Line` mode).
        CutMode::Line => points.find(|&i| is_line_point(text, i)).or_else(|| {
            let b = text.as_bytes();
            memchr::memrchr(b'\n', &b[lo.saturating_sub(1)..hi.saturating_sub(1)]).map(|j| j + lo.saturating_sub(1) + 1)
        }),
    }
}

/// Replaces each invalid UTF-8 sequence in `buf[from..]` (`from` is at or before the first
/// byte not yet checked) by U+FFFD, as Python's decoder does with `errors="replace"`; an
/// incomplete sequence at the end stays for the next read, unless `eof`.
fn replace_invalid(buf: &mut Vec<u8>, from: usize, eof: bool) {
    // Back to a character start, so a sequence cut by the previous read is seen whole.
    let mut i = from.min(buf.len());
    while i > 0 && buf[i] & 0xc0 == 0x80 {
        i -= 1;
    }
    let Err(first) = std::str::from_utf8(&buf[i..]) else { return };
    if first.error_len().is_none() && !eof {
        return;
    }
    let mut out = Vec::with_capacity(buf.len() + 16);
    out.extend_from_slice(&buf[..i]);
    let mut rest = &buf[i..];
    loop {
        match std::str::from_utf8(rest) {
            Ok(_) => {
                out.extend_from_slice(rest);
                break;
            }
            Err(e) => {
                let (ok, bad) = rest.split_at(e.valid_up_to());
                out.extend_from_slice(ok);
                match e.error_len() {
                    Some(n) => {
                        out.extend_from_slice(REPLACEMENT);
                        rest = &bad[n..];
                    }
                    None if eof => {
                        out.extend_from_slice(REPLACEMENT);
                        break;
                    }
                    None => {
                        out.extend_from_slice(bad);
                        break;
                    }
                }
            }
        }
    }
    *buf = out;
}

/// The document of a JSON line (see `json_text_into`), worded as Python words it. A lone
/// surrogate escape (`"\ud83d"`, which JSON allows and UTF-8 cannot hold) is U+FFFD in a
/// lossy read, else an error when it is in the text field.
fn json_record(line: &[u8], field: &str, lossy: bool, out: &mut String) -> Result<(), String> {
    let mark = out.len();
    match json_text_into(line, field, out) {
        // serde_json refuses a lone surrogate escape; Python's json accepts it.
        Err(e) if e.contains("surrogate") || e.contains("hex escape") => {
            let (fixed, lone) = replace_lone_surrogates(line);
            json_text_into(&fixed, field, out)?;
            if !lossy && out[mark..].contains('\u{fffd}') {
                out.truncate(mark);
                let hint = "which is not valid Unicode; pass errors=\"replace\" to substitute U+FFFD";
                return Err(format!("text has a lone surrogate U+{:04X} (a JSON escape), {hint}", lone.unwrap_or(0)));
            }
            Ok(())
        }
        r => r,
    }
}

/// `line` with every lone surrogate escape `\uD800`..`\uDFFF` in a string made `\uFFFD` (the
/// same length), and the first one's code unit.
fn replace_lone_surrogates(line: &[u8]) -> (Vec<u8>, Option<u32>) {
    let mut out = line.to_vec();
    let mut first = None;
    let unit = |b: &[u8], i: usize| -> Option<u32> {
        let hex = b.get(i..i + 6).filter(|h| h[0] == b'\\' && h[1] == b'u')?;
        u32::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut i, mut in_str) = (0, false);
    while i < line.len() {
        match line[i] {
            b'"' => in_str = !in_str,
            b'\\' if in_str => {
                let Some(u) = unit(line, i) else {
                    i += 2; // a one-character escape
                    continue;
                };
                let high = (0xd800..0xdc00).contains(&u);
                let paired = high && unit(line, i + 6).is_some_and(|v| (0xdc00..0xe000).contains(&v));
                if paired {
                    i += 12;
                    continue;
                }
                if (0xd800..0xe000).contains(&u) {
                    out[i + 2..i + 6].copy_from_slice(b"FFFD");
                    first.get_or_insert(u);
                }
                i += 6;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (out, first)
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
            Ok(Err("boolean"))
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Err("number"))
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Err("number"))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Err("number"))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Err("array"))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Err("object"))
        }
    }
    /// The line's top level: an object (with the field's outcome, if it has the field, and
    /// its first keys), or the kind of anything else.
    enum Top {
        Object(Option<Result<(), &'static str>>, Vec<String>, usize),
        Other(&'static str),
    }
    struct Find<'f, 'o>(&'f str, &'o mut String);
    impl<'de> Visitor<'de> for Find<'_, '_> {
        type Value = Top;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let (mut found, mut keys, mut n) = (None, Vec::new(), 0);
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == self.0 && found.is_none() {
                    found = Some(map.next_value_seed(Append(&mut *self.1))?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
                if keys.len() < 10 {
                    keys.push(key.into_owned());
                }
                n += 1;
            }
            Ok(Top::Object(found, keys, n))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Top::Other("array"))
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Top::Other("string"))
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Top::Other("null"))
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Top::Other("boolean"))
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Top::Other("number"))
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Top::Other("number"))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Top::Other("number"))
        }
    }
    let mark = out.len();
    let mut de = serde_json::Deserializer::from_slice(line);
    let malformed = |e: serde_json::Error| {
        // serde's wording, without its "at line 1" (a JSON line has one line).
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        format!("line is not valid JSON ({msg} at column {})", e.column())
    };
    let got = de.deserialize_any(Find(field, out)).map_err(malformed).and_then(|got| {
        de.end().map_err(malformed)?;
        Ok(got)
    });
    let quoted = format!("'{}'", field.replace('\\', "\\\\").replace('\'', "\\'"));
    let r = match got {
        Ok(Top::Object(Some(Ok(())), ..)) => return Ok(()),
        Ok(Top::Object(Some(Err(kind)), ..)) => Err(format!("field {quoted} is a JSON {kind}, not a string")),
        Ok(Top::Object(None, keys, n)) => {
            // As Python's `sources.preview` words a list of names.
            let more = if n > keys.len() { format!(", ... and {} more", n - keys.len()) } else { String::new() };
            let shown = if n == 0 { "none".to_string() } else { keys.join(", ") };
            Err(format!(
                "line has no field {quoted} (fields: {shown}{more}); pass text_field=... to read another field"
            ))
        }
        Ok(Top::Other(kind)) => Err(format!("line is a JSON {kind}, not an object with a {quoted} field")),
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
        let sources = sources.iter().map(|(p, f)| Source::new(p.clone(), *f)).collect();
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
        for cut in [None, Some(CutMode::Safe), Some(CutMode::Line)] {
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
        assert!(e.contains("bad.txt:2: byte 7: invalid UTF-8 (invalid start byte: ff)"), "{e}");
        let j = tmp("bad.jsonl", b"{\"text\": \"a\"}\n{\"text\": 3}\n[1]\n{\"t\": \"x\"}\n{oops\n");
        let e = docs(&[(j.clone(), Format::Jsonl)], ReadOptions::default(), Position::default()).unwrap_err();
        assert!(e.to_string().contains("bad.jsonl:2: field 'text' is a JSON number, not a string"), "{e}");
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

    #[test]
    fn a_document_without_cut_points_is_not_cut() {
        // No whitespace and no line break: no point where a cut is known to be safe.
        let text = "ab,cd;".repeat(2000);
        let t = tmp("nocut.txt", text.as_bytes());
        for cut in [Some(CutMode::Safe), Some(CutMode::Line)] {
            let o = ReadOptions { cut, block_bytes: 1000, ..ReadOptions::default() };
            let sources = vec![Source::new(t.clone(), Format::Text)];
            let mut r = Reader::new(sources, o, Position::default()).unwrap();
            let b = r.next_block().unwrap().unwrap();
            assert_eq!(
                (b.text.as_str(), b.spans.len(), b.spans[0].first, b.spans[0].last),
                (text.as_str(), 1, true, true)
            );
        }
        // With points, parts end at them (rule B: a letter before whitespace) and stay near the block size.
        let text = "word ".repeat(2000);
        let t = tmp("cut.txt", text.as_bytes());
        let o = ReadOptions { cut: Some(CutMode::Safe), block_bytes: 1000, ..ReadOptions::default() };
        let mut r = Reader::new(vec![Source::new(t, Format::Text)], o, Position::default()).unwrap();
        let mut parts = Vec::new();
        while let Some(b) = r.next_block().unwrap() {
            parts.push(b.text);
        }
        assert!(
            parts.len() > 5 && parts.iter().all(|p| p.len() <= 2000),
            "{:?}",
            parts.iter().map(String::len).collect::<Vec<_>>()
        );
        assert!(parts[..parts.len() - 1].iter().all(|p| p.ends_with('d')));
        assert_eq!(parts.concat(), text);
    }

    #[test]
    fn lossy_reads_replace_as_python_does() {
        // Invalid bytes at every position around a block boundary, a sequence cut by the end.
        for k in 60..70 {
            let mut data = b"a".repeat(k);
            data.extend_from_slice(b"\xe2\x82\xff \xed\xa0\x80 ok \xf0\x9f\x98");
            let t = tmp("lossy.txt", &data);
            let o = ReadOptions { lossy: true, cut: Some(CutMode::Safe), block_bytes: 64, ..ReadOptions::default() };
            let all = docs(&[(t, Format::Text)], o, Position::default()).unwrap();
            let want = "a".repeat(k) + "\u{fffd}\u{fffd} \u{fffd}\u{fffd}\u{fffd} ok \u{fffd}";
            assert_eq!(all[0].0, want);
        }
        let j = tmp("lossy.jsonl", b"{\"text\": \"a\xffb\"}\n{\"text\": \"\\ud83d!\", \"x\": \"\\\\ud800\"}\n");
        let o = ReadOptions { lossy: true, ..ReadOptions::default() };
        let all = docs(&[(j.clone(), Format::Jsonl)], o, Position::default()).unwrap();
        assert_eq!(all.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(), ["a\u{fffd}b", "\u{fffd}!"]);
        let e = docs(&[(j, Format::Jsonl)], ReadOptions::default(), Position::default()).unwrap_err().to_string();
        assert!(e.contains("lossy.jsonl:1: byte 11: invalid UTF-8 (invalid start byte: ff)"), "{e}");
        // A lone surrogate outside the text field is no error; in it, one naming the code unit.
        let j = tmp("sur.jsonl", b"{\"text\": \"ok\", \"x\": \"\\udc00\"}\n{\"text\": \"\\ud83d\"}\n");
        let e = docs(&[(j, Format::Jsonl)], ReadOptions::default(), Position::default()).unwrap_err().to_string();
        assert!(e.contains("sur.jsonl:2: text has a lone surrogate U+D83D"), "{e}");
    }

    #[test]
    fn byte_order_marks_are_not_text() {
        let t = tmp("bom.txt", b"\xef\xbb\xbfone\ntwo\n");
        let j = tmp("bom.jsonl", b"\xef\xbb\xbf{\"text\": \"x\"}\n");
        let o = ReadOptions { by_line: true, strip_bom: true, ..ReadOptions::default() };
        let all = docs(&[(t.clone(), Format::Text), (j, Format::Jsonl)], o, Position::default()).unwrap();
        assert_eq!(all.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(), ["one", "two", "x"]);
        let o = ReadOptions { strip_bom: true, ..ReadOptions::default() };
        let all = docs(&[(t.clone(), Format::Text)], o, Position::default()).unwrap();
        assert_eq!(all[0].0, "one\ntwo\n");
        assert_eq!(all[0].1.offset, 11, "the mark is consumed input");
        let all = docs(&[(t, Format::Text)], ReadOptions::default(), Position::default()).unwrap();
        assert_eq!(all[0].0, "\u{feff}one\ntwo\n", "kept unless strip_bom");
    }

    #[test]
    fn byte_ranges_split_lines_between_readers() {
        // Lines of every length around the range ends, JSON and plain, one bad line.
        let mut text = String::new();
        for i in 0..300 {
            text.push_str(&"x".repeat(i % 17));
            text.push('\n');
        }
        let t = tmp("ranges.txt", text.as_bytes());
        let want =
            docs(&[(t.clone(), Format::Text)], ReadOptions { by_line: true, ..Default::default() }, Default::default())
                .unwrap()
                .into_iter()
                .map(|d| d.0)
                .collect::<Vec<_>>();
        let size = text.len() as u64;
        for step in [1u64, 7, 16, 17, 18, 100, size] {
            for block_bytes in [5, 64, 1 << 20] {
                let mut got = Vec::new();
                let mut a = 0;
                while a < size {
                    let b = (a + step).min(size);
                    let src = Source { range: Some((a, b)), ..Source::new(t.clone(), Format::Text) };
                    let o = ReadOptions { by_line: true, block_bytes, ..Default::default() };
                    let mut r = Reader::new(vec![src], o, Position::default()).unwrap();
                    while let Some(blk) = r.next_block().unwrap() {
                        got.extend(blk.spans.iter().map(|s| blk.text[s.start..s.end].to_string()));
                    }
                    a = b;
                }
                assert_eq!(got, want, "step {step}, block {block_bytes}");
            }
        }
        // An error names the line of the file, not of the range.
        let j = tmp("ranges.jsonl", b"{\"text\": \"a\"}\n{\"text\": \"b\"}\n{\"text\": 1}\n");
        let src = Source { range: Some((20, 42)), ..Source::new(j, Format::Jsonl) };
        let e = Reader::new(vec![src], ReadOptions::default(), Position::default()).unwrap().next_block().unwrap_err();
        assert!(e.to_string().contains("ranges.jsonl:3: field 'text' is a JSON number"), "{e}");
    }

    #[test]
    fn text_ranges_meet_at_safe_points() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(["héllo wörld ", "日本語の文章 ", "  \n\n  x", "abc,def;", "Line\nNext "][i % 5]);
        }
        let t = tmp("text-ranges.txt", text.as_bytes());
        let size = text.len() as u64;
        for step in [1u64, 5, 13, 64, 333, size] {
            let (mut got, mut a) = (String::new(), 0);
            while a < size {
                let b = (a + step).min(size);
                let src = Source { range: Some((a, b)), ..Source::new(t.clone(), Format::Text) };
                let o = ReadOptions { cut: Some(CutMode::Safe), block_bytes: 50, ..Default::default() };
                let mut r = Reader::new(vec![src], o, Position::default()).unwrap();
                let before = got.len();
                while let Some(blk) = r.next_block().unwrap() {
                    got.push_str(&blk.text);
                }
                // Every range starts at a safe point (or the file's start).
                assert!(before == 0 || got.len() == before || is_cut_point(&text, before), "step {step}, at {before}");
                a = b;
            }
            assert_eq!(got, text, "step {step}");
        }
    }
}
