//! CPU time and resident memory of a process, from `/proc` (Linux).

/// Clock ticks per second of `/proc/PID/stat` (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND: f64 = 100.0;

/// User + system CPU seconds of `pid`.
pub(crate) fn cpu_seconds(pid: u32) -> Option<f64> {
    parse_cpu(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// User + system CPU seconds of the children `pid` has waited for (ended
/// and reaped: `cutime` + `cstime`).
pub(crate) fn children_cpu_seconds(pid: u32) -> Option<f64> {
    parse_children_cpu(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Resident set size of `pid` in kB.
pub(crate) fn rss_kb(pid: u32) -> Option<u64> {
    parse_rss(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// The peak resident set size of `pid` in kB (`VmHWM`).
pub(crate) fn peak_rss_kb(pid: u32) -> Option<u64> {
    parse_status(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?, "VmHWM:")
}

fn parse_cpu(stat: &str) -> Option<f64> {
    // utime (field 14) and stime (15).
    tick_pair(stat, 14)
}

fn parse_children_cpu(stat: &str) -> Option<f64> {
    // cutime (field 16) and cstime (17).
    tick_pair(stat, 16)
}

/// Fields `field` and `field + 1` of `/proc/PID/stat` (numbered from 1, as
/// in proc(5)), clock ticks summed, in seconds.
fn tick_pair(stat: &str, field: usize) -> Option<f64> {
    // The command name (field 2) may contain spaces: count from its ')',
    // after which the state is field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace().skip(field - 3);
    let first: f64 = fields.next()?.parse().ok()?;
    let second: f64 = fields.next()?.parse().ok()?;
    Some((first + second) / TICKS_PER_SECOND)
}

fn parse_rss(status: &str) -> Option<u64> {
    parse_status(status, "VmRSS:")
}

fn parse_status(status: &str, key: &str) -> Option<u64> {
    status.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_and_status() {
        let stat = "4242 (my server) S 1 4242 4242 0 -1 4194560 525 0 0 0 150 50 0 0 20 0 3 0 1 1 1";
        assert_eq!(parse_cpu(stat), Some(2.0));
        assert_eq!(parse_children_cpu(stat), Some(0.0));
        let waited = "4242 (pg) S 1 4242 4242 0 -1 4194560 525 0 0 0 150 50 300 100 20 0 3 0 1 1 1";
        assert_eq!(parse_children_cpu(waited), Some(4.0));
        assert_eq!(parse_rss("Name:\tx\nVmRSS:\t   9876 kB\nThreads: 1\n"), Some(9876));
        assert_eq!(parse_cpu("garbage"), None);
        assert!(cpu_seconds(std::process::id()).is_some());
        assert!(rss_kb(std::process::id()).unwrap() > 0);
        assert!(peak_rss_kb(std::process::id()).unwrap() >= rss_kb(std::process::id()).unwrap() / 2);
    }
}
