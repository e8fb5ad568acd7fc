//! The progress line: runs, rate, coverage, divergences, and when the
//! session will end.

use std::time::Duration;

use super::counted;

/// Where a session stands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Progress {
    pub(crate) runs: u64,
    /// The runs the session makes at most.
    pub(crate) all_runs: u64,
    pub(crate) elapsed: Duration,
    /// Time left before `--time` (or the default time) ends it, if bounded.
    pub(crate) time_left: Option<Duration>,
    pub(crate) covered: usize,
    pub(crate) total: usize,
    pub(crate) divergences: usize,
}

impl Progress {
    pub(crate) fn line(&self) -> String {
        let rate = self.runs as f64 / self.elapsed.as_secs_f64().max(1e-9);
        let eta = self.eta().map_or_else(|| "?".to_string(), duration);
        format!(
            "{}, {rate:.0} runs/s, {}/{} behaviours covered, {}, ETA {eta}",
            counted(self.runs, "run", "runs"),
            self.covered,
            self.total,
            counted(self.divergences as u64, "divergence", "divergences")
        )
    }

    /// The time left: at the rate so far for the runs left, or the time
    /// bound, whichever comes first (unknown before the first run of an
    /// unbounded session).
    fn eta(&self) -> Option<Duration> {
        let by_runs = (self.runs > 0).then(|| {
            let left = self.all_runs.saturating_sub(self.runs) as f64;
            Duration::from_secs_f64(
                (left / self.runs as f64 * self.elapsed.as_secs_f64()).min(1e12),
            )
        });
        match (by_runs, self.time_left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A duration as people read it: `42 s`, `3 min 20 s`, `5 h 12 min`.
fn duration(d: Duration) -> String {
    let s = d.as_secs_f64().ceil() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(runs: u64, all_runs: u64, secs: u64, time_left: Option<u64>) -> String {
        Progress {
            runs,
            all_runs,
            elapsed: Duration::from_secs(secs),
            time_left: time_left.map(Duration::from_secs),
            covered: 3,
            total: 61,
            divergences: 1,
        }
        .line()
    }

    #[test]
    fn the_line_has_the_rate_coverage_divergences_and_the_time_left() {
        assert_eq!(
            at(100, 10_000, 10, None),
            "100 runs, 10 runs/s, 3/61 behaviours covered, 1 divergence, ETA 16 min 30 s"
        );
        // The time bound comes first, or the runs do.
        assert!(at(100, 10_000, 10, Some(50)).ends_with("ETA 50 s"));
        assert!(at(100, 200, 10, Some(500)).ends_with("ETA 10 s"));
        assert!(at(0, 200, 1, Some(75)).ends_with("ETA 1 min 15 s"));
        assert!(at(0, 200, 1, None).ends_with("ETA ?"));
        assert!(at(1, 50_000, 1, None).ends_with("ETA 13 h 53 min"));
    }
}
