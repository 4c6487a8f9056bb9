//! Calibration of estimated token counts (Claude models) against the
//! provider's own counter: a ratio real / estimated per model, kept in
//! `WORKSPACE/.prompt-inspector/calibration.json`, which no snapshot carries.

use std::collections::BTreeMap;
use std::path::Path;

use crate::workspace::Reader;
use crate::workspace::store::{STATE_DIR, state_dir, write_atomic};

const FILE: &str = "calibration.json";

/// The saved ratios, read through the workspace's guarded reader (a link
/// out of the workspace, a FIFO or an oversized file reads as none).
pub fn load(root: &Path) -> BTreeMap<String, f64> {
    Reader::new(root)
        .ok()
        .and_then(|mut r| r.read_checked(&format!("{STATE_DIR}/{FILE}")).ok())
        .and_then(|t| serde_json::from_str::<BTreeMap<String, f64>>(&t).ok())
        .map(|m| {
            m.into_iter()
                .filter(|(_, v)| v.is_finite() && *v > 0.0)
                .collect()
        })
        .unwrap_or_default()
}

pub fn save(root: &Path, model: &str, ratio: f64) -> Result<(), crate::error::Error> {
    use crate::error::Error;
    if !ratio.is_finite() || ratio <= 0.0 {
        return Err(Error::invalid(
            "calibration",
            format!("the ratio {ratio} is not a positive number"),
        ));
    }
    let mut all = load(root);
    all.insert(model.to_string(), (ratio * 10_000.0).round() / 10_000.0);
    let json = serde_json::to_vec_pretty(&all)
        .map_err(|e| Error::invalid("calibration", e.to_string()))?;
    let dir = state_dir(root, &[])?;
    write_atomic(&dir.join(FILE), &json)
        .map_err(|e| Error::file(format!("{STATE_DIR}/{FILE}"), e.to_string()))
}
