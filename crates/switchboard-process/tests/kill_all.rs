//! `kill_all` closes the registry for the whole process, so it has a test
//! binary of its own.

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::AsyncBufReadExt;
use tokio::process::Command;

fn is_dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[tokio::test]
async fn kill_all_kills_every_group_and_refuses_new_ones() {
    let mut kept = Vec::new();
    let mut pids = Vec::new();
    for _ in 0..2 {
        let mut command = Command::new("sh");
        command.args(["-c", "sleep 30 & echo $$ $!; wait"]).stdout(Stdio::piped()).kill_on_drop(true);
        let (mut child, group) = switchboard_process::spawn(&mut command).unwrap();
        let stdout = child.stdout.take().unwrap();
        let line = tokio::io::BufReader::new(stdout).lines().next_line().await.unwrap().unwrap();
        pids.extend(line.split_whitespace().map(str::to_owned));
        kept.push((child, group));
    }
    // A child that ends its own children on SIGTERM (as a switchboard proxied
    // over stdio does) gets to, and one that ignores SIGTERM is killed anyway.
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("terminated");
    let graceful =
        format!("trap 'echo bye > {}; exit 0' TERM; echo $$; while :; do sleep 0.05; done", marker.display());
    for script in [graceful.as_str(), "trap '' TERM; echo $$; while :; do sleep 0.05; done"] {
        let mut command = Command::new("sh");
        command.args(["-c", script]).stdout(Stdio::piped()).kill_on_drop(true);
        let (mut child, group) = switchboard_process::spawn(&mut command).unwrap();
        let stdout = child.stdout.take().unwrap();
        let line = tokio::io::BufReader::new(stdout).lines().next_line().await.unwrap().unwrap();
        pids.push(line.trim().to_owned());
        kept.push((child, group));
    }
    assert_eq!(switchboard_process::live_groups(), 4);
    assert_eq!(switchboard_process::kill_all(), 4);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "bye\n", "SIGTERM came first");
    assert_eq!(switchboard_process::live_groups(), 0);
    for (child, _) in &mut kept {
        // Ended (the graceful one by its own `exit 0`).
        tokio::time::timeout(Duration::from_secs(5), child.wait()).await.unwrap().unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in &pids {
        while !is_dead(pid) {
            assert!(Instant::now() < deadline, "process {pid} survived kill_all");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let refused = switchboard_process::spawn(&mut Command::new("true")).unwrap_err();
    assert!(refused.to_string().contains("shutting down"), "{refused}");
}
