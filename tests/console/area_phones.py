"""Phones and button layouts in the browser (issue 34): a desk phone added by its MAC in
hyphen notation with its model and lines, its provisioning password shown once and
working, then rotated; a button layout edited in its grid of keys, a duplicate position
refused with every broken key named in its cell, then fixed and read back through the
API. Each page checked by axe and photographed."""

import base64
import urllib.error
import urllib.request

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in


def fetch_status(url, user, password):
    """The status of fetching a phone's configuration file with Basic credentials."""
    request = urllib.request.Request(url)
    pair = base64.b64encode(f"{user}:{password}".encode()).decode()
    request.add_header("authorization", f"Basic {pair}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_a_phone_is_added_by_mac_and_its_password_rotated(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    serial = f"{ctx.serial:06x}"
    mac = f"aa-bb-cc-{serial[0:2]}-{serial[2:4]}-{serial[4:6]}"
    name = f"Console phone {ctx.serial}"
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Phones", exact=True).click()
    expect(page.get_by_role("heading", name="Phones")).to_be_visible()
    no_serious_violations(page, "phones")
    page.get_by_role("link", name="Add a phone").click()
    expect(page.get_by_role("heading", name="Add a phone")).to_be_visible()
    no_serious_violations(page, "add a phone")
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("MAC address").fill(mac)
    page.get_by_label("Model").select_option("yealink-t54w")
    # Each line names its extension by number, from the one list every line offers.
    assert page.locator("datalist#extension-list").count() == 1
    expect(page.locator('datalist#extension-list option[value="101 — Front desk"]')).to_have_count(1)
    page.get_by_label("Line 1 (primary)").fill("101 — Front desk")
    page.get_by_label("Line 2", exact=True).fill("102")
    page.get_by_role("button", name="Add the phone").click()
    expect(page.get_by_role("heading", name=f"Phone {name} is added")).to_be_visible()
    password = page.get_by_test_id("provisioning-password").inner_text().strip()
    user = page.get_by_test_id("provisioning-username").inner_text().strip()
    url = page.get_by_test_id("provisioning-url").inner_text().strip()
    digits = mac.replace("-", "")
    assert url.endswith(f"/provisioning/{digits}.cfg"), url
    devices = api(ctx, "GET", f"/v2/admin/devices/?query={digits}", token)["records"]
    assert len(devices) == 1, devices
    device = devices[0]
    assert device["mac"] == mac.replace("-", ":"), device
    assert device["model"] == "yealink-t54w", device
    assert [line["number"] for line in device["lines"]] == ["101", "102"], device
    assert fetch_status(url, user, password) == 200
    no_serious_violations(page, "phone added")
    ctx.shot(page, "phone-added")

    page.get_by_role("link", name="I have noted it: back to the phone").click()
    expect(page.get_by_role("heading", name=f"Phone {name}")).to_be_visible()
    expect(page.get_by_test_id("provisioning-username")).to_have_text(user)
    expect(page.get_by_test_id("last-registered")).to_have_text("never")
    assert password not in page.content()
    no_serious_violations(page, "phone")
    ctx.shot(page, "phone")
    page.get_by_role("button", name="Make a new provisioning password").click()
    expect(page.get_by_role("heading", name=f"New provisioning password for {name}")).to_be_visible()
    rotated = page.get_by_test_id("provisioning-password").inner_text().strip()
    assert rotated != password
    assert fetch_status(url, user, rotated) == 200
    assert fetch_status(url, user, password) == 401, "the old password stops working"
    no_serious_violations(page, "password rotated")

    page.goto(ctx.url("/console/phones"))
    row = page.get_by_role("row", name=name)
    expect(row).to_contain_text(mac.replace("-", ":"))
    expect(row).to_contain_text("Yealink T54W")
    expect(row.get_by_test_id("registered")).to_have_text("No")
    ctx.shot(page, "phones")
    api(ctx, "DELETE", f"/v2/admin/devices/{device['id']}", token)


def test_a_button_layout_is_edited_like_the_phone(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    name = f"Counter keys {ctx.serial}"
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Button layouts").click()
    expect(page.get_by_role("heading", name="Button layouts")).to_be_visible()
    no_serious_violations(page, "button layouts")
    page.get_by_role("link", name="New button layout").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Phone model").select_option("yealink-t54w")
    page.get_by_role("button", name="Create and lay out its keys").click()
    expect(page.get_by_role("status")).to_contain_text("The button layout is created")
    expect(page.get_by_role("heading", name="Phone keys (keys 1–27)")).to_be_visible()
    expect(page.locator("#key1-type")).to_have_value("line")
    # Key 2 a speed dial; key 3 moved onto key 2's position; key 4 a speed dial with no
    # number: both refused, each named in its own cell, what was typed kept.
    page.locator("#key2-type").select_option("speedDial")
    page.locator("#key2-value").fill("5551234")
    page.locator("#key2-label").fill("Supplier")
    page.locator("#key3-type").select_option("dnd")
    page.locator("#key3-index").fill("2")
    page.locator("#key4-type").select_option("speedDial")
    page.locator("#key4-value").fill("call me")
    page.get_by_role("button", name="Save the layout").click()
    expect(page.get_by_role("alert")).to_contain_text("The button layout was not saved")
    expect(page.locator("#key3-error")).to_contain_text("Key 3: position: is already used by key 2")
    expect(page.locator("#key3-index")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#key4-error")).to_contain_text("Key 4: value:")
    expect(page.locator("#key4-value")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#key4-value")).to_have_value("call me")
    expect(page.locator("#key2-error")).to_have_count(0)
    layouts = api(ctx, "GET", "/v2/admin/button-layouts/?paginated=0", token)["records"]
    layout = next(r for r in layouts if r["name"] == name)
    assert layout["keys"] == [{"index": 1, "type": "line", "value": None, "label": None}], layout
    no_serious_violations(page, "refused button layout")
    ctx.shot(page, "button-layout-refused")

    front_desk = next(
        e for e in api(ctx, "GET", "/v2/admin/extensions/?query=Front%20desk", token)["records"]
        if e["number"] == "101"
    )
    page.locator("#key3-index").fill("3")
    page.locator("#key4-value").fill("*97")
    page.locator("#key5-type").select_option("blf")
    page.locator("#key5-value").fill(str(front_desk["id"]))
    page.get_by_role("button", name="Save the layout").click()
    expect(page.get_by_role("status")).to_contain_text("The button layout is saved.")
    expect(page.locator("#key3-type")).to_have_value("dnd")
    stored = api(ctx, "GET", f"/v2/admin/button-layouts/{layout['id']}", token)
    assert stored["keys"] == [
        {"index": 1, "type": "line", "value": None, "label": None},
        {"index": 2, "type": "speedDial", "value": "5551234", "label": "Supplier"},
        {"index": 3, "type": "dnd", "value": None, "label": None},
        {"index": 4, "type": "speedDial", "value": "*97", "label": None},
        {"index": 5, "type": "blf", "value": str(front_desk["id"]), "label": None},
    ], stored
    # The busy lamp's extension is named in words beside its id.
    expect(page.get_by_test_id("key5-names")).to_have_text("Extension 101 Front desk")
    no_serious_violations(page, "button layout")
    ctx.shot(page, "button-layout")
    page.goto(ctx.url("/console/button-layouts"))
    ctx.shot(page, "button-layouts")
    api(ctx, "DELETE", f"/v2/admin/button-layouts/{layout['id']}", token)


TESTS = [
    test_a_phone_is_added_by_mac_and_its_password_rotated,
    test_a_button_layout_is_edited_like_the_phone,
]
