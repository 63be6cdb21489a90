//! Clock times (`3:45`, `1:00 PM`, `13:05:30`, `7 AM`, `noon`): compared as times of day, not as the ratios their colons
//! would make them (`3:45` is not `1:15`, and `1:00` is no division by zero).

use super::lexer::SPACING_COMMANDS;

/// A time of day in seconds from midnight, with the half of the day written after it (`AM`/`PM`), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    seconds: u32,
    /// The hour as written (`0` in `0:30`, `12` in `12:30 PM`).
    hour: u32,
    half_written: bool,
}

const HALF_DAY: u32 = 12 * 3600;

/// Read `text` (an answer with its `$`, braces, `\text{}` wrappers and spaces already removed) as a clock time:
/// `H:MM` or `H:MM:SS`, one or two hour digits and two digits for minutes and seconds (below 60), then
/// `am`/`pm` in any case, dotted or not; or an hour alone before `am`/`pm` (`7 AM`); or `noon`, `midnight`. The
/// hour is at most 24, or 1 to 12 before `am`/`pm`.
pub fn clock(text: &str) -> Option<Clock> {
    let mut t = text.to_owned();
    // Spacing between a time and its `AM`/`PM` goes first (`\:` is one, and `:` is read below).
    for s in SPACING_COMMANDS.iter().chain(&["~"]) {
        if t.contains(s) {
            t = t.replace(s, "");
        }
    }
    let t = t.to_ascii_lowercase().replace('.', "");
    match t.as_str() {
        "noon" | "12noon" | "midday" => return Some(Clock { seconds: HALF_DAY, hour: 12, half_written: true }),
        "midnight" | "12midnight" => return Some(Clock { seconds: 0, hour: 12, half_written: true }),
        _ => {}
    }
    let (digits, half) = match t.strip_suffix("am") {
        Some(d) => (d, Some(0)),
        None => match t.strip_suffix("pm") {
            Some(d) => (d, Some(HALF_DAY)),
            None => (t.as_str(), None),
        },
    };
    let mut parts = digits.split(':');
    let hour = parts.next()?;
    let fields: Vec<&str> = parts.collect();
    // `7 AM`: an hour alone with its half of the day.
    if hour.is_empty() || hour.len() > 2 || fields.is_empty() && half.is_none() || fields.len() > 2 {
        return None;
    }
    let number = |s: &str| s.bytes().all(|b| b.is_ascii_digit()).then(|| s.parse::<u32>().ok()).flatten();
    let hour = number(hour)?;
    let mut seconds = 0;
    for (i, f) in fields.iter().enumerate() {
        let v = number(f).filter(|v| f.len() == 2 && *v < 60)?;
        seconds += v * if i == 0 { 60 } else { 1 };
    }
    match half {
        Some(offset) if (1..=12).contains(&hour) => {
            Some(Clock { seconds: (hour % 12) * 3600 + offset + seconds, hour, half_written: true })
        }
        None if hour <= 24 => Some(Clock { seconds: hour * 3600 + seconds, hour, half_written: false }),
        _ => None,
    }
}

impl Clock {
    /// Written with its half of the day (`3:45 PM`, `noon`): a time, never a ratio.
    pub fn half_written(&self) -> bool {
        self.half_written
    }

    /// The same time of day. A time written without `AM`/`PM` with an hour from 1 to 12 matches either half of a
    /// time written with one (`3:45` is `3:45 PM`); two times without it are read on the 24-hour clock (`3:45`
    /// is not `15:45`), and hour 0 is midnight (`0:30` is not `12:30 PM`).
    pub fn same_time(&self, other: &Clock) -> bool {
        let day = 2 * HALF_DAY;
        if self.seconds % day == other.seconds % day {
            return true;
        }
        let twelve_hour = |c: &Clock| !c.half_written && (1..=12).contains(&c.hour);
        let lenient = twelve_hour(self) && other.half_written || twelve_hour(other) && self.half_written;
        lenient && self.seconds % HALF_DAY == other.seconds % HALF_DAY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        clock(a).unwrap().same_time(&clock(b).unwrap())
    }

    #[test]
    fn reads_clock_shapes_only() {
        for t in
            ["3:45", "03:45", "1:00pm", "1:00p.m.", "12:00AM", "13:05:30", "0:00", "24:00", "1:00\\,pm", "7am", "noon"]
        {
            assert!(clock(t).is_some(), "{t}");
        }
        for t in
            ["1:2", "3:4:5", "1:60", "25:00", "13:00pm", "0:30am", ":30", "1:", "123:45", "1:2345", "a:bc", "1:45x"]
        {
            assert!(clock(t).is_none(), "{t}");
        }
    }

    #[test]
    fn compares_times_of_day() {
        assert!(!same("3:45", "1:15"));
        assert!(same("1:00am", "1:00AM"));
        assert!(same("15:45", "3:45pm"));
        assert!(same("3:45", "3:45pm"));
        assert!(!same("3:45", "15:45"));
        assert!(!same("3:45am", "3:45pm"));
        assert!(same("12:30am", "0:30"));
        assert!(same("12:30pm", "12:30"));
        assert!(same("24:00", "0:00"));
        assert!(!same("0:00", "12:00pm"));
        assert!(!same("0:15", "12:15pm"));
        assert!(same("7am", "7:00"));
        assert!(same("noon", "12:00pm"));
        assert!(same("midnight", "0:00"));
        assert!(!same("15:45", "3:45am"));
        assert!(!same("1:05:30", "1:05:31"));
        assert!(same("1:05:00", "1:05"));
    }
}
