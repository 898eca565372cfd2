#!/usr/bin/env python3
"""Webhook delivery benchmark for Switchboard.

Measures how fast the delivery worker empties the outbox into a local receiver, and how
long an event waits between being written and being received.

  1. starts `switchboard serve --demo` in a fresh temporary folder (SQLite), with
     SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE=true so it may post to loopback, an ingest token,
     and the rate limits lifted (the ingest token is one bearer token);
  2. starts a receiver on 127.0.0.1 (a threaded http.server answering 204) and registers
     a CALL_ENDED webhook pointing at it through the API;
  3. burst: --senders threads push --events ended calls through `POST /v2/ingest/calls`
     as fast as they are answered — the service's own path: each call is recorded and
     its CALL_ENDED event emitted in one transaction, and the worker is woken — then
     waits until all arrived: deliveries per second = events / (last arrival - start of
     the burst); each delay is from a push's answer to its delivery's arrival;
  4. paced: pushes --paced-rate calls per second for --paced-seconds: the delay from a
     push's answer (its transaction committed) to the delivery's arrival when the worker
     is not saturated;
  5. waits --grace seconds more (default 3 s, twelve idle polls) for a late duplicate.

Every received request is checked: a signature header, and each webhook-id and each call
exactly once, after the grace period. Prints a Markdown table; exits 2 when the
benchmark could not run or a delivery was lost or duplicated.

--short (50 events, 20/s for 1 s, 1 s of grace) checks that the benchmark runs, as CI
does; its figures mean nothing.

Python 3.11 standard library only. Targets loopback addresses only.

    cargo build --release && python3 bench/webhook_delivery.py
    python3 bench/webhook_delivery.py --short --binary target/debug/switchboard
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
import subprocess
import sys
import tempfile
import threading
import time
import uuid

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
# The engine's bearer token for /v2/ingest/… (at least 32 bytes).
INGEST_TOKEN = "bench-ingest-token-" + uuid.uuid4().hex
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
        self.calls: list[int] = []
        self.unsigned = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                now = time.time()
                event = json.loads(body)
                n = int(event["data"]["uniqueId"].rsplit(".", 1)[1])
                with receiver.lock:
                    receiver.ids.append(self.headers.get("webhook-id", ""))
                    receiver.calls.append(n)
                    if not self.headers.get("webhook-signature", "").startswith("v1,"):
                        receiver.unsigned += 1
                    receiver.arrivals.setdefault(n, now)
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


def start_server(binary: str, folder: str, port: int, poll_ms: int) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(
        SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
        SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE="true",
        SWITCHBOARD_WEBHOOK_POLL_INTERVAL_MS=str(poll_ms),
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE="100000000",
        SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="100000000",
        SWITCHBOARD_INGEST_TOKEN=INGEST_TOKEN,
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


def ended_call(tenant: int, n: int) -> dict:
    """Call `n` as the engine reports it once ended: recorded, and CALL_ENDED emitted."""
    return {"tenantId": tenant, "uniqueId": f"1763800000.{n}", "event": "ended",
            "direction": "inbound", "time": "2026-11-22T09:58:00Z",
            "answerTime": "2026-11-22T09:58:05Z", "endTime": "2026-11-22T10:00:00Z",
            "callerIdNum": "5551230000", "dialedNum": "5559870000"}


def push(port: int, tenant: int, numbers: list[int], conn=None) -> dict[int, float]:
    """Pushes each call of `numbers` through the ingest endpoint, answering when each
    push was answered (its transaction committed)."""
    answered = {}
    for n in numbers:
        result = call(port, "POST", "/v2/ingest/calls", ended_call(tenant, n), INGEST_TOKEN, conn)
        if not result.get("recorded", True):
            raise BenchError(f"call {n} was not recorded: {result}")
        answered[n] = time.time()
    return answered


def push_burst(port: int, tenant: int, numbers: range, senders: int) -> dict[int, float]:
    """Pushes `numbers` from `senders` threads, each on its own keep-alive connection."""
    answered: dict[int, float] = {}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def sender(share: list[int]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            done = push(port, tenant, share, conn)
            with lock:
                answered.update(done)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            conn.close()

    threads = [threading.Thread(target=sender, args=(list(numbers)[i::senders],)) for i in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise BenchError(f"pushing failed: {errors[0]}")
    return answered


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
    parser.add_argument("--senders", type=int, default=8, help="threads pushing the burst")
    parser.add_argument("--grace", type=float, default=3.0, help="seconds to wait for a late duplicate")
    parser.add_argument("--short", action="store_true", help="50 events, 20/s for 1 s: does it run (CI)")
    parser.add_argument("--keep-server-dir", action="store_true")
    args = parser.parse_args()
    if args.short:
        args.events, args.paced_rate, args.paced_seconds, args.grace = 50, 20.0, 1.0, 1.0

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

        # Burst: --events calls pushed as fast as they are answered.
        started = time.time()
        burst_written = push_burst(port, tenant, range(args.events), args.senders)
        pushed = time.time()
        wait_for(receiver, args.events)
        with receiver.lock:
            last = max(receiver.arrivals.values())
        burst_seconds = last - started
        burst_delays = delays(receiver, burst_written)

        # Paced: one call at a time at a steady rate.
        paced_written: dict[int, float] = {}
        count = int(args.paced_rate * args.paced_seconds)
        interval = 1.0 / args.paced_rate
        next_at = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for i in range(count):
            n = args.events + i
            paced_written.update(push(port, tenant, [n], conn))
            next_at += interval
            time.sleep(max(0.0, next_at - time.time()))
        conn.close()
        wait_for(receiver, args.events + count)
        paced_delays = delays(receiver, paced_written)

        # A late duplicate (a second sending) shows within the grace period.
        time.sleep(args.grace)
        total = args.events + count
        with receiver.lock:
            ids = list(receiver.ids)
            calls = list(receiver.calls)
            unsigned = receiver.unsigned
        if len(ids) != total or len(set(ids)) != total or len(set(calls)) != total:
            raise BenchError(f"{len(ids)} requests, {len(set(ids))} distinct ids, "
                             f"{len(set(calls))} distinct calls, {total} events")
        if unsigned:
            raise BenchError(f"{unsigned} requests without a signature")

        ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
        print(f"| metric | burst ({args.events} ingested calls, {args.senders} senders) | paced ({args.paced_rate:g}/s for {args.paced_seconds:g} s) |")
        print("|---|---:|---:|")
        print(f"| deliveries | {args.events} | {count} |")
        print(f"| deliveries per second | {args.events / burst_seconds:.0f} | {args.paced_rate:g} (offered) |")
        print(f"| drain time (s) | {burst_seconds:.2f} | |")
        print(f"| delay p50 (ms) | {ms(percentile(burst_delays, 50))} | {ms(percentile(paced_delays, 50))} |")
        print(f"| delay p95 (ms) | {ms(percentile(burst_delays, 95))} | {ms(percentile(paced_delays, 95))} |")
        print(f"| delay max (ms) | {ms(burst_delays[-1])} | {ms(paced_delays[-1])} |")
        print(f"\nEach webhook-id and each call received exactly once ({total}) after a "
              f"{args.grace:g} s grace period; pushing the burst took {pushed - started:.2f} s.")
        if args.short:
            print("short mode: the figures above only show that the benchmark runs")
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
