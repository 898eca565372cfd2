#!/usr/bin/env python3
"""Campaign record export: a streamed CSV of 511,999 records (just under the 512,000 limit) with the server's memory flat, and the refusal one record past the limit.

Starts `switchboard serve --demo` (SQLite) in a temporary folder, adds a campaign and
511,999 records straight into its database (bulk SQL through Python's sqlite3, like
`db/src/synthetic.rs`: nothing happened, so nothing is audited), then reads
`GET /v2/admin/call-campaigns/{id}/records/export` to the end while sampling the server's
resident memory (`/proc/PID/status` VmRSS every 20 ms). Prints rows, bytes, seconds and
the RSS before and at its peak during the export; then adds two records (512,001) and
times the 400 that refuses the export before any row. Standard library only.
"""

import argparse
import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
LIMIT = 512_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def login(port: int) -> tuple[str, int] | None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/v2/authentication/",
                       json.dumps({"email": EMAIL, "password": PASSWORD}),
                       {"content-type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    if response.status != 200:
        return None
    body = json.loads(data)
    return body["accessToken"], body["user"]["tenantId"]


def seed(database: str, tenant: int, count: int) -> int:
    db = sqlite3.connect(database, timeout=60)
    cursor = db.execute(
        "INSERT INTO call_campaigns (tenant_id, name, caller_id_number, window_days, "
        "window_from, window_to, time_zone, max_attempts, retry_delay_minutes, status, "
        "created_at) VALUES (?, 'Export benchmark', '+12025550100', '1,2,3,4,5', '09:00', "
        "'17:00', 'UTC', 3, 60, 'draft', '2026-11-25T08:00:00Z')", (tenant,))
    campaign = cursor.lastrowid
    statuses = ["pending", "completed", "failed", "opted-out"]
    batch = []
    for i in range(count):
        batch.append((campaign, tenant, f"+1202{i:07d}", f"Callee {i}", statuses[i % 4],
                      i % 3, "2026-11-25T08:00:00Z"))
        if len(batch) == 10_000:
            db.executemany("INSERT INTO campaign_records (campaign_id, tenant_id, number, name, "
                           "status, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
            batch.clear()
    if batch:
        db.executemany("INSERT INTO campaign_records (campaign_id, tenant_id, number, name, "
                       "status, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", batch)
    db.commit()
    db.close()
    return campaign


def export(port: int, token: str, campaign: int, pid: int):
    peak = [rss_kib(pid)]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib(pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", f"/v2/admin/call-campaigns/{campaign}/records/export",
                       headers={"authorization": f"Bearer {token}"})
    response = connection.getresponse()
    first = None
    size = 0
    lines = 0
    while True:
        chunk = response.read(1 << 16)
        if not chunk:
            break
        if first is None:
            first = time.perf_counter() - started
        size += len(chunk)
        lines += chunk.count(b"\n")
    elapsed = time.perf_counter() - started
    connection.close()
    done.set()
    sampler.join()
    return response.status, lines, size, first or elapsed, elapsed, peak[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--records", type=int, default=LIMIT - 1)
    parser.add_argument("--short", action="store_true",
                        help="5,000 records and no refusal check: shows the benchmark runs (CI); no figure")
    args = parser.parse_args()
    if args.short:
        args.records = 5_000
    binary = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="switchboard-export-bench-")
    port = free_port()
    env = dict(os.environ, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}")
    log = open(os.path.join(folder, "server.log"), "wb")
    server = subprocess.Popen([binary, "serve", "--demo"], cwd=folder, env=env,
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        logged = None
        for _ in range(600):
            if server.poll() is not None:
                print(f"the server exited with {server.returncode}", file=sys.stderr)
                return 2
            try:
                logged = login(port)
                if logged:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        if logged is None:
            print("the server did not start", file=sys.stderr)
            return 2
        token, tenant = logged
        database = os.path.join(folder, "switchboard-data", "switchboard.db")
        seeding = time.perf_counter()
        campaign = seed(database, tenant, args.records)
        seeded = time.perf_counter() - seeding
        before = rss_kib(server.pid)
        status, lines, size, first, elapsed, peak = export(port, token, campaign, server.pid)
        if status != 200 or lines != args.records + 1:
            print(f"the export answered {status} with {lines} lines", file=sys.stderr)
            return 1
        print(f"| records | seeded in | first byte | export | MB/s | RSS before | RSS peak |")
        print(f"|---|---|---|---|---|---|---|")
        print(f"| {args.records:,} | {seeded:.1f} s | {first:.2f} s | {elapsed:.1f} s | "
              f"{size / elapsed / 1e6:.1f} | {before / 1024:.1f} MiB | {peak / 1024:.1f} MiB |")
        if not args.short:
            db = sqlite3.connect(database, timeout=60)
            over = LIMIT + 1 - args.records
            db.executemany("INSERT INTO campaign_records (campaign_id, tenant_id, number, status, "
                           "attempts, created_at) VALUES (?, ?, ?, 'pending', 0, '2026-11-25T08:00:00Z')",
                           [(campaign, tenant, f"+1303{i:07d}") for i in range(over)])
            db.commit()
            db.close()
            started = time.perf_counter()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            connection.request("GET", f"/v2/admin/call-campaigns/{campaign}/records/export",
                               headers={"authorization": f"Bearer {token}"})
            response = connection.getresponse()
            body = response.read()
            refused = time.perf_counter() - started
            print(f"\n{LIMIT + 1:,} records: {response.status} in {refused:.2f} s: "
                  f"{json.loads(body)['message']}")
            if response.status != 400:
                return 1
        return 0
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
