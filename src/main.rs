//! The `pitree` binary: parse the command line, run a command or the full-screen app, and turn
//! errors into one line on stderr with exit status 1 (usage errors exit 2, from clap).

use clap::Parser;
use pitree::cli::{Cli, run_command};

fn main() {
    let _ = color_eyre::install();
    let cli = Cli::parse();
    let status = match cli.command {
        Some(command) => run_command(command, &cli.global),
        None => pitree::cli::run_interactive(&cli),
    };
    match status {
        Ok(code) => std::process::exit(code),
        Err(e) if is_broken_pipe(&e) => std::process::exit(0),
        Err(e) => {
            let causes: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("pitree: {}", causes.join(": "));
            std::process::exit(1);
        }
    }
}

/// The reader of our output went away (`pitree list | head`): stop quietly, as other tools do.
fn is_broken_pipe(e: &color_eyre::Report) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
