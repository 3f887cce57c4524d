//! One shard written as its ids arrive (`ShardWriter`).
//!
//! The `Npy` layout streams: ids are converted to the shard's dtype on the way into a
//! temporary file (a name `shards::is_temp_name` recognises), whose header is patched once the
//! count is known (numpy's header has room for any length, so its size never changes); the
//! file is then synced and renamed, and the document starts written atomically. The other
//! layouts (`Megatron`, `Llmc`) keep the shard's ids in memory and hand them to
//! `shards::write_shard` when the shard is complete (4 bytes per token of the shard).
//! An id that does not fit the dtype is refused, never wrapped.
//!
//! What it does not do: decide shard boundaries, or markers (see `prepare`).

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::shards::{append_npy_ids, npy_descr, npy_header, write_atomic, write_shard, Dtype, Layout};
use crate::error::CoreError;

fn io(path: &Path, what: &str, e: std::io::Error) -> CoreError {
    CoreError::Io(format!("{}: {what}: {e}", path.display()))
}

enum Sink {
    /// The temporary file of an `Npy` shard, and a conversion buffer.
    Stream { tmp: PathBuf, out: BufWriter<File>, buf: Vec<u8> },
    /// The ids of a shard of another layout.
    Memory(Vec<u32>),
}

/// One shard being written.
pub struct ShardWriter {
    dir: PathBuf,
    stem: String,
    dtype: Dtype,
    layout: Layout,
    sink: Sink,
    tokens: u64,
    doc_starts: Vec<u64>,
}

impl ShardWriter {
    /// A shard named `stem` (`shards::unit_shard_stem`) in `dir`.
    pub fn create(dir: &Path, stem: String, layout: Layout, dtype: Dtype) -> Result<Self, CoreError> {
        let sink = match layout {
            Layout::Npy => {
                let tmp = dir.join(format!(".{stem}.npy.tmp-{}-stream", std::process::id()));
                let file = File::create(&tmp).map_err(|e| io(&tmp, "cannot create", e))?;
                let mut out = BufWriter::with_capacity(1 << 20, file);
                out.write_all(&npy_header(npy_descr(dtype), 0)).map_err(|e| io(&tmp, "cannot write", e))?;
                Sink::Stream { tmp, out, buf: Vec::new() }
            }
            _ => Sink::Memory(Vec::new()),
        };
        Ok(ShardWriter { dir: dir.to_path_buf(), stem, dtype, layout, sink, tokens: 0, doc_starts: Vec::new() })
    }

    pub fn tokens(&self) -> u64 {
        self.tokens
    }

    pub fn documents(&self) -> u64 {
        self.doc_starts.len() as u64
    }

    /// Marks the start of a document at the current token.
    pub fn start_document(&mut self) {
        self.doc_starts.push(self.tokens);
    }

    /// Appends ids (converted to the shard's dtype as they are written).
    pub fn push(&mut self, ids: &[u32]) -> Result<(), CoreError> {
        let too_large = |id: u32| {
            CoreError::Input(format!(
                "token id {id} does not fit the shards' dtype uint16; the tokenizer's vocabulary needs uint32"
            ))
        };
        match &mut self.sink {
            Sink::Stream { tmp, out, buf } => {
                buf.clear();
                append_npy_ids(self.dtype, ids, buf).map_err(|i| too_large(ids[i]))?;
                out.write_all(buf).map_err(|e| io(tmp, "cannot write", e))?;
            }
            Sink::Memory(all) => {
                // The layout's writer checks again; refusing here keeps the message the same.
                if let Some(&id) = ids.iter().find(|&&id| self.dtype == Dtype::U16 && id > u32::from(u16::MAX)) {
                    return Err(too_large(id));
                }
                all.extend_from_slice(ids)
            }
        }
        self.tokens += ids.len() as u64;
        Ok(())
    }

    /// Completes the shard; returns its files (in the order of `Layout::files`) and their sizes.
    pub fn finish(self) -> Result<Vec<(String, u64)>, CoreError> {
        let ShardWriter { dir, stem, dtype, layout, sink, tokens, doc_starts } = self;
        let names = match sink {
            Sink::Stream { tmp, out, .. } => {
                let mut file = out.into_inner().map_err(|e| io(&tmp, "cannot write", e.into_error()))?;
                let header = npy_header(npy_descr(dtype), tokens);
                if header.len() != npy_header(npy_descr(dtype), 0).len() {
                    return Err(CoreError::Internal("the .npy header changed size".into()));
                }
                file.seek(SeekFrom::Start(0)).map_err(|e| io(&tmp, "cannot seek", e))?;
                file.write_all(&header).map_err(|e| io(&tmp, "cannot write", e))?;
                file.sync_all().map_err(|e| io(&tmp, "cannot sync", e))?;
                drop(file);
                let names = layout.files(&stem);
                let dest = dir.join(&names[0]);
                std::fs::rename(&tmp, &dest).map_err(|e| io(&dest, "cannot rename into place", e))?;
                let mut docs = npy_header("<i8", doc_starts.len() as u64);
                docs.extend(doc_starts.iter().flat_map(|&s| (s as i64).to_le_bytes()));
                write_atomic(&dir, &names[1], &docs)?;
                names
            }
            Sink::Memory(ids) => write_shard(&dir, &stem, layout, dtype, &ids, &doc_starts)?,
        };
        names
            .into_iter()
            .map(|n| {
                let p = dir.join(&n);
                let size = std::fs::metadata(&p).map_err(|e| io(&p, "cannot stat", e))?.len();
                Ok((n, size))
            })
            .collect()
    }

    /// Deletes what a shard that will not be finished has written.
    pub fn abandon(self) {
        if let Sink::Stream { tmp, out, .. } = self.sink {
            drop(out);
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_npy_equals_write_shard() {
        let base = std::env::temp_dir().join(format!("tm-writer-{}", std::process::id()));
        for layout in [Layout::Npy, Layout::Megatron, Layout::Llmc] {
            let (a, b) = (base.join(format!("{layout:?}-a")), base.join(format!("{layout:?}-b")));
            std::fs::create_dir_all(&a).unwrap();
            std::fs::create_dir_all(&b).unwrap();
            let mut w = ShardWriter::create(&a, "shard_000000_000003".into(), layout, Dtype::U16).unwrap();
            w.start_document();
            w.push(&[1, 2, 65535]).unwrap();
            w.start_document();
            w.push(&[7]).unwrap();
            assert!(w.push(&[65536]).unwrap_err().to_string().contains("65536 does not fit"));
            let files = w.finish().unwrap();
            let names = write_shard(&b, "shard_000000_000003", layout, Dtype::U16, &[1, 2, 65535, 7], &[0, 3]).unwrap();
            assert_eq!(files.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(), names);
            for (n, size) in files {
                let bytes = std::fs::read(a.join(&n)).unwrap();
                assert_eq!(bytes.len() as u64, size);
                assert_eq!(bytes, std::fs::read(b.join(&n)).unwrap(), "{layout:?} {n}");
            }
        }
    }
}
