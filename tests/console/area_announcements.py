"""The console's announcements in the browser: the demo's flu-shot announcement listed
with its recording, dates and menu; a holiday closure made on the main menu and read back
over the API; a change refused because its end comes before its start, the broken field
marked next to it; the closure deleted, leaving the demo as it was. Each page checked by
axe and photographed."""

import urllib.parse

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in


def announcements_named(ctx, token, name):
    query = urllib.parse.urlencode({"query": name, "paginated": "0"})
    found = api(ctx, "GET", f"/v2/admin/announcements/?{query}", token)["records"]
    return [a for a in found if a["name"] == name]


def test_a_holiday_closure_announced_on_the_main_menu(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    token = login(ctx, ADMIN, DEMO_PASSWORD)

    page.get_by_role("link", name="Announcements").click()
    expect(page.get_by_role("heading", name="Announcements")).to_be_visible()
    flu = page.locator("tbody tr", has_text="Flu shots")
    expect(flu).to_contain_text("Welcome greeting")
    expect(flu).to_contain_text("Main menu")
    no_serious_violations(page, "announcements")
    ctx.shot(page, "announcements")

    page.get_by_role("link", name="New announcement").click()
    page.get_by_label("Name", exact=True).fill("Holiday closure")
    page.get_by_label("What it is for").fill("Closed 24 to 26 December")
    page.get_by_label("Recording played").select_option(label="Welcome greeting")
    page.get_by_label("From", exact=True).fill("2026-12-24")
    page.get_by_label("Until", exact=True).fill("2026-12-27")
    page.get_by_label("Branch", exact=True).select_option(index=1)
    page.get_by_label("500 Main menu").check()
    no_serious_violations(page, "announcement form")
    ctx.shot(page, "announcement")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The announcement is created.")
    expect(page.locator("tbody tr", has_text="Holiday closure")).to_contain_text("2026-12-27")

    made = announcements_named(ctx, token, "Holiday closure")
    assert len(made) == 1, made
    made = made[0]
    assert (made["startDate"], made["endDate"], made["active"]) == ("2026-12-24", "2026-12-27", 1), made
    assert [ivr["name"] for ivr in made["ivrs"]] == ["Main menu"], made
    assert made["mediaFile"]["name"] == "Welcome greeting", made

    # An end before the start is refused next to its field, and nothing changes.
    page.get_by_role("link", name="Edit Holiday closure").click()
    expect(page.get_by_label("500 Main menu")).to_be_checked()
    page.get_by_label("Until", exact=True).fill("2026-12-20")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("was not saved")
    expect(page.get_by_label("Until", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-field=endDate]")).to_contain_text("must be after startDate")
    expect(page.get_by_label("Until", exact=True)).to_have_value("2026-12-20")
    no_serious_violations(page, "refused announcement")
    ctx.shot(page, "announcement-refused")
    assert announcements_named(ctx, token, "Holiday closure")[0]["endDate"] == "2026-12-27"

    # Deleted, the demo is as it was.
    page.get_by_role("button", name="Delete this announcement").click()
    expect(page.get_by_role("status")).to_contain_text("The announcement is deleted.")
    assert announcements_named(ctx, token, "Holiday closure") == []


TESTS = [test_a_holiday_closure_announced_on_the_main_menu]
