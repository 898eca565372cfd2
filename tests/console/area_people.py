"""People and calls in the browser (issue 34): the tenant's accounts with their roles,
one created, refused and changed through the forms (read back through the API); a
branch administrator who sees only their branch's people and cannot give a role above
theirs; the calls list filtered, and a call of the demo with its recording played and
its transcript shown by speaker."""

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in


def test_people_created_refused_and_changed(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="People").click()
    expect(page.get_by_role("heading", name="People")).to_be_visible()
    admin_row = page.locator(f'tr[data-person="{ADMIN}"]')
    expect(admin_row).to_contain_text("tenant administrator")
    expect(admin_row).to_contain_text("Main Street")
    no_serious_violations(page, "people")
    ctx.shot(page, "people")

    # A refused form: every broken field named next to its input, nothing created.
    page.get_by_role("link", name="New account").click()
    email = f"console-clerk-{ctx.serial}@demo.switchboard.test"
    page.get_by_label("E-mail address").fill("not an address")
    page.get_by_label("Password").fill("short")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("The account was not saved")
    for label in ["E-mail address", "Password"]:
        expect(page.get_by_label(label)).to_have_attribute("aria-invalid", "true")
    expect(page.locator('[data-field="email"]')).to_be_visible()
    expect(page.locator('[data-field="password"]')).to_be_visible()
    expect(page.get_by_label("E-mail address")).to_have_value("not an address")
    no_serious_violations(page, "refused account")
    ctx.shot(page, "person-refused")

    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_label("Role").select_option(label="user")
    page.get_by_label("Branch").select_option(label="Main Street")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The account is created.")
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    found = api(ctx, "GET", f"/v2/admin/users/?query={email}", token)["records"]
    assert len(found) == 1 and found[0]["userRole"] == 5, found

    page.get_by_label("Search by e-mail or title").fill(email)
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name=f"Edit {email}").click()
    expect(page.get_by_role("heading", name=f"Account {email}")).to_be_visible()
    no_serious_violations(page, "account form")
    ctx.shot(page, "person-form")
    page.get_by_label("Role").select_option(label="branch administrator")
    page.get_by_label("Disabled", exact=True).check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The account is saved.")
    stored = api(ctx, "GET", f"/v2/admin/users/{found[0]['id']}", token)
    assert stored["userRole"] == 4 and stored["disabled"] == 1, stored


def test_a_branch_admin_sees_only_their_branch_people(ctx):
    admin = login(ctx, ADMIN, DEMO_PASSWORD)
    branches = api(ctx, "GET", "/v2/admin/branches/?paginated=0", admin)["records"]
    annex = next(b for b in branches if b["name"] == f"Annex {ctx.serial}")
    annex_email = f"console-annex-{ctx.serial}@demo.switchboard.test"
    api(ctx, "POST", "/v2/admin/users/", admin,
        {"email": annex_email, "password": DEMO_PASSWORD, "userRole": 5, "branchId": annex["id"]})

    page = ctx.page()
    sign_in(ctx, page, ctx.accounts["branch"])
    # The side bar offers only what a branch administrator may open: their branch's call
    # handling, not the tenant's campaigns, faxes or audit trail.
    nav = page.get_by_role("navigation", name="Console")
    for shown in ["Phone numbers", "Extensions", "Phones", "Voicemail", "People"]:
        expect(nav.get_by_role("link", name=shown, exact=True)).to_be_visible()
    for hidden in ["Campaigns", "Opt-outs", "Faxes", "Audit trail", "Tenants"]:
        expect(nav.get_by_role("link", name=hidden, exact=True)).to_have_count(0)
    expect(nav).not_to_contain_text("Outbound")
    page.get_by_role("link", name="People").click()
    expect(page.locator(f'tr[data-person="{ctx.accounts["branch"]}"]')).to_be_visible()
    assert page.locator(f'tr[data-person="{annex_email}"]').count() == 0
    page.get_by_label("Search by e-mail or title").fill(annex_email)
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("0 accounts")).to_be_visible()
    no_serious_violations(page, "people, branch admin")

    # No role above theirs is offered; a form made to ask for one is refused by the API,
    # in its words, and nothing is created.
    page.get_by_role("link", name="New account").click()
    roles = page.get_by_label("Role").locator("option").all_inner_texts()
    assert "tenant administrator" not in roles, roles
    assert "branch administrator" in roles, roles
    promoted = f"console-promoted-{ctx.serial}@demo.switchboard.test"
    page.get_by_label("E-mail address").fill(promoted)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_label("Role").evaluate("select => { select.options[0].value = '3'; select.selectedIndex = 0; }")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("you may not manage accounts of this role")
    no_serious_violations(page, "refused role")
    assert api(ctx, "GET", f"/v2/admin/users/?query={promoted}", admin)["records"] == []


def test_a_call_with_its_recording_and_transcript(ctx):
    admin = login(ctx, ADMIN, DEMO_PASSWORD)
    # A demo call whose transcript mentions food: the pharmacist's, recorded.
    found = api(ctx, "GET", "/v2/admin/calls/?query=food&sortBy=time&sortDirection=desc", admin)["records"]
    call = next(c for c in found if c["hasRecording"])

    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Calls").click()
    expect(page.get_by_role("heading", name="Calls")).to_be_visible()
    expect(page.get_by_test_id("call-totals")).to_contain_text("calls")
    no_serious_violations(page, "calls")
    ctx.shot(page, "calls")
    page.get_by_label("Outcome").select_option(label="No answer")
    page.get_by_role("button", name="Show calls").click()
    outcomes = page.get_by_test_id("calls").locator("tbody tr td:nth-child(5)").all_inner_texts()
    assert outcomes and all("no answer" in o.lower() for o in outcomes), outcomes
    page.get_by_label("Outcome").select_option(label="Any")
    page.get_by_label("Number").fill(call["callerIdNum"])
    page.get_by_role("button", name="Show calls").click()
    page.locator(f'a[href="/console/calls/{call["uniqueId"]}"]').click()
    expect(page.get_by_role("heading", name="Call from")).to_be_visible()

    # The recording plays (muted, so no gesture is needed) from where the page says.
    player = page.get_by_test_id("recording-player")
    expect(player).to_be_attached()
    page.wait_for_function("() => document.querySelector('audio').readyState >= 1", timeout=15000)
    player.evaluate("a => { a.muted = true; return a.play(); }")
    page.wait_for_function("() => document.querySelector('audio').currentTime > 0", timeout=15000)

    # The transcript, each line under the speaker its channel names.
    lines = page.get_by_test_id("transcript").locator("tbody tr")
    expect(lines.first).to_contain_text("Caller")
    expect(lines.first).to_contain_text("amoxicillin")
    expect(lines.nth(1)).to_contain_text("Agent 102")
    expect(page.get_by_test_id("timeline").locator("li").first).to_contain_text("Call started")
    no_serious_violations(page, "call")
    ctx.shot(page, "call")


TESTS = [
    test_people_created_refused_and_changed,
    test_a_branch_admin_sees_only_their_branch_people,
    test_a_call_with_its_recording_and_transcript,
]
