//! Progress bars on stderr (indicatif): shown only when stderr is a terminal and `--quiet` is
//! off, and only for work that runs longer than a second.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A byte-count progress callback `(done, total)` for loaders, or `None` when silent.
pub fn bytes_callback(quiet: bool, label: &str) -> Option<Arc<dyn Fn(u64, u64) + Send + Sync>> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} ({eta})")
            .unwrap()
            .progress_chars("=> "),
    );
    bar.set_message(label.to_string());
    let start = Instant::now();
    Some(Arc::new(move |done, total| {
        if start.elapsed() < Duration::from_secs(1) && done < total {
            return;
        }
        bar.set_length(total);
        bar.set_position(done);
        if done >= total {
            bar.finish_and_clear();
        }
    }))
}

/// A spinner for a step without a measurable size; cleared when dropped.
pub struct Spinner(Option<ProgressBar>);

impl Spinner {
    pub fn new(quiet: bool, label: &str) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Spinner(None);
        }
        let bar = ProgressBar::new_spinner();
        bar.set_message(label.to_string());
        bar.enable_steady_tick(Duration::from_millis(200));
        Spinner(Some(bar))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
