use std::fs;

use switchboard_asterisk::recordings::RecordingIndex;
use switchboard_asterisk::transcode::to_mp3;

use crate::fixture;

#[test]
fn the_fixture_recordings_match_their_calls_by_whole_uniqueid() {
    let dir = fixture("recordings");
    let index = RecordingIndex::scan(&dir).unwrap();
    assert_eq!(index.len(), 4);
    assert!(!index.is_empty());
    assert_eq!(
        index.find("1699884902.1").unwrap(),
        dir.join("in-5551234567-101-20231113-091502-1699884902.1.wav")
    );
    assert_eq!(
        index.find("1699887765.123").unwrap(),
        dir.join("out-5559876543-103-20231113-100245-1699887765.123.wav")
    );
    // The call before it in the same second has no recording: .12 is not .123.
    assert_eq!(index.find("1699887765.12"), None);
    // Nested folders (FreePBX's monitor/YYYY/MM/DD) are searched.
    assert_eq!(
        index.find("1688502000.66").unwrap(),
        dir.join("2023/07/04/in-2125550147-s-20230704-162000-1688502000.66.wav")
    );
    for not_a_call in ["1699884902", "1699884902.", "699884902.1", "101", ""] {
        assert!(
            index.find(not_a_call).is_none() || not_a_call == "101",
            "{not_a_call}"
        );
    }
    assert_eq!(index.find("1699893000.15"), None);
}

#[test]
fn several_recordings_of_a_call_prefer_wav_then_mp3() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let wav = fs::read(fixture(
        "recordings/in-5551234567-101-20231113-091502-1699884902.1.wav",
    ))
    .unwrap();
    let mp3 = to_mp3(&wav).unwrap().bytes;
    fs::create_dir_all(root.join("2023/11")).unwrap();
    fs::write(root.join("1700000000.5.mp3"), &mp3).unwrap();
    fs::write(root.join("1700000000.5.WAV"), b"wav49").unwrap();
    fs::write(root.join("2023/11/exten-101-1700000000.5-out.wav"), &wav).unwrap();
    fs::write(root.join("2023/11/exten-101-1700000000.5-in.wav"), &wav).unwrap();
    fs::write(root.join("1700000000.5.txt"), b"notes").unwrap();
    fs::write(root.join("1700000000.55.wav"), &wav).unwrap();
    fs::write(root.join(".1700000000.6.wav"), &wav).unwrap();
    let index = RecordingIndex::scan(root).unwrap();
    assert_eq!(index.len(), 5);
    assert_eq!(
        index.find_all("1700000000.5"),
        [
            root.join("2023/11/exten-101-1700000000.5-in.wav"),
            root.join("2023/11/exten-101-1700000000.5-out.wav"),
            root.join("1700000000.5.mp3"),
            root.join("1700000000.5.WAV"),
        ]
    );
    assert_eq!(
        index.find("1700000000.5").unwrap(),
        root.join("2023/11/exten-101-1700000000.5-in.wav")
    );
    fs::remove_dir_all(root.join("2023")).unwrap();
    let index = RecordingIndex::scan(root).unwrap();
    assert_eq!(
        index.find("1700000000.5").unwrap(),
        root.join("1700000000.5.mp3")
    );
    assert_eq!(index.find("1700000000.6"), None);
}

#[test]
fn uniqueids_with_a_system_name_match_too() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("q-500-pbx1-1700000000.7.wav"), b"").unwrap();
    fs::write(dir.path().join("q-500-xpbx1-1700000000.8.wav"), b"").unwrap();
    let index = RecordingIndex::scan(dir.path()).unwrap();
    assert_eq!(
        index.find("pbx1-1700000000.7").unwrap(),
        dir.path().join("q-500-pbx1-1700000000.7.wav")
    );
    assert_eq!(index.find("pbx1-1700000000.8"), None);
}

#[test]
fn an_unreadable_folder_is_an_error() {
    let error = RecordingIndex::scan(&fixture("no-such-folder")).unwrap_err();
    assert!(
        error.message.starts_with("cannot read the folder"),
        "{error}"
    );
    assert_eq!(error.line, None);
}
