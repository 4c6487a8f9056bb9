//! A profile's texts and lists within their bounds: a string, a list or
//! the import depth over its limit is refused, naming the file and the
//! field (`files[3].name`).

use crate::error::Error;

use super::profile::{
    MAX_IMPORT_DEPTH, MAX_PROFILE_LIST, MAX_PROFILE_SEPARATOR, MAX_PROFILE_STRING, Profile,
};

/// Refuses a profile with a string or a list over its limit, naming the
/// file and the field (`files[3].name`).
pub(super) fn check_bounds(p: &Profile, origin: &str) -> Result<(), Error> {
    if let Some(i) = &p.imports
        && i.max_depth > MAX_IMPORT_DEPTH
    {
        return Err(Error::invalid(
            origin,
            format!(
                "imports.max_depth is {}, over the limit of {MAX_IMPORT_DEPTH}",
                i.max_depth
            ),
        ));
    }
    let tree = serde_json::to_value(p).map_err(|e| Error::invalid(origin, format!("{e}")))?;
    check_value(&tree, "", origin)
}

fn check_value(v: &serde_json::Value, field: &str, origin: &str) -> Result<(), Error> {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let max = if field == "separator" {
                MAX_PROFILE_SEPARATOR
            } else {
                MAX_PROFILE_STRING
            };
            if s.len() > max {
                return Err(Error::invalid(
                    origin,
                    format!(
                        "{field} is {} bytes, over the limit of {} bytes ({} KiB) for a profile's text",
                        s.len(),
                        max,
                        max / 1024
                    ),
                ));
            }
        }
        Value::Array(items) => {
            if items.len() > MAX_PROFILE_LIST {
                return Err(Error::invalid(
                    origin,
                    format!(
                        "{field} has {} entries, over the limit of {MAX_PROFILE_LIST}",
                        items.len()
                    ),
                ));
            }
            for (i, x) in items.iter().enumerate() {
                check_value(x, &format!("{field}[{i}]"), origin)?;
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let f = if field.is_empty() {
                    k.clone()
                } else {
                    format!("{field}.{k}")
                };
                check_value(x, &f, origin)?;
            }
        }
        _ => {}
    }
    Ok(())
}
