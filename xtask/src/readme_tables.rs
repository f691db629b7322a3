//! The README's tables stay short enough to read: every cell at most [`MAX_CELL_CHARS`]
//! characters, and every row as many cells as its header. A command's details belong in
//! the user guide (docs/guide/src/), its figures in docs/RESULTS.md or docs/BENCHMARKS.md,
//! linked from the table.
//!
//! Cells are split as GitHub splits them: on every `|` that is not escaped as `\|`, inside
//! code spans too.

/// The longest a cell of a README table may be, in characters of its Markdown source.
const MAX_CELL_CHARS: usize = 300;

/// Something wrong with one row of a table.
#[derive(Debug, PartialEq)]
enum RowProblem {
    /// A cell longer than [`MAX_CELL_CHARS`].
    LongCell {
        /// The cell's column, from 1.
        column: usize,
        /// Its length in characters.
        chars: usize,
    },
    /// A row whose cell count differs from its header's (an unescaped `|` in a cell).
    CellCount {
        /// The row's cells.
        cells: usize,
        /// The header's cells.
        header: usize,
    },
}

/// A problem and where it is: the file's line and the row's first cell.
#[derive(Debug, PartialEq)]
struct Finding {
    /// The line of the row, from 1.
    line: usize,
    /// The row's first cell, which names it.
    row: String,
    /// What is wrong.
    problem: RowProblem,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Finding { line, row, problem } = self;
        match problem {
            RowProblem::LongCell { column, chars } => write!(
                f,
                "line {line}, row {row}: column {column} is {chars} characters \
                 (at most {MAX_CELL_CHARS}; move the details out of the table)"
            ),
            RowProblem::CellCount { cells, header } => write!(
                f,
                "line {line}, row {row}: {cells} cells where the header has {header} \
                 (escape a `|` inside a cell as `\\|`)"
            ),
        }
    }
}

/// The cells of a table row such as `| a | b \| c |`, trimmed, as GitHub splits them.
fn cells(row: &str) -> Vec<String> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row
        .strip_suffix('|')
        .filter(|r| !r.ends_with('\\'))
        .unwrap_or(row);
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = row.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                cell.push(c);
                cell.extend(chars.next());
            }
            '|' => cells.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    cells.push(cell);
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// Whether `row` is a table's delimiter row (`| --- | :-: |`).
fn is_delimiter(row: &str) -> bool {
    row.contains('-') && row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Every problem of the tables in `markdown` (fenced code blocks skipped).
fn check_tables(markdown: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut in_code = false;
    let mut header: Option<usize> = None;
    for (index, line) in markdown.lines().enumerate() {
        let text = line.trim();
        if text.starts_with("```") {
            in_code = !in_code;
        }
        if in_code || !text.starts_with('|') {
            header = None;
            continue;
        }
        if is_delimiter(text) {
            continue;
        }
        let row = cells(text);
        let header_cells = *header.get_or_insert(row.len());
        let finding = |problem| Finding {
            line: index + 1,
            row: row[0].clone(),
            problem,
        };
        if row.len() != header_cells {
            findings.push(finding(RowProblem::CellCount {
                cells: row.len(),
                header: header_cells,
            }));
        }
        for (column, cell) in row.iter().enumerate() {
            let chars = cell.chars().count();
            if chars > MAX_CELL_CHARS {
                findings.push(finding(RowProblem::LongCell {
                    column: column + 1,
                    chars,
                }));
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's README.
    const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");

    #[test]
    fn the_readme_tables_are_short() {
        let markdown = std::fs::read_to_string(README).expect("README.md is readable");
        let findings: Vec<String> = check_tables(&markdown)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(findings.is_empty(), "README.md:\n{}", findings.join("\n"));
    }

    #[test]
    fn a_long_cell_is_named_by_its_row_and_column() {
        let long = "x".repeat(MAX_CELL_CHARS + 1);
        let just = "y".repeat(MAX_CELL_CHARS);
        let markdown = format!(
            "# Title\n\n| command | what |\n| --- | --- |\n| `short` | {just} |\n| `long` | {long} |\n"
        );
        let findings = check_tables(&markdown);
        assert_eq!(
            findings,
            [Finding {
                line: 6,
                row: "`long`".into(),
                problem: RowProblem::LongCell {
                    column: 2,
                    chars: MAX_CELL_CHARS + 1
                },
            }]
        );
        assert!(
            findings[0]
                .to_string()
                .contains("row `long`: column 2 is 301")
        );
    }

    #[test]
    fn a_pipe_splits_cells_unless_escaped() {
        assert_eq!(cells("| a | `b|c` |"), ["a", "`b", "c`"]);
        assert_eq!(cells(r"| a | `b\|c` |"), ["a", r"`b\|c`"]);
        let markdown = "| h | i |\n| --- | --- |\n| `x` | `cpu|cuda` |\n";
        assert_eq!(
            check_tables(markdown),
            [Finding {
                line: 3,
                row: "`x`".into(),
                problem: RowProblem::CellCount {
                    cells: 3,
                    header: 2
                },
            }]
        );
    }

    #[test]
    fn code_blocks_and_prose_are_not_tables() {
        let long = "z".repeat(MAX_CELL_CHARS + 1);
        let markdown = format!("{long}\n\n```text\n| {long} |\n```\n\n| a |\n| --- |\n| b |\n");
        assert_eq!(check_tables(&markdown), []);
    }
}
