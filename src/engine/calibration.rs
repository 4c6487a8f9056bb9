//! Calibration of estimated token counts (Claude models) against the
//! provider's own counter: a ratio real / estimated per model, kept in
//! `WORKSPACE/.prompt-inspector/calibration.json`, which no snapshot carries.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn path(root: &Path) -> PathBuf {
    root.join(".prompt-inspector").join("calibration.json")
}

pub fn load(root: &Path) -> BTreeMap<String, f64> {
    std::fs::read_to_string(path(root))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

pub fn save(root: &Path, model: &str, ratio: f64) -> std::io::Result<()> {
    let mut all = load(root);
    all.insert(model.to_string(), (ratio * 10_000.0).round() / 10_000.0);
    let json = serde_json::to_vec_pretty(&all).map_err(std::io::Error::other)?;
    super::fsutil::write_atomic(&path(root), &json)
}
