#!/usr/bin/env python3
"""Campaign record export: a streamed CSV of 511,999 records (just under the 512,000 limit) with the server's memory flat, and the refusal one record past the limit.

For each backend (SQLite, and PostgreSQL when --postgres reaches one): starts
`switchboard serve --demo` in a temporary folder (on a fresh PostgreSQL database for
PostgreSQL), adds a campaign and 511,999 records straight into its database in bulk
(Python's sqlite3, or one `INSERT … SELECT … generate_series` through `psql`, like
`db/src/synthetic.rs`: nothing happened, so nothing is audited), then reads
`GET /v2/admin/call-campaigns/{id}/records/export` to the end while sampling the server's
resident memory (`/proc/PID/status` VmRSS every 20 ms). Prints, per backend, the table
docs/benchmarks.md publishes (records, first byte, whole export, CSV, throughput, server
RSS before, RSS peak during) and a verdict: memory is flat when the RSS grew by at most
--max-growth-mib (64 MiB) while the whole CSV went out. Then adds two records (512,001)
and times the 400 that refuses the export before any row.

Exits 0 when every backend streamed every row with flat memory and refused past the
limit, 1 when one did not, 2 when the benchmark could not run.

--short (5,000 records, no refusal check) shows that the benchmark runs, as CI does; its
figures mean nothing. Standard library only (and `psql` for PostgreSQL).

    cargo build --release && python3 bench/campaign_export.py
    python3 bench/campaign_export.py --short --binary target/debug/switchboard
"""

import argparse
import http.client
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
LIMIT = 512_000
STATUSES = ["pending", "completed", "failed", "opted-out"]
HEADER = ("| records | first byte | whole export | CSV | throughput | server RSS before "
          "| RSS peak during |")


class BenchError(Exception):
    """The benchmark could not run."""


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


def psql(url: str, sql: str) -> str:
    """Runs `sql` through psql on `url`, answering its unaligned output."""
    done = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qtAc", sql],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"psql failed: {done.stderr.strip()}")
    return done.stdout.strip()


def postgres_reachable(admin_url: str) -> bool:
    try:
        return subprocess.run(["psql", admin_url, "-qc", "SELECT 1"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


CAMPAIGN = ("INSERT INTO call_campaigns (tenant_id, name, caller_id_number, window_days, "
            "window_from, window_to, time_zone, max_attempts, retry_delay_minutes, status, "
            "created_at) VALUES ({tenant}, 'Export benchmark', '+12025550100', '1,2,3,4,5', "
            "'09:00', '17:00', 'UTC', 3, 60, 'draft', '2026-11-25T08:00:00Z')")


class Sqlite:
    """The demo's SQLite file, written with Python's sqlite3."""

    name = "sqlite"

    def __init__(self, folder: str):
        self.path = os.path.join(folder, "switchboard-data", "switchboard.db")

    def seed(self, tenant: int, count: int) -> int:
        db = sqlite3.connect(self.path, timeout=60)
        campaign = db.execute(CAMPAIGN.format(tenant=tenant)).lastrowid
        insert = ("INSERT INTO campaign_records (campaign_id, tenant_id, number, name, status, "
                  "attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
        batch = []
        for i in range(count):
            batch.append((campaign, tenant, f"+1202{i:07d}", f"Callee {i}", STATUSES[i % 4],
                          i % 3, "2026-11-25T08:00:00Z"))
            if len(batch) == 10_000:
                db.executemany(insert, batch)
                batch.clear()
        if batch:
            db.executemany(insert, batch)
        db.commit()
        db.close()
        return campaign

    def add(self, campaign: int, tenant: int, count: int) -> None:
        db = sqlite3.connect(self.path, timeout=60)
        db.executemany("INSERT INTO campaign_records (campaign_id, tenant_id, number, status, "
                       "attempts, created_at) VALUES (?, ?, ?, 'pending', 0, "
                       "'2026-11-25T08:00:00Z')",
                       [(campaign, tenant, f"+1303{i:07d}") for i in range(count)])
        db.commit()
        db.close()


class Postgres:
    """A fresh PostgreSQL database, written through psql."""

    name = "postgres"

    def __init__(self, admin_url: str):
        self.admin_url = admin_url
        self.database = f"switchboard_bench_{uuid.uuid4().hex[:12]}"
        psql(admin_url, f"CREATE DATABASE {self.database}")
        self.url = f"{admin_url.rsplit('/', 1)[0]}/{self.database}"

    def seed(self, tenant: int, count: int) -> int:
        campaign = int(psql(self.url, CAMPAIGN.format(tenant=tenant) + " RETURNING id"))
        psql(self.url,
             "INSERT INTO campaign_records (campaign_id, tenant_id, number, name, status, "
             f"attempts, created_at) SELECT {campaign}, {tenant}, "
             "'+1202' || lpad(i::text, 7, '0'), 'Callee ' || i, "
             "(ARRAY['pending', 'completed', 'failed', 'opted-out'])[i % 4 + 1], i % 3, "
             f"'2026-11-25T08:00:00Z' FROM generate_series(0, {count - 1}) AS i")
        psql(self.url, "ANALYZE campaign_records")
        return campaign

    def add(self, campaign: int, tenant: int, count: int) -> None:
        psql(self.url,
             "INSERT INTO campaign_records (campaign_id, tenant_id, number, status, attempts, "
             f"created_at) SELECT {campaign}, {tenant}, '+1303' || lpad(i::text, 7, '0'), "
             f"'pending', 0, '2026-11-25T08:00:00Z' FROM generate_series(0, {count - 1}) AS i")

    def drop(self) -> None:
        subprocess.run(["psql", self.admin_url, "-qc",
                        f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)"],
                       check=False, capture_output=True)


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


def refusal(port: int, token: str, campaign: int) -> tuple[int, float, str]:
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", f"/v2/admin/call-campaigns/{campaign}/records/export",
                       headers={"authorization": f"Bearer {token}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    message = json.loads(body).get("message", "") if response.status != 200 else ""
    return response.status, time.perf_counter() - started, message


def run_backend(args, binary: str, backend: str) -> bool:
    """Benchmarks one backend, printing its table and verdicts; answers whether it passed."""
    folder = tempfile.mkdtemp(prefix="switchboard-export-bench-")
    port = free_port()
    env = dict(os.environ, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}", RUST_LOG="warn")
    store = None
    server = None
    log = open(os.path.join(folder, "server.log"), "wb")
    try:
        if backend == "postgres":
            store = Postgres(args.postgres)
            env["SWITCHBOARD_DATABASE_URL"] = store.url
        else:
            store = Sqlite(folder)
        server = subprocess.Popen([binary, "serve", "--demo"], cwd=folder, env=env,
                                  stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        logged = None
        for _ in range(900):
            if server.poll() is not None:
                raise BenchError(f"the server exited with {server.returncode}; see {folder}/server.log")
            try:
                logged = login(port)
                if logged:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        if logged is None:
            raise BenchError("the server did not start")
        token, tenant = logged
        campaign = store.seed(tenant, args.records)
        before = rss_kib(server.pid)
        status, lines, size, first, elapsed, peak = export(port, token, campaign, server.pid)
        print(f"\n{backend}:\n")
        print(HEADER)
        print("|---|---|---|---|---|---|---|")
        print(f"| {args.records:,} | {first:.2f} s | {elapsed:.1f} s | ≈ {size / 1e6:.1f} MB "
              f"| {size / elapsed / 1e6:.1f} MB/s | {before / 1024:.1f} MiB "
              f"| {peak / 1024:.1f} MiB |")
        passed = True
        if status != 200 or lines != args.records + 1:
            print(f"FAIL: the export answered {status} with {lines} lines, "
                  f"not 200 with {args.records + 1}")
            passed = False
        growth = (peak - before) / 1024
        flat = growth <= args.max_growth_mib
        print(f"{'PASS' if flat else 'FAIL'}: flat memory — the server's RSS grew "
              f"{growth:.1f} MiB while {size / 1e6:.1f} MB of CSV went out "
              f"(bound {args.max_growth_mib} MiB)")
        passed = passed and flat
        if not args.short:
            store.add(campaign, tenant, LIMIT + 1 - args.records)
            code, seconds, message = refusal(port, token, campaign)
            refused = code == 400
            print(f"{'PASS' if refused else 'FAIL'}: {LIMIT + 1:,} records: {code} in "
                  f"{seconds:.2f} s: {message}")
            passed = passed and refused
        return passed
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        log.close()
        if isinstance(store, Postgres):
            store.drop()
        if args.keep_server_dir:
            print(f"server folder kept: {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--records", type=int, default=LIMIT - 1)
    parser.add_argument("--postgres", default=os.environ.get(
        "SWITCHBOARD_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"),
        help="a PostgreSQL admin URL: a fresh database is made there and dropped after")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--max-growth-mib", type=float, default=64.0,
                        help="the most the server's RSS may grow during the export (MiB)")
    parser.add_argument("--short", action="store_true",
                        help="5,000 records and no refusal check: shows the benchmark runs (CI); no figure")
    parser.add_argument("--keep-server-dir", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.records = 5_000
    if not 0 < args.records <= LIMIT:
        parser.error(f"--records must be between 1 and {LIMIT}")
    binary = os.path.abspath(args.binary)
    if not os.path.exists(binary):
        print(f"no binary at {binary}", file=sys.stderr)
        return 2
    passed = True
    try:
        for backend in args.backends.split(","):
            if backend == "postgres" and not postgres_reachable(args.postgres):
                print(f"skipped postgres: {args.postgres} is unreachable", file=sys.stderr)
                continue
            if backend not in ("sqlite", "postgres"):
                print(f"unknown backend {backend}", file=sys.stderr)
                return 2
            passed = run_backend(args, binary, backend) and passed
    except (BenchError, OSError) as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    if args.short:
        print("\nshort mode: the figures above only show that the benchmark runs")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
