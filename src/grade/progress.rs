//! Grading's progress on a terminal: one bar over every (student, test)
//! pair with the time left at the recent pace, the students done and the
//! last one's result. Nothing when standard error is not a terminal (a log,
//! a pipe): the table and the files say it all.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::platform::signals;
use crate::suite::{Report, escape_controls};

pub(crate) struct Progress {
    bar: ProgressBar,
    /// Clears the bar if a signal ends grading (SIGTERM, SIGHUP), before
    /// the lines that say which files were not written. Ctrl-C's echo, `^C`,
    /// has already wrapped below the bar, which fills its line: that stays.
    _on_signal: Option<signals::Registration>,
    students: usize,
    done: usize,
    /// Students done whose tests could not run: no score.
    not_graded: usize,
    /// The last student done and their result.
    last: String,
}

/// The bar's line: `=====>     620/1260 tests, 42s left, 14 of 30 students
/// (bob: 40/42)`; `14 of 30 students, not graded: 1 (bob: not graded)` once
/// a student's tests could not run.
const TEMPLATE: &str = "{bar:30} {pos}/{len} tests, {eta} left, {msg}";

impl Progress {
    /// A bar over `tests` runs of `students` students, drawn on standard
    /// error when `shown`.
    pub(crate) fn new(tests: usize, students: usize, shown: bool) -> Progress {
        let target = match shown {
            true => ProgressDrawTarget::stderr_with_hz(4),
            false => ProgressDrawTarget::hidden(),
        };
        let bar = ProgressBar::with_draw_target(Some(tests as u64), target);
        if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
            bar.set_style(style.progress_chars("=> "));
        }
        let on_signal = shown.then(|| {
            let bar = bar.clone();
            signals::on_fatal_signal(move || bar.finish_and_clear())
        });
        let progress = Progress {
            bar,
            _on_signal: on_signal,
            students,
            done: 0,
            not_graded: 0,
            last: String::new(),
        };
        progress.bar.set_message(progress.students_line());
        // Redrawn now and then even when no test ends (a slow one), so the
        // time left keeps moving.
        progress.bar.enable_steady_tick(Duration::from_millis(500));
        progress
    }

    fn students_line(&self) -> String {
        let not_graded = match self.not_graded {
            0 => String::new(),
            n => format!(", not graded: {n}"),
        };
        format!("{} of {} students{not_graded}{}", self.done, self.students, self.last)
    }

    /// One (student, test) pair ran.
    pub(crate) fn test_done(&self) {
        self.bar.inc(1);
    }

    /// Every test of `name` reported, `graded` or not (none could run: no
    /// score, not even 0): the name's control characters shown as `\xNN`,
    /// never sent to the terminal.
    pub(crate) fn student_done(&mut self, name: &str, report: Report, graded: bool) {
        self.done += 1;
        let name = escape_controls(name);
        self.last = match graded {
            true => format!(" ({name}: {}/{})", report.passed, report.total),
            false => {
                self.not_graded += 1;
                format!(" ({name}: not graded)")
            }
        };
        self.bar.set_message(self.students_line());
    }

    /// Takes the bar off the screen: the table follows.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_bar_counts_all_the_same() {
        let mut progress = Progress::new(4, 2, false);
        progress.test_done();
        progress.test_done();
        progress.student_done("ann", Report::new(2), true);
        assert_eq!(progress.bar.position(), 2);
        assert_eq!(progress.students_line(), "1 of 2 students (ann: 0/2)");
        progress.student_done("\x1b[?1049hx\ny", Report::new(0), true);
        assert_eq!(progress.students_line(), "2 of 2 students (\\x1b[?1049hx\\x0ay: 0/0)");
        progress.finish();
    }

    /// A student whose tests could not run has no score: not 0/N, but
    /// counted apart.
    #[test]
    fn a_student_not_graded_is_no_score_and_counted_apart() {
        let mut progress = Progress::new(4, 3, false);
        progress.student_done("ann", Report::new(2), true);
        progress.student_done("bob", Report::new(2), false);
        assert_eq!(progress.students_line(), "2 of 3 students, not graded: 1 (bob: not graded)");
        progress.student_done("cy", Report::new(0), true);
        assert_eq!(progress.students_line(), "3 of 3 students, not graded: 1 (cy: 0/0)");
        progress.finish();
    }
}
