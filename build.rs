//! Embeds the sample workspace and the examples in the binary: writes
//! `$OUT_DIR/embedded.rs`, one `include_str!` per file of `sample-workspace/`
//! and `examples/` (sorted, so that the binary is reproducible), which
//! `src/sample.rs` and `src/examples.rs` include. An installed binary then
//! opens them without the source tree it was built from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    let mut code = String::new();
    for (name, dir) in [
        ("SAMPLE_FILES", "sample-workspace"),
        ("EXAMPLE_FILES", "examples"),
    ] {
        let base = root.join(dir);
        println!("cargo:rerun-if-changed={}", base.display());
        let mut files = Vec::new();
        walk(&base, &mut files);
        files.sort();
        writeln!(code, "pub const {name}: &[(&str, &str)] = &[").unwrap();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            let rel = file.strip_prefix(&base).expect("under its folder");
            let rel = rel.to_str().expect("a UTF-8 path").replace('\\', "/");
            writeln!(
                code,
                "    ({rel:?}, include_str!({:?})),",
                file.display().to_string()
            )
            .unwrap();
        }
        writeln!(code, "];").unwrap();
    }
    std::fs::write(out.join("embedded.rs"), code).expect("OUT_DIR is writable");
}

/// Every regular file under `dir` (links are not followed: the build embeds
/// what is in the source tree, nothing it points to).
fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("a readable folder");
        let kind = entry.file_type().expect("a file type");
        if kind.is_dir() {
            walk(&entry.path(), files);
        } else if kind.is_file() {
            files.push(entry.path());
        }
    }
}
