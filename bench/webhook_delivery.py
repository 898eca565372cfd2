#!/usr/bin/env python3
"""Webhook delivery benchmark for Switchboard.

Measures how fast the delivery worker empties the outbox into a local receiver, and how
long an event waits between being written and being received.

  1. starts `switchboard serve --demo` in a fresh temporary folder (SQLite), with
     SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=true so it may post to loopback;
  2. starts a receiver on 127.0.0.1 (a threaded http.server answering 204) and registers
     a CALL_ENDED webhook pointing at it through the API;
  3. burst: writes --events events, each with its pending delivery, in one transaction
     straight into the database (the same rows `switchboard_db::events::emit` writes, as
     another process's call ingest would), then waits until all arrived: deliveries per
     second = events / (last arrival - commit);
  4. paced: writes --paced-rate events per second, one transaction each, for
     --paced-seconds: the event-to-delivery delay when the worker is not saturated
     (bounded by the idle poll interval, since the writer is not the serving process).

Every received request is checked: a signature header, and each webhook-id exactly
once. Prints a Markdown table; exits 2 when the benchmark could not run or a delivery
was lost or duplicated.

Python 3.11 standard library only. Targets loopback addresses only.

    cargo build --release && python3 bench/webhook_delivery.py
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import json
import math
import os
import shutil
import signal
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
STARTUP_TIMEOUT_S = 60.0
DRAIN_TIMEOUT_S = 300.0


class BenchError(Exception):
    """The benchmark could not run, or deliveries were lost or duplicated."""


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list (NaN when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


class Receiver:
    """A loopback HTTP server recording (webhook-id, event number, arrival time)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrivals: dict[int, float] = {}
        self.ids: list[str] = []
        self.unsigned = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                now = time.time()
                event = json.loads(body)
                with receiver.lock:
                    receiver.ids.append(self.headers.get("webhook-id", ""))
                    if not self.headers.get("webhook-signature", "").startswith("v1,"):
                        receiver.unsigned += 1
                    receiver.arrivals.setdefault(event["data"]["n"], now)
                self.send_response(204)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def count(self) -> int:
        with self.lock:
            return len(self.arrivals)

    def stop(self) -> None:
        self.server.shutdown()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port: int, method: str, path: str, body: dict | None, token: str | None) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    if response.status != 200:
        raise BenchError(f"{method} {path} answered {response.status}: {data[:300]!r}")
    return json.loads(data)


def start_server(binary: str, folder: str, port: int, poll_ms: int) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(
        SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
        SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE="true",
        SWITCHBOARD_WEBHOOK_POLL_INTERVAL_MS=str(poll_ms),
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE="1000000",
        RUST_LOG="warn",
    )
    log = open(os.path.join(folder, "server.log"), "w")
    process = subprocess.Popen(
        [binary, "serve", "--demo"], cwd=folder, env=env, stdout=log, stderr=log
    )
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


def write_events(db: sqlite3.Connection, tenant: int, webhook: int, numbers: range) -> float:
    """Writes one event and its due delivery per number in one transaction, as emit()
    does; answers the commit time."""
    now_s = int(time.time())
    cursor = db.cursor()
    cursor.execute("BEGIN IMMEDIATE")
    for n in numbers:
        payload = json.dumps(
            {"type": "CALL_ENDED", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now_s)),
             "tenantId": tenant, "data": {"n": n}}
        )
        cursor.execute(
            "INSERT INTO webhook_events (tenant_id, type, payload, created_at) VALUES (?, 'CALL_ENDED', ?, ?)",
            (tenant, payload, now_s),
        )
        cursor.execute(
            "INSERT INTO webhook_deliveries (webhook_id, event_id, message_id, state, attempts, next_attempt_at, created_at)"
            " VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            (webhook, cursor.lastrowid, f"msg_{uuid.uuid4().hex}", now_s, now_s),
        )
    cursor.execute("COMMIT")
    return time.time()


def wait_for(receiver: Receiver, total: int) -> None:
    deadline = time.time() + DRAIN_TIMEOUT_S
    while receiver.count() < total:
        if time.time() > deadline:
            raise BenchError(f"only {receiver.count()} of {total} deliveries arrived")
        time.sleep(0.005)


def delays(receiver: Receiver, written: dict[int, float]) -> list[float]:
    with receiver.lock:
        return sorted(receiver.arrivals[n] - at for n, at in written.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--events", type=int, default=2000, help="events in the burst")
    parser.add_argument("--paced-rate", type=float, default=50.0, help="events per second")
    parser.add_argument("--paced-seconds", type=float, default=5.0)
    parser.add_argument("--poll-ms", type=int, default=250, help="the server's idle poll interval")
    parser.add_argument("--keep-server-dir", action="store_true")
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    if not os.path.exists(binary):
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        binary = os.path.join(repo, args.binary)
    folder = tempfile.mkdtemp(prefix="switchboard-webhook-bench-")
    port = free_port()
    receiver = Receiver()
    server = None
    try:
        server = start_server(binary, folder, port, args.poll_ms)
        login = call(port, "POST", "/v2/authentication/", {"email": EMAIL, "password": PASSWORD}, None)
        token = login["accessToken"]
        tenant = login["user"]["tenantId"]
        hook = call(port, "POST", "/v2/webhooks/",
                    {"tenantId": tenant, "type": "CALL_ENDED", "url": receiver.url}, token)
        db = sqlite3.connect(os.path.join(folder, "switchboard-data", "switchboard.db"),
                             timeout=30, isolation_level=None)

        # Burst: the whole outbox at once.
        started = time.time()
        committed = write_events(db, tenant, hook["id"], range(args.events))
        written = {n: committed for n in range(args.events)}
        wait_for(receiver, args.events)
        with receiver.lock:
            last = max(receiver.arrivals.values())
        burst_seconds = last - committed
        burst_delays = delays(receiver, written)

        # Paced: one event per transaction at a steady rate.
        paced_written: dict[int, float] = {}
        count = int(args.paced_rate * args.paced_seconds)
        interval = 1.0 / args.paced_rate
        next_at = time.time()
        for i in range(count):
            n = args.events + i
            paced_written[n] = write_events(db, tenant, hook["id"], range(n, n + 1))
            next_at += interval
            time.sleep(max(0.0, next_at - time.time()))
        wait_for(receiver, args.events + count)
        paced_delays = delays(receiver, paced_written)
        db.close()

        total = args.events + count
        with receiver.lock:
            ids = list(receiver.ids)
            unsigned = receiver.unsigned
        if len(ids) != total or len(set(ids)) != total:
            raise BenchError(f"{len(ids)} requests, {len(set(ids))} distinct ids, {total} events")
        if unsigned:
            raise BenchError(f"{unsigned} requests without a signature")

        ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
        print(f"| metric | burst ({args.events} events, one transaction) | paced ({args.paced_rate:g}/s for {args.paced_seconds:g} s) |")
        print("|---|---:|---:|")
        print(f"| deliveries | {args.events} | {count} |")
        print(f"| deliveries per second | {args.events / burst_seconds:.0f} | {args.paced_rate:g} (offered) |")
        print(f"| drain time (s) | {burst_seconds:.2f} | |")
        print(f"| delay p50 (ms) | {ms(percentile(burst_delays, 50))} | {ms(percentile(paced_delays, 50))} |")
        print(f"| delay p95 (ms) | {ms(percentile(burst_delays, 95))} | {ms(percentile(paced_delays, 95))} |")
        print(f"| delay max (ms) | {ms(burst_delays[-1])} | {ms(paced_delays[-1])} |")
        print(f"\nEach webhook-id received exactly once ({total}); writing the burst took {committed - started:.2f} s.")
        return 0
    except BenchError as error:
        print(f"benchmark failed: {error}", file=sys.stderr)
        return 2
    finally:
        receiver.stop()
        if server is not None and server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        if args.keep_server_dir:
            print(f"server folder kept: {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
