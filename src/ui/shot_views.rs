//! The app in each view of the screenshot plan ([`super::shots`]): the
//! commands that put it there, as a user would, and when the view shows
//! its data. The plan drives; this side knows the app.

use std::path::PathBuf;
use std::sync::Arc;

use super::app::App;
use super::command::Command;
use super::diff::Side;
use super::shots::{View, Window};
use super::state::{Tab, ThemeChoice};
use super::worker::Job;
use crate::engine::Status;

impl App {
    /// The commands that put the window in `view`, as a user would.
    fn view_commands(&self, view: View) -> Vec<Command> {
        let pick = |status: Status| {
            self.state.assembly().and_then(|a| {
                a.fragments
                    .iter()
                    .find(|f| f.status == status)
                    .map(|f| f.id.clone())
            })
        };
        let select = |id: Option<String>| match id {
            Some(id) => Command::Select(id),
            None => Command::ClearSelection,
        };
        let traffic = |var: &str| std::env::var_os(var).map(PathBuf::from);
        match view {
            View::Overview => vec![
                Command::SetTab(Tab::Fragments),
                Command::SetMarkers(false),
                Command::ClearSelection,
            ],
            View::TableDetail => vec![
                Command::SetTab(Tab::Fragments),
                select(pick(Status::Truncated).or(self.state.selected.clone())),
            ],
            View::PromptMarkers => vec![
                Command::SetTab(Tab::Prompt),
                Command::SetMarkers(true),
                select(pick(Status::Summarized)),
            ],
            View::Problems => vec![Command::SetTab(Tab::Problems)],
            View::Agents => vec![Command::SetTab(Tab::Fragments), Command::ShowAgents],
            View::Cache => vec![Command::SetTab(Tab::Cache), Command::SetMarkers(false)],
            View::Diff => vec![Command::SetTab(Tab::Diff), Command::SetMarkers(false)],
            // The capture is read first; its last two requests are compared
            // once it is (see `ready`).
            View::TrafficDiff => match traffic("PROMPT_INSPECTOR_SHOT_CAPTURE") {
                Some(p) => vec![Command::SetTab(Tab::Diff), Command::OpenTraffic(p)],
                None => vec![Command::SetTab(Tab::Diff)],
            },
            View::Traffic | View::TrafficRequest | View::TrafficHeaders => {
                let var = match view {
                    View::Traffic => "PROMPT_INSPECTOR_SHOT_TRAFFIC",
                    View::TrafficHeaders => "PROMPT_INSPECTOR_SHOT_HEADERS",
                    _ => "PROMPT_INSPECTOR_SHOT_CAPTURE",
                };
                let mut v = vec![Command::SetTab(Tab::Traffic)];
                v.extend(traffic(var).map(Command::OpenTraffic));
                v
            }
        }
    }

    /// The Diff view on the capture's last request and the one before it,
    /// asked for once the capture is read; true once it is shown.
    fn traffic_diff_ready(&mut self) -> bool {
        if self.traffic_view.pending || self.diff_view.pending {
            return false;
        }
        let last = match &self.traffic_view.result {
            Some(Ok(t)) => t.requests.last().map(|r| r.index),
            _ => None,
        };
        let (Some(capture), Some(last)) = (self.traffic_view.source.clone(), last) else {
            return self.diff_view.result.is_some();
        };
        let b = Side::Request {
            capture: capture.clone(),
            index: last,
        };
        if self.diff_view.b == b {
            return self.diff_view.result.is_some();
        }
        self.apply(Command::DiffRequests {
            capture,
            a: last.saturating_sub(1),
            b: last,
        });
        false
    }
}

impl Window for App {
    /// Puts the whole app in `view` (the diff compares two sessions).
    fn enter(&mut self, view: View, theme: Option<ThemeChoice>) {
        if let Some(t) = theme {
            self.apply(Command::SetTheme(t));
        }
        // Only the Agents view shows its window.
        self.agents_view.open = false;
        for c in self.view_commands(view) {
            self.apply(c);
        }
        if view == View::Diff {
            let names = self.session_names();
            if let Some(l) = &self.state.loaded {
                let current = l.prepared.session.clone();
                if let Some(other) = names.iter().find(|n| **n != current) {
                    self.diff_view.a = Side::Session(current);
                    self.diff_view.b = Side::Session(other.clone());
                    self.diff_view.dirty = true;
                }
            }
        }
    }

    /// Whether the view has what it shows (a traffic file is read by the
    /// worker); the request view then selects the last request.
    fn ready(&mut self, view: View) -> bool {
        match view {
            View::Traffic => self.traffic_view.result.is_some(),
            View::TrafficRequest | View::TrafficHeaders => match &self.traffic_view.result {
                Some(Ok(t)) => {
                    // Selected as a click selects it: its body read, its
                    // trace to the open folder made.
                    let last = t.requests.last().map(|r| r.index);
                    if self.traffic_view.selected != last {
                        if let Some(i) = last {
                            self.select_request(self.traffic_view.source.clone(), i);
                        }
                        return false;
                    }
                    // A frame on the tab first: a grid sizes its columns
                    // in a frame it does not show.
                    let headers = super::traffic_request::DetailTab::Headers;
                    if view == View::TrafficHeaders && self.traffic_view.detail_tab != headers {
                        self.traffic_view.detail_tab = headers;
                        return false;
                    }
                    self.traffic_view.body.is_some()
                        && !matches!(self.traffic_view.traced, Some((_, None)))
                }
                Some(Err(_)) => true,
                None => false,
            },
            View::TrafficDiff => self.traffic_diff_ready(),
            _ => true,
        }
    }

    fn save(&mut self, path: PathBuf, image: Arc<egui::ColorImage>) {
        self.worker.submit(Job::SaveShot { path, image });
    }
}
