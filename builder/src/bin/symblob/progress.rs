//! What a build shows while it runs and when it is done: a spinner on standard error for
//! builds that take long enough to wonder about (only when standard error is a terminal),
//! a bar of the library's own progress reports (DWARF units), and one summary line at
//! the end. `--quiet` turns all of them off.

use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use symblob_build::Progress as LibraryProgress;

/// How long a build runs before the spinner appears: short builds print only their
/// summary, so scripts and quick runs see no flicker.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A running build's report: started with [`Progress::start`], closed with
/// [`Progress::finish`] (or by being dropped on error, which clears the spinner).
pub struct Progress {
    quiet: bool,
    started: Instant,
    spinner: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// Starts timing a build described by `what` (e.g. `reading vmlinux`), with a spinner
    /// after [`SHOW_AFTER`] when `spinner` is asked for, standard error is a terminal and
    /// `quiet` is off.
    pub fn start(quiet: bool, spinner: bool, what: String) -> Progress {
        let spinner = (spinner && !quiet && std::io::stderr().is_terminal()).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let thread = std::thread::spawn(move || {
                if stopped.recv_timeout(SHOW_AFTER) != Err(RecvTimeoutError::Timeout) {
                    return;
                }
                let bar = ProgressBar::new_spinner().with_message(what);
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(Duration::from_millis(120));
                let _ = stopped.recv();
                bar.finish_and_clear();
            });
            (stop, thread)
        });
        Progress {
            quiet,
            started: Instant::now(),
            spinner,
        }
    }

    /// Ends the build: clears the spinner, prints each of `warnings` (even when quiet)
    /// and `summary` followed by the time taken (unless quiet).
    pub fn finish(mut self, warnings: &[String], summary: &str) {
        self.stop_spinner();
        for warning in warnings {
            note!("warning: {warning}");
        }
        if !self.quiet {
            note!("{summary}, {:.2} s", self.started.elapsed().as_secs_f64());
        }
    }

    fn stop_spinner(&mut self) {
        if let Some((stop, thread)) = self.spinner.take() {
            let _ = stop.send(());
            let _ = thread.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop_spinner();
    }
}

/// A progress bar on standard error, hidden when standard error is not a terminal.
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar that draws only when standard error is a terminal and `quiet` is off.
    pub fn on_terminal(quiet: bool) -> Self {
        Bar(if !quiet && std::io::stderr().is_terminal() {
            ProgressBar::new(0)
        } else {
            ProgressBar::hidden()
        })
    }

    /// The callback that advances this bar by one unit per report.
    pub fn progress(&self) -> LibraryProgress {
        let bar = self.0.clone();
        LibraryProgress::new(move |_, total| {
            bar.set_length(total);
            bar.inc(1);
        })
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
