//! The map stays true: ARCHITECTURE.md names every source file of the three
//! crates once, and nothing that is gone (`scripts/check-architecture.sh`).

use std::process::Command;

#[test]
fn architecture_md_names_every_source_file() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("bash")
        .arg(format!("{root}/scripts/check-architecture.sh"))
        .current_dir(root)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "scripts/check-architecture.sh failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
