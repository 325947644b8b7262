//! `weald` — the command-line front end of Weald. A thin layer: parse arguments, call the
//! library, print tables or JSON. Errors print one line on stderr and exit non-zero.

mod commands;
mod progress;
mod stream;

use clap::Parser;
use std::process::ExitCode;

// C-tree batches allocate and free many small nodes and chunks, from several threads; glibc's
// allocator spends a large share of that time consolidating free lists (see docs/benchmarks.md).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Weald: a single-machine engine for graphs that change.
#[derive(Parser, Debug)]
#[command(name = "weald", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true)]
    threads: Option<usize>,
    /// No progress bars.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: commands::Command,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(t) = cli.threads {
        if t == 0 {
            eprintln!("error: --threads must be at least 1");
            return ExitCode::from(2);
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
        {
            eprintln!("error: cannot start {t} threads: {e}");
            return ExitCode::from(2);
        }
    }
    match commands::dispatch(cli.command, cli.quiet) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
