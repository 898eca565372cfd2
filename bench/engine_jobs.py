#!/usr/bin/env python3
"""Engine work queue benchmark for Switchboard.

Measures how fast engines empty the engine work queue: jobs claimed per second, and the
latency of a claim and of a job from its claim's answer to its result's answer.

For each backend (SQLite, and PostgreSQL when --postgres reaches one):
  1. starts `switchboard serve --demo` in a fresh temporary folder (SQLite) or on a fresh
     PostgreSQL database, with an ingest token (the engine's) and the rate limits lifted;
  2. adds a platform admin with `switchboard user create`, which provisions a texting
     number (its texts reach an extension) to the demo tenant;
  3. queues --jobs texts through `POST /v2/messaging/messages` as the tenant admin
     (--senders threads): each is recorded and its engine job queued in one transaction;
  4. --engines threads, each on its own keep-alive connection, claim up to --batch jobs
     (`POST /v2/engine/jobs/claim`) and report each `sent`
     (`POST /v2/engine/jobs/{id}/result`: the text recorded sent with its SMS_SENT event,
     in one transaction) until a claim answers none;
  5. checks that every job was handed out exactly once and every result recorded.

Prints a Markdown table per backend; exits 2 when the benchmark could not run or a job
was lost or handed out twice.

--short (60 jobs, 2 engines) checks that the benchmark runs, as CI does; its figures mean
nothing.

Python 3.11 standard library only (and `psql` for PostgreSQL). Targets loopback only.

    cargo build --release && python3 bench/engine_jobs.py
    python3 bench/engine_jobs.py --short --binary target/debug/switchboard
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
PLATFORM_EMAIL = "bench-platform@bench.switchboard.test"
PLATFORM_PASSWORD = "Bench-" + uuid.uuid4().hex + "-Kq7!"
# The engine's bearer token (at least 32 bytes).
INGEST_TOKEN = "bench-engine-token-" + uuid.uuid4().hex
STARTUP_TIMEOUT_S = 90.0
NUMBER = "15550004242"


class BenchError(Exception):
    pass


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list (NaN when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port: int, method: str, path: str, body: dict | None, token: str | None,
         conn: http.client.HTTPConnection | None = None) -> dict:
    own = conn is None
    conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    if own:
        conn.close()
    if response.status != 200:
        raise BenchError(f"{method} {path} answered {response.status}: {data[:300]!r}")
    return json.loads(data)


def postgres_database(admin_url: str) -> tuple[str, str]:
    name = f"switchboard_bench_{uuid.uuid4().hex[:12]}"
    subprocess.run(["psql", admin_url, "-qc", f"CREATE DATABASE {name}"], check=True)
    base = admin_url.rsplit("/", 1)[0]
    return name, f"{base}/{name}"


def drop_postgres_database(admin_url: str, name: str) -> None:
    subprocess.run(["psql", admin_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                   check=False, capture_output=True)


def postgres_reachable(admin_url: str) -> bool:
    try:
        return subprocess.run(["psql", admin_url, "-qc", "SELECT 1"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def start_server(binary: str, folder: str, port: int, env: dict[str, str]) -> subprocess.Popen:
    log = open(os.path.join(folder, "server.log"), "w")
    process = subprocess.Popen([binary, "serve", "--demo"], cwd=folder, env=env, stdout=log, stderr=log)
    deadline = time.time() + STARTUP_TIMEOUT_S
    while time.time() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return process
        except OSError:
            pass
        if process.poll() is not None:
            raise BenchError("the server exited; see server.log")
        time.sleep(0.2)
    raise BenchError("the server did not start")


def in_threads(count: int, work) -> None:
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            work(i)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise BenchError(str(errors[0]))


def run_backend(args, binary: str, backend: str) -> list[str]:
    folder = tempfile.mkdtemp(prefix="switchboard-engine-bench-")
    port = free_port()
    env = dict(os.environ)
    env.update(
        SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE="100000000",
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="100000000",
        SWITCHBOARD_INGEST_TOKEN=INGEST_TOKEN,
        RUST_LOG="warn",
    )
    pg_name = None
    server = None
    try:
        if backend == "postgres":
            pg_name, url = postgres_database(args.postgres)
            env["SWITCHBOARD_DATABASE_URL"] = url
        server = start_server(binary, folder, port, env)
        subprocess.run([binary, "user", "create", "--email", PLATFORM_EMAIL, "--password-stdin",
                        "--role", "platform-admin"], cwd=folder, env=env, check=True,
                       input=PLATFORM_PASSWORD.encode(), capture_output=True)
        login = call(port, "POST", "/v2/authentication/", {"email": EMAIL, "password": PASSWORD}, None)
        token = login["accessToken"]
        tenant = login["user"]["tenantId"]
        platform = call(port, "POST", "/v2/authentication/",
                        {"email": PLATFORM_EMAIL, "password": PLATFORM_PASSWORD}, None)["accessToken"]
        extension = call(port, "GET", "/v2/admin/extensions/", None, token)["records"][0]["id"]
        call(port, "POST", "/v2/admin/phone-numbers/",
             {"tenantId": tenant, "number": NUMBER, "smsExtId": extension}, platform)

        # Queue the texts.
        def send(i: int) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for n in range(i, args.jobs, args.senders):
                call(port, "POST", "/v2/messaging/messages",
                     {"from": NUMBER, "to": f"1555{n:07d}", "body": f"bench text {n}"}, token, conn)
            conn.close()

        in_threads(args.senders, send)

        # The engines.
        lock = threading.Lock()
        claimed: list[int] = []
        claim_latencies: list[float] = []
        job_latencies: list[float] = []
        claims = [0]

        def engine(_: int) -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            mine, claim_l, job_l, count = [], [], [], 0
            while True:
                before = time.perf_counter()
                jobs = call(port, "POST", "/v2/engine/jobs/claim",
                            {"kinds": ["sms"], "max": args.batch}, INGEST_TOKEN, conn)["jobs"]
                answered = time.perf_counter()
                claim_l.append(answered - before)
                count += 1
                if not jobs:
                    break
                for job in jobs:
                    result = call(port, "POST", f"/v2/engine/jobs/{job['id']}/result",
                                  {"attempt": job["attempt"], "outcome": "sent",
                                   "reference": f"bench-{job['id']}"}, INGEST_TOKEN, conn)
                    if not result["recorded"]:
                        raise BenchError(f"the result of job {job['id']} was not recorded")
                    job_l.append(time.perf_counter() - answered)
                    mine.append(job["id"])
            conn.close()
            with lock:
                claimed.extend(mine)
                claim_latencies.extend(claim_l)
                job_latencies.extend(job_l)
                claims[0] += count

        started = time.perf_counter()
        in_threads(args.engines, engine)
        seconds = time.perf_counter() - started
        if len(claimed) != args.jobs or len(set(claimed)) != args.jobs:
            raise BenchError(f"{len(claimed)} jobs handed out, {len(set(claimed))} distinct, "
                             f"{args.jobs} queued")
        claim_latencies.sort()
        job_latencies.sort()
        ms = lambda s: f"{s * 1000:.1f}"  # noqa: E731
        return [
            f"| {backend} | {args.jobs} | {args.engines} × {args.batch} | {args.jobs / seconds:.0f} "
            f"| {ms(percentile(claim_latencies, 50))} | {ms(percentile(claim_latencies, 95))} "
            f"| {ms(percentile(job_latencies, 50))} | {ms(percentile(job_latencies, 95))} |"
        ]
    finally:
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        if pg_name:
            drop_postgres_database(args.postgres, pg_name)
        if args.keep_server_dir:
            print(f"server folder kept: {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--jobs", type=int, default=2000, help="texts queued")
    parser.add_argument("--engines", type=int, default=4, help="engine threads claiming at once")
    parser.add_argument("--batch", type=int, default=10, help="the most jobs one claim leases")
    parser.add_argument("--senders", type=int, default=8, help="threads queueing the texts")
    parser.add_argument("--postgres", default=os.environ.get(
        "SWITCHBOARD_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--short", action="store_true", help="60 jobs, 2 engines: does it run (CI)")
    parser.add_argument("--keep-server-dir", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.jobs, args.engines, args.senders = 60, 2, 2

    binary = os.path.abspath(args.binary)
    if not os.path.exists(binary):
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        binary = os.path.join(repo, args.binary)
    rows = []
    try:
        for backend in args.backends.split(","):
            if backend == "postgres" and not postgres_reachable(args.postgres):
                print(f"skipped postgres: {args.postgres} is unreachable", file=sys.stderr)
                continue
            rows += run_backend(args, binary, backend)
    except (BenchError, subprocess.CalledProcessError) as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    print("| backend | jobs | engines × batch | jobs claimed and reported per second "
          "| claim p50 (ms) | claim p95 (ms) | claim-to-result p50 (ms) | claim-to-result p95 (ms) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print(row)
    print("\nEvery job was handed out exactly once and every result recorded (with its SMS_SENT "
          "event). claim-to-result: from a claim's answer to the answer of that job's result.")
    if args.short:
        print("short mode: the figures above only show that the benchmark runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
