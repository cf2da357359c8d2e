//! Calendar and wall-clock time, in one place: proleptic Gregorian dates from day counts and back,
//! and the local time of a Unix time (the one `localtime_r` call; UTC where the zone cannot be
//! read). Used by the audit log, memories, the hooks' briefing date and transcript backup names.

use std::time::{SystemTime, UNIX_EPOCH};

/// A broken-down local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// The year, e.g. 2026.
    pub year: i32,
    /// 1-12.
    pub month: u32,
    /// 1-31.
    pub day: u32,
    /// 0-23.
    pub hour: u32,
    /// 0-59.
    pub minute: u32,
    /// 0-60.
    pub second: u32,
    /// 0 = Sunday … 6 = Saturday.
    pub weekday: u32,
}

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

impl LocalTime {
    /// `t` in the machine's local time zone (`TZ` honoured); UTC if the zone cannot be read.
    pub fn of(t: SystemTime) -> LocalTime {
        let secs = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
        };
        local_or_utc(secs)
    }

    /// `YYYY-MM-DD (Weekday)`.
    pub fn date_line(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} ({})",
            self.year,
            self.month,
            self.day,
            WEEKDAYS[self.weekday as usize % 7]
        )
    }

    /// `YYYYMMDD_HHMMSS`.
    pub fn stamp(&self) -> String {
        format!(
            "{:04}{:02}{:02}_{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// The local time of a Unix time in seconds (UTC if the zone cannot be read).
pub(crate) fn local_or_utc(secs: i64) -> LocalTime {
    local(secs).unwrap_or_else(|| utc(secs))
}

/// The proleptic Gregorian (year, month 1-12, day 1-31) of a count of days since 1970-01-01.
pub fn civil_date(days_since_epoch: i64) -> (i64, u32, u32) {
    // Count from 2000-03-01: a 400-year cycle then starts right after a leap day, so every
    // cycle, century and four-year block ends with its longest year.
    const DAYS_1970_TO_2000_03_01: i64 = 11_017;
    const CYCLE: i64 = 146_097; // days in 400 years
    const CENTURY: i64 = 36_524; // days in 100 years starting in March, without the 400th leap day
    const QUAD: i64 = 1_461; // days in 4 years starting in March
    let since = days_since_epoch - DAYS_1970_TO_2000_03_01;
    let cycles = since.div_euclid(CYCLE);
    let mut rest = since.rem_euclid(CYCLE);
    // The last century of a cycle has one day more; clamp so 29 Feb of year 400 stays in it.
    let centuries = (rest / CENTURY).min(3);
    rest -= centuries * CENTURY;
    let quads = rest / QUAD;
    rest -= quads * QUAD;
    let years = (rest / 365).min(3);
    rest -= years * 365;
    // Months from March; February last so its length never matters.
    const MONTH_DAYS: [i64; 12] = [31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31, 29];
    let mut month_index = 0;
    while month_index < 11 && rest >= MONTH_DAYS[month_index] {
        rest -= MONTH_DAYS[month_index];
        month_index += 1;
    }
    let mut year = 2000 + 400 * cycles + 100 * centuries + 4 * quads + years;
    // month_index 0 is March; 10 and 11 (January, February) belong to the next year.
    let month = if month_index < 10 {
        month_index + 3
    } else {
        year += 1;
        month_index - 9
    };
    (year, month as u32, rest as u32 + 1)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(unix)]
fn local(secs: i64) -> Option<LocalTime> {
    #[expect(
        clippy::useless_conversion,
        reason = "time_t is not i64 on every target"
    )]
    let t: libc::time_t = secs.try_into().ok()?;
    // SAFETY: `tm` is plain old data; localtime_r only writes into it and returns NULL on error.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        return None;
    }
    Some(LocalTime {
        year: tm.tm_year + 1900,
        month: u32::try_from(tm.tm_mon + 1).ok()?,
        day: u32::try_from(tm.tm_mday).ok()?,
        hour: u32::try_from(tm.tm_hour).ok()?,
        minute: u32::try_from(tm.tm_min).ok()?,
        second: u32::try_from(tm.tm_sec).ok()?,
        weekday: u32::try_from(tm.tm_wday).ok()?,
    })
}

#[cfg(not(unix))]
fn local(_secs: i64) -> Option<LocalTime> {
    None
}

fn utc(secs: i64) -> LocalTime {
    let days = secs.div_euclid(86_400);
    let in_day = secs.rem_euclid(86_400);
    let (year, month, day) = civil_date(days);
    LocalTime {
        year: i32::try_from(year).unwrap_or(i32::MAX),
        month,
        day,
        hour: (in_day / 3600) as u32,
        minute: (in_day / 60 % 60) as u32,
        second: (in_day % 60) as u32,
        // 1970-01-01 was a Thursday.
        weekday: (days + 4).rem_euclid(7) as u32,
    }
}

/// The current time as ISO-8601 UTC with milliseconds, e.g. `2026-07-26T12:02:11.000Z`.
pub fn iso_utc_now() -> String {
    let ms = match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    };
    iso_utc(ms)
}

/// Milliseconds since the Unix epoch as ISO-8601 UTC with milliseconds and a `Z`.
pub fn iso_utc(unix_ms: i64) -> String {
    const DAY_MS: i64 = 86_400_000;
    let days = unix_ms.div_euclid(DAY_MS);
    let in_day = unix_ms.rem_euclid(DAY_MS);
    let (year, month, day) = civil_date(days);
    let (secs, ms) = (in_day / 1000, in_day % 1000);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (what [`iso_utc`] writes) into Unix milliseconds; `None`
/// for anything else.
pub fn parse_iso_utc(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let ms = match &s[19..s.len() - 1] {
        "" => 0,
        frac => {
            let digits = frac.strip_prefix('.')?;
            if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|c| c.is_ascii_digit())
            {
                return None;
            }
            let padded = format!("{digits:0<3}");
            padded[..3].parse::<i64>().ok()?
        }
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3600 + mi * 60 + sec) * 1000) + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_round_trips() {
        for ms in [0, 1_796_293_230_123, 951_782_400_000 /* 2000-02-29 */] {
            assert_eq!(parse_iso_utc(&iso_utc(ms)), Some(ms));
        }
        assert_eq!(
            parse_iso_utc("2026-12-03T10:20:30Z"),
            Some(1_796_293_230_000)
        );
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-12-03 10:20:30Z",
            "2026-12-03T10:20:30.Z",
        ] {
            assert_eq!(parse_iso_utc(bad), None, "{bad}");
        }
    }

    use std::time::Duration;

    /// Days since 1970-01-01 by counting, the slow and obvious way, for cross-checks.
    fn days_by_counting(year: i64, month: u32, day: u32) -> i64 {
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        let year_len = |y: i64| if leap(y) { 366 } else { 365 };
        let mut days = 0i64;
        if year >= 1970 {
            for y in 1970..year {
                days += year_len(y);
            }
        } else {
            for y in year..1970 {
                days -= year_len(y);
            }
        }
        let lens = [
            31,
            if leap(year) { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        for len in &lens[..month as usize - 1] {
            days += len;
        }
        days + i64::from(day) - 1
    }

    #[test]
    fn civil_date_known_days() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(-1), (1969, 12, 31));
        assert_eq!(civil_date(59), (1970, 3, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(11_017), (2000, 3, 1));
        assert_eq!(civil_date(20_660), (2026, 7, 26));
        assert_eq!(civil_date(-719_468), (0, 3, 1));
        assert_eq!(civil_date(2_932_896), (9999, 12, 31));
    }

    #[test]
    fn civil_date_matches_counting_over_centuries() {
        // Every day from 1599-01-01 to 2401-12-31 (covers 1600 and 2000 leap, 1700/1900/2100 not).
        let mut expected = (1599i64, 1u32, 1u32);
        let start = days_by_counting(1599, 1, 1);
        let end = days_by_counting(2401, 12, 31);
        let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for d in start..=end {
            assert_eq!(civil_date(d), expected, "day {d}");
            let (y, m, day) = expected;
            let len = match m {
                2 if leap(y) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            expected = if day < len {
                (y, m, day + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
        }
        assert_eq!(days_by_counting(2026, 7, 26), 20_660);
    }

    #[test]
    fn days_from_civil_inverts_civil_date() {
        for d in [-719_468i64, -1, 0, 59, 11_016, 11_017, 20_660, 2_932_896] {
            let (y, m, day) = civil_date(d);
            assert_eq!(days_from_civil(y, i64::from(m), i64::from(day)), d);
        }
    }

    #[test]
    fn utc_fallback_is_right() {
        // 2026-12-03T10:20:30Z is a Thursday.
        let t = utc(1_796_293_230);
        assert_eq!(t.date_line(), "2026-12-03 (Thursday)");
        assert_eq!(t.stamp(), "20261203_102030");
        assert_eq!(utc(0).date_line(), "1970-01-01 (Thursday)");
    }

    #[test]
    fn local_time_is_a_valid_date() {
        let t = LocalTime::of(UNIX_EPOCH + Duration::from_secs(1_796_293_230));
        assert!((1..=12).contains(&t.month) && (1..=31).contains(&t.day) && t.weekday < 7);
        assert_eq!(t.stamp().len(), 15);
    }
}
