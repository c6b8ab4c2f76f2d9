//! The progress bar of long builds, drawn on a terminal from the library's callback.

use std::io::IsTerminal;

use symblob_build::Progress;

/// A progress bar on standard error, hidden when standard error is not a terminal.
pub struct Bar(indicatif::ProgressBar);

impl Bar {
    /// A bar that draws only when standard error is a terminal.
    pub fn on_terminal() -> Self {
        Bar(if std::io::stderr().is_terminal() {
            indicatif::ProgressBar::new(0)
        } else {
            indicatif::ProgressBar::hidden()
        })
    }

    /// The callback that advances this bar by one unit per report.
    pub fn progress(&self) -> Progress {
        let bar = self.0.clone();
        Progress::new(move |_, total| {
            bar.set_length(total);
            bar.inc(1);
        })
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
