//! Helpers shared by the integration tests.

// Each test crate compiles this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A tiny deterministic PRNG (xorshift64*): reproducible randomness without dependencies.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The repository root (the crate is at crates/tokenmill-core).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A text file, gzip-compressed or not (through the system's gzip: no crate dependency).
pub fn read_text_file(path: &Path) -> Option<String> {
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        // No gzip dependency in the crate: use the system's gzip, or skip the file.
        let out = std::process::Command::new("gzip").arg("-dc").arg(path).output().ok()?;
        if !out.status.success() {
            return None;
        }
        out.stdout
    } else {
        std::fs::read(path).ok()?
    };
    String::from_utf8(bytes).ok()
}

/// A file under ../shared/data (next to the repository); panics with a clear message when
/// the shared data is missing, since a test that needs it must not pass silently.
pub fn shared_data(rel: &str) -> PathBuf {
    let p = repo_root().join("../shared/data").join(rel);
    assert!(p.exists(), "{} not found: these tests need ../shared/data next to the repository", p.display());
    p
}
