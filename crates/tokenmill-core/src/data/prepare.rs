//! `prepare`: a corpus in, shards of token ids out, on all cores, resumable.
//!
//! Three kinds of threads: one reader (`reader::Reader`: blocks of whole documents, or parts
//! of a big plain-text document cut at safe points), `workers` encoders (any `DocEncoder`),
//! and the calling thread, which takes the encoded blocks back in input order and writes the
//! shards. At most `4 * workers + 2` blocks are in flight (a ticket per block, returned when
//! the block is written), so memory stays a few blocks plus the shard being written, whatever
//! the corpus size.
//!
//! Shards: the sources of one call are a work unit (`PrepareOptions::unit`), whose shards are
//! named `shard_<unit>_<k>`; a shard ends at the first document end at or after
//! `shard_tokens` tokens (a document is never split between shards), and at the unit's end. Each is written under a temporary name, synced,
//! then renamed, and only then is its marker `shard_NNNNNN.done.json` written (atomically):
//! the marker holds the reader's position after the shard's last document and the running
//! totals. A run that finds markers resumes after the last shard whose markers and files are
//! all present, deletes anything written after it, and ends with the same bytes as a run
//! that was never interrupted. Output depends only on the inputs and options: the same for
//! any number of workers, and without timestamps.
//!
//! What it does not do: decide the job's identity, compare it with what a directory holds, or
//! write `index.json` (policy, in Python: `tokenmill.data.prepare`); read parquet (the binding
//! opens such sources for the reader: `reader::OpenExternal`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::reader::{Block, OpenExternal, Position, ReadOptions, Reader, Source, Span};
use super::shards::{is_temp_name, unit_shard_stem, write_atomic, Dtype, Layout};
use super::writer::ShardWriter;
use crate::error::CoreError;

/// Turns one document (or a part of one cut at a safe point) into ids.
pub trait DocEncoder: Sync {
    /// Per-thread working memory.
    type Scratch: Default + Send;
    fn encode_doc(&self, text: &str, out: &mut Vec<u32>, scratch: &mut Self::Scratch) -> Result<(), CoreError>;
}

/// Where the end-of-text token goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eot {
    Append,
    Prepend,
    None,
}

impl Eot {
    pub fn parse(s: &str) -> Result<Eot, CoreError> {
        match s {
            "append" => Ok(Eot::Append),
            "prepend" => Ok(Eot::Prepend),
            "none" => Ok(Eot::None),
            _ => Err(CoreError::Input(format!("eot must be \"append\", \"prepend\" or \"none\", not {s:?}"))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct PrepareOptions {
    pub out: PathBuf,
    /// The work unit these sources are (shards are named `shard_<unit>_<k>`, `k` from 0):
    /// units are written independently, by one process or several.
    pub unit: usize,
    pub shard_tokens: u64,
    pub workers: usize,
    pub eot: Eot,
    pub eot_id: Option<u32>,
    pub dtype: Dtype,
    pub layout: Layout,
    pub read: ReadOptions,
}

/// Running totals, also what a marker stores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub documents: u64,
    pub tokens: u64,
    pub text_bytes: u64,
}

/// One finished shard, as its marker records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardInfo {
    pub index: usize,
    pub files: Vec<String>,
    /// The files' sizes in bytes (checked on resume).
    pub sizes: Vec<u64>,
    pub tokens: u64,
    pub documents: u64,
    pub first_token: u64,
    pub first_document: u64,
    /// The reader's position after the shard's last document.
    pub resume: Position,
    /// Totals up to and including this shard.
    pub totals: Totals,
    /// Documents per source so far (empty ones included).
    pub source_documents: Vec<u64>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Summary {
    pub shards: Vec<ShardInfo>,
    /// Shards found finished from an earlier run.
    pub resumed: usize,
    pub totals: Totals,
    /// Malformed records skipped, and empty documents (no text: no tokens, no shard entry).
    pub skipped: u64,
    pub empty: u64,
    pub source_documents: Vec<u64>,
    /// Uncompressed input bytes read by this run.
    pub input_bytes: u64,
}

/// Progress of a run, for a progress bar.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    /// Uncompressed input bytes read by this run.
    pub input_bytes: u64,
    pub tokens: u64,
    pub documents: u64,
}

fn marker_name(unit: usize, index: usize) -> String {
    format!("{}.done.json", unit_shard_stem(unit, index))
}

fn pos_json(p: &Position) -> Value {
    json!({"source": p.source, "offset": p.offset, "line": p.line, "source_documents": p.source_documents,
           "skipped": p.skipped, "empty": p.empty})
}

impl ShardInfo {
    fn to_json(&self) -> Value {
        json!({
            "shard": self.index, "files": self.files, "sizes": self.sizes, "tokens": self.tokens, "documents": self.documents,
            "first_token": self.first_token, "first_document": self.first_document,
            "resume": pos_json(&self.resume),
            "totals": {"documents": self.totals.documents, "tokens": self.totals.tokens,
                       "text_bytes": self.totals.text_bytes},
            "source_documents": self.source_documents,
        })
    }

    fn from_json(v: &Value) -> Option<ShardInfo> {
        let u = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
        let r = v.get("resume")?;
        let t = v.get("totals")?;
        Some(ShardInfo {
            index: u(v, "shard")? as usize,
            files: v.get("files")?.as_array()?.iter().map(|f| f.as_str().map(String::from)).collect::<Option<_>>()?,
            sizes: v.get("sizes")?.as_array()?.iter().map(Value::as_u64).collect::<Option<_>>()?,
            tokens: u(v, "tokens")?,
            documents: u(v, "documents")?,
            first_token: u(v, "first_token")?,
            first_document: u(v, "first_document")?,
            resume: Position {
                source: u(r, "source")? as usize,
                offset: u(r, "offset")?,
                line: u(r, "line")?,
                source_documents: u(r, "source_documents")?,
                skipped: u(r, "skipped")?,
                empty: u(r, "empty")?,
            },
            totals: Totals { documents: u(t, "documents")?, tokens: u(t, "tokens")?, text_bytes: u(t, "text_bytes")? },
            source_documents: v
                .get("source_documents")?
                .as_array()?
                .iter()
                .map(Value::as_u64)
                .collect::<Option<_>>()?,
        })
    }
}

/// The finished shards of `dir` (0, 1, ... while each has a readable marker and the files of
/// `layout` with the sizes it records), after deleting everything of later or unfinished
/// shards and any temporary file.
pub fn finished_shards(dir: &Path, layout: Layout, unit: usize) -> Result<Vec<ShardInfo>, CoreError> {
    let mut done = Vec::new();
    loop {
        let k = done.len();
        let Ok(text) = std::fs::read(dir.join(marker_name(unit, k))) else { break };
        let Some(info) = serde_json::from_slice::<Value>(&text).ok().as_ref().and_then(ShardInfo::from_json) else {
            break;
        };
        let files_ok = info.index == k
            && info.files == layout.files(&unit_shard_stem(unit, k))
            && info.sizes.len() == info.files.len()
            && info
                .files
                .iter()
                .zip(&info.sizes)
                .all(|(f, &size)| std::fs::metadata(dir.join(f)).map(|m| m.len() == size).unwrap_or(false));
        if !files_ok {
            break;
        }
        done.push(info);
    }
    // Whatever of this unit belongs to later shards, or was in flight, goes: it is redone
    // (other units' files are left alone: another process may be writing them).
    let prefix = format!("shard_{unit:06}_");
    let entries = std::fs::read_dir(dir).map_err(|e| CoreError::Io(format!("{}: cannot list: {e}", dir.display())))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = if let Some(rest) = name.strip_prefix(&prefix) {
            rest.get(..6).and_then(|n| n.parse::<usize>().ok()).is_some_and(|n| n >= done.len())
        } else {
            is_temp_name(&name) && name.get(1..).is_some_and(|n| n.starts_with(&prefix))
        };
        if stale {
            std::fs::remove_file(entry.path())
                .map_err(|e| CoreError::Io(format!("{}: cannot remove a stale file: {e}", entry.path().display())))?;
        }
    }
    Ok(done)
}

/// What the writing thread receives: a block's ids (or the error that stopped it), or the
/// number of blocks once the reader is done.
enum Msg {
    Block(u64, Result<Encoded, CoreError>),
    End(u64),
}

/// One block's ids, back from a worker.
struct Encoded {
    block: Block,
    ids: Vec<u32>,
    /// Per span: its number of ids.
    lens: Vec<usize>,
}

/// The shard being written and the running state of the writing thread.
struct Out<'a> {
    opts: &'a PrepareOptions,
    done: Vec<ShardInfo>,
    shard: Option<ShardWriter>,
    totals: Totals,
    shard_first: Totals,
    source_documents: Vec<u64>,
    last_pos: Position,
    /// A document whose first part is written but not its last.
    doc_open: bool,
}

impl Out<'_> {
    fn shard(&mut self) -> Result<&mut ShardWriter, CoreError> {
        if self.shard.is_none() {
            let stem = unit_shard_stem(self.opts.unit, self.done.len());
            self.shard = Some(ShardWriter::create(&self.opts.out, stem, self.opts.layout, self.opts.dtype)?);
            self.shard_first = self.totals;
        }
        self.shard.as_mut().ok_or_else(|| CoreError::Internal("no shard".into()))
    }

    fn note_position(&mut self, p: &Position) {
        if self.source_documents.len() <= p.source {
            self.source_documents.resize(p.source + 1, 0);
        }
        self.source_documents[p.source] = p.source_documents;
        self.last_pos = *p;
    }

    fn write(&mut self, e: &Encoded) -> Result<(), CoreError> {
        let mut at = 0;
        let eot = self.opts.eot_id;
        for (span, &n) in e.block.spans.iter().zip(&e.lens) {
            let ids = &e.ids[at..at + n];
            at += n;
            self.write_span(span, ids, eot)?;
        }
        self.note_position(&e.block.end);
        Ok(())
    }

    fn write_span(&mut self, span: &Span, ids: &[u32], eot: Option<u32>) -> Result<(), CoreError> {
        let (placement, shard_tokens) = (self.opts.eot, self.opts.shard_tokens);
        let w = self.shard()?;
        let before = w.tokens();
        if span.first {
            w.start_document();
            if let (Eot::Prepend, Some(id)) = (placement, eot) {
                w.push(&[id])?;
            }
        }
        w.push(ids)?;
        if span.last {
            if let (Eot::Append, Some(id)) = (placement, eot) {
                w.push(&[id])?;
            }
        }
        let full = w.tokens() >= shard_tokens;
        self.totals.tokens += w.tokens() - before;
        self.totals.text_bytes += (span.end - span.start) as u64;
        self.doc_open = !span.last;
        if span.last {
            self.totals.documents += 1;
            self.note_position(&span.pos);
            if full {
                self.close()?;
            }
        }
        Ok(())
    }

    /// Finishes the current shard (if it holds a document) and writes its marker.
    fn close(&mut self) -> Result<(), CoreError> {
        let Some(w) = self.shard.take() else { return Ok(()) };
        let index = self.done.len();
        let (tokens, documents) = (w.tokens(), w.documents());
        let (files, sizes) = w.finish()?.into_iter().unzip();
        let info = ShardInfo {
            index,
            files,
            sizes,
            tokens,
            documents,
            first_token: self.shard_first.tokens,
            first_document: self.shard_first.documents,
            resume: self.last_pos,
            totals: self.totals,
            source_documents: self.source_documents.clone(),
        };
        let text = serde_json::to_vec_pretty(&info.to_json()).map_err(|e| CoreError::Internal(e.to_string()))?;
        write_atomic(&self.opts.out, &marker_name(self.opts.unit, index), &text)?;
        self.done.push(info);
        Ok(())
    }
}

/// Reads, encodes and writes `sources` into shards in `opts.out` (which must exist),
/// resuming after the shards an earlier run finished. `external` opens the sources of format
/// `External` (parquet, read by the binding). `progress` is called on this thread about ten
/// times a second; an error from it stops the run (e.g. an interrupt).
pub fn prepare<E: DocEncoder>(
    enc: &E,
    sources: Vec<Source>,
    external: Option<OpenExternal>,
    opts: &PrepareOptions,
    progress: &mut dyn FnMut(Progress) -> Result<(), CoreError>,
) -> Result<Summary, CoreError> {
    let done = finished_shards(&opts.out, opts.layout, opts.unit)?;
    let start = done.last().map(|s| s.resume).unwrap_or_default();
    let mut reader = Reader::with_external(sources, opts.read.clone(), start, external)?;
    run(enc, opts, done, move || reader.next_block(), progress)
}

/// The pipeline behind `prepare`: blocks from `next` (in input order, `None` at the end),
/// after the shards `done` of an earlier run.
pub fn run<E, N>(
    enc: &E,
    opts: &PrepareOptions,
    done: Vec<ShardInfo>,
    mut next: N,
    progress: &mut dyn FnMut(Progress) -> Result<(), CoreError>,
) -> Result<Summary, CoreError>
where
    E: DocEncoder,
    N: FnMut() -> Result<Option<Block>, CoreError> + Send,
{
    let workers = opts.workers.max(1);
    let resumed = done.len();
    let last = done.last().cloned();
    let mut out = Out {
        opts,
        done,
        shard: None,
        totals: last.as_ref().map(|s| s.totals).unwrap_or_default(),
        shard_first: Totals::default(),
        source_documents: last.as_ref().map(|s| s.source_documents.clone()).unwrap_or_default(),
        last_pos: last.as_ref().map(|s| s.resume).unwrap_or_default(),
        doc_open: false,
    };
    let stop = AtomicBool::new(false);
    let input_bytes = AtomicU64::new(0);
    let tickets = 4 * workers + 2;
    let (ticket_tx, ticket_rx) = mpsc::sync_channel::<()>(tickets);
    for _ in 0..tickets {
        let _ = ticket_tx.send(());
    }
    let (block_tx, block_rx) = mpsc::sync_channel::<(u64, Block)>(tickets);
    let block_rx = Mutex::new(block_rx);
    let (done_tx, done_rx) = mpsc::channel::<Msg>();
    let result = std::thread::scope(|s| -> Result<(), CoreError> {
        let (stop, input_bytes, block_rx) = (&stop, &input_bytes, &block_rx);
        // The reader: a block per ticket, numbered.
        let reader_done = done_tx.clone();
        s.spawn(move || {
            let mut seq = 0u64;
            while ticket_rx.recv().is_ok() && !stop.load(Ordering::Relaxed) {
                match next() {
                    Ok(Some(block)) => {
                        input_bytes.fetch_add(block.input_bytes, Ordering::Relaxed);
                        if block_tx.send((seq, block)).is_err() {
                            break;
                        }
                        seq += 1;
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = reader_done.send(Msg::Block(seq, Err(e)));
                        return;
                    }
                }
            }
            // Dropping block_tx (here) ends the workers.
            let _ = reader_done.send(Msg::End(seq));
        });
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            s.spawn(move || {
                let mut scratch = E::Scratch::default();
                loop {
                    let got = block_rx.lock().map_err(|_| ()).and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok((seq, block)) = got else { break };
                    if stop.load(Ordering::Relaxed) {
                        continue; // drain, so that the reader never blocks on a full channel
                    }
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        encode_block(enc, block, &mut scratch)
                    }))
                    .unwrap_or_else(|_| Err(CoreError::Internal("an encoder thread panicked".into())));
                    if done_tx.send(Msg::Block(seq, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let r = write_in_order(&mut out, &done_rx, &ticket_tx, input_bytes, progress);
        if r.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        // Unblock the reader (it may wait for a ticket) and the workers.
        for _ in 0..tickets {
            let _ = ticket_tx.try_send(());
        }
        while done_rx.recv_timeout(Duration::from_millis(1)).is_ok() {}
        drop(block_rx.lock().map(|rx| while rx.try_recv().is_ok() {}));
        r
    });
    if let Err(e) = result {
        if let Some(w) = out.shard.take() {
            w.abandon();
        }
        return Err(e);
    }
    if out.doc_open {
        return Err(CoreError::Internal("the input ended inside a document".into()));
    }
    // (A unit without any text gives no shard; the caller decides whether that is an error.)
    out.close()?;
    Ok(Summary {
        resumed,
        totals: out.totals,
        skipped: out.last_pos.skipped,
        empty: out.last_pos.empty,
        source_documents: out.source_documents.clone(),
        input_bytes: input_bytes.load(Ordering::Relaxed),
        shards: out.done,
    })
}

fn encode_block<E: DocEncoder>(enc: &E, block: Block, scratch: &mut E::Scratch) -> Result<Encoded, CoreError> {
    let mut ids = Vec::with_capacity(block.text.len() / 3);
    let mut lens = Vec::with_capacity(block.spans.len());
    for span in &block.spans {
        let before = ids.len();
        enc.encode_doc(&block.text[span.start..span.end], &mut ids, scratch)?;
        lens.push(ids.len() - before);
    }
    Ok(Encoded { block, ids, lens })
}

fn write_in_order(
    out: &mut Out<'_>,
    rx: &Receiver<Msg>,
    tickets: &SyncSender<()>,
    input_bytes: &AtomicU64,
    progress: &mut dyn FnMut(Progress) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let mut pending: BTreeMap<u64, Encoded> = BTreeMap::new();
    let (mut next, mut total) = (0u64, u64::MAX);
    let mut last_report = Instant::now();
    while next < total {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Msg::End(n)) => total = n,
            Ok(Msg::Block(_, Err(e))) => return Err(e),
            Ok(Msg::Block(seq, Ok(e))) => {
                pending.insert(seq, e);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                if !pending.contains_key(&next) {
                    return Err(CoreError::Internal("the reader or an encoder stopped without a result".into()));
                }
            }
        }
        while let Some(e) = pending.remove(&next) {
            out.write(&e)?;
            next += 1;
            let _ = tickets.try_send(());
        }
        if last_report.elapsed() >= Duration::from_millis(100) {
            last_report = Instant::now();
            progress(Progress {
                input_bytes: input_bytes.load(Ordering::Relaxed),
                tokens: out.totals.tokens,
                documents: out.totals.documents,
            })?;
        }
    }
    progress(Progress {
        input_bytes: input_bytes.load(Ordering::Relaxed),
        tokens: out.totals.tokens,
        documents: out.totals.documents,
    })
}

#[cfg(test)]
mod tests {
    use super::super::reader::Format;
    use super::*;

    /// One id per byte.
    struct Bytes;
    impl DocEncoder for Bytes {
        type Scratch = ();
        fn encode_doc(&self, text: &str, out: &mut Vec<u32>, _: &mut ()) -> Result<(), CoreError> {
            out.extend(text.bytes().map(u32::from));
            Ok(())
        }
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tm-prepare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn files(d: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn same_bytes_for_any_workers_and_after_resume() {
        let src = dir("src");
        let lines: String = (0..3000).map(|i| format!("document number {i} {}\n", "x".repeat(i % 37))).collect();
        std::fs::write(src.join("a.txt"), &lines).unwrap();
        std::fs::write(src.join("b.txt"), "one whole document\nwith two lines").unwrap();
        let sources = vec![Source::new(src.join("a.txt"), Format::Text), Source::new(src.join("b.txt"), Format::Text)];
        let opts = |out: PathBuf, workers: usize, by_line: bool| PrepareOptions {
            out,
            unit: 7,
            shard_tokens: 20_000,
            workers,
            eot: Eot::Append,
            eot_id: Some(1000),
            dtype: Dtype::U16,
            layout: Layout::Npy,
            read: ReadOptions { by_line, block_bytes: 4096, ..ReadOptions::default() },
        };
        let base = opts(dir("w1"), 1, true);
        let s1 = prepare(&Bytes, sources.clone(), None, &base, &mut |_| Ok(())).unwrap();
        assert!(s1.shards.len() > 3);
        assert_eq!(s1.totals.documents, 3000 + 2);
        assert_eq!(s1.source_documents, vec![3000, 2]);
        let reference = files(&base.out);
        for workers in [2, 3] {
            let o = opts(dir(&format!("w{workers}")), workers, true);
            prepare(&Bytes, sources.clone(), None, &o, &mut |_| Ok(())).unwrap();
            assert_eq!(files(&o.out), reference);
        }
        // Interrupted after shard 1: later files, a stray temporary file and a half-written
        // marker go; the rerun ends identical.
        let o = opts(dir("resume"), 2, true);
        for (name, bytes) in &reference {
            std::fs::write(o.out.join(name), bytes).unwrap();
        }
        std::fs::remove_file(o.out.join("shard_000007_000002.done.json")).unwrap();
        std::fs::write(o.out.join(".shard_000007_000003.npy.tmp-1-stream"), b"junk").unwrap();
        // Another unit's files are not this run's to delete.
        std::fs::write(o.out.join("shard_000008_000000.npy"), b"other").unwrap();
        let s = prepare(&Bytes, sources.clone(), None, &o, &mut |_| Ok(())).unwrap();
        assert_eq!(s.resumed, 2);
        std::fs::remove_file(o.out.join("shard_000008_000000.npy")).unwrap();
        assert_eq!(files(&o.out), reference);
        // Nothing to do the second time.
        let s = prepare(&Bytes, sources.clone(), None, &o, &mut |_| Ok(())).unwrap();
        assert_eq!((s.resumed, s.totals), (s1.shards.len(), s1.totals));
        // An error from progress stops the run, leaving no temporary file.
        let o = opts(dir("stop"), 2, true);
        let e = prepare(&Bytes, sources, None, &o, &mut |_| Err(CoreError::Cancelled)).unwrap_err();
        assert!(matches!(e, CoreError::Cancelled));
        assert!(files(&o.out).iter().all(|(n, _)| !is_temp_name(n)));
    }

    #[test]
    fn empty_corpus_and_bad_ids() {
        let src = dir("empty-src");
        std::fs::write(src.join("e.txt"), "\n\n").unwrap();
        let o = PrepareOptions {
            out: dir("empty"),
            unit: 0,
            shard_tokens: 10,
            workers: 2,
            eot: Eot::None,
            eot_id: None,
            dtype: Dtype::U16,
            layout: Layout::Npy,
            read: ReadOptions { by_line: true, ..ReadOptions::default() },
        };
        let srcs = vec![Source::new(src.join("e.txt"), Format::Text)];
        let s = prepare(&Bytes, srcs.clone(), None, &o, &mut |_| Ok(())).unwrap();
        assert_eq!((s.shards.len(), s.totals.documents, s.empty), (0, 0, 2));
        std::fs::write(src.join("e.txt"), "ok\n").unwrap();
        let o = PrepareOptions { eot: Eot::Prepend, eot_id: Some(70000), ..o };
        let e = prepare(&Bytes, srcs, None, &o, &mut |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("70000 does not fit"), "{e}");
    }
}
