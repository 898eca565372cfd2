"""The console's outbound pages in the browser (issue 34): a campaign made (a refused
form first), numbers imported from a CSV with two bad rows shown row by row, the export
downloaded, the campaign started and paused; an opt-out added, imported and removed; a fax
sent from the fax line, failed by the engine and retried; one number of a campaign opened
with its calls, edited (a refused edit first) and deleted, and a campaign deleted after
its confirm step (refused while running); the fax retry policy set (a refused one first).
Each change is read back over the API; every page passes axe; each page is
photographed."""

import csv
import json
import time

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, PLATFORM, api, login, no_serious_violations, sign_in

MAIN_NUMBER = "+12125550100"
FAX_LINE = "12125550102"


def csv_file(name, text):
    return {"name": name, "mimeType": "text/csv", "buffer": text.encode()}


def pdf():
    """A one-page PDF whose cross-reference table a real parser accepts."""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def test_campaign_import_with_refused_rows_and_export(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Campaigns", exact=True).click()
    expect(page.get_by_role("heading", name="Campaigns", exact=True)).to_be_visible()
    # The demo's running campaign with its progress, counted by the API's statuses.
    row = page.get_by_role("row", name="Refill reminders")
    expect(row).to_contain_text("numbers done")
    expect(row.locator("progress")).to_have_attribute("max", "6")
    no_serious_violations(page, "campaigns")
    ctx.shot(page, "campaigns")

    # A refused campaign: every broken field named, what was typed kept.
    page.get_by_role("link", name="New campaign").click()
    expect(page.get_by_role("heading", name="New campaign")).to_be_visible()
    no_serious_violations(page, "new campaign")
    page.get_by_label("Caller id number").fill("+15550000000")
    page.get_by_label("Attempts per number").fill("11")
    page.get_by_label("Calls from (local time)").fill("18:00")
    page.get_by_label("Calls until (local time)").fill("08:00")
    page.get_by_role("button", name="Save").click()
    for field in ["name", "destination", "windowTo", "maxAttempts"]:
        expect(page.locator(f"#{field}-error")).to_be_visible()
    expect(page.get_by_label("Attempts per number")).to_have_value("11")
    expect(page.get_by_label("Attempts per number")).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "refused campaign")
    ctx.shot(page, "campaign-refused")

    name = f"Flu shot reminders {ctx.serial}"
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Caller id number").fill(MAIN_NUMBER)
    page.get_by_label("Answered calls go to").select_option(label="600 Ask the pharmacist")
    page.get_by_label("Attempts per number").fill("2")
    page.get_by_label("Calls from (local time)").fill("09:00")
    page.get_by_label("Calls until (local time)").fill("17:00")
    page.get_by_label("Time zone of the calling window").fill("America/New_York")
    page.get_by_label("Saturday").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is created.")
    found = api(ctx, "GET", f"/v2/admin/call-campaigns/?query={name.replace(' ', '+')}", token)["records"]
    assert len(found) == 1, found
    campaign = found[0]
    assert campaign["destination"]["destType"] == "QUEUE", campaign
    assert campaign["callingWindow"]["days"] == [1, 2, 3, 4, 5, 6], campaign
    assert campaign["maxAttempts"] == 2, campaign
    cid = campaign["id"]

    # The import: two bad rows shown with their reasons, the good ones created.
    page.get_by_role("link", name="Import numbers").click()
    expect(page.get_by_role("heading", name=f"Import numbers into {name}")).to_be_visible()
    no_serious_violations(page, "campaign import")
    page.get_by_label("CSV file").set_input_files(csv_file(
        "patients.csv",
        "number,name\n(212) 555-0170,Ana\nnot a number,Bo\n2125550171,Cy\n12,Di\n",
    ))
    page.get_by_role("button", name="Import").click()
    result = page.get_by_test_id("import-result")
    expect(result).to_contain_text("2 created")
    refused = page.get_by_test_id("refused-rows")
    expect(refused.locator("tbody tr")).to_have_count(2)
    expect(refused.locator("tr[data-row='2']")).to_contain_text("not a number")
    expect(refused.locator("tr[data-row='4']")).to_contain_text("refused")
    no_serious_violations(page, "campaign import result")
    ctx.shot(page, "campaign-import")
    held = api(ctx, "GET", f"/v2/admin/call-campaigns/{cid}/records?sortBy=id", token)["records"]
    assert [r["number"] for r in held] == ["+12125550170", "+12125550171"], held

    # Its numbers, and the export: the API's CSV as a download.
    page.get_by_role("link", name="Its numbers").click()
    expect(page.get_by_test_id("campaign-records")).to_contain_text("+12125550171")
    page.get_by_label("Status").select_option("skipped")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("0 numbers")).to_be_visible()
    page.get_by_label("Status").select_option("")
    page.get_by_role("button", name="Show").click()
    no_serious_violations(page, "campaign numbers")
    ctx.shot(page, "campaign-records")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export these as CSV").click()
    download = download_info.value
    assert download.suggested_filename == f"campaign-{cid}-records.csv", download.suggested_filename
    with open(download.path(), newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["number"] for r in rows] == ["+12125550170", "+12125550171"], rows
    assert rows[0]["name"] == "Ana", rows

    # Started and paused, each read back over the API.
    page.goto(ctx.url(f"/console/campaigns/{cid}"))
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is running.")
    assert api(ctx, "GET", f"/v2/admin/call-campaigns/{cid}", token)["status"] == "running"
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is paused.")
    expect(page.get_by_test_id("campaign-status")).to_have_text("paused")
    assert api(ctx, "GET", f"/v2/admin/call-campaigns/{cid}", token)["status"] == "paused"
    no_serious_violations(page, "campaign")
    ctx.shot(page, "campaign")
    page.get_by_role("button", name="Cancel the campaign").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is cancelled.")


def test_opt_outs_added_imported_and_removed(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Opt-outs").click()
    expect(page.get_by_role("heading", name="Opt-out lists")).to_be_visible()
    # The demo's complaint, on the refill campaign's own list.
    expect(page.get_by_role("row", name="+16465550123")).to_contain_text("campaign Refill reminders")
    no_serious_violations(page, "opt-outs")
    number = f"917555{ctx.serial % 10000:04d}"
    page.get_by_label("Number", exact=True).fill("not a number")
    page.get_by_role("button", name="Add the number").click()
    expect(page.locator("#number-error")).to_be_visible()
    expect(page.get_by_label("Number", exact=True)).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "refused opt-out")
    page.get_by_label("Number", exact=True).fill(number)
    page.get_by_label("Reason", exact=True).fill("Asked at the counter")
    page.get_by_role("button", name="Add the number").click()
    expect(page.get_by_role("status")).to_contain_text("The number is added to the list.")
    entries = api(ctx, "GET", f"/v2/admin/opt-outs/?query={number}", token)["records"]
    assert [e["number"] for e in entries] == [f"+1{number}"], entries
    assert entries[0]["level"] == "tenant" and entries[0]["reason"] == "Asked at the counter", entries

    # An import: the bad row shown with its reason, the held one said so.
    other = f"917556{ctx.serial % 10000:04d}"
    page.get_by_label("CSV file").set_input_files(csv_file(
        "opt-outs.csv", f"number,reason\n{other},Complaint\nnope,Bad\n{number},Again\n",
    ))
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_test_id("import-result")).to_contain_text("1 created")
    refused = page.get_by_test_id("refused-rows")
    expect(refused.locator("tbody tr")).to_have_count(2)
    expect(refused.locator("tr[data-row='2']")).to_contain_text("refused")
    expect(refused.locator("tr[data-row='3']")).to_contain_text("already held")
    no_serious_violations(page, "opt-out import")
    ctx.shot(page, "opt-outs")
    assert api(ctx, "GET", f"/v2/admin/opt-outs/?query={other}", token)["totalRecords"] == 1

    # Removed, gone from the API.
    page.get_by_label("Search numbers and reasons").fill(number)
    page.get_by_role("button", name="Show").click()
    page.get_by_role("button", name=f"Remove +1{number}").click()
    expect(page.get_by_role("status")).to_contain_text("The number is removed from the list.")
    assert api(ctx, "GET", f"/v2/admin/opt-outs/?query={number}", token)["totalRecords"] == 0


def test_a_failed_fax_is_retried(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    platform = login(ctx, PLATFORM, ctx.platform_password)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Faxes").click()
    expect(page.get_by_role("heading", name="Faxes")).to_be_visible()
    expect(page.get_by_test_id("faxes")).to_contain_text("received")
    no_serious_violations(page, "faxes")
    page.get_by_role("link", name="Send a fax").click()
    no_serious_violations(page, "send a fax")
    # Nobody to send to and nothing to send: both named.
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#to-error")).to_be_visible()
    expect(page.locator("#document-error")).to_be_visible()
    no_serious_violations(page, "refused fax")
    ctx.shot(page, "fax-refused")
    recipient = f"1212555{ctx.serial % 10000:04d}"
    page.get_by_label("From the fax line").select_option(FAX_LINE)
    page.get_by_label("To").fill(recipient)
    page.get_by_label("Document").set_input_files(
        {"name": "letter.pdf", "mimeType": "application/pdf", "buffer": pdf()})
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("The fax is queued to be sent.")
    faxes = api(ctx, "GET", f"/v2/admin/faxes?query={recipient}", token)["records"]
    assert len(faxes) == 1 and faxes[0]["status"] == "queued", faxes
    fax = faxes[0]["id"]

    # One attempt only, failed by the engine (the platform admin acting as it).
    api(ctx, "PUT", "/v2/admin/faxes/retry-policy", token, {"maxAttempts": 1, "delaySeconds": 60})
    job = None
    for _ in range(50):
        claimed = api(ctx, "POST", "/v2/engine/jobs/claim", platform,
                      {"kinds": ["fax"], "max": 10, "leaseSeconds": 300})["jobs"]
        job = next((j for j in claimed if j.get("subjectId") == fax), None)
        if job:
            break
        time.sleep(0.1)
    assert job, "the fax was never handed to the engine"
    api(ctx, "POST", f"/v2/engine/jobs/{job['id']}/result", platform,
        {"attempt": job["attempt"], "outcome": "failed", "resultCode": "busy"})
    assert api(ctx, "GET", f"/v2/admin/faxes/{fax}", token)["status"] == "failed"

    page.reload()
    row = page.locator(f"tr[data-fax='{fax}']")
    expect(row.get_by_test_id("fax-status")).to_have_text("failed")
    expect(row).to_contain_text("last: failed, busy")
    no_serious_violations(page, "faxes with a failed one")
    ctx.shot(page, "faxes")
    row.get_by_role("button", name="Retry").click()
    expect(page.get_by_role("status")).to_contain_text("The fax is queued to be sent again.")
    expect(page.locator(f"tr[data-fax='{fax}']").get_by_test_id("fax-status")).to_have_text("queued")
    again = api(ctx, "GET", f"/v2/admin/faxes/{fax}", token)
    assert again["status"] == "queued" and len(again["attempts"]) == 1, json.dumps(again)
    # Back to the demo's policy.
    api(ctx, "PUT", "/v2/admin/faxes/retry-policy", token, {"maxAttempts": 3, "delaySeconds": 300})


def test_a_campaign_number_and_a_campaign_deleted(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    # The demo's Maria Lopez: her number's page shows the call placed yesterday.
    demo = api(ctx, "GET", "/v2/admin/call-campaigns/?query=Refill+reminders", token)["records"][0]
    page.get_by_role("link", name="Campaigns", exact=True).click()
    page.get_by_role("link", name="Refill reminders", exact=True).click()
    page.get_by_role("link", name="Its numbers", exact=True).click()
    page.get_by_role("link", name="+12125550147").click()
    expect(page.get_by_role("heading", name="+12125550147 (Maria Lopez) in Refill reminders")).to_be_visible()
    expect(page.get_by_test_id("record-status")).to_have_text("completed")
    expect(page.get_by_test_id("attempt-history").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("attempt-history")).to_contain_text("refill-confirmed")
    no_serious_violations(page, "campaign number")
    ctx.shot(page, "campaign-record")

    # A campaign of its own, with two numbers, made over the API like the demo's.
    name = f"Vaccine reminders {ctx.serial}"
    campaign = api(ctx, "POST", "/v2/admin/call-campaigns/", token, {
        "name": name, "callerIdNumber": demo["callerIdNumber"],
        "destination": [demo["destination"]], "callingWindow": demo["callingWindow"],
    })
    cid = campaign["id"]
    records = f"/v2/admin/call-campaigns/{cid}/records"
    first = api(ctx, "POST", records, token, {"number": "2125550180", "name": "Ana"})
    api(ctx, "POST", records, token, {"number": "2125550181", "name": "Cy"})
    page.goto(ctx.url(f"/console/campaigns/{cid}/records"))
    page.get_by_role("link", name="+12125550180").click()
    expect(page.get_by_text("No call has been placed for this number yet.")).to_be_visible()

    # A refused edit: each broken field named, what was typed kept, nothing changed.
    page.get_by_label("Number", exact=True).fill("12")
    page.get_by_label("Name", exact=True).fill("N" * 256)
    page.get_by_role("button", name="Save").click()
    for field in ["number", "name"]:
        expect(page.locator(f"#{field}-error")).to_be_visible()
    expect(page.get_by_label("Number", exact=True)).to_have_value("12")
    expect(page.get_by_label("Number", exact=True)).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "refused campaign number")
    ctx.shot(page, "campaign-record-refused")
    assert api(ctx, "GET", f"{records}/{first['id']}", token)["name"] == "Ana"

    page.get_by_label("Number", exact=True).fill("(212) 555-0182")
    page.get_by_label("Name", exact=True).fill("Ana Lima")
    page.get_by_label("Dialling").select_option(label="Never dial it")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The number is saved.")
    expect(page.get_by_test_id("record-status")).to_have_text("skipped")
    saved = api(ctx, "GET", f"{records}/{first['id']}", token)
    assert (saved["number"], saved["name"], saved["status"]) == ("+12125550182", "Ana Lima", "skipped"), saved

    page.get_by_role("button", name="Delete this number from the campaign").click()
    expect(page.get_by_role("status")).to_contain_text("The number is deleted from the campaign.")
    expect(page.get_by_test_id("campaign-records")).not_to_contain_text("+12125550182")
    assert [r["number"] for r in api(ctx, "GET", records, token)["records"]] == ["+12125550181"]

    # Running, it may not be deleted: the API's refusal in its words.
    page.get_by_role("link", name="Back to the campaign").click()
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is running.")
    page.get_by_role("link", name="Delete this campaign…").click()
    expect(page.get_by_role("heading", name=f"Delete the campaign {name}?")).to_be_visible()
    expect(page.get_by_test_id("deleted-with-it")).to_contain_text("1")
    no_serious_violations(page, "delete a campaign")
    ctx.shot(page, "campaign-delete")
    page.get_by_role("button", name="Delete the campaign and its numbers").click()
    expect(page.get_by_role("heading", name="The change was refused")).to_be_visible()
    expect(page.get_by_text("a running campaign cannot be deleted")).to_be_visible()
    assert api(ctx, "GET", f"/v2/admin/call-campaigns/{cid}", token)["status"] == "running"

    # Paused, it is deleted with its numbers.
    page.goto(ctx.url(f"/console/campaigns/{cid}"))
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is paused.")
    page.get_by_role("link", name="Delete this campaign…").click()
    page.get_by_role("button", name="Delete the campaign and its numbers").click()
    expect(page.get_by_role("status")).to_contain_text("The campaign is deleted.")
    expect(page.get_by_test_id("campaigns")).not_to_contain_text(name)
    assert api(ctx, "GET", f"/v2/admin/call-campaigns/?query={name.replace(' ', '+')}", token)["totalRecords"] == 0


def test_the_fax_retry_policy_is_set(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Faxes").click()
    page.get_by_role("link", name="Retry policy").click()
    expect(page.get_by_role("heading", name="Fax retry policy")).to_be_visible()
    expect(page.get_by_label("Attempts in all")).to_have_value("3")
    no_serious_violations(page, "fax retry policy")

    # Refused: each broken field named, the bad code by name, nothing changed.
    page.get_by_label("Attempts in all").fill("11")
    page.get_by_label("Seconds between attempts").fill("ten")
    page.get_by_label("Result codes worth another attempt").fill("busy\n" + "x" * 65)
    page.get_by_role("button", name="Save").click()
    for field in ["maxAttempts", "delaySeconds", "retryCodes"]:
        expect(page.locator(f"#{field}-error")).to_be_visible()
    expect(page.locator("#retryCodes-error")).to_contain_text("x" * 65)
    expect(page.get_by_label("Seconds between attempts")).to_have_value("ten")
    no_serious_violations(page, "refused fax retry policy")
    ctx.shot(page, "fax-retry-policy-refused")
    assert api(ctx, "GET", "/v2/admin/faxes/retry-policy", token)["maxAttempts"] == 3

    page.get_by_label("Attempts in all").fill("4")
    page.get_by_label("Seconds between attempts").fill("120")
    page.get_by_label("Result codes worth another attempt").fill("busy\nno-answer")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The retry policy is saved.")
    policy = api(ctx, "GET", "/v2/admin/faxes/retry-policy", token)
    assert (policy["maxAttempts"], policy["delaySeconds"], policy["retryCodes"]) == (4, 120, ["busy", "no-answer"]), policy
    ctx.shot(page, "fax-retry-policy")
    # Back to the demo's policy.
    api(ctx, "PUT", "/v2/admin/faxes/retry-policy", token, {"maxAttempts": 3, "delaySeconds": 300})


TESTS = [
    test_campaign_import_with_refused_rows_and_export,
    test_opt_outs_added_imported_and_removed,
    test_a_failed_fax_is_retried,
    test_a_campaign_number_and_a_campaign_deleted,
    test_the_fax_retry_policy_is_set,
]
