//! The files of a token shard directory (`tokenmill prepare`, issue 11; the format is the
//! "tokenmill shard directory, version 1" spec): one shard's token file(s) and document starts in
//! one of three layouts, and an atomic write (temporary file, fsync, rename) for every file.
//!
//! * `Npy` (default): `shard_NNNNNN.npy`, a 1-D `<u2`/`<u4` array byte-identical to `np.save`'s,
//!   plus `shard_NNNNNN.docs.npy`, a 1-D `<i8` array of document start offsets.
//! * `Megatron`: `shard_NNNNNN.bin` (raw little-endian tokens) and `shard_NNNNNN.idx`, megatron-core's
//!   `MMIDIDX` index (version 1) with one sequence per document. megatron-core has no uint32 dtype:
//!   large vocabularies are written with its int32 code (4), as its own `DType.optimal_dtype` does,
//!   so ids must stay below 2**31.
//! * `Llmc`: `shard_NNNNNN.bin`, llm.c's token shard (256 x int32 header: magic 20240520, version 1,
//!   token count; then uint16 tokens) plus `shard_NNNNNN.docs.npy`. llm.c reads uint16 tokens only
//!   (its loaders accept version 1 and nothing else), so a uint32 shard is refused, not invented.
//!
//! What it does not do: read a corpus, encode, cut documents into shards, decide the order, write
//! `index.json` or the `.done.json` contents, or resume (the `prepare` pipeline does; it uses
//! `write_atomic` for those files). Nothing here reads shards back (Python's
//! `tokenmill.data.shard_files` does).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CoreError;

/// How a shard's tokens are stored (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Npy,
    Megatron,
    Llmc,
}

/// The element type of a shard's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    U16,
    U32,
}

impl Dtype {
    /// The narrowest dtype holding every id up to `max_id` (the largest id of the vocabulary,
    /// special tokens included).
    pub fn for_vocab(max_id: u32) -> Dtype {
        if max_id <= u32::from(u16::MAX) {
            Dtype::U16
        } else {
            Dtype::U32
        }
    }

    /// The dtype named `s` ("uint16" or "uint32").
    pub fn parse(s: &str) -> Result<Dtype, CoreError> {
        match s {
            "uint16" => Ok(Dtype::U16),
            "uint32" => Ok(Dtype::U32),
            _ => Err(CoreError::Input(format!("dtype must be \"uint16\" or \"uint32\", not {s:?}"))),
        }
    }

    /// The name in `index.json`: "uint16" or "uint32".
    pub fn name(self) -> &'static str {
        match self {
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
        }
    }

    /// Bytes per token.
    pub fn itemsize(self) -> usize {
        match self {
            Dtype::U16 => 2,
            Dtype::U32 => 4,
        }
    }
}

impl Layout {
    /// Parses a `--format` value: "npy", "megatron" or "llmc".
    pub fn parse(s: &str) -> Result<Layout, CoreError> {
        match s {
            "npy" => Ok(Layout::Npy),
            "megatron" => Ok(Layout::Megatron),
            "llmc" => Ok(Layout::Llmc),
            _ => Err(CoreError::Input(format!(
                "unknown shard format {s:?}: expected one of \"npy\", \"megatron\", \"llmc\""
            ))),
        }
    }

    /// The name in `index.json` (and `--format`).
    pub fn name(self) -> &'static str {
        match self {
            Layout::Npy => "npy",
            Layout::Megatron => "megatron",
            Layout::Llmc => "llmc",
        }
    }

    /// The file names of the shard named `stem` (`shard_stem`), in the order of the spec's "files"
    /// (what `write_shard` returns).
    pub fn files(self, stem: &str) -> Vec<String> {
        match self {
            Layout::Npy => vec![format!("{stem}.npy"), format!("{stem}.docs.npy")],
            Layout::Megatron => vec![format!("{stem}.bin"), format!("{stem}.idx")],
            Layout::Llmc => vec![format!("{stem}.bin"), format!("{stem}.docs.npy")],
        }
    }
}

/// "shard_000000" for 0: the name of shard `index` without extension (6 digits, more if needed).
pub fn shard_stem(index: usize) -> String {
    format!("shard_{index:06}")
}

/// "shard_000002_000005": the name of shard `index` of work unit `unit` (`prepare` numbers
/// shards within a unit of input files, so that units can be written by different processes).
pub fn unit_shard_stem(unit: usize, index: usize) -> String {
    format!("shard_{unit:06}_{index:06}")
}

/// Whether `name` is one of the temporary names `write_atomic` uses (left behind only by a crash;
/// safe to delete when no writer runs). Such names start with a dot, so `shard_*` globs skip them.
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.contains(".tmp-")
}

/// Writes `bytes` to `dir/name` atomically: a temporary file in `dir`, fsync'd, then renamed over
/// `name` (and the directory fsync'd), so a reader sees the old file or the whole new one.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), CoreError> {
    write_atomic_with(dir, name, |sink| sink.put(bytes))
}

/// Writes the shard named `stem` (see the module doc for the layouts): each file atomically,
/// in the order of the spec's "files", which it returns. `doc_starts[i]` is the offset of document i
/// within `ids` (non-decreasing, the first 0, none past `ids.len()`; empty only when `ids` is).
///
/// Errors (`CoreError::Input`): an id that does not fit the file's element type (named with its position;
/// never wrapped), a uint32 llm.c shard, bad `doc_starts`, a count a header field cannot hold, and any
/// I/O error (naming the path). A failed write leaves no temporary file; files of the shard already
/// renamed into place stay (the shard's `.done.json` is what marks it complete).
pub fn write_shard(
    dir: &Path,
    stem: &str,
    layout: Layout,
    dtype: Dtype,
    ids: &[u32],
    doc_starts: &[u64],
) -> Result<Vec<String>, CoreError> {
    check_doc_starts(stem, ids.len(), doc_starts)?;
    let files = layout.files(stem);
    let elem = match (layout, dtype) {
        (Layout::Llmc, Dtype::U32) => {
            return Err(CoreError::Input(format!(
                "{stem}: the llm.c layout holds uint16 tokens only (llm.c reads magic 20240520 version 1 and no \
                 other), but this vocabulary needs uint32; use the \"npy\" or \"megatron\" format"
            )))
        }
        (Layout::Megatron, Dtype::U32) => Elem::MEGATRON_I32,
        (_, Dtype::U16) => Elem::U16,
        (_, Dtype::U32) => Elem::U32,
    };
    match layout {
        Layout::Npy => {
            write_atomic_with(dir, &files[0], |sink| {
                sink.put(&npy_header(elem.descr, ids.len() as u64))?;
                put_ids(sink, stem, ids, elem)
            })?;
            write_docs_npy(dir, &files[1], doc_starts)?;
        }
        Layout::Megatron => {
            let lengths = megatron_lengths(stem, ids.len(), doc_starts)?;
            write_atomic_with(dir, &files[0], |sink| put_ids(sink, stem, ids, elem))?;
            write_atomic_with(dir, &files[1], |sink| {
                let count = doc_starts.len() as u64;
                sink.put(b"MMIDIDX\x00\x00")?;
                sink.put(&1u64.to_le_bytes())?;
                sink.put(&[elem.megatron_code])?;
                sink.put(&count.to_le_bytes())?; // sequences: one per document
                sink.put(&(count + 1).to_le_bytes())?; // document indices, 0..=count
                for &len in &lengths {
                    sink.put(&len.to_le_bytes())?;
                }
                for &start in doc_starts {
                    sink.put(&(start * elem.size as u64).to_le_bytes())?; // byte pointer, fits: < ids.len() * 4
                }
                for i in 0..=count {
                    sink.put(&i.to_le_bytes())?;
                }
                Ok(())
            })?;
        }
        Layout::Llmc => {
            let count = i32::try_from(ids.len()).map_err(|_| {
                CoreError::Input(format!(
                    "{stem}: {} tokens do not fit llm.c's int32 token count (at most {}); use smaller shards",
                    ids.len(),
                    i32::MAX
                ))
            })?;
            write_atomic_with(dir, &files[0], |sink| {
                let mut header = [0u8; 256 * 4];
                header[0..4].copy_from_slice(&LLMC_MAGIC.to_le_bytes());
                header[4..8].copy_from_slice(&LLMC_VERSION_U16.to_le_bytes());
                header[8..12].copy_from_slice(&count.to_le_bytes());
                sink.put(&header)?;
                put_ids(sink, stem, ids, elem)
            })?;
            write_docs_npy(dir, &files[1], doc_starts)?;
        }
    }
    Ok(files)
}

/// llm.c's token shard header: magic and the version of uint16 tokens (dev/data/data_common.py, "gpt-2").
const LLMC_MAGIC: i32 = 20240520;
const LLMC_VERSION_U16: i32 = 1;

/// How ids are stored in a token file.
#[derive(Clone, Copy)]
struct Elem {
    size: usize,
    /// The largest id the type holds.
    max: u32,
    /// Its name in error messages.
    name: &'static str,
    /// numpy's descr (for .npy).
    descr: &'static str,
    /// megatron-core's `DType` code (for .idx).
    megatron_code: u8,
}

impl Elem {
    const U16: Elem = Elem { size: 2, max: u16::MAX as u32, name: "uint16", descr: "<u2", megatron_code: 8 };
    const U32: Elem = Elem { size: 4, max: u32::MAX, name: "uint32", descr: "<u4", megatron_code: 0 };
    /// megatron-core has no uint32: it stores large vocabularies as int32 (code 4).
    const MEGATRON_I32: Elem = Elem {
        size: 4,
        max: i32::MAX as u32,
        name: "int32 (megatron-core's type for vocabularies beyond uint16)",
        descr: "<i4",
        megatron_code: 4,
    };
}

fn check_doc_starts(stem: &str, n_ids: usize, doc_starts: &[u64]) -> Result<(), CoreError> {
    let bad = |why: String| Err(CoreError::Input(format!("{stem}: bad document starts: {why}")));
    match doc_starts.first() {
        None if n_ids > 0 => return bad(format!("no document, but {n_ids} tokens")),
        Some(&first) if first != 0 => return bad(format!("the first is {first}, not 0")),
        _ => {}
    }
    if let Some(i) = doc_starts.windows(2).position(|w| w[1] < w[0]) {
        return bad(format!("{} at {} follows {}: they must not decrease", doc_starts[i + 1], i + 1, doc_starts[i]));
    }
    match doc_starts.last() {
        Some(&last) if last > n_ids as u64 => bad(format!("the last is {last}, past the {n_ids} tokens")),
        _ => Ok(()),
    }
}

/// megatron's int32 sequence lengths, one per document.
fn megatron_lengths(stem: &str, n_ids: usize, doc_starts: &[u64]) -> Result<Vec<i32>, CoreError> {
    let ends = doc_starts.iter().skip(1).copied().chain(std::iter::once(n_ids as u64));
    doc_starts
        .iter()
        .zip(ends)
        .enumerate()
        .map(|(i, (&start, end))| {
            i32::try_from(end - start).map_err(|_| {
                CoreError::Input(format!(
                    "{stem}: document {i} has {} tokens, more than megatron's int32 sequence length holds",
                    end - start
                ))
            })
        })
        .collect()
}

fn write_docs_npy(dir: &Path, name: &str, doc_starts: &[u64]) -> Result<(), CoreError> {
    write_atomic_with(dir, name, |sink| {
        sink.put(&npy_header("<i8", doc_starts.len() as u64))?;
        // Starts are at most the shard's token count, so they fit an i64.
        for &start in doc_starts {
            sink.put(&start.to_le_bytes())?;
        }
        Ok(())
    })
}

/// The header `np.save` writes for a 1-D C-order array of `len` elements of `descr` (format 1.0):
/// magic, version, header length, the dict with room for the length to grow to 21 digits, spaces
/// and a newline so that the data starts at a multiple of 64 bytes.
pub(crate) fn npy_header(descr: &str, len: u64) -> Vec<u8> {
    const ALIGN: usize = 64;
    const PREFIX: usize = 10; // magic (6), version (2), header length (2)
    const GROWTH_DIGITS: usize = 21; // numpy's GROWTH_AXIS_MAX_DIGITS
    let shape = len.to_string();
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape},), }}");
    dict.extend(std::iter::repeat_n(' ', GROWTH_DIGITS.saturating_sub(shape.len())));
    let hlen = dict.len() + 1; // + the final newline
    let pad = ALIGN - (PREFIX + hlen) % ALIGN; // 1..=64, as numpy computes it
    let total = hlen + pad;
    let mut out = Vec::with_capacity(PREFIX + total);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    // Always < 65536: the dict is under 120 bytes.
    out.extend_from_slice(&(total as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend(std::iter::repeat_n(b' ', pad));
    out.push(b'\n');
    out
}

impl Elem {
    /// Appends `ids` to `out`, little-endian; Err(index) of the first id that does not fit
    /// (nothing is appended then). One branch-free pass converts and finds the largest id;
    /// which one is too large is looked for only when one is.
    fn append(self, ids: &[u32], out: &mut Vec<u8>) -> Result<(), usize> {
        let start = out.len();
        out.resize(start + ids.len() * self.size, 0);
        let bytes = &mut out[start..];
        let mut max = 0u32;
        if self.size == 2 {
            for (o, &id) in bytes.chunks_exact_mut(2).zip(ids) {
                max = max.max(id);
                o.copy_from_slice(&(id as u16).to_le_bytes());
            }
        } else {
            for (o, &id) in bytes.chunks_exact_mut(4).zip(ids) {
                max = max.max(id);
                o.copy_from_slice(&id.to_le_bytes());
            }
        }
        if max > self.max {
            out.truncate(start);
            return Err(ids.iter().position(|&id| id > self.max).unwrap_or(0));
        }
        Ok(())
    }
}

/// numpy's descr of a `.npy` shard of `dtype` ("<u2" or "<u4").
pub(crate) fn npy_descr(dtype: Dtype) -> &'static str {
    npy_elem(dtype).descr
}

fn npy_elem(dtype: Dtype) -> Elem {
    match dtype {
        Dtype::U16 => Elem::U16,
        Dtype::U32 => Elem::U32,
    }
}

/// Appends `ids` as a `.npy` shard of `dtype` stores them; Err(index) of the first id that does
/// not fit (for the streaming writer, which words its own message).
pub(crate) fn append_npy_ids(dtype: Dtype, ids: &[u32], out: &mut Vec<u8>) -> Result<(), usize> {
    npy_elem(dtype).append(ids, out)
}

/// Writes `ids` little-endian as `elem`, converting a block at a time (no per-id write call), and
/// refuses the first id that does not fit.
fn put_ids(sink: &mut Sink, stem: &str, ids: &[u32], elem: Elem) -> Result<(), CoreError> {
    const BLOCK: usize = 1 << 16;
    let mut buf = Vec::with_capacity(BLOCK * elem.size);
    for (b, block) in ids.chunks(BLOCK).enumerate() {
        buf.clear();
        if let Err(i) = elem.append(block, &mut buf) {
            return Err(CoreError::Input(format!(
                "{stem}: token id {} at position {} does not fit the shard's dtype {} (at most {})",
                block[i],
                b * BLOCK + i,
                elem.name,
                elem.max
            )));
        }
        sink.put(&buf)?;
    }
    Ok(())
}

/// A temporary file being written, with the final path for error messages.
struct Sink {
    out: BufWriter<File>,
    path: PathBuf,
    tmp: PathBuf,
}

impl Sink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), CoreError> {
        self.out.write_all(bytes).map_err(|e| self.error("write", e))
    }

    fn error(&self, what: &str, e: std::io::Error) -> CoreError {
        io_error(what, &self.path, Some(&self.tmp), e)
    }
}

fn io_error(what: &str, path: &Path, tmp: Option<&Path>, e: std::io::Error) -> CoreError {
    match tmp {
        Some(tmp) => {
            CoreError::Input(format!("cannot {what} {} (temporary file {}): {e}", path.display(), tmp.display()))
        }
        None => CoreError::Input(format!("cannot {what} {}: {e}", path.display())),
    }
}

/// Distinguishes temporary files of one process (two threads may write in one directory).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Runs `fill` on a temporary file in `dir`, then fsyncs it, renames it to `name` and fsyncs `dir`.
/// On any error the temporary file is removed.
fn write_atomic_with(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut Sink) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let path = dir.join(name);
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']) || is_temp_name(name) {
        return Err(CoreError::Input(format!("cannot write {}: {name:?} is not a plain file name", path.display())));
    }
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    // Starts with a dot and ends in ".tmp-…": no shard or index glob matches it.
    let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    let file = File::create(&tmp).map_err(|e| io_error("create", &path, Some(&tmp), e))?;
    let mut sink = Sink { out: BufWriter::with_capacity(1 << 20, file), path, tmp };
    let result = fill(&mut sink).and_then(|()| finish(sink.out, &sink.path, &sink.tmp));
    if result.is_err() {
        let _ = fs::remove_file(&sink.tmp); // best effort: the first error is the one to report
    }
    result?;
    sync_dir(dir)
}

fn finish(out: BufWriter<File>, path: &Path, tmp: &Path) -> Result<(), CoreError> {
    let file = out.into_inner().map_err(|e| io_error("write", path, Some(tmp), e.into_error()))?;
    file.sync_all().map_err(|e| io_error("fsync", path, Some(tmp), e))?;
    drop(file);
    fs::rename(tmp, path).map_err(|e| io_error("rename into place", path, Some(tmp), e))
}

/// Makes the rename durable. Only Unix can open and fsync a directory.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), CoreError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io_error("fsync the directory", dir, None, e))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), CoreError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected bytes made by numpy 2.4 (`np.save` to a BytesIO) and by megatron-core 0.16.1's own
    // `_IndexWriter` (loaded from its wheel without torch); see tests/test_shard_files.py.
    const NPY_U16_5: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (5,), }                                                            \x0a\x01\x00\x02\x00\x03\x00\x04\x00\xff\xff";
    const NPY_U16_EMPTY: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (0,), }                                                            \x0a";
    const NPY_U32_3: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u4', 'fortran_order': False, 'shape': (3,), }                                                            \x0ap\x11\x01\x00\x01\x00\x00\x00\xff\xff\xff\xff";
    const NPY_U32_EMPTY: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u4', 'fortran_order': False, 'shape': (0,), }                                                            \x0a";
    const NPY_I8_DOCS: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }                                                            \x0a\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00";
    const NPY_I8_EMPTY: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (0,), }                                                            \x0a";
    // np.lib.format.write_array_header_1_0 (what np.save calls) for shapes (100000000,) and (2**64-1,).
    const NPY_HDR_100M: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (100000000,), }                                                    \n";
    const NPY_HDR_MAX: &[u8] = b"\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (18446744073709551615,), }                                         \n";
    // _IndexWriter(path, np.uint16).write([3, 0, 2], None, [0, 1, 2, 3])
    const IDX_U16: &[u8] = &[
        77, 77, 73, 68, 73, 68, 88, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 3,
        0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
    ];
    // _IndexWriter(path, np.int32).write([1, 2], None, [0, 1, 2])
    const IDX_I32: &[u8] = &[
        77, 77, 73, 68, 73, 68, 88, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1,
        0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
    ];
    // _IndexWriter(path, np.uint16).write([], None, [0])
    const IDX_EMPTY: &[u8] = &[
        77, 77, 73, 68, 73, 68, 88, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0,
    ];

    /// A fresh directory under the system temp dir, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            static N: AtomicU64 = AtomicU64::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let p = std::env::temp_dir().join(format!("tokenmill-shards-{}-{tag}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&p);
            fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }

        fn read(&self, name: &str) -> Vec<u8> {
            fs::read(self.0.join(name)).unwrap()
        }

        fn names(&self) -> Vec<String> {
            let mut v: Vec<String> =
                fs::read_dir(&self.0).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
            v.sort();
            v
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn le16(ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect()
    }

    fn le32(ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&i| i.to_le_bytes()).collect()
    }

    fn input_msg(r: Result<Vec<String>, CoreError>) -> String {
        match r {
            Err(CoreError::Input(m)) => m,
            other => panic!("expected an Input error, got {other:?}"),
        }
    }

    #[test]
    fn names_and_parsing() {
        assert_eq!(shard_stem(0), "shard_000000");
        assert_eq!(shard_stem(123), "shard_000123");
        assert_eq!(shard_stem(1_234_567), "shard_1234567");
        for l in [Layout::Npy, Layout::Megatron, Layout::Llmc] {
            assert_eq!(Layout::parse(l.name()).unwrap(), l);
        }
        assert!(matches!(Layout::parse("NPY"), Err(CoreError::Input(m)) if m.contains("\"megatron\"")));
        assert!(Layout::parse("").is_err());
        assert_eq!(Dtype::for_vocab(0), Dtype::U16);
        assert_eq!(Dtype::for_vocab(65535), Dtype::U16);
        assert_eq!(Dtype::for_vocab(65536), Dtype::U32);
        assert_eq!(Dtype::for_vocab(u32::MAX), Dtype::U32);
        assert_eq!((Dtype::U16.name(), Dtype::U32.name()), ("uint16", "uint32"));
        assert_eq!(Layout::Npy.files(&shard_stem(7)), ["shard_000007.npy", "shard_000007.docs.npy"]);
        assert_eq!(Layout::Megatron.files(&shard_stem(7)), ["shard_000007.bin", "shard_000007.idx"]);
        assert_eq!(Layout::Llmc.files(&shard_stem(7)), ["shard_000007.bin", "shard_000007.docs.npy"]);
    }

    #[test]
    fn npy_header_is_numpys() {
        assert_eq!(npy_header("<u2", 100_000_000), NPY_HDR_100M);
        assert_eq!(npy_header("<u2", u64::MAX), NPY_HDR_MAX);
        assert_eq!(npy_header("<u2", 0), NPY_U16_EMPTY);
        for n in [0, 1, 9, 10, 99_999, 1 << 40] {
            assert_eq!(npy_header("<u4", n).len() % 64, 0);
        }
    }

    #[test]
    fn npy_layout_matches_np_save() {
        let d = TempDir::new("npy");
        let files =
            write_shard(&d.0, &shard_stem(0), Layout::Npy, Dtype::U16, &[1, 2, 3, 4, 65535], &[0, 3, 3]).unwrap();
        assert_eq!(files, ["shard_000000.npy", "shard_000000.docs.npy"]);
        assert_eq!(d.read("shard_000000.npy"), NPY_U16_5);
        assert_eq!(d.read("shard_000000.docs.npy"), NPY_I8_DOCS);
        write_shard(&d.0, &shard_stem(1), Layout::Npy, Dtype::U32, &[70000, 1, u32::MAX], &[0, 3, 3]).unwrap();
        assert_eq!(d.read("shard_000001.npy"), NPY_U32_3);
        write_shard(&d.0, &shard_stem(2), Layout::Npy, Dtype::U16, &[], &[]).unwrap();
        assert_eq!(d.read("shard_000002.npy"), NPY_U16_EMPTY);
        assert_eq!(d.read("shard_000002.docs.npy"), NPY_I8_EMPTY);
        write_shard(&d.0, &shard_stem(3), Layout::Npy, Dtype::U32, &[], &[]).unwrap();
        assert_eq!(d.read("shard_000003.npy"), NPY_U32_EMPTY);
        // Nothing else left behind: no temporary file.
        assert_eq!(d.names().len(), 8);
        assert!(d.names().iter().all(|n| n.starts_with("shard_")));
    }

    #[test]
    fn large_shard_crosses_blocks() {
        let d = TempDir::new("large");
        let ids: Vec<u32> = (0..200_003u32).map(|i| i.wrapping_mul(2_654_435_761) % 65536).collect();
        let starts = [0u64, 65_536, 65_537, 199_999];
        write_shard(&d.0, &shard_stem(0), Layout::Npy, Dtype::U16, &ids, &starts).unwrap();
        let got = d.read("shard_000000.npy");
        assert_eq!(got[..128], npy_header("<u2", ids.len() as u64)[..]);
        assert_eq!(got[128..], le16(&ids)[..]);
        write_shard(&d.0, &shard_stem(1), Layout::Npy, Dtype::U32, &ids, &starts).unwrap();
        assert_eq!(d.read("shard_000001.npy")[128..], le32(&ids)[..]);
    }

    #[test]
    fn megatron_layout_matches_megatron_core() {
        let d = TempDir::new("megatron");
        let files =
            write_shard(&d.0, &shard_stem(0), Layout::Megatron, Dtype::U16, &[1, 2, 3, 4, 5], &[0, 3, 3]).unwrap();
        assert_eq!(files, ["shard_000000.bin", "shard_000000.idx"]);
        assert_eq!(d.read("shard_000000.bin"), le16(&[1, 2, 3, 4, 5]));
        assert_eq!(d.read("shard_000000.idx"), IDX_U16);
        write_shard(&d.0, &shard_stem(1), Layout::Megatron, Dtype::U32, &[70000, 1, 2], &[0, 1]).unwrap();
        assert_eq!(d.read("shard_000001.bin"), le32(&[70000, 1, 2]));
        assert_eq!(d.read("shard_000001.idx"), IDX_I32);
        write_shard(&d.0, &shard_stem(2), Layout::Megatron, Dtype::U16, &[], &[]).unwrap();
        assert_eq!(d.read("shard_000002.bin"), b"");
        assert_eq!(d.read("shard_000002.idx"), IDX_EMPTY);
        assert_eq!(d.names().len(), 6);
    }

    #[test]
    fn megatron_int32_refuses_ids_past_2_31() {
        let d = TempDir::new("megatron-big");
        let m = input_msg(write_shard(&d.0, &shard_stem(0), Layout::Megatron, Dtype::U32, &[5, 1 << 31], &[0]));
        assert!(m.contains("token id 2147483648 at position 1") && m.contains("int32"), "{m}");
        assert!(d.names().is_empty(), "{:?}", d.names());
        write_shard(&d.0, &shard_stem(0), Layout::Megatron, Dtype::U32, &[5, i32::MAX as u32], &[0]).unwrap();
    }

    #[test]
    fn llmc_layout() {
        let d = TempDir::new("llmc");
        let files =
            write_shard(&d.0, &shard_stem(4), Layout::Llmc, Dtype::U16, &[1, 2, 3, 4, 65535], &[0, 3, 3]).unwrap();
        assert_eq!(files, ["shard_000004.bin", "shard_000004.docs.npy"]);
        let bin = d.read("shard_000004.bin");
        assert_eq!(bin.len(), 1024 + 10);
        let word = |i: usize| i32::from_le_bytes(bin[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!((word(0), word(1), word(2)), (20240520, 1, 5));
        assert!((3..256).all(|i| word(i) == 0));
        assert_eq!(bin[1024..], le16(&[1, 2, 3, 4, 65535])[..]);
        assert_eq!(d.read("shard_000004.docs.npy"), NPY_I8_DOCS);
        let m = input_msg(write_shard(&d.0, &shard_stem(5), Layout::Llmc, Dtype::U32, &[1], &[0]));
        assert!(m.contains("uint16") && m.contains("llm.c"), "{m}");
        assert_eq!(d.names().len(), 2);
    }

    #[test]
    fn refuses_ids_that_do_not_fit_uint16() {
        let d = TempDir::new("overflow");
        let mut ids = vec![7u32; 70_000];
        ids[69_999] = 65536;
        for layout in [Layout::Npy, Layout::Megatron, Layout::Llmc] {
            let m = input_msg(write_shard(&d.0, &shard_stem(0), layout, Dtype::U16, &ids, &[0]));
            assert!(m.contains("token id 65536 at position 69999") && m.contains("uint16"), "{m}");
            assert!(m.contains("shard_000000"), "{m}");
        }
        // No partial or temporary file.
        assert!(d.names().is_empty(), "{:?}", d.names());
    }

    #[test]
    fn refuses_bad_document_starts() {
        let d = TempDir::new("docs");
        for (ids, starts, why) in [
            (&[1u32, 2][..], &[][..], "no document"),
            (&[1, 2], &[1], "not 0"),
            (&[1, 2], &[0, 2, 1], "must not decrease"),
            (&[1, 2], &[0, 3], "past the 2 tokens"),
        ] {
            let m = input_msg(write_shard(&d.0, &shard_stem(0), Layout::Npy, Dtype::U16, ids, starts));
            assert!(m.contains(why), "{m}");
        }
        assert!(d.names().is_empty());
        // Empty documents (equal starts, one at the end) are fine.
        write_shard(&d.0, &shard_stem(0), Layout::Megatron, Dtype::U16, &[1, 2], &[0, 0, 2, 2]).unwrap();
        let idx = d.read("shard_000000.idx");
        assert_eq!(idx[34..34 + 16], [0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn write_atomic_replaces_and_checks_names() {
        let d = TempDir::new("atomic");
        write_atomic(&d.0, "index.json", b"{}").unwrap();
        write_atomic(&d.0, "index.json", b"{\"a\": 1}\n").unwrap();
        assert_eq!(d.read("index.json"), b"{\"a\": 1}\n");
        assert_eq!(d.names(), ["index.json"]);
        for bad in ["", ".", "..", "a/b", "a\\b", ".x.tmp-1-2"] {
            assert!(matches!(write_atomic(&d.0, bad, b""), Err(CoreError::Input(_))), "{bad:?}");
        }
        assert!(is_temp_name(".shard_000000.npy.tmp-12-0"));
        assert!(!is_temp_name("shard_000000.npy"));
        let missing = d.0.join("no-such-dir");
        match write_atomic(&missing, "index.json", b"{}") {
            Err(CoreError::Input(m)) => assert!(m.contains("no-such-dir") && m.contains("index.json"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
}
