//! What a test is worth, and what a student earned: points with up to two
//! decimals (`-- points: 2.5`), kept as whole hundredths so that every sum
//! is exact (0.1 + 0.2 is 0.3 here), and written with the fewest decimals
//! needed (`6.5`, `4`, `0.25`).

use std::fmt;
use std::iter::Sum;
use std::ops::Add;

/// Points, in hundredths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Points(u64);

/// The most a test may be worth, in points.
pub(crate) const MAX_WHOLE: u64 = 1_000_000;

impl Points {
    /// A test's worth when its trace says none.
    pub(crate) const ONE: Points = Points(100);
    pub(crate) const ZERO: Points = Points(0);

    /// `N`, `N.D` or `N.DD` (digits only, N at least one), at most
    /// `MAX_WHOLE`; None for anything else (`2.555`, `.5`, `-3`, `1e3`).
    pub(crate) fn parse(text: &str) -> Option<Points> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 2 {
            return None;
        }
        if text.ends_with('.') {
            return None;
        }
        // Past seven digits it is past the most already (and could overflow).
        let whole = whole.trim_start_matches('0');
        if whole.len() > 7 {
            return None;
        }
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
        let hundredths = format!("{fraction:0<2}").parse::<u64>().ok()?;
        let points = Points(whole * 100 + hundredths);
        (points.0 <= MAX_WHOLE * 100).then_some(points)
    }

    /// Whole hundredths (for sums and tests).
    #[cfg(test)]
    pub(crate) fn hundredths(self) -> u64 {
        self.0
    }

    /// As JSON: a whole number when it is one (`4`), else a decimal
    /// (`6.5`, `0.25`: the nearest binary fraction, which JSON writers and
    /// readers print back as those two decimals).
    pub(crate) fn json(self) -> serde_json::Value {
        match self.0 % 100 {
            0 => serde_json::Value::from(self.0 / 100),
            _ => serde_json::Value::from(self.0 as f64 / 100.0),
        }
    }
}

impl Add for Points {
    type Output = Points;

    fn add(self, other: Points) -> Points {
        Points(self.0.saturating_add(other.0))
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, Add::add)
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, hundredths) = (self.0 / 100, self.0 % 100);
        let shown = match hundredths {
            0 => whole.to_string(),
            h if h % 10 == 0 => format!("{whole}.{}", h / 10),
            h => format!("{whole}.{h:02}"),
        };
        f.pad(&shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_read_with_up_to_two_decimals_and_summed_exactly() {
        let p = |t: &str| Points::parse(t).map(Points::hundredths);
        assert_eq!(p("2.5"), Some(250));
        assert_eq!(p("0.25"), Some(25));
        assert_eq!(p("4"), Some(400));
        assert_eq!(p("007.50"), Some(750));
        assert_eq!(p("1000000"), Some(100_000_000));
        assert_eq!(p("1000000.00"), Some(100_000_000));
        for bad in [
            "1000000.01",
            "2.555",
            ".5",
            "5.",
            "-3",
            "+3",
            "1e3",
            "",
            "2,5",
            "18446744073709551616",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
        let tenth = Points::parse("0.1").expect("0.1");
        let fifth = Points::parse("0.2").expect("0.2");
        assert_eq!(tenth + fifth, Points::parse("0.3").expect("0.3"));
        let shown: Vec<String> = ["6.5", "4", "0.25", "0.10", "12.05", "0"]
            .iter()
            .map(|t| Points::parse(t).expect(t).to_string())
            .collect();
        assert_eq!(shown, ["6.5", "4", "0.25", "0.1", "12.05", "0"]);
    }

    #[test]
    fn json_shows_whole_points_as_integers_and_decimals_as_written() {
        for text in ["6.5", "4", "0.25", "0.29", "999999.99"] {
            let points = Points::parse(text).expect(text);
            let json = points.json();
            assert_eq!(json.to_string(), text, "{text}");
        }
    }
}
