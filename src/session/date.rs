//! JavaScript's `Date` as pi uses it on session timestamps: `new Date(text).getTime()` for the
//! date-time string format of ECMA-262 (§21.4.1.32, with what V8 also accepts around it) and
//! `toISOString()`.
//!
//! Read: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` (or a signed six-digit year, not `-000000`), then
//! optionally `T` (or `t`, or a space) and `HH:mm`, `HH:mm:ss` or `HH:mm:ss.f…` (any number of
//! fraction digits, cut to milliseconds), then optionally `Z`/`z`, `±HH:mm` or `±HHmm`. A date
//! alone is UTC; a date and time without an offset is local time (the `TZ` of the process). As
//! in V8, days 29–31 roll over into the next month (`2025-02-30` is 2 March), `24:00` is the end
//! of the day, and a second of 60 is invalid. Times outside ±8.64e15 ms are invalid, as in
//! JavaScript. V8's fallback parser for other shapes (`2025/07/01`, RFC 2822, `2025-7-1`) is not
//! followed: such text has no time.

use chrono::{Local, Offset, TimeZone};

/// The largest time a JavaScript `Date` holds, in ms from the epoch either way.
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;
const DAY_MS: i64 = 86_400_000;

/// `new Date(text).getTime()`, `None` for an invalid date.
pub fn parse_ms(text: &str) -> Option<i64> {
    let mut c = Cursor(text.as_bytes());
    let year = c.year()?;
    let month = if c.eat(b'-') { Some(c.number(2, 1, 12)?) } else { None };
    let day = if month.is_some() && c.eat(b'-') { c.number(2, 1, 31)? } else { 1 };
    let date_ms = days_from_civil(year, month.unwrap_or(1), day) * DAY_MS;
    let has_time = c.eat(b'T') || c.eat(b't') || c.eat(b' ');
    let time_ms = if has_time { c.time()? } else { 0 };
    let offset_ms = match c.peek() {
        None if has_time => local_offset_ms(date_ms + time_ms)?,
        None => 0,
        Some(_) => c.offset()?,
    };
    if !c.0.is_empty() {
        return None;
    }
    let t = date_ms + time_ms - offset_ms;
    (t.abs() <= MAX_TIME_MS).then_some(t)
}

/// JavaScript's `TimeClip`, what `new Date(number)` keeps: the number cut to whole milliseconds,
/// `None` (an invalid date) when it is not finite or beyond ±8.64e15.
pub fn time_clip(t: f64) -> Option<i64> {
    (t.is_finite() && t.abs() <= MAX_TIME_MS as f64).then(|| t.trunc() as i64)
}

/// `Date.prototype.toISOString()` of a valid time: `YYYY-MM-DDTHH:mm:ss.sssZ`, with a signed
/// six-digit year outside 0–9999. `None` outside the range a `Date` holds.
pub fn iso_string(ms: i64) -> Option<String> {
    if ms.abs() > MAX_TIME_MS {
        return None;
    }
    let (days, in_day) = (ms.div_euclid(DAY_MS), ms.rem_euclid(DAY_MS));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (in_day / 3_600_000, in_day / 60_000 % 60, in_day / 1000 % 60, in_day % 1000);
    // Digit by digit rather than through `format!`: a listing writes two of these per session.
    let mut out = String::with_capacity(27);
    if (0..=9999).contains(&year) {
        push_digits(&mut out, year, 4);
    } else {
        out.push(if year < 0 { '-' } else { '+' });
        push_digits(&mut out, year.abs(), 6);
    }
    for (separator, value, width) in
        [('-', month, 2), ('-', day, 2), ('T', h, 2), (':', m, 2), (':', s, 2), ('.', milli, 3)]
    {
        out.push(separator);
        push_digits(&mut out, value, width);
    }
    out.push('Z');
    Some(out)
}

/// `value` (at least 0, below 10^`width`) as `width` decimal digits.
fn push_digits(out: &mut String, value: i64, width: u32) {
    for place in (0..width).rev() {
        out.push(char::from(b'0' + (value / 10_i64.pow(place) % 10) as u8));
    }
}

/// The local time zone's offset (ms east of UTC) at a local wall-clock time, as ECMA-262's
/// `UTC(t)` picks it: when the clock is set back (the time occurs twice), the offset of the
/// earlier instant, which is the larger offset; when it is set forward (the time never occurs),
/// the offset from before the change, here the one a day earlier.
fn local_offset_ms(local_ms: i64) -> Option<i64> {
    let naive = chrono::DateTime::from_timestamp_millis(local_ms)?.naive_utc();
    let east = |offset: <Local as TimeZone>::Offset| i64::from(offset.fix().local_minus_utc()) * 1000;
    Some(match Local.offset_from_local_datetime(&naive) {
        chrono::LocalResult::Single(offset) => east(offset),
        chrono::LocalResult::Ambiguous(a, b) => east(a).max(east(b)),
        chrono::LocalResult::None => {
            east(Local.offset_from_utc_datetime(&(naive - chrono::TimeDelta::days(1))))
        }
    })
}

/// Days from 1970-01-01 to `day` of `month` in `year` (proleptic Gregorian); a day past the end
/// of the month runs on into the next, as JavaScript's `MakeDay` does.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day number from 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.0.first().copied()
    }

    fn skip(&mut self) {
        self.0 = &self.0[1..];
    }

    fn eat(&mut self, b: u8) -> bool {
        let found = self.peek() == Some(b);
        if found {
            self.skip();
        }
        found
    }

    /// Exactly `digits` digits, within `min..=max`.
    fn number(&mut self, digits: usize, min: i64, max: i64) -> Option<i64> {
        let head = self.0.get(..digits).filter(|d| d.iter().all(u8::is_ascii_digit))?;
        self.0 = &self.0[digits..];
        let n = head.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
        (min..=max).contains(&n).then_some(n)
    }

    /// `YYYY`, or a sign and six digits (`-000000` is not a year).
    fn year(&mut self) -> Option<i64> {
        match self.peek()? {
            sign @ (b'+' | b'-') => {
                self.skip();
                let y = self.number(6, 0, 999_999)?;
                if sign == b'-' { (y != 0).then_some(-y) } else { Some(y) }
            }
            _ => self.number(4, 0, 9999),
        }
    }

    /// `HH:mm`, `HH:mm:ss` or `HH:mm:ss.f…` as ms into the day; `24:00` only with nothing after.
    fn time(&mut self) -> Option<i64> {
        let h = self.number(2, 0, 24)?;
        if !self.eat(b':') {
            return None;
        }
        let m = self.number(2, 0, 59)?;
        let (s, milli) = if self.eat(b':') {
            let s = self.number(2, 0, 59)?;
            (s, if self.eat(b'.') { self.fraction_ms()? } else { 0 })
        } else {
            (0, 0)
        };
        if h == 24 && (m, s, milli) != (0, 0, 0) {
            return None;
        }
        Some(((h * 60 + m) * 60 + s) * 1000 + milli)
    }

    /// One or more fraction digits, as whole milliseconds.
    fn fraction_ms(&mut self) -> Option<i64> {
        let n = self.0.iter().take_while(|b| b.is_ascii_digit()).count();
        if n == 0 {
            return None;
        }
        let ms =
            self.0[..n].iter().chain([b'0'; 3].iter()).take(3).fold(0, |ms, d| ms * 10 + i64::from(d - b'0'));
        self.0 = &self.0[n..];
        Some(ms)
    }

    /// `Z`, `±HH:mm` or `±HHmm`, as ms east of UTC.
    fn offset(&mut self) -> Option<i64> {
        if self.eat(b'Z') || self.eat(b'z') {
            return Some(0);
        }
        let sign = match self.peek()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.skip();
        let h = self.number(2, 0, 23)?;
        self.eat(b':');
        let m = self.number(2, 0, 59)?;
        Some(sign * (h * 60 + m) * 60_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(year: i32, month: u32, day: u32) -> i64 {
        let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
        chrono::NaiveDate::from_ymd_opt(year, month, day).unwrap().signed_duration_since(epoch).num_days()
    }

    #[test]
    fn the_calendar_matches_chrono() {
        for (y, m, d) in [(1970, 1, 1), (2000, 2, 29), (2025, 7, 1), (1, 1, 1), (-400, 3, 1), (9999, 12, 31)]
        {
            let days = date(y, m, d);
            assert_eq!(days_from_civil(i64::from(y), i64::from(m), i64::from(d)), days);
            assert_eq!(civil_from_days(days), (i64::from(y), i64::from(m), i64::from(d)));
        }
    }

    #[test]
    fn iso_times_read_as_javascript_reads_them() {
        for (text, ms) in [
            ("2025-07-01T12:00:00.000Z", Some(1_751_371_200_000)),
            ("2025-07-01T12:00Z", Some(1_751_371_200_000)),
            ("2025-07-01", Some(1_751_328_000_000)),
            ("2025-07", Some(1_751_328_000_000)),
            ("2025", Some(1_735_689_600_000)),
            ("+002025-07-01T12:00:00.000Z", Some(1_751_371_200_000)),
            ("-000001-01-01T00:00:00Z", Some(-62_198_755_200_000)),
            ("-000000-01-01T00:00:00Z", None),
            ("2025-02-30T00:00:00Z", Some(1_740_873_600_000)),
            ("2025-02-32T00:00:00Z", None),
            ("2025-07-01T24:00:00Z", Some(1_751_414_400_000)),
            ("2025-07-01T24:00:01Z", None),
            ("2025-07-01T23:59:60Z", None),
            ("2025-07-01T12:00:00.1239Z", Some(1_751_371_200_123)),
            ("2025-07-01T12:00:00+0200", Some(1_751_364_000_000)),
            ("2025-07-01T12:00:00+02", None),
            ("2025-07-01 12:00:00Z", Some(1_751_371_200_000)),
            ("2025-07-01Z", Some(1_751_328_000_000)),
            ("+275760-09-13T00:00:00.001Z", None),
            (" 2025-07-01T12:00:00Z", None),
            ("2025/07/01", None),
            ("", None),
        ] {
            assert_eq!(parse_ms(text), ms, "{text}");
        }
    }

    #[test]
    fn iso_strings_are_written_as_javascript_writes_them() {
        assert_eq!(iso_string(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_string(-1).unwrap(), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_string(253_402_300_800_000).unwrap(), "+010000-01-01T00:00:00.000Z");
        assert_eq!(iso_string(-62_198_755_200_000).unwrap(), "-000001-01-01T00:00:00.000Z");
        assert_eq!(iso_string(MAX_TIME_MS).unwrap(), "+275760-09-13T00:00:00.000Z");
        assert_eq!(iso_string(MAX_TIME_MS + 1), None);
    }
}
