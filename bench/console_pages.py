#!/usr/bin/env python3
"""Console page timing (issue 34: a page answers in under 50 ms at the 95th percentile on
the demo data).

Starts `switchboard serve --demo` in a fresh temp folder on a free loopback port, signs
in through the console's own form (as the demo's tenant admin, and as its platform admin
for the tenant picker), then times --requests sequential GETs of each page over one
kept-alive connection, as a browser loads it (the page's HTML; its one stylesheet is
cached for good); prints p50/p95/max per page in a Markdown table. Each page's figure
includes every API call it makes in process (the dashboard makes about a dozen).

`--voicemail N` times the voicemail inbox at scale instead (issue 34: pages usable at a
million voicemail messages): a tenant of N messages is written by `switchboard demo
--scale N` (over a thousand mailboxes, without events), `switchboard serve` started on
it, and the inbox timed as its tenant admin sees it: the first page, the page its "Next
page" link leads to, the unread messages' first page and its next page. Each figure
includes the page's API calls in process (the list with its counts, which come from the
counters the database keeps, never from counting the rows). `--short` with it seeds
1,000 messages.

Python 3 standard library only; targets loopback only; every loop is bounded.

    cargo build --release && python3 bench/console_pages.py --binary target/release/switchboard
    python3 bench/console_pages.py --short --binary target/debug/switchboard
    python3 bench/console_pages.py --database-url postgres://postgres@127.0.0.1:5432/EMPTY_DB
    python3 bench/console_pages.py --voicemail 1000000 --binary target/release/switchboard
    python3 bench/console_pages.py --voicemail 1000000 --database-url postgres://postgres@127.0.0.1:5432/EMPTY_DB
"""

from __future__ import annotations

import argparse
import html
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
COOKIE = "switchboard_console"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One kept-alive connection with the console's cookie."""

    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.cookie = None

    def request(self, method: str, path: str, form: dict | None = None):
        headers = {}
        if self.cookie:
            headers["cookie"] = f"{COOKIE}={self.cookie}"
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["content-type"] = "application/x-www-form-urlencoded"
            headers["sec-fetch-site"] = "same-origin"
        self.connection.request(method, path, body, headers)
        response = self.connection.getresponse()
        data = response.read()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith(COOKIE + "="):
                self.cookie = value.split(";", 1)[0].split("=", 1)[1]
        return response.status, response.getheader("location"), data.decode()

    def sign_in(self, email: str, password: str) -> str:
        _, _, page = self.request("GET", "/console/sign-in")
        token = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
        status, location, _ = self.request(
            "POST", "/console/sign-in", {"csrf": token, "email": email, "password": password})
        if status != 303:
            sys.exit(f"signing in as {email} answered {status}")
        return location


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def time_page(browser: Browser, path: str, requests: int) -> list[float]:
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        status, _, _ = browser.request("GET", path)
        timings.append((time.perf_counter() - started) * 1000)
        if status != 200:
            sys.exit(f"GET {path} answered {status}")
    return timings


def every_page(admin: Browser) -> list:
    """Every page of the console's navigation as the demo's tenant admin sees it, and
    for each list its first record's page (and a number's call flow): a page added to
    the navigation is timed with no change here."""
    _, _, home = admin.request("GET", "/console/")
    nav = re.search(r'<nav class="side".*?</nav>', home, re.S).group(0)
    pages = []
    for path, label in re.findall(r'<a href="(/console/[^"]*)"[^>]*>([^<]+)</a>', nav):
        pages.append((label.lower(), admin, path))
        if path in ("/console/", "/console/password", "/console/tenants"):
            continue
        _, _, listing = admin.request("GET", path)
        record = re.search(r'href="(' + re.escape(path) + r'/\d+)"', listing)
        if record:
            pages.append((f"{label.lower()}: one record", admin, record.group(1)))
        flow = re.search(r'href="(/console/phone-numbers/\d+/flow)"', listing)
        if flow:
            pages.append(("call flow", admin, flow.group(1)))
    return pages


def next_link(page: str) -> str:
    """The pager's "Next page" link of a rendered list page."""
    found = re.search(r'<a href="([^"]+)" rel="next">', page)
    if not found:
        sys.exit("the page has no next page")
    return html.unescape(found.group(1))


def voicemail_pages(admin: Browser, messages: int) -> list:
    """The inbox of a tenant of `messages` messages: its first page and the page its
    "Next page" link leads to, all messages and the unread ones."""
    pages = []
    for label, first in (("voicemail", "/console/voicemail"), ("voicemail, unread", "/console/voicemail?read=0")):
        status, _, page = admin.request("GET", first)
        if status != 200:
            sys.exit(f"GET {first} answered {status}")
        shown = re.search(r"<caption[^>]*>([\d,]+) messages</caption>", page)
        if label == "voicemail" and (not shown or int(shown.group(1).replace(",", "")) != messages):
            sys.exit(f"the inbox shows {shown and shown.group(1)} messages, not {messages}")
        pages.append((f"{label}: first page", admin, first))
        pages.append((f"{label}: its next page", admin, next_link(page)))
    return pages


def wait_ready(server: subprocess.Popen, port: int, log_path: str) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        if server.poll() is not None:
            sys.exit("the server stopped: " + open(log_path).read()[-2000:])
        time.sleep(0.2)
    sys.exit("the server did not get ready in 300 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--short", action="store_true", help="a few requests: shows it works")
    parser.add_argument("--database-url", help="an empty PostgreSQL database to seed the demo "
                        "into (default: SQLite in the temp folder)")
    parser.add_argument("--voicemail", type=int, metavar="N",
                        help="time the voicemail inbox of a tenant of N messages instead")
    args = parser.parse_args()
    requests = 5 if args.short else args.requests
    if args.voicemail is not None and args.short:
        args.voicemail = min(args.voicemail, 1000)
    binary = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="switchboard-console-bench-")
    port = free_port()
    log_path = os.path.join(folder, "server.log")
    # The pages' API calls count against the person's token like any client's: lifted
    # here, so the benchmark measures the pages, not the limiter's refusals.
    env = dict(os.environ, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
               SWITCHBOARD_RATE_LIMIT_PER_MINUTE="10000000",
               SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="10000000")
    if args.database_url:
        env["SWITCHBOARD_DATABASE_URL"] = args.database_url
    seeded = None
    if args.voicemail is not None:
        started = time.monotonic()
        out = subprocess.run([binary, "demo", "--scale", str(args.voicemail)], cwd=folder, env=env,
                             check=True, capture_output=True, text=True)
        seeded = json.loads(out.stdout.strip().splitlines()[-1])
        if args.database_url:
            subprocess.run(["psql", args.database_url, "-qc", "VACUUM ANALYZE"], check=True)
        print(f"seeded {args.voicemail:,} voicemail messages in {time.monotonic() - started:.0f} s",
              file=sys.stderr)
    command = [binary, "serve"] if seeded else [binary, "serve", "--demo"]
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_ready(server, port, log_path)
        platform_password = re.search(rb"platform admin: +\S+ / (\S+)", open(log_path, "rb").read())
        admin = Browser(port)
        if seeded:
            admin.sign_in(seeded["email"], seeded["password"])
            pages = voicemail_pages(admin, args.voicemail)
            platform_password = None
        else:
            admin.sign_in(EMAIL, PASSWORD)
            pages = [("sign-in (no session)", None, "/console/sign-in")]
            pages.extend(every_page(admin))
        if platform_password:
            platform = Browser(port)
            platform.sign_in("platform@demo.switchboard.test", platform_password.group(1).decode())
            pages.append(("tenant picker", platform, "/console/tenants"))
        print(f"| page | requests | p50 ms | p95 ms | max ms |")
        print(f"|---|---|---|---|---|")
        for name, browser, path in pages:
            timings = time_page(browser or Browser(port), path, requests)
            print(f"| {name} (`{path}`) | {requests} | {percentile(timings, 50):.1f} | "
                  f"{percentile(timings, 95):.1f} | {max(timings):.1f} |")
        if args.short:
            print("(short mode: the figures mean nothing)")
        return 0
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
