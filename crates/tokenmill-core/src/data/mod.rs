//! Pretraining data: a corpus in, shards of token ids out (`prepare`).
//!
//! - `reader`: the streaming corpus reader (plain text, JSON lines, gzip), resumable at any
//!   document end.
//! - `writer`: one shard's files, written as ids arrive, atomically.
//! - `prepare`: the pipeline (reader thread, encoder threads, in-order writer), shard
//!   boundaries, completion markers and resuming.
//!
//! What it does not do: tokenizer policy (which tokenizer, which end-of-text id), the job's
//! identity or `index.json` (Python, `tokenmill.data.prepare`), reading shards back (Python,
//! numpy memory maps).

pub mod prepare;
pub mod reader;
pub mod writer;
