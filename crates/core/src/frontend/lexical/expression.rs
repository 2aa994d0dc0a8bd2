//! What a preprocessor condition is known to be before the compiler's
//! flags are known. Instrumented code is always compiled with OpenMP, in
//! the language it was read as: `_OPENMP` is defined (its value, the
//! OpenMP version, depends on the compiler), and `__cplusplus` is defined
//! exactly in C++. Every other macro may or may not be defined. Integer
//! arithmetic on known values is evaluated, so `#if 0` is known too.

/// Whether a condition holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown,
}

/// What the compilation of the output is known to define.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    pub cplusplus: bool,
}

/// A value during evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Int(i64),
    /// Defined with a value not known here, but not zero (`_OPENMP`).
    NonZero,
    Unknown,
}

impl Value {
    fn truth(self) -> Truth {
        match self {
            Value::Int(0) => Truth::False,
            Value::Int(_) | Value::NonZero => Truth::True,
            Value::Unknown => Truth::Unknown,
        }
    }

    fn of_truth(truth: Truth) -> Value {
        match truth {
            Truth::True => Value::Int(1),
            Truth::False => Value::Int(0),
            Truth::Unknown => Value::Unknown,
        }
    }
}

/// Evaluates the condition of `#if` / `#elif`.
pub fn evaluate(condition: &str, known: Known) -> Truth {
    let Some(tokens) = tokenize(condition) else {
        return Truth::Unknown;
    };
    let mut parser = Parser {
        tokens,
        at: 0,
        known,
    };
    match parser.conditional() {
        Some(value) if parser.at == parser.tokens.len() => value.truth(),
        _ => Truth::Unknown,
    }
}

/// Whether the macro named by `#ifdef` / `#ifndef` is defined.
pub fn defined(name: &str, known: Known) -> Truth {
    match name.trim() {
        "_OPENMP" => Truth::True,
        "__cplusplus" if known.cplusplus => Truth::True,
        "__cplusplus" => Truth::False,
        _ => Truth::Unknown,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Number(Option<i64>),
    Ident(String),
    Op(&'static str),
}

const OPERATORS: &[&str] = &[
    "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "!", "~", "+", "-", "*", "/", "%", "<", ">",
    "&", "|", "^", "?", ":", "(", ")", ",",
];

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b.is_ascii_digit() {
            let end = super::lex::word_end(bytes, i);
            tokens.push(Token::Number(number(&text[i..end])));
            i = end;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let end = i + bytes[i..]
                .iter()
                .take_while(|&&c| super::lex::is_ident(c))
                .count();
            tokens.push(Token::Ident(text[i..end].to_string()));
            i = end;
        } else if b == b'\'' {
            // A character constant: its value depends on the character set.
            let end = super::lex::quoted_end(bytes, i, b'\'');
            tokens.push(Token::Number(None));
            i = end;
        } else {
            let op = OPERATORS.iter().find(|op| text[i..].starts_with(**op))?;
            tokens.push(Token::Op(op));
            i += op.len();
        }
    }
    Some(tokens)
}

/// An integer constant with its suffixes; `None` if it is not one
/// (a floating constant is an error in `#if`).
fn number(text: &str) -> Option<i64> {
    let digits = text
        .trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z'])
        .replace('\'', "");
    let (radix, body) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex.to_string())
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin.to_string())
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, digits[1..].to_string())
    } else {
        (10, digits)
    };
    u64::from_str_radix(&body, radix)
        .ok()
        .and_then(|v| i64::try_from(v).ok())
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    known: Known,
}

/// Binary operators by precedence, loosest first.
const BINARY: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        let found = matches!(self.peek(), Some(Token::Op(o)) if *o == op);
        if found {
            self.at += 1;
        }
        found
    }

    fn conditional(&mut self) -> Option<Value> {
        let condition = self.binary(0)?;
        if !self.eat("?") {
            return Some(condition);
        }
        let then = self.conditional()?;
        if !self.eat(":") {
            return None;
        }
        let otherwise = self.conditional()?;
        Some(match condition.truth() {
            Truth::True => then,
            Truth::False => otherwise,
            Truth::Unknown if then == otherwise => then,
            Truth::Unknown => Value::Unknown,
        })
    }

    fn binary(&mut self, level: usize) -> Option<Value> {
        if level == BINARY.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let Some(Token::Op(op)) = self.peek() else {
                return Some(left);
            };
            let op = *op;
            if !BINARY[level].contains(&op) {
                return Some(left);
            }
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = apply(op, left, right);
        }
    }

    fn unary(&mut self) -> Option<Value> {
        let token = self.peek()?.clone();
        self.at += 1;
        match token {
            Token::Number(n) => Some(n.map_or(Value::Unknown, Value::Int)),
            Token::Op("(") => {
                let inner = self.conditional()?;
                self.eat(")").then_some(inner)
            }
            Token::Op("!") => Some(match self.unary()?.truth() {
                Truth::True => Value::Int(0),
                Truth::False => Value::Int(1),
                Truth::Unknown => Value::Unknown,
            }),
            Token::Op(op @ ("-" | "+" | "~")) => Some(match (op, self.unary()?) {
                ("-", Value::Int(v)) => v.checked_neg().map_or(Value::Unknown, Value::Int),
                ("+", v) => v,
                ("~", Value::Int(v)) => Value::Int(!v),
                _ => Value::Unknown,
            }),
            Token::Ident(name) if name == "defined" => {
                let parenthesised = self.eat("(");
                let Some(Token::Ident(name)) = self.peek().cloned() else {
                    return None;
                };
                self.at += 1;
                if parenthesised && !self.eat(")") {
                    return None;
                }
                Some(Value::of_truth(defined(&name, self.known)))
            }
            Token::Ident(name) => {
                // A function-like macro or a feature test
                // (`__has_include(...)`): its value is not known here.
                if self.eat("(") {
                    let mut depth = 1;
                    while depth > 0 {
                        match self.peek()? {
                            Token::Op("(") => depth += 1,
                            Token::Op(")") => depth -= 1,
                            _ => {}
                        }
                        self.at += 1;
                    }
                    return Some(Value::Unknown);
                }
                Some(self.identifier(&name))
            }
            Token::Op(_) => None,
        }
    }

    fn identifier(&self, name: &str) -> Value {
        match (name, self.known.cplusplus) {
            ("_OPENMP", _) => Value::NonZero,
            ("__cplusplus", true) => Value::NonZero,
            // An identifier that is no macro is 0.
            ("__cplusplus", false) => Value::Int(0),
            ("true", true) => Value::Int(1),
            ("false", true) => Value::Int(0),
            _ => Value::Unknown,
        }
    }
}

fn apply(op: &str, left: Value, right: Value) -> Value {
    use Value::{Int, Unknown};
    match op {
        "||" => match (left.truth(), right.truth()) {
            (Truth::True, _) | (_, Truth::True) => Int(1),
            (Truth::False, Truth::False) => Int(0),
            _ => Unknown,
        },
        "&&" => match (left.truth(), right.truth()) {
            (Truth::False, _) | (_, Truth::False) => Int(0),
            (Truth::True, Truth::True) => Int(1),
            _ => Unknown,
        },
        _ => {
            let (Int(a), Int(b)) = (left, right) else {
                return Unknown;
            };
            let value = match op {
                "|" => Some(a | b),
                "^" => Some(a ^ b),
                "&" => Some(a & b),
                "==" => Some(i64::from(a == b)),
                "!=" => Some(i64::from(a != b)),
                "<" => Some(i64::from(a < b)),
                ">" => Some(i64::from(a > b)),
                "<=" => Some(i64::from(a <= b)),
                ">=" => Some(i64::from(a >= b)),
                "<<" => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                ">>" => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                "+" => a.checked_add(b),
                "-" => a.checked_sub(b),
                "*" => a.checked_mul(b),
                "/" => a.checked_div(b),
                "%" => a.checked_rem(b),
                _ => None,
            };
            value.map_or(Unknown, Int)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Known = Known { cplusplus: false };
    const CPP: Known = Known { cplusplus: true };

    #[test]
    fn openmp_is_defined_with_a_version_not_known() {
        for (text, truth) in [
            ("defined(_OPENMP)", Truth::True),
            ("defined _OPENMP", Truth::True),
            ("!defined(_OPENMP)", Truth::False),
            ("_OPENMP", Truth::True),
            ("_OPENMP >= 201307", Truth::Unknown),
            ("defined(_OPENMP) && (_OPENMP >= 201307)", Truth::Unknown),
            ("defined(_OPENMP) || defined(USE_OMP)", Truth::True),
            ("!defined(_OPENMP) && defined(USE_OMP)", Truth::False),
            ("defined(USE_OMP)", Truth::Unknown),
            ("USE_OMP", Truth::Unknown),
        ] {
            assert_eq!(evaluate(text, C), truth, "{text}");
        }
    }

    #[test]
    fn constants_and_the_language_are_known() {
        for (text, known, truth) in [
            ("0", C, Truth::False),
            ("1", C, Truth::True),
            ("0x10 == 16 && (3 % 2) == 1", C, Truth::True),
            ("1 ? 0 : X", C, Truth::False),
            ("X ? 1 : 1", C, Truth::True),
            ("defined(__cplusplus)", C, Truth::False),
            ("defined(__cplusplus)", CPP, Truth::True),
            ("__cplusplus >= 201103L", CPP, Truth::Unknown),
            ("__cplusplus >= 201103L", C, Truth::False),
            ("__has_include(<omp.h>)", C, Truth::Unknown),
            ("VERSION(1, 2) > 3", C, Truth::Unknown),
            ("1 +", C, Truth::Unknown),
            ("1 / 0", C, Truth::Unknown),
        ] {
            assert_eq!(evaluate(text, known), truth, "{text}");
        }
        assert_eq!(defined("_OPENMP", C), Truth::True);
        assert_eq!(defined("SCHED_CYCLIC", C), Truth::Unknown);
    }
}
