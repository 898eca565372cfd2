use std::fs;
use std::path::Path;

use switchboard_asterisk::voicemail::{AudioFormat, Folder, derived_msg_id, read_spool};

use crate::fixture;

#[test]
fn the_fixture_spool_reads_in_order_without_greetings_tmp_or_locks() {
    let spool = fixture("spool");
    let messages = read_spool(&spool).unwrap();
    let listed: Vec<_> = messages
        .iter()
        .map(|m| {
            (
                m.context.as_str(),
                m.mailbox.as_str(),
                m.folder,
                m.message_number,
                m.audio.as_ref().map(|audio| audio.format),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("default", "101", Folder::Inbox, 0, Some(AudioFormat::Wav)),
            ("default", "101", Folder::Inbox, 1, Some(AudioFormat::Wav49)),
            ("default", "101", Folder::Old, 0, Some(AudioFormat::Wav)),
            ("default", "102", Folder::Inbox, 0, Some(AudioFormat::Gsm)),
            // Both msg0000.wav and msg0000.gsm: .wav wins.
            ("default", "102", Folder::Old, 0, Some(AudioFormat::Wav)),
            ("default", "102", Folder::Urgent, 0, Some(AudioFormat::Wav)),
        ]
    );

    let first = &messages[0];
    assert_eq!(first.msg_id, "1699902334-00000000");
    assert!(!first.msg_id_derived);
    assert_eq!(first.caller_id, "\"ACME Corp\" <5551234567>");
    assert_eq!(first.caller().name.as_deref(), Some("ACME Corp"));
    assert_eq!(first.caller().number.as_deref(), Some("5551234567"));
    assert_eq!(first.orig_date, "Mon Nov 13 07:05:34 PM UTC 2023");
    assert_eq!(first.orig_time, 1_699_902_334);
    assert_eq!(first.duration, 2);
    assert_eq!(first.exten, "101");
    assert_eq!(first.flag, None);
    assert!(!first.is_read());
    assert_eq!(first.source, spool.join("default/101/INBOX/msg0000.txt"));
    let audio = first.audio.as_ref().unwrap();
    assert_eq!(audio.path, spool.join("default/101/INBOX/msg0000.wav"));
    assert_eq!(first.fields["callerchan"], "PJSIP/trunk-provider-0000000d");
    assert_eq!(first.fields["rdnis"], "unknown");

    assert_eq!(
        messages[1].audio.as_ref().unwrap().path,
        spool.join("default/101/INBOX/msg0001.WAV")
    );
    assert!(messages[2].is_read());
    assert_eq!(messages[3].caller().number.as_deref(), Some("5557654321"));
    assert_eq!(messages[3].caller().name, None);
    assert_eq!(
        messages[4].audio.as_ref().unwrap().path,
        spool.join("default/102/Old/msg0000.wav")
    );

    // Written by Asterisk 1.8: no msg_id, so one is derived, the same on every read.
    let old = &messages[4];
    assert!(old.msg_id_derived);
    assert_eq!(
        old.msg_id,
        derived_msg_id(1_699_543_200, "default", "102", Folder::Old, 0)
    );
    assert_eq!(read_spool(&spool).unwrap()[4].msg_id, old.msg_id);
    assert_eq!(old.flag, None);
    assert_eq!(old.exten, "s");

    let urgent = &messages[5];
    assert_eq!(urgent.flag.as_deref(), Some("Urgent"));
    assert!(!urgent.is_read());
}

#[test]
fn a_bad_message_file_fails_the_whole_spool_with_its_line() {
    let error = read_spool(&fixture("spool-broken")).unwrap_err();
    assert!(
        error
            .file
            .ends_with("spool-broken/default/101/INBOX/msg0001.txt"),
        "{error}"
    );
    assert_eq!(error.line, Some(14));
    assert_eq!(
        error.message,
        "origtime must be a whole number of seconds, not \"yesterday\""
    );
    assert!(error.to_string().ends_with(
        "msg0001.txt:14: origtime must be a whole number of seconds, not \"yesterday\""
    ));
}

const GOOD: &str = "[message]\ncallerid=<101>\norigtime=1700000000\nduration=3\n";

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn messages_without_audio_skipped_folders_and_orphan_audio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "ctx/200/Cust3/msg0007.txt", GOOD);
    write(root, "ctx/200/Cust3/msg0007.ulaw", "");
    write(
        root,
        "ctx/200/Cust3/msg0008.wav",
        "audio without its metadata",
    );
    write(root, "ctx/200/Cust3/msg0001.txt.bak", "editor leftover");
    write(root, "ctx/200/Deleted/msg0000.txt", "never read");
    write(root, "ctx/200/tmp/msg0000.txt", "never read");
    write(root, "ctx/200/.hidden/msg0000.txt", "never read");
    write(root, "ctx/200/temp.gsm", "a temporary greeting");
    write(root, "ctx/README", "a file beside the mailboxes");
    write(root, "other.txt", "a file beside the contexts");
    let messages = read_spool(root).unwrap();
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(
        (
            message.context.as_str(),
            message.mailbox.as_str(),
            message.folder
        ),
        ("ctx", "200", Folder::Cust3)
    );
    assert_eq!(message.message_number, 7);
    assert_eq!(message.audio, None);
    assert!(message.is_read());
    assert!(message.msg_id_derived);
    assert_eq!(message.exten, "");

    assert!(
        read_spool(tempfile::tempdir().unwrap().path())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn bad_spools_are_refused() {
    let cases: [(&str, &str, Option<usize>, &str); 6] = [
        (
            "ctx/200/INBOX/msg0000.txt",
            "[message]\nduration=3\n",
            None,
            "no origtime= line",
        ),
        (
            "ctx/200/INBOX/msg0000.txt",
            "[message]\norigtime=1700000000\n",
            None,
            "no duration= line",
        ),
        (
            "ctx/200/INBOX/msg0000.txt",
            "[message]\norigtime=1700000000\nduration=-3\n",
            Some(3),
            "duration must be a whole number",
        ),
        (
            "ctx/200/INBOX/msg0000.txt",
            "[message]\norigtime=1.5e9\nduration=3\n",
            Some(2),
            "origtime must be",
        ),
        (
            "ctx/200/INBOX/msg0000.txt",
            "garbage\n",
            Some(1),
            "expected key=value",
        ),
        (
            "ctx/200/inbox/msg0000.txt",
            GOOD,
            None,
            "unknown voicemail folder \"inbox\"",
        ),
    ];
    for (relative, text, line, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "ctx/100/INBOX/msg0000.txt", GOOD);
        write(dir.path(), relative, text);
        let error = read_spool(dir.path()).unwrap_err();
        assert_eq!(error.line, line, "{relative}: {error}");
        assert!(error.message.contains(message), "{relative}: {error}");
        assert!(error.file.starts_with(dir.path()), "{error}");
    }

    let error = read_spool(Path::new("/no/such/spool")).unwrap_err();
    assert_eq!(error.file, Path::new("/no/such/spool"));
    assert!(
        error.message.starts_with("cannot read the folder"),
        "{error}"
    );
}
