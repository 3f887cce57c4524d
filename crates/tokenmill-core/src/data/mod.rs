//! Pretraining data: a corpus in, shards of token ids out (`prepare`).
//!
//! - `reader`: the streaming corpus reader (plain text, JSON lines, gzip, and rows handed in
//!   by the binding for parquet), resumable at any document end.
//! - `shards`: the shard file layouts (numpy `.npy`, Megatron-LM's indexed dataset, llm.c's
//!   `.bin`), written atomically.
//! - `writer`: one shard written as its ids arrive.
//! - `prepare`: the pipeline (reader thread, encoder threads, in-order writer), shard
//!   boundaries, completion markers and resuming.
//!
//! What it does not do: tokenizer policy (which tokenizer, which end-of-text id), the job's
//! identity or `index.json` (Python, `tokenmill.data.prepare`), reading shards back (Python,
//! numpy memory maps).

pub mod prepare;
pub mod reader;
pub mod shards;
pub mod writer;
