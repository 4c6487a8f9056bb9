//! The upstreams: each base URL checked (http(s), a host, nothing after
//! its path), and the one client to them, pinned to the loopback addresses
//! a key over plain HTTP may go to.

use std::time::Duration;

use super::ProxyConfig;
use crate::guard;

/// The client to the upstreams, and why a key may not go to the Anthropic
/// (0) or OpenAI (1) one. Whether a key may go to each upstream is decided
/// once on the addresses its name resolves to; the client is pinned to
/// those addresses.
pub(super) fn upstream_client(
    cfg: &ProxyConfig,
) -> Result<(reqwest::Client, [Option<String>; 2]), String> {
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(cfg.timeout)
        .tcp_nodelay(true)
        .no_proxy();
    let mut key_refused = [None, None];
    for (i, url) in [&cfg.anthropic_upstream, &cfg.openai_upstream]
        .into_iter()
        .enumerate()
    {
        match guard::check_transport(url, true, cfg.allow_insecure_http) {
            Ok(Some((host, addrs))) => client = client.resolve_to_addrs(&host, &addrs),
            Ok(None) => {}
            Err(e) => key_refused[i] = Some(e),
        }
    }
    let client = client.build().map_err(|e| e.to_string())?;
    Ok((client, key_refused))
}

/// An upstream is an http(s) base URL with a host, nothing after its path:
/// returned parsed.
pub(super) fn check_upstream(url: &str) -> Result<reqwest::Url, String> {
    let u = reqwest::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!("its scheme, {}, is not http or https", u.scheme()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err("a base URL has no query or fragment".into());
    }
    Ok(u)
}
