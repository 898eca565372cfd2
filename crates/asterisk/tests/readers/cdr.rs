use switchboard_asterisk::cdr::{Direction, Disposition, read_cdr, read_cdr_file};

use crate::fixture;

#[test]
fn the_fixture_master_csv_reads_every_kind_of_call() {
    let rows = read_cdr_file(&fixture("Master.csv"), chrono_tz::America::New_York).unwrap();
    let summary: Vec<_> = rows
        .iter()
        .map(|row| {
            (
                row.line,
                row.unique_id.as_str(),
                row.direction(),
                row.disposition.clone(),
            )
        })
        .collect();
    use Direction::*;
    use Disposition::*;
    assert_eq!(
        summary,
        [
            (1, "1699884902.1", Inbound, Answered),
            (2, "1699886411.3", Outbound, Answered),
            (3, "1699887765.12", Internal, Answered),
            (4, "1699887765.123", Outbound, Answered),
            (5, "1699893000.15", Inbound, NoAnswer),
            (6, "1699893070.17", Internal, Busy),
            (7, "1699902333.21", Inbound, Answered),
            (8, "1688502000.66", Inbound, Answered),
        ]
    );

    let first = &rows[0];
    assert_eq!(first.caller_id_name.as_deref(), Some("ACME Corp"));
    assert_eq!(first.caller_id_num.as_deref(), Some("5551234567"));
    assert_eq!(first.start.to_rfc3339(), "2023-11-13T14:15:02+00:00");
    assert_eq!(first.start.timestamp(), 1_699_884_902);
    assert_eq!(
        first.answer.unwrap().to_rfc3339(),
        "2023-11-13T14:15:07+00:00"
    );
    assert_eq!(first.end.to_rfc3339(), "2023-11-13T14:17:40+00:00");
    assert_eq!((first.duration, first.billsec), (158, 153));
    assert_eq!(first.last_data, "PJSIP/101,30,tT");
    assert_eq!(first.userfield, "sales");
    assert!(first.answered());

    let missed = &rows[4];
    assert_eq!(missed.answer, None);
    assert_eq!(missed.billsec, 0);
    assert!(!missed.answered());
    assert!(!rows[5].answered());
    assert_eq!(rows[6].last_app, "VoiceMail");
    assert_eq!(rows[6].dst_channel, "");

    // Summer time (UTC-4), a comma inside a quoted name, doubled quotes in the user field.
    let summer = &rows[7];
    assert_eq!(summer.start.to_rfc3339(), "2023-07-04T20:20:00+00:00");
    assert_eq!(summer.start.timestamp(), 1_688_502_000);
    assert_eq!(summer.caller_id_name.as_deref(), Some("O'Brien, Pat"));
    assert_eq!(summer.last_data, "SIP/101&SIP/102,20,tT");
    assert_eq!(summer.userfield, "vip \"gold\"");
    assert_eq!(summer.ama_flags, "BILLING");
}

#[test]
fn a_broken_master_csv_fails_whole_with_the_line() {
    let path = fixture("broken-cdr.csv");
    let error = read_cdr_file(&path, chrono_tz::America::New_York).unwrap_err();
    assert_eq!(error.file, path);
    assert_eq!(error.line, Some(4));
    assert_eq!(
        error.message,
        "start \"2023-11-13 25:61:00\" is not a YYYY-MM-DD HH:MM:SS time"
    );
    assert_eq!(
        error.to_string(),
        format!("{}:4: {}", path.display(), error.message)
    );

    let bytes = std::fs::read(&path).unwrap();
    let error = read_cdr(bytes.as_slice(), chrono_tz::UTC).unwrap_err();
    assert_eq!(error.to_string(), format!("<input>:4: {}", error.message));

    let error = read_cdr_file(&fixture("no-such.csv"), chrono_tz::UTC).unwrap_err();
    assert_eq!(error.line, None);
    assert!(error.message.starts_with("cannot open"), "{error}");
}
