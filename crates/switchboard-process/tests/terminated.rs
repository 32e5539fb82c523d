//! `terminated` catches the stopping signals from the moment it is called
//! (a test binary of its own: it signals the whole test process).

use nix::sys::signal::raise;
use switchboard_process::Signal;

#[tokio::test]
async fn a_signal_raised_before_the_first_poll_is_not_lost() {
    for signal in [Signal::SIGHUP, Signal::SIGINT, Signal::SIGTERM] {
        let stopped = switchboard_process::terminated();
        raise(signal).unwrap();
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), stopped).await.unwrap();
        assert_eq!(got, signal);
    }
}
