//! A small, safe arithmetic evaluator for the `calculate` tool (F-41): numbers, `+ - * / % ^`,
//! parentheses, factorial, constants and common functions. No variables, no side effects, bounded
//! nesting, and every failure is an error message, never a panic.

use std::fmt;

/// Nesting deeper than this is refused (keeps the recursion off the stack's edge).
const MAX_DEPTH: usize = 200;

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprError {
    pub message: String,
    /// Char offset where the problem was found.
    pub at: usize,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.at)
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

/// Evaluates `src`.
pub fn evaluate(src: &str) -> Result<f64, ExprError> {
    let mut p = Parser {
        chars: src.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.ws();
    if p.pos < p.chars.len() {
        return Err(p.err(format!("unexpected \"{}\"", p.chars[p.pos])));
    }
    if v.is_nan() {
        return Err(ExprError {
            message: "the result is not a number".into(),
            at: 0,
        });
    }
    if v.is_infinite() {
        return Err(ExprError {
            message: "the result is infinite".into(),
            at: 0,
        });
    }
    Ok(v)
}

/// Formats a result: integers without a fraction, others with up to 12 significant digits.
pub fn format_number(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let s = format!("{:.12}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.len() > 20 {
        format!("{v:e}")
    } else {
        s.to_string()
    }
}

impl Parser {
    fn err(&self, message: impl Into<String>) -> ExprError {
        ExprError {
            message: message.into(),
            at: self.pos,
        }
    }

    fn ws(&mut self) {
        while self.pos < self.chars.len() && self.chars[self.pos].is_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("the expression nests too deeply"));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<f64, ExprError> {
        self.enter()?;
        let mut v = self.term()?;
        loop {
            if self.eat('+') {
                v += self.term()?;
            } else if self.eat('-') {
                v -= self.term()?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, ExprError> {
        let mut v = self.unary()?;
        loop {
            match self.peek() {
                Some('*') if self.chars.get(self.pos + 1) != Some(&'*') => {
                    self.pos += 1;
                    v *= self.unary()?;
                }
                Some('/') => {
                    self.pos += 1;
                    let at = self.pos;
                    let d = self.unary()?;
                    if d == 0.0 {
                        return Err(ExprError {
                            message: "division by zero".into(),
                            at,
                        });
                    }
                    v /= d;
                }
                Some('%') => {
                    self.pos += 1;
                    let at = self.pos;
                    let d = self.unary()?;
                    if d == 0.0 {
                        return Err(ExprError {
                            message: "modulo by zero".into(),
                            at,
                        });
                    }
                    v %= d;
                }
                _ => break,
            }
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<f64, ExprError> {
        self.enter()?;
        let v = if self.eat('-') {
            -self.unary()?
        } else if self.eat('+') {
            self.unary()?
        } else {
            self.power()?
        };
        self.depth -= 1;
        Ok(v)
    }

    fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.postfix()?;
        let is_pow = if self.eat('^') {
            true
        } else if self.peek() == Some('*') && self.chars.get(self.pos + 1) == Some(&'*') {
            self.pos += 2;
            true
        } else {
            false
        };
        if is_pow {
            let exp = self.unary()?;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<f64, ExprError> {
        let mut v = self.primary()?;
        while self.eat('!') {
            if v < 0.0 || v != v.trunc() || v > 170.0 {
                return Err(self.err("factorial needs a whole number from 0 to 170"));
            }
            v = (1..=(v as u32)).map(f64::from).product();
        }
        Ok(v)
    }

    fn primary(&mut self) -> Result<f64, ExprError> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let v = self.expr()?;
                if !self.eat(')') {
                    return Err(self.err("missing \")\""));
                }
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => self.ident(),
            Some(c) => Err(self.err(format!("unexpected \"{c}\""))),
            None => Err(self.err("the expression ends too early")),
        }
    }

    fn number(&mut self) -> Result<f64, ExprError> {
        let start = self.pos;
        while self.pos < self.chars.len()
            && (self.chars[self.pos].is_ascii_digit() || matches!(self.chars[self.pos], '.' | '_'))
        {
            self.pos += 1;
        }
        if self.pos < self.chars.len() && matches!(self.chars[self.pos], 'e' | 'E') {
            let save = self.pos;
            self.pos += 1;
            if self.pos < self.chars.len() && matches!(self.chars[self.pos], '+' | '-') {
                self.pos += 1;
            }
            let digits = self.pos;
            while self.pos < self.chars.len() && self.chars[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
            if self.pos == digits {
                self.pos = save;
            }
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        text.parse::<f64>().map_err(|_| ExprError {
            message: format!("\"{text}\" is not a number"),
            at: start,
        })
    }

    fn ident(&mut self) -> Result<f64, ExprError> {
        let start = self.pos;
        while self.pos < self.chars.len()
            && (self.chars[self.pos].is_alphanumeric() || self.chars[self.pos] == '_')
        {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .to_lowercase();
        if !self.eat('(') {
            return match name.as_str() {
                "pi" => Ok(std::f64::consts::PI),
                "e" => Ok(std::f64::consts::E),
                "tau" => Ok(std::f64::consts::TAU),
                _ => Err(ExprError {
                    message: format!("unknown name \"{name}\""),
                    at: start,
                }),
            };
        }
        let mut args = Vec::new();
        if !self.eat(')') {
            loop {
                args.push(self.expr()?);
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.err("expected \",\" or \")\""));
                }
            }
        }
        apply(&name, &args).map_err(|message| ExprError { message, at: start })
    }
}

fn apply(name: &str, args: &[f64]) -> Result<f64, String> {
    let one = |f: fn(f64) -> f64| match args {
        [x] => Ok(f(*x)),
        _ => Err(format!("{name}() takes 1 argument, {} given", args.len())),
    };
    let two = |f: fn(f64, f64) -> f64| match args {
        [a, b] => Ok(f(*a, *b)),
        _ => Err(format!("{name}() takes 2 arguments, {} given", args.len())),
    };
    match name {
        "sqrt" => one(f64::sqrt),
        "cbrt" => one(f64::cbrt),
        "abs" => one(f64::abs),
        "sin" => one(f64::sin),
        "cos" => one(f64::cos),
        "tan" => one(f64::tan),
        "asin" => one(f64::asin),
        "acos" => one(f64::acos),
        "atan" => one(f64::atan),
        "sinh" => one(f64::sinh),
        "cosh" => one(f64::cosh),
        "tanh" => one(f64::tanh),
        "ln" => one(f64::ln),
        "log2" => one(f64::log2),
        "log10" => one(f64::log10),
        "exp" => one(f64::exp),
        "floor" => one(f64::floor),
        "ceil" => one(f64::ceil),
        "trunc" => one(f64::trunc),
        "sign" => one(f64::signum),
        "atan2" => two(f64::atan2),
        "pow" => two(f64::powf),
        "hypot" => two(f64::hypot),
        "log" => match args {
            [x] => Ok(x.log10()),
            [x, base] => Ok(x.log(*base)),
            _ => Err("log() takes 1 or 2 arguments".into()),
        },
        "round" => match args {
            [x] => Ok(x.round()),
            [x, digits] => {
                let f = 10f64.powi(*digits as i32);
                Ok((x * f).round() / f)
            }
            _ => Err("round() takes 1 or 2 arguments".into()),
        },
        "min" | "max" if args.is_empty() => Err(format!("{name}() needs at least 1 argument")),
        "min" => Ok(args.iter().copied().fold(f64::INFINITY, f64::min)),
        "max" => Ok(args.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        _ => Err(format!(
            "unknown function \"{name}\"; available: sqrt, cbrt, abs, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, ln, log, log2, log10, exp, pow, hypot, floor, ceil, round, trunc, sign, min, max"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(s: &str) -> f64 {
        evaluate(s).unwrap()
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2 * 3"), 7.0);
        assert_eq!(ev("(1 + 2) * 3"), 9.0);
        assert_eq!(ev("2 ^ 3 ^ 2"), 512.0);
        assert_eq!(ev("2 ** 10"), 1024.0);
        assert_eq!(ev("-2 ^ 2"), -4.0);
        assert_eq!(ev("10 - 4 - 3"), 3.0);
        assert_eq!(ev("7 % 4"), 3.0);
        assert_eq!(ev("5!"), 120.0);
        assert_eq!(ev("1_000 * 1e3"), 1e6);
    }

    #[test]
    fn functions_and_constants() {
        assert_eq!(ev("sqrt(16) + abs(-2)"), 6.0);
        assert!((ev("sin(pi / 2)") - 1.0).abs() < 1e-12);
        assert_eq!(ev("max(1, 5, 3)"), 5.0);
        assert_eq!(ev("round(2.71828, 2)"), 2.72);
        assert_eq!(ev("log(8, 2)"), 3.0);
    }

    #[test]
    fn errors_are_messages_with_positions() {
        assert_eq!(evaluate("1 / 0").unwrap_err().message, "division by zero");
        assert!(evaluate("2 +")
            .unwrap_err()
            .message
            .contains("ends too early"));
        assert!(evaluate("foo(1)")
            .unwrap_err()
            .message
            .contains("unknown function"));
        assert!(evaluate("(1 + 2").unwrap_err().message.contains("missing"));
        assert!(evaluate("1 2").unwrap_err().message.contains("unexpected"));
        assert!(evaluate("sqrt(-1)")
            .unwrap_err()
            .message
            .contains("not a number"));
        assert!(evaluate(&"(".repeat(10_000))
            .unwrap_err()
            .message
            .contains("nests too deeply"));
        assert!(evaluate("171!").is_err());
    }

    #[test]
    fn numbers_format_cleanly() {
        assert_eq!(format_number(42.0), "42");
        assert_eq!(format_number(0.1 + 0.2), "0.3");
        assert_eq!(format_number(-1.5), "-1.5");
        assert_eq!(format_number(1e20), "1e20");
    }

    proptest! {
        #[test]
        fn never_panics(s in "[0-9a-z+\\-*/%^!(),. ]{0,40}") {
            let _ = evaluate(&s);
        }

        #[test]
        fn integer_arithmetic_matches(a in -1000i64..1000, b in -1000i64..1000, c in 1i64..1000) {
            let got = evaluate(&format!("{a} + {b} * {c}")).unwrap();
            prop_assert_eq!(got, (a + b * c) as f64);
        }
    }
}
