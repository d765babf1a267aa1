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
        Err(e) => {
            let causes: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("pitree: {}", causes.join(": "));
            std::process::exit(1);
        }
    }
}
