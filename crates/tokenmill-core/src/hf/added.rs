//! Added tokens (me).
