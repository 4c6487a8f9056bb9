//! What Linux says of a process in /proc, for the tests and the proxy
//! bench (which includes this file by path): its peak resident memory and
//! the CPU time it has used.

/// The peak resident memory of a process (VmHWM), in KiB.
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// CPU time a process has used so far (user and system, all its threads),
/// in seconds (Linux's clock ticks are 1/100 s).
pub fn cpu_secs(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
}

/// Starts a process's peak resident memory again from what it holds now.
#[allow(dead_code)] // the bench's; the tests read peaks from the start
pub fn reset_peak(pid: u32) {
    let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
}
