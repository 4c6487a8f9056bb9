//! The files `prompt-inspector run` writes for one run of an agent that
//! takes its base URL only from a file: a folder of this run's own in the
//! temporary folder (mode 0700, its files 0600, never from a workspace),
//! removed when the agent exits. Pi gets a one-run extension (`-e FILE`);
//! OpenClaw a config that includes the user's own and overrides only the
//! Anthropic provider's base URL (`OPENCLAW_CONFIG_PATH`; the user's file is
//! read, never written: OpenClaw writes nothing to an included file, and
//! `OPENCLAW_CONFIG_READONLY=1` refuses its config writers).

use std::path::{Path, PathBuf};

/// A folder of one run's files, removed with them when dropped.
pub struct RunFiles {
    pub dir: PathBuf,
}

impl RunFiles {
    pub fn new() -> Result<RunFiles, String> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "prompt-inspector-run-{}-{nanos}",
            std::process::id()
        ));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
        Ok(RunFiles { dir })
    }

    /// Writes `name` in the folder (a new file, 0600); its path.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, String> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = self.dir.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for RunFiles {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Pi's one-run extension: its Anthropic and OpenAI providers pointed at
/// the proxy (`base`).
pub fn pi_extension(files: &RunFiles, base: &str) -> Result<PathBuf, String> {
    let text = format!(
        "// Written by `prompt-inspector run pi` for one run, removed when Pi exits:\n\
         // Pi's providers pointed at the recording proxy.\n\
         export default function (pi) {{\n  \
         pi.registerProvider(\"anthropic\", {{ baseUrl: \"{base}\" }});\n  \
         pi.registerProvider(\"openai\", {{ baseUrl: \"{base}/v1\" }});\n}}\n"
    );
    files.write("pi-extension.js", &text)
}

/// Where OpenClaw reads the user's config, as it resolves it: the
/// `OPENCLAW_CONFIG_PATH` given (a leading `~/` is the home), else
/// `openclaw.json` in `OPENCLAW_STATE_DIR`, else in `.openclaw` of
/// `OPENCLAW_HOME` or the home.
pub fn openclaw_config_path(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let home = env("OPENCLAW_HOME").or_else(|| env("HOME"));
    let tilde = |p: String| match (p.strip_prefix("~/"), &home) {
        (Some(rest), Some(h)) => Path::new(h).join(rest),
        _ => PathBuf::from(p),
    };
    if let Some(p) = env("OPENCLAW_CONFIG_PATH") {
        return Some(tilde(p));
    }
    if let Some(d) = env("OPENCLAW_STATE_DIR") {
        return Some(tilde(d).join("openclaw.json"));
    }
    Some(Path::new(&home?).join(".openclaw").join("openclaw.json"))
}

/// OpenClaw's one-run config: the user's config included (when there is
/// one) with the Anthropic provider's base URL set to the proxy (`base`,
/// without `/v1`: OpenClaw adds it); and the environment that makes
/// OpenClaw read it (the user's folder allowed as an include root).
pub fn openclaw_config(
    files: &RunFiles,
    base: &str,
    user: Option<&Path>,
) -> Result<Vec<(&'static str, String)>, String> {
    let mut config = serde_json::json!({
        "models": { "providers": { "anthropic": { "baseUrl": base } } }
    });
    let mut env = Vec::new();
    if let Some(user) = user.filter(|p| p.is_file()) {
        config["$include"] = serde_json::Value::String(user.display().to_string());
        if let Some(dir) = user.parent() {
            env.push(("OPENCLAW_INCLUDE_ROOTS", dir.display().to_string()));
        }
    }
    let text = serde_json::to_string_pretty(&config).map_err(|e| e.to_string())?;
    let path = files.write("openclaw.json", &format!("{text}\n"))?;
    env.push(("OPENCLAW_CONFIG_PATH", path.display().to_string()));
    env.push(("OPENCLAW_CONFIG_READONLY", "1".to_string()));
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openclaw_config_path_follows_openclaw_resolution() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            openclaw_config_path(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.openclaw/openclaw.json"))
        );
        assert_eq!(
            openclaw_config_path(env(&[("HOME", "/h"), ("OPENCLAW_HOME", "/o")])),
            Some(PathBuf::from("/o/.openclaw/openclaw.json"))
        );
        assert_eq!(
            openclaw_config_path(env(&[("HOME", "/h"), ("OPENCLAW_STATE_DIR", "~/s")])),
            Some(PathBuf::from("/h/s/openclaw.json"))
        );
        assert_eq!(
            openclaw_config_path(env(&[
                ("HOME", "/h"),
                ("OPENCLAW_STATE_DIR", "/s"),
                ("OPENCLAW_CONFIG_PATH", "~/c.json")
            ])),
            Some(PathBuf::from("/h/c.json"))
        );
        assert_eq!(openclaw_config_path(env(&[])), None);
    }
}
