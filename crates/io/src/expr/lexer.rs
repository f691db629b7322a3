//! Splitting an expression into tokens, each with its 1-based character position.

use super::ExprError;

/// One token of an expression.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// A number such as `2`, `0.5`, `.5` or `1e-3`.
    Number(f64),
    /// A name: the variable, a constant or a function.
    Name(String),
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `^` or `**`
    Power,
    /// `(`
    Open,
    /// `)`
    Close,
    /// `,`
    Comma,
}

impl Token {
    /// How the token reads in a message.
    pub(super) fn describe(&self) -> String {
        match self {
            Token::Number(v) => format!("the number {v}"),
            Token::Name(n) => format!("`{n}`"),
            Token::Plus => "`+`".into(),
            Token::Minus => "`-`".into(),
            Token::Star => "`*`".into(),
            Token::Slash => "`/`".into(),
            Token::Power => "`^`".into(),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
            Token::Comma => "`,`".into(),
        }
    }
}

/// A token and where it starts (1-based, in characters).
pub(super) type Spanned = (Token, usize);

/// Tokenises `text`.
pub(super) fn tokenize(text: &str) -> Result<Vec<Spanned>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pos = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let (value, next) = number(&chars, i)?;
            tokens.push((Token::Number(value), pos));
            i = next;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            tokens.push((Token::Name(name), pos));
            continue;
        }
        let token = match c {
            '+' => Token::Plus,
            '-' | '\u{2212}' => Token::Minus,
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Token::Power
            }
            '*' | '\u{d7}' => Token::Star,
            '/' => Token::Slash,
            '^' => Token::Power,
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            'π' => Token::Name("pi".into()),
            other => {
                return Err(ExprError::new(
                    format!("unexpected character `{other}`"),
                    pos,
                ));
            }
        };
        tokens.push((token, pos));
        i += 1;
    }
    Ok(tokens)
}

/// Reads a number starting at `start`: digits, an optional fraction and an optional exponent
/// (`1e3`, `2.5E-4`). Returns the value and the index after it.
fn number(chars: &[char], start: usize) -> Result<(f64, usize), ExprError> {
    let digits = |mut i: usize| {
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    if chars.get(i) == Some(&'.') {
        i = digits(i + 1);
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+' | '-')) {
            j += 1;
        }
        let end = digits(j);
        if end == j {
            let text: String = chars[start..j].iter().collect();
            return Err(ExprError::new(
                format!("malformed number `{text}`: an exponent needs digits, as in 1e3"),
                start + 1,
            ));
        }
        i = end;
    }
    let text: String = chars[start..i].iter().collect();
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok((v, i)),
        Ok(_) => Err(ExprError::new(
            format!("the number `{text}` is too large"),
            start + 1,
        )),
        Err(_) => Err(ExprError::new(
            format!("malformed number `{text}`"),
            start + 1,
        )),
    }
}
