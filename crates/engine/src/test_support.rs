//! Helpers shared by the engine's unit tests (compiled for tests only).

/// A workspace written to a temp folder: (relative path, text) pairs.
pub fn write_ws(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// Pseudo-random texts (xorshift from `seed`): `count` of `len` characters
/// drawn from `pool`, the generator going on from one text to the next.
pub fn random_texts(pool: &[char], seed: u64, len: usize, count: usize) -> Vec<String> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    pool[(x % pool.len() as u64) as usize]
                })
                .collect()
        })
        .collect()
}
