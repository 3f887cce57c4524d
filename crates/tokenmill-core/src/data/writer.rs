//! Writing one shard as its ids arrive (`ShardWriter`), and writing small files atomically.
//!
//! A shard's token file is written under a temporary name (`.shard_NNNNNN.<ext>.tmp`, which no
//! reader takes for a shard), its header patched once the count is known, synced and renamed
//! into place; its document starts likewise. Ids are converted to the shard's dtype on the
//! way (an id that does not fit is refused, never wrapped). Layouts: `Npy` (numpy's `.npy`,
//! byte for byte what `np.save` writes, plus `.docs.npy` document starts).
//!
//! What it does not do: decide shard boundaries, names beyond `shard_stem`, or markers (see
//! `prepare`).

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::CoreError;

/// The integer type of a shard's ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    U16,
    U32,
}

impl Dtype {
    /// The smallest dtype that holds every id up to `max_id`.
    pub fn for_max_id(max_id: u32) -> Dtype {
        if max_id <= u32::from(u16::MAX) {
            Dtype::U16
        } else {
            Dtype::U32
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
        }
    }

    pub fn parse(s: &str) -> Result<Dtype, CoreError> {
        match s {
            "uint16" => Ok(Dtype::U16),
            "uint32" => Ok(Dtype::U32),
            _ => Err(CoreError::Input(format!("dtype must be \"uint16\" or \"uint32\", not {s:?}"))),
        }
    }

    fn size(self) -> u64 {
        match self {
            Dtype::U16 => 2,
            Dtype::U32 => 4,
        }
    }

    fn descr(self) -> &'static str {
        match self {
            Dtype::U16 => "<u2",
            Dtype::U32 => "<u4",
        }
    }
}

/// The files a shard is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `shard_NNNNNN.npy` (ids) + `shard_NNNNNN.docs.npy` (document starts, int64).
    Npy,
}

impl Layout {
    pub fn parse(s: &str) -> Result<Layout, CoreError> {
        match s {
            "npy" => Ok(Layout::Npy),
            _ => Err(CoreError::Unsupported(format!("shard format {s:?} is not supported; supported: \"npy\""))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Layout::Npy => "npy",
        }
    }
}

/// `shard_000042` for shard 42.
pub fn shard_stem(index: usize) -> String {
    format!("shard_{index:06}")
}

/// The sizes in bytes of the files of a shard of `tokens` ids and `documents` documents, in
/// the order `ShardWriter::finish` lists them (to check a finished shard on resume).
pub fn expected_sizes(layout: Layout, dtype: Dtype, tokens: u64, documents: u64) -> Vec<u64> {
    match layout {
        Layout::Npy => vec![NPY_HEADER + tokens * dtype.size(), NPY_HEADER + documents * 8],
    }
}

/// The `.npy` header size this module writes: numpy pads the header so that the data starts at
/// a multiple of 64; for a 1-D array of these dtypes that is 128 bytes for any length that
/// fits in 64 bits, so the header can be written before the length is known and patched.
const NPY_HEADER: u64 = 128;

fn npy_header(descr: &str, len: u64) -> Vec<u8> {
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({len},), }}");
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    let total = NPY_HEADER as usize;
    let pad = total - 10 - dict.len() - 1;
    h.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h.extend(std::iter::repeat_n(b' ', pad));
    h.push(b'\n');
    h
}

fn io(path: &Path, what: &str, e: std::io::Error) -> CoreError {
    CoreError::Io(format!("{}: {what}: {e}", path.display()))
}

fn temp_name(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.tmp"))
}

/// Syncs `tmp` and renames it to `dir/name`.
fn commit(file: File, tmp: &Path, dir: &Path, name: &str) -> Result<(), CoreError> {
    file.sync_all().map_err(|e| io(tmp, "cannot sync", e))?;
    drop(file);
    let dest = dir.join(name);
    std::fs::rename(tmp, &dest).map_err(|e| io(&dest, "cannot rename into place", e))?;
    Ok(())
}

/// Writes `bytes` to `dir/name` atomically: a temporary file, synced, then renamed.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), CoreError> {
    let tmp = temp_name(dir, name);
    let mut f = File::create(&tmp).map_err(|e| io(&tmp, "cannot create", e))?;
    f.write_all(bytes).map_err(|e| io(&tmp, "cannot write", e))?;
    commit(f, &tmp, dir, name)
}

/// One shard being written.
pub struct ShardWriter {
    dir: PathBuf,
    stem: String,
    dtype: Dtype,
    layout: Layout,
    tmp: PathBuf,
    out: BufWriter<File>,
    tokens: u64,
    doc_starts: Vec<i64>,
    buf: Vec<u8>,
}

impl ShardWriter {
    pub fn create(dir: &Path, index: usize, layout: Layout, dtype: Dtype) -> Result<Self, CoreError> {
        let stem = shard_stem(index);
        let tmp = temp_name(dir, &format!("{stem}.npy"));
        let file = File::create(&tmp).map_err(|e| io(&tmp, "cannot create", e))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&npy_header(dtype.descr(), 0)).map_err(|e| io(&tmp, "cannot write", e))?;
        Ok(ShardWriter {
            dir: dir.to_path_buf(),
            stem,
            dtype,
            layout,
            tmp,
            out,
            tokens: 0,
            doc_starts: Vec::new(),
            buf: Vec::new(),
        })
    }

    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    pub fn documents(&self) -> u64 {
        self.doc_starts.len() as u64
    }

    /// Marks the start of a document at the current token.
    pub fn start_document(&mut self) {
        self.doc_starts.push(self.tokens as i64);
    }

    /// Appends ids, converted to the shard's dtype.
    pub fn push(&mut self, ids: &[u32]) -> Result<(), CoreError> {
        self.buf.clear();
        match self.dtype {
            Dtype::U16 => {
                if let Some(&id) = ids.iter().find(|&&id| id > u32::from(u16::MAX)) {
                    return Err(CoreError::Input(format!(
                        "token id {id} does not fit the shards' dtype uint16; the tokenizer's vocabulary needs uint32"
                    )));
                }
                self.buf.extend(ids.iter().flat_map(|&id| (id as u16).to_le_bytes()));
            }
            Dtype::U32 => self.buf.extend(ids.iter().flat_map(|&id| id.to_le_bytes())),
        }
        self.out.write_all(&self.buf).map_err(|e| io(&self.tmp, "cannot write", e))?;
        self.tokens += ids.len() as u64;
        Ok(())
    }

    /// Completes the shard: header, sync, rename; then the document starts. Returns the file
    /// names, ids first.
    pub fn finish(self) -> Result<Vec<String>, CoreError> {
        let ShardWriter { dir, stem, dtype, layout, tmp, out, tokens, doc_starts, .. } = self;
        let Layout::Npy = layout;
        let mut file = out.into_inner().map_err(|e| io(&tmp, "cannot write", e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(|e| io(&tmp, "cannot seek", e))?;
        file.write_all(&npy_header(dtype.descr(), tokens)).map_err(|e| io(&tmp, "cannot write", e))?;
        let ids_name = format!("{stem}.npy");
        commit(file, &tmp, &dir, &ids_name)?;
        let mut docs = npy_header("<i8", doc_starts.len() as u64);
        docs.extend(doc_starts.iter().flat_map(|s| s.to_le_bytes()));
        let docs_name = format!("{stem}.docs.npy");
        write_atomic(&dir, &docs_name, &docs)?;
        Ok(vec![ids_name, docs_name])
    }

    /// Deletes the temporary file of a shard that will not be finished.
    pub fn abandon(self) {
        drop(self.out);
        let _ = std::fs::remove_file(&self.tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_header_is_numpys() {
        // np.save of np.zeros(3, dtype="<u2"): the first 128 bytes.
        let h = npy_header("<u2", 3);
        assert_eq!(h.len(), 128);
        let text = String::from_utf8_lossy(&h[10..]);
        assert!(text.starts_with("{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }"));
        assert!(text.ends_with(" \n"));
        assert_eq!(npy_header("<u4", u64::MAX).len(), 128);
    }

    #[test]
    fn write_and_refuse() {
        let dir = std::env::temp_dir().join(format!("tm-writer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = ShardWriter::create(&dir, 3, Layout::Npy, Dtype::U16).unwrap();
        w.start_document();
        w.push(&[1, 2, 65535]).unwrap();
        w.start_document();
        w.push(&[7]).unwrap();
        assert!(w.push(&[65536]).unwrap_err().to_string().contains("65536 does not fit"));
        let files = w.finish().unwrap();
        assert_eq!(files, ["shard_000003.npy", "shard_000003.docs.npy"]);
        let ids = std::fs::read(dir.join(&files[0])).unwrap();
        assert_eq!(ids.len() as u64, expected_sizes(Layout::Npy, Dtype::U16, 4, 2)[0]);
        assert_eq!(&ids[128..], &[1, 0, 2, 0, 255, 255, 7, 0]);
        let docs = std::fs::read(dir.join(&files[1])).unwrap();
        assert_eq!(&docs[128..], &[0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
    }
}
