"""The console's IVR menus and queues in the browser (issue 34): a menu built with three
keys and a timeout path, a queue with three members reordered, and refused forms showing
every broken field next to it; each page checked by axe and photographed."""

from playwright.sync_api import expect

from kit import ADMIN, DEMO_PASSWORD, api, login, no_serious_violations, sign_in


def test_an_ivr_menu_with_three_keys_and_a_timeout_path(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="IVR menus").click()
    expect(page.get_by_role("heading", name="IVR menus")).to_be_visible()
    # The demo's main menu, its keys in words.
    main = page.locator("tbody tr", has=page.get_by_role("cell", name="500", exact=True))
    expect(main).to_contain_text("Queue 600 Ask the pharmacist")
    no_serious_violations(page, "IVR menus")
    ctx.shot(page, "ivrs")

    number = f"93{ctx.serial % 100:02d}"
    name = f"Console menu {ctx.serial}"
    page.get_by_role("link", name="New IVR menu").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Number", exact=True).fill(number)
    page.get_by_label("Greeting").select_option(label="Welcome greeting")
    page.get_by_label("Key 1 sends the caller to", exact=True).select_option(label="101 Front desk")
    page.get_by_label("Key 2 sends the caller to", exact=True).select_option(label="600 Ask the pharmacist")
    page.get_by_label("Key 0 sends the caller to", exact=True).select_option(label="An outside number")
    page.locator("#key-0-number").fill("5551234")
    page.get_by_label("Seconds to wait for a key").fill("6")
    page.locator("#timeoutDestination").select_option(label="500 Main menu")
    no_serious_violations(page, "new IVR menu")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The IVR menu is created.")
    row = page.locator("tbody tr", has_text=name)
    expect(row).to_contain_text("Extension 101 Front desk")
    expect(row).to_contain_text("External number 5551234")
    expect(row).to_contain_text("IVR menu 500 Main menu")

    token = login(ctx, ADMIN, DEMO_PASSWORD)
    found = api(ctx, "GET", f"/v2/admin/ivrs/?query={number}", token)["records"]
    ivr = next(r for r in found if r["number"] == number)
    keys = {o["digit"]: (o["destination"]["destType"], o["destination"].get("number")) for o in ivr["options"]}
    assert keys == {"0": ("EXTERNAL", "5551234"), "1": ("EXT", "101"), "2": ("QUEUE", "600")}, keys
    assert ivr["timeoutSeconds"] == 6, ivr
    assert ivr["timeoutDestination"]["destType"] == "IVR", ivr
    assert ivr["greetingMediaFileId"] > 0, ivr

    page.get_by_role("link", name=f"Edit {number} {name}").click()
    queue = next(o for o in ivr["options"] if o["digit"] == "2")["destination"]["id"]
    expect(page.get_by_label("Key 2 sends the caller to", exact=True)).to_have_value(f"QUEUE:{queue}")
    no_serious_violations(page, "IVR menu form")
    ctx.shot(page, "ivr-form")
    page.get_by_role("button", name="Delete this IVR menu").click()
    expect(page.get_by_role("status")).to_contain_text("The IVR menu is deleted.")
    left = api(ctx, "GET", f"/v2/admin/ivrs/?query={number}", token)["records"]
    assert all(r["id"] != ivr["id"] for r in left), left


def test_a_queue_with_three_members_reordered(ctx):
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.get_by_role("link", name="Queues").click()
    expect(page.get_by_role("heading", name="Queues")).to_be_visible()
    expect(page.locator("tbody tr", has_text="Ask the pharmacist")).to_contain_text("Easy listening")
    no_serious_violations(page, "queues")
    ctx.shot(page, "queues")

    number = f"94{ctx.serial % 100:02d}"
    name = f"Console queue {ctx.serial}"
    page.get_by_role("link", name="New queue").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Number", exact=True).fill(number)
    page.get_by_label("Who rings").select_option(label="Each member in turn")
    for row, extension in enumerate(["101 Front desk", "102 Pharmacist", "103 Drive-through window"], 1):
        page.get_by_label(f"Member {row}: extension").select_option(label=extension)
        page.get_by_label(f"Member {row}: position").fill(str(row))
    page.get_by_label("Member 2: penalty").fill("5")
    page.get_by_label("Hold music").select_option(label="Easy listening")
    page.get_by_label("Tell callers their position in the queue").check()
    page.get_by_label("Longest wait, in seconds").fill("120")
    page.locator("#timeoutDestination").select_option(label="500 Main menu")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The queue is created.")
    row = page.locator("tbody tr", has_text=name)
    expect(row.locator("ol.members li")).to_have_text(
        ["101 Front desk", "102 Pharmacist", "103 Drive-through window"])

    # Reordered: the drive-through first, then the front desk, then the pharmacist.
    page.get_by_role("link", name=f"Edit {number} {name}").click()
    for row_number, position in [(1, "2"), (2, "3"), (3, "1")]:
        page.get_by_label(f"Member {row_number}: position").fill(position)
    no_serious_violations(page, "queue form")
    ctx.shot(page, "queue-form")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("The queue is saved.")
    row = page.locator("tbody tr", has_text=name)
    expect(row.locator("ol.members li")).to_have_text(
        ["103 Drive-through window", "101 Front desk", "102 Pharmacist"])

    token = login(ctx, ADMIN, DEMO_PASSWORD)
    found = api(ctx, "GET", f"/v2/admin/queues/?query={number}", token)["records"]
    queue = next(r for r in found if r["number"] == number)
    assert [(m["number"], m["penalty"]) for m in queue["members"]] == [("103", 0), ("101", 0), ("102", 5)], queue
    assert queue["strategy"] == "roundRobin", queue
    assert queue["musicOnHoldId"] is not None and queue["announcePosition"] == 1, queue
    assert queue["maxWaitSeconds"] == 120 and queue["timeoutDestination"]["destType"] == "IVR", queue
    # The edit form shows them in their new order.
    page.get_by_role("link", name=f"Edit {number} {name}").click()
    expect(page.get_by_label("Member 1: extension").locator("option:checked")).to_have_text("103 Drive-through window")
    page.get_by_role("button", name="Delete this queue").click()
    expect(page.get_by_role("status")).to_contain_text("The queue is deleted.")


def test_refused_menus_and_queues_show_every_broken_field(ctx):
    token = login(ctx, ADMIN, DEMO_PASSWORD)
    queues_before = api(ctx, "GET", "/v2/admin/queues/", token)["totalRecords"]
    ivrs_before = api(ctx, "GET", "/v2/admin/ivrs/", token)["totalRecords"]
    page = ctx.page()
    sign_in(ctx, page, ADMIN)
    page.goto(ctx.url("/console/ivrs/new"))
    page.get_by_label("Number", exact=True).fill("menu")
    page.get_by_label("Key 1 sends the caller to", exact=True).select_option(label="101 Front desk")
    page.get_by_label("Key 4 sends the caller to", exact=True).select_option(label="An outside number")
    page.locator("#key-4-number").fill("call me")
    page.get_by_label("Seconds to wait for a key").fill("0")
    page.get_by_label("Unknown keys tolerated").fill("many")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("The IVR menu was not saved")
    for field in ["name", "number", "timeoutSeconds", "invalidRetries", "key-4"]:
        expect(page.locator(f"#{field}-error")).to_be_visible()
        expect(page.locator(f"#{field}")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#key-1-error")).to_have_count(0)
    expect(page.locator("#key-4-number")).to_have_value("call me")
    expect(page.get_by_label("Unknown keys tolerated")).to_have_value("many")
    no_serious_violations(page, "refused IVR menu")
    ctx.shot(page, "ivr-refused")

    page.goto(ctx.url("/console/queues/new"))
    page.get_by_label("Number", exact=True).fill("queue")
    page.get_by_label("Member 1: extension").select_option(label="101 Front desk")
    page.get_by_label("Member 2: extension").select_option(label="102 Pharmacist")
    page.get_by_label("Member 2: penalty").fill("500")
    page.get_by_label("Longest wait, in seconds").fill("-1")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("The queue was not saved")
    for field, error in [("name", "name"), ("number", "number"), ("maxWaitSeconds", "maxWaitSeconds"),
                         ("member-1-penalty", "member-1")]:
        expect(page.locator(f"#{error}-error")).to_be_visible()
        expect(page.locator(f"#{field}")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#member-0-error")).to_have_count(0)
    expect(page.get_by_label("Member 2: penalty")).to_have_value("500")
    no_serious_violations(page, "refused queue")
    ctx.shot(page, "queue-refused")
    assert api(ctx, "GET", "/v2/admin/queues/", token)["totalRecords"] == queues_before
    assert api(ctx, "GET", "/v2/admin/ivrs/", token)["totalRecords"] == ivrs_before


TESTS = [
    test_an_ivr_menu_with_three_keys_and_a_timeout_path,
    test_a_queue_with_three_members_reordered,
    test_refused_menus_and_queues_show_every_broken_field,
]
