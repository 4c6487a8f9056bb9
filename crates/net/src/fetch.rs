//! A public file fetched over http(s) (LiteLLM's price table for `models
//! --update`), under the same transport rules as every client.

use std::time::Duration;

use crate::engine::error::Error;
use crate::guard;

/// A public text file from an http(s) URL (a price table): no redirect
/// followed, no environment proxy for plain HTTP, credentials in the URL
/// never in the clear off this machine, read within `max` bytes, a clear
/// one-line error otherwise.
pub async fn fetch_text(url: &str, max: usize) -> Result<String, Error> {
    let shown = guard::mask_url(url);
    let at = |why: String| Error::file(&shown, why);
    // Credentials in the URL (`user:password@`, `?key=`) are a key: over
    // plain HTTP only to this machine, pinned to the addresses checked.
    let pin = guard::check_transport(url, false, false).map_err(|e| at(e.to_string()))?;
    let mut b = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60));
    if !guard::env_proxy_allowed(url) {
        b = b.no_proxy();
    }
    if let Some((host, addrs)) = pin {
        b = b.resolve_to_addrs(&host, &addrs);
    }
    let client = b.build().map_err(|e| at(e.to_string()))?;
    let said = |e: &reqwest::Error| guard::clean(&super::describe(e), guard::MAX_MESSAGE_CHARS);
    let resp = client.get(url).send().await.map_err(|e| at(said(&e)))?;
    if !resp.status().is_success() {
        return Err(at(format!("HTTP {}", resp.status().as_u16())));
    }
    match guard::read_capped(resp, max).await {
        Ok(b) => String::from_utf8(b).map_err(|_| at("not UTF-8".into())),
        Err(guard::ReadError::TooLarge) => Err(at(format!("over {} MiB", max >> 20))),
        Err(guard::ReadError::Transport(e)) => Err(at(said(&e))),
    }
}
