//! `HfTokenizer` (me).

#[derive(Debug, Clone)]
pub struct HfTokenizer;
