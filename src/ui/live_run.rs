//! `prompt-inspector run AGENT --window`: the window's recording proxy
//! started at launch (the Traffic tab, live), and the agent started once it
//! listens, pointed at it by the launcher the command line gives (the
//! window knows nothing of agents). The agent keeps the terminal; the tab
//! says whether it runs and how it ended, and shows every exchange as it
//! finishes. The terminal's Ctrl-C goes to the agent, not to the window.

use std::net::SocketAddr;

use super::app::App;
use super::state::Tab;
use crate::net::proxy::ProxyConfig;

/// An agent started: its process, and what must live as long as it does
/// (the run's own files).
pub struct Started {
    pub child: std::process::Child,
    pub keep: Box<dyn Send>,
}

/// Starts the agent pointed at the proxy listening on the address given.
pub type Launch = Box<dyn FnOnce(SocketAddr) -> Result<Started, String> + Send>;

/// What `run --window` hands the window.
pub struct LiveRun {
    /// The agent's name (`Claude Code`).
    pub agent: String,
    /// The proxy (its capture named: the window does not pick one).
    pub proxy: ProxyConfig,
    pub launch: Launch,
}

impl App {
    /// Starts the proxy of `run` and shows the Traffic tab; the agent
    /// starts when the proxy listens ([`App::launch_agent`]).
    pub fn start_live_run(&mut self, run: LiveRun) {
        self.worker.catch_interrupts();
        self.state.tab = Tab::Traffic;
        let p = &mut self.traffic_view.proxy;
        p.agent = Some(format!("{}: starts once the proxy listens", run.agent));
        p.stop = Some(self.worker.start_proxy(run.proxy, None));
        self.launch = Some((run.agent, run.launch));
    }

    /// The proxy listens on `addr`: the agent waiting for it starts now,
    /// and a worker thread waits for it to end.
    pub(crate) fn launch_agent(&mut self, addr: SocketAddr) {
        let Some((agent, launch)) = self.launch.take() else {
            return;
        };
        self.traffic_view.proxy.agent = Some(match launch(addr) {
            Ok(started) => {
                let pid = started.child.id();
                self.worker.wait_for_agent(agent.clone(), started);
                format!(
                    "{agent} runs (pid {pid}) in the terminal it was started from, through this proxy"
                )
            }
            Err(e) => format!("{agent} did not start: {e}"),
        });
    }
}
