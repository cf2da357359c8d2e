//! Local wall-clock time for the briefing's date and the transcript backup names.

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
        local(secs).unwrap_or_else(|| utc(secs))
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
    let (year, month, day) = crate::audit::civil_date(days);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

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
