//! Helpers for the crate's tests: a deterministic random generator, so that tests need no
//! dependency and fail the same way on every run. Compiled only for tests.

/// Steps an xorshift64 generator (Marsaglia's 13, 7, 17) and returns its new state.
pub(crate) fn xorshift_step(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// An xorshift64 generator from `seed` (not 0): each call returns the next state.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || xorshift_step(&mut seed)
}
