#!/usr/bin/env python3
"""The calls of one tenant at scale (issue 18, docs/scaling.md): list, search, report and
ingest figures of a tenant holding --calls calls (10,000,000 by default).

  1. `switchboard demo --scale 1000` makes a tenant with an admin (on --database-url, a
     PostgreSQL database, or a temporary SQLite file);
  2. --calls calls are generated for it by the database itself (PostgreSQL:
     generate_series through psql; SQLite: a recursive CTE through Python's sqlite3):
     a call every 3 s for a year, three directions, one in seven missed, one in ten
     recorded;
  3. `switchboard serve` starts on it (rate limits lifted, an ingest token);
  4. each query is asked --warmup times, then --requests times on one keep-alive
     connection (p50, p95); then --ingest ended calls are pushed one after another
     through `POST /v2/ingest/calls` (calls per second, p50 per push).

Prints a Markdown table. Reports, never judges: docs/scaling.md says what the figures
mean. `--short` (CI) uses a temporary SQLite file, 2,000 calls and 3 requests a query: a
check that it runs, not a measurement.

    cargo build --release
    python3 bench/calls_at_scale.py --database-url postgres://postgres@127.0.0.1/calls10m
    python3 bench/calls_at_scale.py --short --binary target/debug/switchboard

Python 3.11 standard library only; talks to loopback addresses only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

CALLS = "/v2/admin/calls/"
RECORDINGS = "/v2/admin/call-recordings/"
QUERIES = [
    ("list: first page (by id)", CALLS),
    ("list: newest first", CALLS + "?sortBy=time&sortDirection=desc"),
    ("list: page 400, newest first", CALLS + "?sortBy=time&sortDirection=desc&page=400"),
    ("list: inbound, newest first", CALLS + "?direction=inbound&sortBy=time&sortDirection=desc"),
    ("list: longest first", CALLS + "?sortBy=duration&sortDirection=desc"),
    ("search: a caller number", CALLS + "?query=5550007919"),
    ("search: a call id", CALLS + "?query=1735689603.1"),
    ("report: inbound calls, counted", CALLS + "?direction=inbound&recordsPerPage=1"),
    ("search: a caller name", CALLS + "?query=caller%204999"),
    ("list: by caller number", CALLS + "?sortBy=callerIdNum"),
    ("recordings: newest first", RECORDINGS + "?sortBy=time&sortDirection=desc"),
    ("recordings: longest first", RECORDINGS + "?sortBy=duration&sortDirection=desc"),
]
INGEST_TOKEN = "bench-ingest-token-" + uuid.uuid4().hex
START = 1735689600  # 2025-01-01T00:00:00Z

SEED_POSTGRES = """
INSERT INTO calls (tenant_id, unique_id, direction, status, caller_id_num, caller_id_name,
  dialed_num, time, start_unix, answer_unix, end_unix, duration, billsec, disposition, created_at,
  recording_key, recording_bytes)
SELECT {tenant}, ({start} + g * 3)::text || '.' || g::text,
  (ARRAY['inbound','outbound','internal'])[1 + g % 3],
  CASE WHEN g % 7 = 0 THEN 'missed' ELSE 'ended' END,
  '555' || lpad((g * 7919 % 10000000)::text, 7, '0'), 'Caller ' || (g % 5000)::text,
  (100 + g % 400)::text,
  to_char(to_timestamp({start} + g * 3) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
  {start} + g * 3, CASE WHEN g % 7 = 0 THEN NULL ELSE {start} + g * 3 + 4 END,
  {start} + g * 3 + 4 + g % 600, 4 + g % 600, CASE WHEN g % 7 = 0 THEN 0 ELSE g % 600 END,
  CASE WHEN g % 7 = 0 THEN 'NO ANSWER' ELSE 'ANSWERED' END, {start} + g * 3,
  CASE WHEN g % 10 = 1 THEN 'bench/' || g::text || '.mp3' END, CASE WHEN g % 10 = 1 THEN 4096 END
FROM generate_series(1::bigint, {calls}::bigint) AS g;
ANALYZE calls;
"""

SEED_SQLITE = """
WITH RECURSIVE n(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM n WHERE g < {calls})
INSERT INTO calls (tenant_id, unique_id, direction, status, caller_id_num, caller_id_name,
  dialed_num, time, start_unix, answer_unix, end_unix, duration, billsec, disposition, created_at,
  recording_key, recording_bytes)
SELECT {tenant}, ({start} + g * 3) || '.' || g,
  CASE g % 3 WHEN 0 THEN 'inbound' WHEN 1 THEN 'outbound' ELSE 'internal' END,
  CASE WHEN g % 7 = 0 THEN 'missed' ELSE 'ended' END,
  '555' || substr('0000000' || (g * 7919 % 10000000), -7), 'Caller ' || (g % 5000),
  (100 + g % 400), strftime('%Y-%m-%dT%H:%M:%SZ', {start} + g * 3, 'unixepoch'),
  {start} + g * 3, CASE WHEN g % 7 = 0 THEN NULL ELSE {start} + g * 3 + 4 END,
  {start} + g * 3 + 4 + g % 600, 4 + g % 600, CASE WHEN g % 7 = 0 THEN 0 ELSE g % 600 END,
  CASE WHEN g % 7 = 0 THEN 'NO ANSWER' ELSE 'ANSWERED' END, {start} + g * 3,
  CASE WHEN g % 10 = 1 THEN 'bench/' || g || '.mp3' END, CASE WHEN g % 10 = 1 THEN 4096 END
FROM n;
"""


class BenchError(Exception):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn, method, path, token=None, body=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    if response.status != 200:
        raise BenchError(f"{method} {path} answered {response.status}: {data[:300]!r}")
    return json.loads(data)


def environment(folder: str, database_url: str, port: int) -> dict:
    env = dict(os.environ)
    env.update(
        SWITCHBOARD_DATA_DIR=os.path.join(folder, "data"),
        SWITCHBOARD_DATABASE_URL=database_url,
        SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
        SWITCHBOARD_JWT_SECRET="bench-signing-key-" + "x" * 32,
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE="100000000",
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="100000000",
        SWITCHBOARD_INGEST_TOKEN=INGEST_TOKEN,
        RUST_LOG="warn",
    )
    return env


def seed(args, folder: str, database_url: str) -> dict:
    env = environment(folder, database_url, 0)
    made = subprocess.run([args.binary, "demo", "--scale", "1000"], env=env, check=True,
                          capture_output=True, text=True)
    tenant = json.loads(made.stdout.strip().splitlines()[-1])
    started = time.time()
    if database_url.startswith("postgres"):
        sql = SEED_POSTGRES.format(tenant=tenant["tenantId"], start=START, calls=args.calls)
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database_url, "-c", sql],
                       check=True, capture_output=True)
    else:
        path = database_url.removeprefix("sqlite://")
        with sqlite3.connect(path) as db:
            db.execute(SEED_SQLITE.format(tenant=tenant["tenantId"], start=START,
                                          calls=args.calls))
    tenant["seedSeconds"] = time.time() - started
    return tenant


def serve(args, folder: str, database_url: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    log = open(os.path.join(folder, "server.log"), "w")
    process = subprocess.Popen([args.binary, "serve"], cwd=folder, stdout=log, stderr=log,
                               env=environment(folder, database_url, port))
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return process, port
        except OSError:
            pass
        if process.poll() is not None:
            raise BenchError("the server exited; see server.log")
        time.sleep(0.2)
    raise BenchError("the server did not start")


def timed(conn, path, token, warmup, requests) -> tuple[float, float, int]:
    for _ in range(warmup):
        request(conn, "GET", path, token)
    samples = []
    total = 0
    for _ in range(requests):
        started = time.perf_counter()
        answer = request(conn, "GET", path, token)
        samples.append((time.perf_counter() - started) * 1000)
        total = answer.get("totalRecords", 0)
    samples.sort()
    p95 = samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]
    return statistics.median(samples), p95, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--database-url", help="postgres://… (default: a temporary SQLite file)")
    parser.add_argument("--calls", type=int, default=10_000_000)
    parser.add_argument("--requests", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--ingest", type=int, default=500)
    parser.add_argument("--reuse", action="store_true",
                        help="the database already holds the tenant and its calls (tenant 1 admin)")
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args()
    args.binary = os.path.abspath(args.binary)
    if args.short:
        args.calls, args.requests, args.warmup, args.ingest = 2000, 3, 1, 20
        args.database_url = None
    with tempfile.TemporaryDirectory() as folder:
        database_url = args.database_url or "sqlite://" + os.path.join(folder, "calls.db")
        if args.reuse:
            tenant = {"tenantId": 1, "email": "scale-admin-1@demo.switchboard.test",
                      "password": "switchboard-demo-2026", "seedSeconds": 0}
        else:
            if database_url.startswith("sqlite://"):
                os.makedirs(os.path.join(folder, "data"), exist_ok=True)
            tenant = seed(args, folder, database_url)
        process, port = serve(args, folder, database_url)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            token = request(conn, "POST", "/v2/authentication/", None,
                            {"email": tenant["email"], "password": tenant["password"]})["accessToken"]
            backend = "PostgreSQL" if database_url.startswith("postgres") else "SQLite"
            print(f"{backend}, {args.calls:,} calls in one tenant (seeded in {tenant['seedSeconds']:.0f} s); "
                  f"{os.path.relpath(args.binary)}; load average {os.getloadavg()[0]:.1f}")
            print()
            print("| query | p50 ms | p95 ms | totalRecords |")
            print("|---|---:|---:|---:|")
            for name, path in QUERIES:
                p50, p95, total = timed(conn, path, token, args.warmup, args.requests)
                print(f"| {name} | {p50:.1f} | {p95:.1f} | {total:,} |")
            samples = []
            started = time.perf_counter()
            for n in range(args.ingest):
                call = {"tenantId": tenant["tenantId"], "uniqueId": f"1800000000.{uuid.uuid4().hex[:12]}",
                        "event": "ended", "direction": "inbound", "time": "2026-11-22T09:58:00Z",
                        "answerTime": "2026-11-22T09:58:05Z", "endTime": "2026-11-22T10:00:00Z",
                        "callerIdNum": "5551230000", "dialedNum": "5559870000"}
                one = time.perf_counter()
                request(conn, "POST", "/v2/ingest/calls", INGEST_TOKEN, call)
                samples.append((time.perf_counter() - one) * 1000)
            elapsed = time.perf_counter() - started
            print(f"| ingest: {args.ingest} ended calls, one at a time | {statistics.median(samples):.1f} "
                  f"| {sorted(samples)[int(0.95 * (len(samples) - 1))]:.1f} | {args.ingest / elapsed:.0f} calls/s |")
            print(f"\nload average after: {os.getloadavg()[0]:.1f}")
        finally:
            process.terminate()
            process.wait(timeout=30)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as error:
        print(f"calls_at_scale: {error}", file=sys.stderr)
        sys.exit(2)
