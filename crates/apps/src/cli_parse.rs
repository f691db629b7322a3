//! Reading the command line: negative numbers are values (`--lr -1` reaches the option's own
//! check instead of being taken for a flag), and every usage error is one line.

use crate::cli::Cli;
use clap::error::ErrorKind;
use clap::{Command, CommandFactory, FromArgMatches};
use std::process::ExitCode;

/// Parses the process arguments; on `--help`, `--version` or a usage error the output is
/// already printed and the exit code is returned instead.
pub fn parse() -> Result<Cli, ExitCode> {
    // Each subcommand's own defaults in its --help, then negative numbers as values.
    let command = negative_numbers_as_values(crate::defaults::describe(Cli::command()));
    let parsed = command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(e.exit_code().clamp(0, 255) as u8)
        }
        ErrorKind::ValueValidation if reason_first(&e).is_some() => {
            eprintln!("{}", reason_first(&e).unwrap_or_default());
            ExitCode::from(e.exit_code().clamp(1, 255) as u8)
        }
        _ => {
            eprintln!("{}", shorten_quoted(&one_line(&e.render().to_string())));
            ExitCode::from(e.exit_code().clamp(1, 255) as u8)
        }
    })
}

/// A rejected value as one line, the option and the reason first and the value (at most 80
/// characters of it) last: `error: --steps: at most 1,000,000,000 steps ..., got 1e30`.
fn reason_first(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    use std::error::Error as _;
    let reason = e.source()?.to_string();
    let option = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split_whitespace().next().unwrap_or(arg).to_string(),
        _ => return None,
    };
    Some(format!("error: {option}: {reason} (see --help)"))
}

/// Cuts every value quoted in `line` (between '…', "…" or `…`) that is longer than 80
/// characters to its first 60 characters and its length. An apostrophe inside a word (the
/// model's) opens no quote.
pub fn shorten_quoted(line: &str) -> String {
    let mut out = String::with_capacity(line.len().min(4096));
    let mut rest = line;
    while let Some(start) = opening_quote(rest) {
        let quote = rest[start..].chars().next().unwrap_or('\'');
        out.push_str(&rest[..=start]);
        rest = &rest[start + 1..];
        let Some(end) = rest.find(quote) else {
            break;
        };
        out.push_str(&crate::cli_values::shorten(&rest[..end]));
        out.push(quote);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the first quote of `text` opens: a `"` or a backquote anywhere, a `'` that does
/// not follow a letter or digit.
fn opening_quote(text: &str) -> Option<usize> {
    let mut before: Option<char> = None;
    for (i, c) in text.char_indices() {
        let opens = match c {
            '"' | '`' => true,
            '\'' => !before.is_some_and(char::is_alphanumeric),
            _ => false,
        };
        if opens {
            return Some(i);
        }
        before = Some(c);
    }
    None
}

/// Lets every option that takes a value take a negative number, in every subcommand.
fn negative_numbers_as_values(command: Command) -> Command {
    command
        .mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        })
        .mut_subcommands(negative_numbers_as_values)
}

/// Clap's error text as one line: the message and its details, without the usage block.
pub fn one_line(text: &str) -> String {
    let mut line = String::new();
    for part in text.lines().map(str::trim) {
        if part.starts_with("Usage:") {
            break;
        }
        if part.is_empty() || part.starts_with("For more information") {
            continue;
        }
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    line.push_str(" (see --help)");
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_become_one_line() {
        let text = "error: the following required arguments were not provided:\n  --data <DATA>\n\nUsage: iron-learn linreg --data <DATA>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            one_line(text),
            "error: the following required arguments were not provided: --data <DATA> (see --help)"
        );
        let text = "error: unexpected argument '--foo' found\n\n  tip: to pass '--foo' as a value, use '-- --foo'\n\nUsage: x\n";
        assert_eq!(
            one_line(text),
            "error: unexpected argument '--foo' found; tip: to pass '--foo' as a value, use '-- --foo' (see --help)"
        );
    }

    #[test]
    fn an_apostrophe_in_a_word_opens_no_quote() {
        let text = format!(
            "error: nothing to resume in runs/x: it holds no run of the default model's job; {} or give the run's --out",
            "leave out --resume to train from the start".repeat(3)
        );
        assert_eq!(shorten_quoted(&text), text);
        let long = "x".repeat(200);
        let line = shorten_quoted(&format!("the model's column '{long}' is missing"));
        assert!(line.contains("(200 characters)"), "{line}");
        assert!(line.starts_with("the model's column '"), "{line}");
    }

    #[test]
    fn long_values_are_cut_and_reasons_come_first() {
        let long = "7".repeat(100_000);
        let line = shorten_quoted(&format!("error: invalid value '{long}' for '--lr <LR>'"));
        assert!(
            line.len() < 160 && line.contains("(100,000 characters)"),
            "{line}"
        );
        assert!(line.ends_with("for '--lr <LR>'"), "{line}");
        let e = Cli::command()
            .try_get_matches_from(["iron-learn", "xor", "--steps", &long])
            .unwrap_err();
        let line = reason_first(&e).unwrap();
        assert!(
            line.starts_with("error: --steps: expected a whole number"),
            "{line}"
        );
        assert!(line.len() < 160, "{line}");
    }

    #[test]
    fn negative_numbers_reach_the_value_checks() {
        let command = negative_numbers_as_values(Cli::command());
        let e = command
            .try_get_matches_from(["iron-learn", "xor", "--lr", "-1"])
            .and_then(|m| Cli::from_arg_matches(&m))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert!(e.to_string().contains("must be a positive number"), "{e}");
        let command = negative_numbers_as_values(Cli::command());
        let m = command
            .try_get_matches_from(["iron-learn", "xor", "--seed", "-1"])
            .unwrap();
        let cli = Cli::from_arg_matches(&m).unwrap();
        let crate::cli::Command::Xor(a) = cli.command else {
            panic!("not xor")
        };
        assert_eq!(a.train.seed, u64::MAX);
    }
}
