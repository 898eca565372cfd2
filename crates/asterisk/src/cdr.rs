//! Call detail records as cdr_csv writes them to `Master.csv`: one quoted CSV row per call, no header,
//! 18 columns when `loguniqueid` and `loguserfield` are on (the only layout accepted: without the
//! uniqueid a call cannot be matched to its recording nor imported twice without duplicating it).
//!
//! Columns: accountcode, src, dst, dcontext, clid, channel, dstchannel, lastapp, lastdata, start,
//! answer, end, duration, billsec, disposition, amaflags, uniqueid, userfield.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use chrono::{DateTime, LocalResult, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::ImportError;
use crate::caller_id;

/// Number of columns of a cdr_csv row with `loguniqueid=yes` and `loguserfield=yes`.
pub const COLUMNS: usize = 18;

/// Name given to the input of [`read_cdr`] in its errors.
pub const UNNAMED_INPUT: &str = "<input>";

/// Longest number treated as an extension by [`CdrRow::direction`]; longer numbers are outside lines.
pub const MAX_EXTENSION_DIGITS: usize = 6;

/// Dialplan contexts (or their prefixes, compared without case) where calls from outside land.
pub const INBOUND_CONTEXTS: [&str; 7] = [
    "from-pstn",
    "from-trunk",
    "from-external",
    "from-did",
    "from-inbound",
    "from-provider",
    "ext-did",
];

/// How a call ended, as cdr_csv spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// `ANSWERED`.
    Answered,
    /// `NO ANSWER`.
    NoAnswer,
    /// `BUSY`.
    Busy,
    /// `FAILED`.
    Failed,
    /// `CONGESTION`.
    Congestion,
    /// Anything else, as written (e.g. `UNKNOWN`).
    Other(String),
}

impl Disposition {
    /// Reads cdr_csv's spelling.
    pub fn parse(text: &str) -> Disposition {
        match text {
            "ANSWERED" => Disposition::Answered,
            "NO ANSWER" => Disposition::NoAnswer,
            "BUSY" => Disposition::Busy,
            "FAILED" => Disposition::Failed,
            "CONGESTION" => Disposition::Congestion,
            other => Disposition::Other(other.to_owned()),
        }
    }

    /// cdr_csv's spelling, e.g. `NO ANSWER`.
    pub fn as_str(&self) -> &str {
        match self {
            Disposition::Answered => "ANSWERED",
            Disposition::NoAnswer => "NO ANSWER",
            Disposition::Busy => "BUSY",
            Disposition::Failed => "FAILED",
            Disposition::Congestion => "CONGESTION",
            Disposition::Other(other) => other,
        }
    }
}

/// Which way a call went, as [`CdrRow::direction`] guesses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From an outside line to the PBX.
    Inbound,
    /// From the PBX to an outside line.
    Outbound,
    /// Between extensions of the PBX.
    Internal,
}

/// One call of `Master.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdrRow {
    /// 1-based line of the file where the row starts.
    pub line: usize,
    /// `accountcode`.
    pub account_code: String,
    /// `src`: the caller's number.
    pub src: String,
    /// `dst`: the number dialled (`s` when a trunk delivered no DID).
    pub dst: String,
    /// `dcontext`: the dialplan context of `dst`.
    pub dcontext: String,
    /// `clid` as written, e.g. `"Alice" <101>`.
    pub clid: String,
    /// The name part of `clid`.
    pub caller_id_name: Option<String>,
    /// The number part of `clid`.
    pub caller_id_num: Option<String>,
    /// `channel`: the calling channel, e.g. `PJSIP/101-00000002`.
    pub channel: String,
    /// `dstchannel`: the called channel; empty when none was reached.
    pub dst_channel: String,
    /// `lastapp`: the last dialplan application, e.g. `Dial`, `VoiceMail`.
    pub last_app: String,
    /// `lastdata`: its arguments.
    pub last_data: String,
    /// When the call started.
    pub start: DateTime<Utc>,
    /// When it was answered; None when it never was (empty column).
    pub answer: Option<DateTime<Utc>>,
    /// When it ended.
    pub end: DateTime<Utc>,
    /// Seconds from start to end.
    pub duration: i64,
    /// Seconds from answer to end (billable).
    pub billsec: i64,
    /// How the call ended.
    pub disposition: Disposition,
    /// `amaflags`: `DOCUMENTATION`, `BILLING`, `OMIT`, …
    pub ama_flags: String,
    /// `uniqueid`: the call's id, unique within the file; names its recordings.
    pub unique_id: String,
    /// `userfield`, set by the dialplan.
    pub userfield: String,
}

impl CdrRow {
    /// Whether the call was answered (disposition `ANSWERED`).
    pub fn answered(&self) -> bool {
        self.disposition == Disposition::Answered
    }

    /// Guesses the direction from the dialplan, since cdr_csv does not record it. In order:
    ///
    /// 1. **Inbound** when `dcontext` starts with one of [`INBOUND_CONTEXTS`] (`from-pstn`,
    ///    `from-trunk`, `from-external`, …, the contexts trunks deliver calls to), or the calling
    ///    channel is a trunk.
    /// 2. **Outbound** when the called channel is a trunk, or `dst` is an outside number: digits
    ///    (an optional leading `+`) longer than [`MAX_EXTENSION_DIGITS`].
    /// 3. **Inbound** when `src` is an outside number and `dst` is not.
    /// 4. **Internal** otherwise: extension to extension, voicemail, feature codes.
    ///
    /// A channel is a trunk when its peer name (between `TECH/` and the last `-`) contains `trunk`,
    /// `pstn` or `provider`, without case: `PJSIP/trunk-provider-00000001`, `SIP/pstn-gw-0000002a`.
    /// Dialplans that name things otherwise get rule 2's and 3's number lengths only.
    pub fn direction(&self) -> Direction {
        let dcontext = self.dcontext.to_ascii_lowercase();
        if INBOUND_CONTEXTS
            .iter()
            .any(|context| dcontext.starts_with(context))
            || is_trunk_channel(&self.channel)
        {
            Direction::Inbound
        } else if is_trunk_channel(&self.dst_channel) || is_outside_number(&self.dst) {
            Direction::Outbound
        } else if is_outside_number(&self.src) {
            Direction::Inbound
        } else {
            Direction::Internal
        }
    }
}

fn is_trunk_channel(channel: &str) -> bool {
    let Some((_, rest)) = channel.split_once('/') else {
        return false;
    };
    // PJSIP/101-00000002: peer "101"; Local/101@from-internal-0000;1 and others alike.
    let peer = rest.rsplit_once('-').map_or(rest, |(peer, _)| peer);
    let peer = peer.to_ascii_lowercase();
    ["trunk", "pstn", "provider"]
        .iter()
        .any(|word| peer.contains(word))
}

fn is_outside_number(number: &str) -> bool {
    let digits = number.strip_prefix('+').unwrap_or(number);
    digits.len() > MAX_EXTENSION_DIGITS && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads a whole `Master.csv` from `reader`, its times read as local time in `tz` (cdr_csv writes
/// local time unless `usegmtime=yes`: pass `chrono_tz::UTC` then). Validates every row before
/// answering; the first fault fails the read with its line (errors name the file [`UNNAMED_INPUT`];
/// [`read_cdr_file`] names the real one). Rows must have [`COLUMNS`] columns, times
/// `YYYY-MM-DD HH:MM:SS` that exist in `tz` (an hour repeated when clocks go back is read as its first
/// occurrence), whole non-negative durations, and a non-empty uniqueid not seen before in the file.
/// Bytes that are not UTF-8 (caller names from some trunks) become U+FFFD.
pub fn read_cdr(reader: impl Read, tz: Tz) -> Result<Vec<CdrRow>, ImportError> {
    let input = PathBuf::from(UNNAMED_INPUT);
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut rows = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut record = csv::ByteRecord::new();
    loop {
        let line_of_error = |error: &csv::Error| {
            error
                .position()
                .map(|position| usize::try_from(position.line()).unwrap_or(usize::MAX))
        };
        match csv.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(error) => {
                let line = line_of_error(&error);
                return Err(ImportError::new(
                    &input,
                    line,
                    format!("unreadable CSV: {error}"),
                ));
            }
        }
        let line = record.position().map_or(0, |position| {
            usize::try_from(position.line()).unwrap_or(usize::MAX)
        });
        let row = parse_row(&record, line, tz)
            .map_err(|message| ImportError::new(&input, Some(line), message))?;
        if let Some(first) = seen.insert(row.unique_id.clone(), line) {
            return Err(ImportError::new(
                &input,
                Some(line),
                format!("uniqueid {:?} already used on line {first}", row.unique_id),
            ));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// [`read_cdr`] on the file at `path`, whose errors name `path`.
pub fn read_cdr_file(path: &Path, tz: Tz) -> Result<Vec<CdrRow>, ImportError> {
    let file = File::open(path)
        .map_err(|error| ImportError::new(path, None, format!("cannot open: {error}")))?;
    read_cdr(std::io::BufReader::new(file), tz).map_err(|error| error.in_file(path))
}

fn parse_row(record: &csv::ByteRecord, line: usize, tz: Tz) -> Result<CdrRow, String> {
    if record.len() != COLUMNS {
        return Err(format!(
            "{} columns, expected {COLUMNS} (cdr_csv with loguniqueid=yes and loguserfield=yes)",
            record.len()
        ));
    }
    let text: Vec<String> = record
        .iter()
        .map(|field| String::from_utf8_lossy(field).into_owned())
        .collect();
    let [
        account_code,
        src,
        dst,
        dcontext,
        clid,
        channel,
        dst_channel,
        last_app,
        last_data,
        start,
        answer,
        end,
        duration,
        billsec,
        disposition,
        ama_flags,
        unique_id,
        userfield,
    ]: [String; COLUMNS] = text
        .try_into()
        .map_err(|_| "wrong number of columns".to_owned())?;
    let start = parse_time("start", &start, tz)?;
    let answer = if answer.is_empty() {
        None
    } else {
        Some(parse_time("answer", &answer, tz)?)
    };
    let end = parse_time("end", &end, tz)?;
    let duration = parse_seconds("duration", &duration)?;
    let billsec = parse_seconds("billsec", &billsec)?;
    if unique_id.trim().is_empty() {
        return Err("empty uniqueid (is loguniqueid=yes in cdr.conf?)".to_owned());
    }
    let caller = caller_id::split(&clid);
    Ok(CdrRow {
        line,
        account_code,
        src,
        dst,
        dcontext,
        caller_id_name: caller.name,
        caller_id_num: caller.number,
        clid,
        channel,
        dst_channel,
        last_app,
        last_data,
        start,
        answer,
        end,
        duration,
        billsec,
        disposition: Disposition::parse(&disposition),
        ama_flags,
        unique_id,
        userfield,
    })
}

/// `YYYY-MM-DD HH:MM:SS` in `tz`, to UTC.
fn parse_time(column: &str, text: &str, tz: Tz) -> Result<DateTime<Utc>, String> {
    let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .map_err(|_| format!("{column} {text:?} is not a YYYY-MM-DD HH:MM:SS time"))?;
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(time) | LocalResult::Ambiguous(time, _) => Ok(time.with_timezone(&Utc)),
        LocalResult::None => Err(format!(
            "{column} {text:?} does not exist in {tz} (the clocks went forward over it)"
        )),
    }
}

fn parse_seconds(column: &str, text: &str) -> Result<i64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{column} {text:?} is not a whole number of seconds"
        ));
    }
    text.parse()
        .map_err(|_| format!("{column} {text:?} is too large"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const ROW: &str = r#""acct","101","102","from-internal","""Alice"" <101>","PJSIP/101-00000005","PJSIP/102-00000006","Dial","PJSIP/102,20","2023-11-13 10:02:45","2023-11-13 10:02:49","2023-11-13 10:04:01",76,72,"ANSWERED","DOCUMENTATION","1699887765.12","note""#;

    fn read(text: &str) -> Result<Vec<CdrRow>, ImportError> {
        read_cdr(text.as_bytes(), chrono_tz::America::New_York)
    }

    /// ROW with column `index` (0-based) replaced by `value` (written as is: quote it yourself).
    fn with_column(index: usize, value: &str) -> String {
        let mut columns: Vec<String> = Vec::new();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(ROW.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        for (i, field) in record.iter().enumerate() {
            columns.push(if i == index {
                value.to_owned()
            } else {
                format!("\"{}\"", field.replace('"', "\"\""))
            });
        }
        columns.join(",")
    }

    fn error_of(text: &str) -> ImportError {
        read(text).unwrap_err()
    }

    #[test]
    fn a_row_reads_every_column() {
        let rows = read(ROW).unwrap();
        let row = &rows[0];
        assert_eq!(row.line, 1);
        assert_eq!(row.account_code, "acct");
        assert_eq!((row.src.as_str(), row.dst.as_str()), ("101", "102"));
        assert_eq!(row.clid, "\"Alice\" <101>");
        assert_eq!(row.caller_id_name.as_deref(), Some("Alice"));
        assert_eq!(row.caller_id_num.as_deref(), Some("101"));
        assert_eq!(row.last_data, "PJSIP/102,20");
        assert_eq!(row.start.to_rfc3339(), "2023-11-13T15:02:45+00:00");
        assert_eq!(
            row.answer.unwrap().to_rfc3339(),
            "2023-11-13T15:02:49+00:00"
        );
        assert_eq!(row.end.to_rfc3339(), "2023-11-13T15:04:01+00:00");
        assert_eq!((row.duration, row.billsec), (76, 72));
        assert!(row.answered());
        assert_eq!(row.ama_flags, "DOCUMENTATION");
        assert_eq!(row.unique_id, "1699887765.12");
        assert_eq!(row.userfield, "note");
        assert_eq!(row.direction(), Direction::Internal);
    }

    #[test]
    fn times_are_local_to_the_given_zone() {
        let utc = read_cdr(ROW.as_bytes(), chrono_tz::UTC).unwrap();
        assert_eq!(utc[0].start.to_rfc3339(), "2023-11-13T10:02:45+00:00");
        let berlin = read_cdr(ROW.as_bytes(), chrono_tz::Europe::Berlin).unwrap();
        assert_eq!(berlin[0].start.to_rfc3339(), "2023-11-13T09:02:45+00:00");
        // Summer time: UTC-4 in New York.
        let summer = with_column(9, "\"2023-07-04 16:20:00\"");
        assert_eq!(
            read(&summer).unwrap()[0].start.to_rfc3339(),
            "2023-07-04T20:20:00+00:00"
        );
        // 01:30 happens twice on 2023-11-05 in New York: the first (EDT) is taken.
        let repeated = with_column(9, "\"2023-11-05 01:30:00\"");
        assert_eq!(
            read(&repeated).unwrap()[0].start.to_rfc3339(),
            "2023-11-05T05:30:00+00:00"
        );
        // 02:30 never happened on 2023-03-12 in New York.
        let skipped = error_of(&with_column(9, "\"2023-03-12 02:30:00\""));
        assert!(
            skipped
                .message
                .contains("does not exist in America/New_York"),
            "{skipped}"
        );
    }

    #[test]
    fn an_empty_answer_is_unanswered() {
        let row = with_column(10, "\"\"").replace("\"ANSWERED\"", "\"NO ANSWER\"");
        let rows = read(&row).unwrap();
        assert_eq!(rows[0].answer, None);
        assert!(!rows[0].answered());
        assert_eq!(rows[0].disposition, Disposition::NoAnswer);
    }

    #[test]
    fn dispositions() {
        for text in [
            "ANSWERED",
            "NO ANSWER",
            "BUSY",
            "FAILED",
            "CONGESTION",
            "UNKNOWN",
        ] {
            assert_eq!(Disposition::parse(text).as_str(), text);
        }
        assert_eq!(Disposition::parse("BUSY"), Disposition::Busy);
        assert_eq!(
            Disposition::parse("UNKNOWN"),
            Disposition::Other("UNKNOWN".into())
        );
    }

    #[test]
    fn malformed_rows_are_refused_with_their_line() {
        let first = ROW.replace("1699887765.12", "a");
        let second = ROW.replace("1699887765.12", "b");
        let bad_rows: [(String, &str); 10] = [
            (format!("{ROW},\"extra\""), "19 columns, expected 18"),
            (
                ROW.rsplit_once(',').unwrap().0.to_owned(),
                "17 columns, expected 18",
            ),
            (
                with_column(9, "\"2023-11-13T10:02:45\""),
                "start \"2023-11-13T10:02:45\" is not a YYYY-MM-DD HH:MM:SS time",
            ),
            (with_column(10, "\"13/11/2023 10:02\""), "answer"),
            (with_column(11, "\"2023-02-30 10:00:00\""), "end"),
            (
                with_column(12, "\"7.5\""),
                "duration \"7.5\" is not a whole number",
            ),
            (with_column(12, "-1"), "duration \"-1\""),
            (with_column(13, ""), "billsec \"\""),
            (with_column(16, "\"\""), "empty uniqueid"),
            (with_column(16, "\"  \""), "empty uniqueid"),
        ];
        for (bad, message) in bad_rows {
            let text = format!("{first}\n{second}\n{bad}\n");
            let error = error_of(&text);
            assert_eq!(error.line, Some(3), "{bad}: {error}");
            assert_eq!(error.file, PathBuf::from(UNNAMED_INPUT));
            assert!(error.message.contains(message), "{bad}: {error}");
        }
    }

    #[test]
    fn duplicate_uniqueids_are_refused() {
        let other = ROW.replace("1699887765.12", "1699887765.13");
        let error = error_of(&format!("{ROW}\n{other}\n{ROW}\n"));
        assert_eq!(error.line, Some(3));
        assert_eq!(
            error.message,
            "uniqueid \"1699887765.12\" already used on line 1"
        );
    }

    #[test]
    fn broken_csv_is_refused() {
        let error = error_of(&format!("{ROW}\n\"unterminated,\"x\"\n"));
        assert_eq!(error.line, Some(2), "{error}");
    }

    #[test]
    fn multi_line_fields_keep_the_starting_line() {
        let multi = with_column(8, "\"a\nb\"");
        let other = ROW.replace("1699887765.12", "2");
        let rows = read(&format!("{multi}\n{other}\n")).unwrap();
        assert_eq!(rows[0].last_data, "a\nb");
        assert_eq!((rows[0].line, rows[1].line), (1, 3));
    }

    #[test]
    fn an_empty_file_has_no_rows() {
        assert!(read("").unwrap().is_empty());
    }

    fn directed(
        src: &str,
        dst: &str,
        dcontext: &str,
        channel: &str,
        dst_channel: &str,
    ) -> Direction {
        let mut row = read(ROW).unwrap().remove(0);
        row.src = src.into();
        row.dst = dst.into();
        row.dcontext = dcontext.into();
        row.channel = channel.into();
        row.dst_channel = dst_channel.into();
        row.direction()
    }

    #[test]
    fn direction_heuristic() {
        use Direction::*;
        let cases = [
            (
                (
                    "5551234567",
                    "101",
                    "from-pstn",
                    "PJSIP/trunk-provider-00000001",
                    "PJSIP/101-00000002",
                ),
                Inbound,
            ),
            (
                (
                    "5551234567",
                    "s",
                    "from-trunk-sip-provider",
                    "SIP/gw-00000001",
                    "",
                ),
                Inbound,
            ),
            (
                (
                    "5551234567",
                    "4015550100",
                    "ext-did-0001",
                    "SIP/gw-00000001",
                    "",
                ),
                Inbound,
            ),
            (
                (
                    "anonymous",
                    "101",
                    "default",
                    "PJSIP/pstn-gw-00000001",
                    "PJSIP/101-00000002",
                ),
                Inbound,
            ),
            (
                (
                    "101",
                    "18005550199",
                    "from-internal",
                    "PJSIP/101-00000003",
                    "PJSIP/trunk-provider-00000004",
                ),
                Outbound,
            ),
            (
                (
                    "101",
                    "+442079460000",
                    "from-internal",
                    "PJSIP/101-00000003",
                    "",
                ),
                Outbound,
            ),
            (
                (
                    "101",
                    "9",
                    "from-internal",
                    "PJSIP/101-00000003",
                    "DAHDI/g0/provider-1",
                ),
                Outbound,
            ),
            (
                (
                    "101",
                    "102",
                    "from-internal",
                    "PJSIP/101-00000005",
                    "PJSIP/102-00000006",
                ),
                Internal,
            ),
            (
                ("101", "*97", "from-internal", "PJSIP/101-00000005", ""),
                Internal,
            ),
            (
                (
                    "5551234567",
                    "102",
                    "default",
                    "PJSIP/gw-00000005",
                    "PJSIP/102-00000006",
                ),
                Inbound,
            ),
            (
                ("101", "1234567", "from-internal", "PJSIP/101-00000005", ""),
                Outbound,
            ),
            (
                ("101", "123456", "from-internal", "PJSIP/101-00000005", ""),
                Internal,
            ),
        ];
        for ((src, dst, dcontext, channel, dst_channel), expected) in cases {
            assert_eq!(
                directed(src, dst, dcontext, channel, dst_channel),
                expected,
                "{src} -> {dst} in {dcontext} via {channel} / {dst_channel}"
            );
        }
    }
}
