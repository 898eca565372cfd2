#!/usr/bin/env python3
"""Browser tests of the console (issue 34): Debian's Chromium driven by Playwright for
Python through every task of the first slice, end to end against a running `switchboard
serve --demo`, with axe-core (axe-playwright-python) finding no serious or critical
violation on any page. Run by scripts/console-tests.sh, once per database.

    run.py --base http://127.0.0.1:PORT --platform-password PW [--screenshots DIR]

With --screenshots, each page is saved there as it is tested (docs/console/*.png, which
the README shows). Every test starts in a fresh browser context (no cookie of another).
"""

import argparse
import importlib
import pathlib
import sys
import time
import traceback

from playwright.sync_api import expect, sync_playwright

from kit import (  # noqa: F401 - the first slice's tests below use these
    ADMIN,
    DEMO_PASSWORD,
    NEW_PASSWORD,
    PLATFORM,
    Context,
    api,
    axe_finds_what_it_should,
    login,
    no_serious_violations,
    setup,
    sign_in,
    totp,
)


# --- the tests --------------------------------------------------------------------------


def test_sign_in_shows_today_and_sign_out(ctx):
    page = ctx.page()
    page.goto(ctx.url("/"))
    expect(page).to_have_url(ctx.url("/console/sign-in"))
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    no_serious_violations(page, "sign-in")
    ctx.shot(page, "sign-in")
    sign_in(ctx, page, ADMIN)
    expect(page).to_have_url(ctx.url("/console/"))
    expect(page.get_by_role("heading", name="Today at a glance")).to_be_visible()
    expect(page.get_by_test_id("signed-in-person")).to_contain_text(ADMIN)
    expect(page.get_by_test_id("acting-tenant")).not_to_have_text("none picked")
    for section in ["Calls today", "Calls in the last 7 days", "Unread voicemail", "Desk phones",
                    "Failed webhook deliveries", "Running campaigns", "Last changes"]:
        expect(page.get_by_role("heading", name=section)).to_be_visible()
    # The demo's figures: unread voicemail is a number, the audit trail lists changes.
    assert page.get_by_test_id("unread-voicemail").inner_text().strip().isdigit()
    expect(page.locator("#changes ~ table tbody tr").first).to_be_visible()
    no_serious_violations(page, "today")
    ctx.shot(page, "today")
    # The skip link is the first thing the keyboard reaches, and it leads to the content.
    page.keyboard.press("Tab")
    expect(page.locator(":focus")).to_have_text("Skip to content")
    page.keyboard.press("Enter")
    expect(page.locator(":focus")).to_have_attribute("id", "main")
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(ctx.url("/console/sign-in?done=signed-out"))
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    page.goto(ctx.url("/console/extensions"))
    expect(page).to_have_url(ctx.url("/console/sign-in"))


def test_a_locked_account_says_so(ctx):
    page = ctx.page()
    email = ctx.accounts["locked"]
    sign_in(ctx, page, email, "not the password")
    expect(page.get_by_role("alert")).to_contain_text("The e-mail address or password is wrong.")
    for _ in range(5):
        sign_in(ctx, page, email, "not the password")
    expect(page.get_by_role("alert")).to_contain_text("locked")
    # The right password too, while the lock lasts.
    sign_in(ctx, page, email)
    expect(page.get_by_role("alert")).to_contain_text("locked")
    no_serious_violations(page, "locked sign-in")
    ctx.shot(page, "sign-in-locked")


def test_extensions_list_create_edit_delete(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Extensions").click()
    expect(page.get_by_role("heading", name="Extensions")).to_be_visible()
    no_serious_violations(page, "extensions")
    ctx.shot(page, "extensions")
    page.get_by_role("link", name="New extension").click()
    no_serious_violations(page, "new extension")
    # Every broken field is shown next to its input, what was typed kept.
    page.get_by_label("Number").fill("12ab")
    page.get_by_label("Name").fill("N" * 300)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#number-error")).to_be_visible()
    expect(page.locator("#name-error")).to_be_visible()
    expect(page.get_by_label("Number")).to_have_value("12ab")
    expect(page.get_by_label("Number")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    no_serious_violations(page, "refused extension form")
    ctx.shot(page, "extension-refused")
    number = f"7{ctx.serial % 1000:03d}"
    page.get_by_label("Number").fill(number)
    page.get_by_label("Name").fill("Console test phone")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The extension is created.")
    page.get_by_label("Search extensions").fill("Console test")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_role("cell", name="Console test phone", exact=True)).to_be_visible()
    page.get_by_role("link", name=f"Edit {number} Console test phone").click()
    page.get_by_label("Name").fill("Console test phone, renamed")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The extension is saved.")
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    found = api(ctx, "GET", "/v2/admin/extensions/?query=renamed", token)["records"]
    assert [e["number"] for e in found] == [number], found
    audit = api(ctx, "GET", "/v2/admin/audit-log/?entities=extension&sortBy=id&sortDirection=desc&recordsPerPage=1", token)
    assert audit["records"][0]["userEmail"] == ADMIN, audit
    page.goto(ctx.url(f"/console/extensions/{found[0]['id']}"))
    page.get_by_role("button", name="Delete this extension").click()
    expect(page.get_by_role("status")).to_contain_text("The extension is deleted.")
    assert api(ctx, "GET", "/v2/admin/extensions/?query=renamed", token)["records"] == []


def test_a_branch_admin_does_not_see_another_branch(ctx):
    page = ctx.page()
    sign_in(ctx, page, ctx.accounts["branch"])
    expect(page.get_by_role("heading", name="Today at a glance")).to_be_visible()
    no_serious_violations(page, "today, branch admin")
    page.get_by_role("link", name="Extensions").click()
    expect(page.get_by_role("table")).to_be_visible()
    assert page.get_by_text("Annex phone").count() == 0
    page.get_by_label("Search extensions").fill("Annex")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("0 extensions")).to_be_visible()
    response = page.goto(ctx.url(f"/console/extensions/{ctx.annex_extension}"))
    assert response.status == 404, response.status
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    no_serious_violations(page, "not found")


def test_a_forged_form_is_refused(ctx):
    page = ctx.page()
    sign_in(ctx, page, ctx.accounts["csrf"])
    page.goto(ctx.url("/console/extensions/new"))
    page.get_by_label("Number").fill("7999")
    page.get_by_label("Name").fill("Forged in the page")
    page.locator("main input[name=csrf]").first.evaluate("input => input.value = 'ff00ff00'")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="This form was refused")).to_be_visible()
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    assert api(ctx, "GET", "/v2/admin/extensions/?query=Forged", token)["records"] == []
    no_serious_violations(page, "refused form")


def test_phone_numbers_with_their_destinations(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Phone numbers").click()
    expect(page.get_by_role("heading", name="Phone numbers")).to_be_visible()
    expect(page.locator("tbody tr").first).to_be_visible()
    no_serious_violations(page, "phone numbers")
    ctx.shot(page, "phone-numbers")


def test_where_a_call_goes(ctx):
    """A number's call flow: the picture drawn by the server loads, the path at a moment
    picked in the tenant's time zone is listed, and a moment that is no date is named
    next to its picker."""
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Phone numbers").click()
    page.get_by_role("link", name="Call flow of").first.click()
    expect(page.get_by_role("heading", name="Where does a call to")).to_be_visible()
    page.wait_for_function(
        "() => { const i = document.querySelector('figure.flow img');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    page.get_by_label("At this moment").fill("2026-11-30T10:00")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_label("At this moment")).to_have_value("2026-11-30T10:00")
    steps = page.get_by_test_id("flow-path").locator("li")
    expect(steps.first).to_contain_text("Phone number")
    assert steps.count() >= 3, steps.all_inner_texts()
    page.wait_for_function(
        "() => { const i = document.querySelector('figure.flow img');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    no_serious_violations(page, "call flow")
    ctx.shot(page, "call-flow")
    page.goto(page.url.split("?")[0] + "?at=next+tuesday")
    expect(page.get_by_text("must be a date and time")).to_be_visible()
    expect(page.get_by_label("At this moment")).to_have_attribute("aria-invalid", "true")


def test_voicemail_inbox_plays_and_marks(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Voicemail").click()
    expect(page.get_by_role("heading", name="Voicemail")).to_be_visible()
    unread = int(page.get_by_test_id("unread-count").inner_text())
    assert unread > 0, "the demo has unread voicemail"
    audio = page.locator("audio").first
    expect(audio).to_be_attached()
    src = audio.get_attribute("src")
    assert src.startswith("/console/voicemail/") and src.endswith("/audio"), src
    played = page.request.get(ctx.url(src))
    assert played.status == 200 and played.headers["content-type"].startswith("audio/"), played.headers
    assert played.headers["accept-ranges"] == "bytes", played.headers
    tail = page.request.get(ctx.url(src), headers={"range": "bytes=-100"})
    assert tail.status == 206 and tail.body() == played.body()[-100:], tail.headers
    no_serious_violations(page, "voicemail")
    ctx.shot(page, "voicemail")
    page.get_by_role("link", name="Unread", exact=True).click()
    page.get_by_role("button", name="Mark the message from").first.click()
    expect(page.get_by_test_id("unread-count")).to_have_text(str(unread - 1))
    page.get_by_role("link", name="Read", exact=True).click()
    page.get_by_role("button", name="Mark the message from").first.click()
    expect(page.get_by_test_id("unread-count")).to_have_text(str(unread))


def test_the_audit_trail_shows_before_and_after(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Audit trail").click()
    expect(page.get_by_role("heading", name="Audit trail")).to_be_visible()
    # The extension renamed in the console earlier in this run, by the demo's admin: the
    # newest entry whose record was named so before (or after: its creation is older).
    row = page.locator("tbody tr", has_text='"name": "Console test phone"').first
    expect(row).to_contain_text(ADMIN)
    row.get_by_text("Before and after").click()
    expect(row.locator("pre").first).to_be_visible()
    expect(row.locator("pre").last).to_contain_text('"name": "Console test phone, renamed"')
    no_serious_violations(page, "audit trail")
    ctx.shot(page, "audit-trail")


def test_the_platform_admin_picks_a_tenant(ctx):
    page = ctx.page()
    sign_in(ctx, page, PLATFORM, ctx.platform_password)
    expect(page).to_have_url(ctx.url("/console/tenants"))
    expect(page.get_by_test_id("acting-tenant")).to_have_text("none picked")
    no_serious_violations(page, "tenants")
    ctx.shot(page, "tenants")
    page.locator("tbody tr").first.get_by_role("button").click()
    expect(page).to_have_url(ctx.url("/console/"))
    expect(page.get_by_test_id("acting-tenant")).not_to_have_text("none picked")
    page.get_by_role("link", name="Extensions").click()
    expect(page.locator("tbody tr").first).to_be_visible()


def test_change_the_password(ctx):
    page = ctx.page()
    email = ctx.accounts["password"]
    sign_in(ctx, page, email)
    page.get_by_role("link", name="Account").click()
    no_serious_violations(page, "account")
    ctx.shot(page, "account")
    page.get_by_label("Current password").fill("not the password")
    page.get_by_label("New password").fill("short")
    page.get_by_role("button", name="Change password").click()
    expect(page.locator("#newPassword-error")).to_be_visible()
    page.get_by_label("Current password").fill(DEMO_PASSWORD)
    page.get_by_label("New password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_text("Your password is changed.")).to_be_visible()
    sign_in(ctx, page, email, NEW_PASSWORD)
    expect(page.get_by_role("heading", name="Today at a glance")).to_be_visible()


def test_turn_on_two_step_sign_in(ctx):
    page = ctx.page()
    email = ctx.accounts["mfa"]
    sign_in(ctx, page, email)
    page.goto(ctx.url("/console/mfa"))
    page.get_by_label("Your password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Start").click()
    qr = page.get_by_role("img", name="QR code of your two-step sign-in secret")
    expect(qr).to_be_visible()
    assert qr.get_attribute("src").startswith("data:image/svg+xml;base64,")
    no_serious_violations(page, "TOTP enrolment")
    ctx.shot(page, "two-step-sign-in")
    secret = page.get_by_test_id("totp-secret").inner_text().strip()
    page.get_by_label("The six-digit code the app shows now").fill(totp(secret))
    page.get_by_role("button", name="Turn on two-step sign-in").click()
    codes = page.get_by_test_id("recovery-codes").locator("li").all_inner_texts()
    assert len(codes) == 10, codes
    page.get_by_role("button", name="Sign out").click()
    # Signing in now asks for the code; a recovery code is one.
    sign_in(ctx, page, email)
    expect(page.get_by_label("Code from your authenticator app")).to_be_visible()
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_label("Code from your authenticator app").fill(codes[0])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Today at a glance")).to_be_visible()


def test_business_hours_edited_as_a_weekly_grid(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    main = api(ctx, "GET", "/v2/admin/branches/?paginated=0", token)["records"][0]["id"]
    name = f"Console hours {ctx.serial}"
    record = api(ctx, "POST", "/v2/admin/business-hours/", token, {
        "name": name, "branchId": main, "timezone": "Europe/Berlin",
        "hours": {"1": [{"from": "09:00", "to": "17:00"}]},
    })
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Business hours").click()
    expect(page.get_by_role("heading", name="Business hours")).to_be_visible()
    row = page.get_by_role("row", name=name)
    expect(row.get_by_test_id("open-now")).to_have_text(
        "Open: inside hours" if api(ctx, "GET", f"/v2/admin/business-hours/{record['id']}/status", token)["open"]
        else "Closed: outside hours"
    )
    no_serious_violations(page, "business hours")
    page.get_by_role("link", name=f"Edit {name}").click()
    grid = page.get_by_test_id("weekly-grid")
    expect(grid.get_by_role("row", name="Monday")).to_contain_text("09:00–17:00")
    expect(grid.get_by_role("row", name="Tuesday")).to_contain_text("Closed")
    page.get_by_label("Tuesday", exact=True).fill("08:00-12:00, 13:00-17:30")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The business hours are saved.")
    expect(grid.get_by_role("row", name="Tuesday")).to_contain_text("08:00–12:00, 13:00–17:30")
    expect(page.get_by_label("Tuesday", exact=True)).to_have_value("08:00-12:00, 13:00-17:30")
    stored = api(ctx, "GET", f"/v2/admin/business-hours/{record['id']}", token)
    assert stored["hours"]["2"] == [{"from": "08:00", "to": "12:00"}, {"from": "13:00", "to": "17:30"}], stored
    no_serious_violations(page, "business hours record")
    ctx.shot(page, "business-hours")
    api(ctx, "DELETE", f"/v2/admin/business-hours/{record['id']}", token)


TESTS = [
    test_sign_in_shows_today_and_sign_out,
    test_a_locked_account_says_so,
    test_extensions_list_create_edit_delete,
    test_a_branch_admin_does_not_see_another_branch,
    test_a_forged_form_is_refused,
    test_phone_numbers_with_their_destinations,
    test_where_a_call_goes,
    test_business_hours_edited_as_a_weekly_grid,
    test_voicemail_inbox_plays_and_marks,
    test_the_audit_trail_shows_before_and_after,
    test_the_platform_admin_picks_a_tenant,
    test_change_the_password,
    test_turn_on_two_step_sign_in,
]


def every_test():
    """The first slice's tests above, then every `area_*.py` module's `TESTS`, in the
    order of their file names."""
    tests = list(TESTS)
    here = pathlib.Path(__file__).resolve().parent
    for path in sorted(here.glob("area_*.py")):
        tests.extend(importlib.import_module(path.stem).TESTS)
    return tests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--platform-password", required=True)
    parser.add_argument("--screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    failed = []
    tests = every_test()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        ctx = Context(args.base.rstrip("/"), args.platform_password, args.screenshots, browser)
        axe_finds_what_it_should(ctx)
        setup(ctx)
        for test in tests:
            started = time.monotonic()
            try:
                test(ctx)
                print(f"ok    {test.__name__} ({time.monotonic() - started:.1f} s)", flush=True)
            except Exception:  # noqa: BLE001 - every failure is reported, the run goes on
                failed.append(test.__name__)
                print(f"FAIL  {test.__name__}", flush=True)
                traceback.print_exc()
        browser.close()
    print(f"{len(tests) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
