"""What the console's browser tests share (tests/console/): the context, the API for
setting up and checking, sign-in, TOTP codes and the axe check. Each area's tests live in
a module of their own, `area_*.py`, that lists them in `TESTS`; run.py runs them all."""

import base64
import hashlib
import hmac
import json
import struct
import time
import urllib.error
import urllib.request

from axe_playwright_python.sync_playwright import Axe

ADMIN = "admin@demo.switchboard.test"
PLATFORM = "platform@demo.switchboard.test"
DEMO_PASSWORD = "switchboard-demo-2026"
NEW_PASSWORD = "a-longer-password-for-the-console"

AXE = Axe()


class Context:
    """What the tests share: the service, the browser, the accounts the setup made."""

    def __init__(self, base, platform_password, screenshots, browser):
        self.base = base
        self.platform_password = platform_password
        self.screenshots = screenshots
        self.browser = browser
        self.accounts = {}
        self.annex_extension = None
        self.serial = int(time.time()) % 100000

    def page(self):
        context = self.browser.new_context(viewport={"width": 1280, "height": 860})
        return context.new_page()

    def url(self, path):
        return self.base + path

    def shot(self, page, name):
        if self.screenshots:
            page.screenshot(path=f"{self.screenshots}/{name}.png", full_page=True)


# --- the API, for the setup and for checking what the console changed -----------------


def api(ctx, method, path, token=None, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(ctx.url(path), data=data, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read()[:400]!r}") from None


def login(ctx, email, password):
    return api(ctx, "POST", "/v2/authentication/", body={"email": email, "password": password})["accessToken"]


def setup(ctx):
    """A second branch with an extension of its own, a branch administrator of the
    demo's main branch, and accounts of their own for the tests that lock, change a
    password or turn on two-step sign-in (the demo's admin stays usable)."""
    admin = login(ctx, ADMIN, DEMO_PASSWORD)
    branches = api(ctx, "GET", "/v2/admin/branches/?paginated=0", admin)["records"]
    main = branches[0]["id"]
    annex = api(ctx, "POST", "/v2/admin/branches/", admin, {"name": f"Annex {ctx.serial}"})
    annex_extension = api(
        ctx, "POST", "/v2/admin/extensions/", admin,
        {"number": f"8{ctx.serial % 1000:03d}", "name": "Annex phone", "branchId": annex["id"]},
    )
    ctx.annex_extension = annex_extension["id"]
    for key, role, branch in [
        ("branch", 4, main),
        ("locked", 3, None),
        ("password", 3, None),
        ("mfa", 3, None),
        ("csrf", 3, None),
    ]:
        email = f"console-{key}-{ctx.serial}@demo.switchboard.test"
        body = {"email": email, "password": DEMO_PASSWORD, "userRole": role}
        if branch:
            body["branchId"] = branch
        api(ctx, "POST", "/v2/admin/users/", admin, body)
        ctx.accounts[key] = email


# --- helpers ----------------------------------------------------------------------------


def no_serious_violations(page, what):
    results = AXE.run(page)
    violations = [
        v for v in results.response["violations"] if v.get("impact") in ("serious", "critical")
    ]
    assert not violations, f"{what}: axe found " + json.dumps(
        [{"id": v["id"], "impact": v["impact"], "nodes": [n["html"] for n in v["nodes"][:3]]} for v in violations],
        indent=1,
    )


def axe_finds_what_it_should(ctx):
    """axe itself, on a page with an unlabelled field and an image without text: a check
    that cannot find these would pass every page."""
    page = ctx.page()
    page.set_content('<html lang="en"><head><title>t</title></head><body><main>'
                     '<input type="text"><img src="data:,"></main></body></html>')
    found = {v["id"] for v in AXE.run(page).response["violations"]}
    assert {"label", "image-alt"} <= found, found
    page.context.close()


def sign_in(ctx, page, email, password=DEMO_PASSWORD):
    page.goto(ctx.url("/console/sign-in"))
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def totp(secret_base32, at=None):
    """The current six-digit TOTP code (RFC 6238, SHA-1, 30 s) of a base32 secret."""
    padded = secret_base32 + "=" * (-len(secret_base32) % 8)
    key = base64.b32decode(padded.upper())
    counter = int((at or time.time()) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    code = (struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000
    return f"{code:06d}"
