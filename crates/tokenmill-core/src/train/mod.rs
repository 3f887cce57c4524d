//! Training byte-level BPE: counting pre-tokens (`count`) and learning merges (`merge`);
//! WordPiece training as Hugging Face does it (`wordpiece`); SentencePiece-style Unigram training
//! (`unigram`).
//!
//! The Python layer reads the corpus in chunks, feeds them to `count::WordCounts`, then calls
//! `merge::train` on the distinct pre-tokens; policy (vocabulary size, special-token ids,
//! continuing from a base encoding, file formats) stays in Python.

pub mod count;
pub mod long_word;
pub mod merge;
pub mod unigram;
pub mod wordpiece;
