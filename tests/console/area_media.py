"""Browser tests of the console's paging groups, music on hold and media files (issue 34):
a real WAV (made here with Python's `wave` module) uploaded and played, a text spoken by
a voice when the server has a speech engine (the page says when not), each player loading
from the console's own route in byte ranges and seeking, a paging group with
members added row by row, a playlist, refused forms naming every broken field, and a
branch administrator refused a change; each page checked by axe and photographed."""

import json
import math
import os
import struct
import tempfile
import urllib.parse
import urllib.request
import uuid
import wave

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in


def make_wav(path, seconds=1.0, rate=8000, pitch=440.0):
    """A mono 16-bit tone, written by the standard library."""
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        frames = b"".join(
            struct.pack("<h", int(12000 * math.sin(2 * math.pi * pitch * n / rate)))
            for n in range(int(seconds * rate))
        )
        out.writeframes(frames)


def upload(ctx, token, name, path):
    """Uploads `path` through the API's multipart upload, answering the record."""
    boundary = uuid.uuid4().hex
    with open(path, "rb") as f:
        audio = f.read()
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"tone.wav\"\r\n"
        "Content-Type: audio/wav\r\n\r\n"
    ).encode() + audio + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(ctx.url("/v2/admin/media-files/"), data=body, method="POST")
    request.add_header("content-type", f"multipart/form-data; boundary={boundary}")
    request.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def media_named(ctx, token, name):
    query = urllib.parse.urlencode({"query": name, "paginated": "0"})
    return [m for m in api(ctx, "GET", f"/v2/admin/media-files/?{query}", token)["records"] if m["name"] == name]


def plays(page, name):
    """The player of `name` loads its audio from the console's own route under the page's
    policy, answered in byte ranges (206: the browser asks for them), seeks near its end
    and plays (muted, as a page without a gesture may): its duration in seconds."""
    player = page.get_by_label(f"Play {name}", exact=True)
    src = player.get_attribute("src")
    assert src.startswith("/console/media-files/") and src.endswith("/audio"), src
    answers = []

    def answered(response):
        if response.url.endswith(src):
            answers.append((response.status, response.headers.get("content-range", "")))

    page.on("response", answered)
    try:
        duration = player.evaluate(
            """a => new Promise((ok, ko) => {
                a.addEventListener('loadedmetadata', () => ok(a.duration), {once: true});
                a.addEventListener('error', () => ko('media error ' + (a.error && a.error.code)), {once: true});
                a.load();
            })"""
        )
        seeked = player.evaluate(
            """a => new Promise((ok, ko) => {
                a.addEventListener('seeked', () => ok(a.currentTime), {once: true});
                a.addEventListener('error', () => ko('media error ' + (a.error && a.error.code)), {once: true});
                a.currentTime = a.duration * 0.8;
            })"""
        )
        assert abs(seeked - duration * 0.8) < 0.1, (seeked, duration)
        assert player.evaluate("a => a.seekable.length > 0 && a.seekable.end(0) > 0"), name
        assert player.evaluate("a => { a.muted = true; return a.play().then(() => !a.paused); }"), name
        player.evaluate("a => a.pause()")
    finally:
        page.remove_listener("response", answered)
    assert any(status == 206 and rng.startswith("bytes ") for status, rng in answers), answers
    return duration


def test_media_files_uploaded_played_spoken_renamed(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    name = f"Console tone {ctx.serial}"
    folder = tempfile.mkdtemp()
    wav = os.path.join(folder, "console-tone.wav")
    make_wav(wav, seconds=1.2)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Media files").click()
    expect(page.get_by_role("heading", name="Media files")).to_be_visible()
    # The demo's greeting plays as callers hear it.
    assert plays(page, "Welcome greeting") > 1.0

    page.get_by_role("link", name="Upload a file").click()
    expect(page.get_by_role("heading", name="Upload a media file")).to_be_visible()
    # Refused: no file, no name — both named next to their fields, nothing stored.
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("alert")).to_contain_text("was not uploaded")
    expect(page.locator("[data-field=file]")).to_be_visible()
    expect(page.locator("[data-field=name]")).to_be_visible()
    expect(page.get_by_label("Audio file")).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "media file upload refused")
    ctx.shot(page, "media-file-upload")
    page.get_by_label("Audio file").set_input_files(wav)
    page.get_by_label("Name").fill(name)
    page.get_by_label("What it says (optional)", exact=True).fill("A short test tone.")
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_contain_text("The media file is uploaded.")
    stored = media_named(ctx, token, name)
    assert len(stored) == 1 and stored[0]["text"] == "A short test tone.", stored
    assert stored[0]["renditionUrl"], stored
    duration = plays(page, name)
    assert abs(duration - 1.2) < 0.1, duration
    no_serious_violations(page, "media files")
    ctx.shot(page, "media-files")

    # Spoken by a voice, when the server has a speech engine; the page says when not.
    page.get_by_role("link", name="Have a text spoken").click()
    expect(page.get_by_role("heading", name="Have a text spoken")).to_be_visible()
    no_serious_violations(page, "speak a text")
    if page.get_by_test_id("no-speech").count():
        expect(page.get_by_test_id("no-speech")).to_contain_text("No text can be spoken")
        print("      (no speech engine on this server: the page says so)")
    else:
        spoken = f"Console spoken {ctx.serial}"
        page.get_by_label("Voice").select_option("en-us")
        page.get_by_label("Name").fill(spoken)
        page.get_by_label("Text to speak").fill("Thank you for calling. Please hold.")
        ctx.shot(page, "media-file-speak")
        page.get_by_role("button", name="Speak and save").click()
        expect(page.get_by_role("status")).to_contain_text("The text is spoken")
        record = media_named(ctx, token, spoken)
        assert len(record) == 1 and record[0]["voiceId"] == "en-us", record
        assert plays(page, spoken) > 1.0
        api(ctx, "DELETE", f"/v2/admin/media-files/{record[0]['id']}", token)
        page.goto(ctx.url("/console/media-files"))

    # Renamed, then deleted.
    page.get_by_role("link", name=f"Edit {name}", exact=True).click()
    page.get_by_label("Name").fill(f"{name} renamed")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The media file is renamed.")
    assert media_named(ctx, token, f"{name} renamed"), "renamed through the API"
    page.get_by_role("link", name=f"Edit {name} renamed", exact=True).click()
    no_serious_violations(page, "media file")
    page.get_by_role("button", name="Delete this media file").click()
    expect(page.get_by_role("status")).to_contain_text("The media file is deleted.")
    assert not media_named(ctx, token, f"{name} renamed")


def test_a_paging_group_with_members(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    name = f"Console paging {ctx.serial}"
    number = f"7{ctx.serial % 1000:03d}"
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Paging groups").click()
    expect(page.get_by_role("heading", name="Paging groups")).to_be_visible()
    expect(page.get_by_role("row", name="Whole store")).to_contain_text("Front desk")
    no_serious_violations(page, "paging groups")
    ctx.shot(page, "paging-groups")

    page.get_by_role("link", name="New paging group").click()
    # Refused: a number too short, no name, no member: each named next to its field.
    page.get_by_label("Number", exact=True).fill("7")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("was not saved")
    expect(page.get_by_label("Number", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "paging group refused")

    page.get_by_label("Name").fill(name)
    page.get_by_label("Number", exact=True).fill(number)
    page.get_by_label("Member 1", exact=True).select_option(label="101 Front desk")
    page.get_by_role("button", name="Add a member").click()
    expect(page.get_by_label("Member 2", exact=True)).to_be_visible()
    expect(page.get_by_label("Name")).to_have_value(name)
    page.get_by_label("Member 2", exact=True).select_option(label="102 Pharmacist")
    page.get_by_label("Intro message").select_option(label="Welcome greeting")
    page.get_by_label("Two-way audio (members may answer back)").check()
    no_serious_violations(page, "paging group")
    ctx.shot(page, "paging-group")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The paging group is created.")
    row = page.get_by_role("row", name=name)
    expect(row).to_contain_text("Front desk")
    expect(row).to_contain_text("Pharmacist")
    groups = [g for g in api(ctx, "GET", "/v2/admin/paging-groups/?paginated=0", token)["records"] if g["name"] == name]
    assert len(groups) == 1, groups
    group = groups[0]
    assert [m["name"] for m in group["routingDestinations"]] == ["Front desk", "Pharmacist"], group
    assert group["twoWayAudio"] == "yes" and group["introMessageMediaFile"]["name"] == "Welcome greeting", group

    # A member removed by setting it to None.
    page.get_by_role("link", name=f"Edit {number} {name}").click()
    page.get_by_label("Member 1", exact=True).select_option(value="")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The paging group is saved.")
    stored = api(ctx, "GET", f"/v2/admin/paging-groups/{group['id']}", token)
    assert [m["name"] for m in stored["routingDestinations"]] == ["Pharmacist"], stored

    # The branch administrator reads the group but may not change it.
    branch = ctx.page()
    sign_in(ctx, branch, ctx.accounts["branch"])
    branch.goto(ctx.url(f"/console/paging-groups/{group['id']}"))
    branch.get_by_role("button", name="Save").click()
    expect(branch.get_by_role("heading", name="Not allowed")).to_be_visible()
    branch.context.close()

    page.get_by_role("link", name=f"Edit {number} {name}").click()
    page.get_by_role("button", name="Delete this paging group").click()
    expect(page.get_by_role("status")).to_contain_text("The paging group is deleted.")


def test_a_music_on_hold_playlist(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    folder = tempfile.mkdtemp()
    wav = os.path.join(folder, "hold.wav")
    make_wav(wav, seconds=2.0, pitch=330.0)
    song = f"Hold tune {ctx.serial}"
    tune = upload(ctx, token, song, wav)
    name = f"Console playlist {ctx.serial}"
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Music on hold").click()
    expect(page.get_by_role("heading", name="Music on hold")).to_be_visible()
    no_serious_violations(page, "music on hold")
    page.get_by_role("link", name="New music on hold").click()
    # Refused: no name, no file.
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("was not saved")
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-field=routingDestinations]")).to_be_visible()
    no_serious_violations(page, "music on hold refused")

    page.get_by_label("Name").fill(name)
    page.get_by_label("How it plays").select_option(label="Shuffled")
    page.get_by_label("File 1", exact=True).select_option(label=song)
    page.get_by_role("button", name="Add a file").click()
    page.get_by_label("File 2", exact=True).select_option(label="Welcome greeting")
    no_serious_violations(page, "music on hold playlist")
    ctx.shot(page, "music-on-hold-playlist")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The music on hold is created.")
    expect(page.get_by_role("row", name=name)).to_contain_text("Shuffled")
    ctx.shot(page, "music-on-hold")
    records = [r for r in api(ctx, "GET", "/v2/admin/music-on-hold/?paginated=0", token)["records"] if r["name"] == name]
    assert len(records) == 1, records
    playlist = records[0]
    assert playlist["mode"] == "random", playlist
    assert [f["id"] for f in playlist["routingDestinations"]][0] == tune["id"], playlist
    assert len(playlist["routingDestinations"]) == 2, playlist

    page.get_by_role("link", name=f"Edit {name}").click()
    page.get_by_role("button", name="Delete this music on hold").click()
    expect(page.get_by_role("status")).to_contain_text("The music on hold is deleted.")
    api(ctx, "DELETE", f"/v2/admin/media-files/{tune['id']}", token)


TESTS = [
    test_media_files_uploaded_played_spoken_renamed,
    test_a_paging_group_with_members,
    test_a_music_on_hold_playlist,
]
