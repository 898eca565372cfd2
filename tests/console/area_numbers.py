"""The console's phone numbers in the browser (issue 34): the demo's refill line sent to
the main menu from its edit page, read back over the API and followed by its call-flow
page; a refused form showing the broken field next to it; the conduit its calls arrive
on and the extension its texts go to picked and read back; the number as the demo had
it put back. Each page checked by axe and photographed."""

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in

REFILL_NUMBER = "12125550101"
PICKER = "Calls to this number go to (None: nowhere)"


def refill_line(ctx, token):
    found = api(ctx, "GET", f"/v2/admin/phone-numbers/?query={REFILL_NUMBER}", token)["records"]
    return next(n for n in found if n["number"] == REFILL_NUMBER)


def test_a_numbers_calls_sent_to_an_ivr(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    before = refill_line(ctx, token)
    assert before["destination"]["destType"] == "BUSINESS_HOUR", before

    page.get_by_role("link", name="Phone numbers").click()
    row = page.locator("tbody tr", has_text=REFILL_NUMBER)
    expect(row).to_contain_text("Business hours Store hours")
    page.get_by_role("link", name=f"Edit {REFILL_NUMBER}").click()
    expect(page.get_by_role("heading", name=f"Phone number {REFILL_NUMBER}")).to_be_visible()
    expect(page.get_by_label(PICKER, exact=True)).to_have_value(f"BUSINESS_HOUR:{before['destination']['id']}")
    # The outside number's field is named after its own picker.
    expect(page.get_by_label(f"{PICKER}: outside number (when one is picked)")).to_be_visible()
    no_serious_violations(page, "phone number form")
    ctx.shot(page, "phone-number")

    page.get_by_label(PICKER, exact=True).select_option(label="500 Main menu")
    page.get_by_label("Comment").fill("Refill line, to the menu")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The phone number is saved.")
    expect(page.locator("tbody tr", has_text=REFILL_NUMBER)).to_contain_text("IVR menu 500 Main menu")
    after = refill_line(ctx, token)
    assert after["destination"]["destType"] == "IVR", after
    assert after["diCommentName"] == "Refill line, to the menu", after

    # The call flow follows: the menu straight after the number, no store hours.
    page.get_by_role("link", name=f"Call flow of {REFILL_NUMBER}").click()
    steps = page.get_by_test_id("flow-path").locator("li")
    expect(steps.nth(1)).to_contain_text("IVR menu Main menu")
    expect(page.get_by_test_id("flow-path")).not_to_contain_text("Business hours")

    # From the flow back to the form: a caller name too long is refused next to its field.
    page.get_by_role("link", name=f"Change where calls to {REFILL_NUMBER} go").click()
    page.get_by_label("Caller name (CNAM)").fill("A NAME FAR TOO LONG FOR CNAM")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("was not saved")
    expect(page.get_by_label("Caller name (CNAM)")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Caller name (CNAM)")).to_have_value("A NAME FAR TOO LONG FOR CNAM")
    expect(page.locator("[data-field=registeredCNAM]")).to_be_visible()
    no_serious_violations(page, "refused phone number form")
    ctx.shot(page, "phone-number-refused")
    assert refill_line(ctx, token)["registeredCNAM"] == before["registeredCNAM"]

    # The conduit its calls arrive on and the extension its texts go to, picked among
    # the tenant's own, saved with the rest and read back; then put back.
    conduits = api(ctx, "GET", "/v2/admin/conduits/?paginated=0&sortBy=name", token)["records"]
    conduit = conduits[0]
    page.get_by_label("Caller name (CNAM)").fill(before["registeredCNAM"])
    page.get_by_label("Arrives on conduit").select_option(str(conduit["id"]))
    page.get_by_label("Texts go to extension").select_option(label="102 Pharmacist")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The phone number is saved.")
    linked = refill_line(ctx, token)
    assert linked["conduitId"] == conduit["id"], linked
    pharmacist = api(ctx, "GET", "/v2/admin/extensions/?query=Pharmacist", token)["records"][0]
    assert linked["smsExtId"] == pharmacist["id"], linked
    page.get_by_role("link", name=f"Edit {REFILL_NUMBER}").click()
    expect(page.get_by_label("Arrives on conduit")).to_have_value(str(conduit["id"]))
    page.get_by_label("Arrives on conduit").select_option(str(before["conduitId"] or ""))
    page.get_by_label("Texts go to extension").select_option(str(before["smsExtId"] or ""))

    # Back to the store hours, as the demo had it.
    page.get_by_label("Caller name (CNAM)").fill(before["registeredCNAM"])
    page.get_by_label("Comment").fill(before["diCommentName"])
    page.get_by_label(PICKER, exact=True).select_option(f"BUSINESS_HOUR:{before['destination']['id']}")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The phone number is saved.")
    restored = refill_line(ctx, token)
    assert restored["destination"]["destType"] == "BUSINESS_HOUR", restored
    assert restored["diCommentName"] == before["diCommentName"], restored
    assert (restored["conduitId"], restored["smsExtId"]) == (before["conduitId"], before["smsExtId"]), restored


TESTS = [test_a_numbers_calls_sent_to_an_ivr]
