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
