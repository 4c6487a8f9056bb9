//! What a new user types first (issue 40): the proxy's `--listen` in the
//! forms people write (a port, `localhost:PORT`, an address), and a clear
//! sentence for one it cannot use.

use crate::common;
use common::*;

#[test]
fn the_proxy_listens_on_a_port_alone_or_localhost_and_names_a_bad_one() {
    for listen in ["0", "localhost:0", "127.0.0.1:0"] {
        let up = crate::otlp::upstream();
        let p = proxy_on(listen, &up, &up, &[]);
        assert!(
            p.url.starts_with("http://127.0.0.1:"),
            "{listen}: {}",
            p.url
        );
        assert!(!p.url.ends_with(":0"), "{}", p.url);
    }
    let o = run(&["proxy", "--listen", "the-harbour"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("give PORT, localhost:PORT or ADDRESS:PORT"),
        "{err}"
    );
}
