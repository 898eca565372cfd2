#!/usr/bin/env python3
"""Routing-graph benchmark for Switchboard.

Starts `switchboard serve --demo` in a fresh temp folder on a free loopback port, seeds
the demo tenant with --objects routing records through the API (30% extensions, 15%
queues of three members each with an overflow, 20% IVRs of three options and a timeout,
10% business hours with a holiday, 25% phone numbers routed to hours or IVRs), then
times `GET /v2/destinations/graph` (every number a root): plain JSON, `?at=` on the
holiday, `?target=` (the reverse question) and `format=dot`, --requests each; prints
p50/p95/max in a Markdown table with the graph's size.

The graph is loaded in a fixed number of queries whatever the tenant's size (see
crates/db/src/routing.rs), so its time grows with the rows read, not with round trips.
Python 3 standard library only; targets loopback only; every loop is bounded.

    cargo build --release && python3 bench/graph.py
    python3 bench/graph.py --short --binary target/debug/switchboard
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port: int):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None):
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self.connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = self.connection.getresponse()
        return response.status, response.read()

    def json(self, method: str, path: str, body: dict | None, token: str) -> dict:
        status, data = self.call(method, path, body, token)
        if status != 200:
            raise RuntimeError(f"{method} {path}: {status} {data[:300]!r}")
        return json.loads(data)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def seed(client: Client, token: str, platform: str, tenant: int, objects: int) -> None:
    counts = {
        "extensions": max(3, objects * 30 // 100),
        "queues": max(1, objects * 15 // 100),
        "ivrs": max(1, objects * 20 // 100),
        "hours": max(1, objects * 10 // 100),
    }
    counts["numbers"] = max(1, objects - sum(counts.values()))
    ext = [client.json("POST", "/v2/admin/extensions/",
                       {"number": str(2000 + i), "name": f"Agent {i}"}, token)["id"]
           for i in range(counts["extensions"])]
    queues = []
    for i in range(counts["queues"]):
        members = [{"id": ext[(i * 3 + k) % len(ext)]} for k in range(3)]
        members = list({m["id"]: m for m in members}.values())
        queues.append(client.json("POST", "/v2/admin/queues/", {
            "name": f"Queue {i}", "number": str(6000 + i), "members": members,
            "timeoutDestination": {"id": ext[i % len(ext)], "destType": "VOICEMAIL"}}, token)["id"])
    ivrs = []
    for i in range(counts["ivrs"]):
        options = [
            {"digit": "1", "destination": {"id": queues[i % len(queues)], "destType": "QUEUE"}},
            {"digit": "2", "destination": {"id": ext[i % len(ext)], "destType": "EXT"}},
        ]
        if ivrs:
            # A submenu: the previous IVR, so menus nest deep.
            options.append({"digit": "9", "destination": {"id": ivrs[-1], "destType": "IVR"}})
        ivrs.append(client.json("POST", "/v2/admin/ivrs/", {
            "name": f"Menu {i}", "number": str(5000 + i), "options": options,
            "timeoutDestination": {"id": ext[i % len(ext)], "destType": "VOICEMAIL"}}, token)["id"])
    branch = client.json("GET", "/v2/admin/branches/", None, token)["records"][0]["id"]
    week = {str(d): [{"from": "09:00", "to": "17:00"}] for d in range(1, 6)}
    hours = []
    for i in range(counts["hours"]):
        hours.append(client.json("POST", "/v2/admin/business-hours/", {
            "name": f"Hours {i}", "branchId": branch, "timezone": "Europe/Berlin", "hours": week,
            "matchDestinations": [{"id": ivrs[i % len(ivrs)], "destType": "IVR"}],
            "notMatchDestinations": [{"id": ext[i % len(ext)], "destType": "VOICEMAIL"}],
            "holidays": [{"name": "Christmas", "date": "2026-12-25"}]}, token)["id"])
    for i in range(counts["numbers"]):
        destination = ({"id": hours[i % len(hours)], "destType": "BUSINESS_HOUR"} if i % 2 == 0
                       else {"id": ivrs[i % len(ivrs)], "destType": "IVR"})
        client.json("POST", "/v2/admin/phone-numbers/", {
            "tenantId": tenant, "number": f"1555{9000000 + i}", "destination": destination}, platform)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--short", action="store_true",
                        help="a small tenant and a few requests: shows the benchmark runs (CI); no figure")
    args = parser.parse_args()
    if args.short:
        args.objects, args.requests = 40, 2
    binary = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="switchboard-graph-bench-")
    port = free_port()
    env = dict(os.environ, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
               SWITCHBOARD_RATE_LIMIT_PER_MINUTE="10000000",
               SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="10000000")
    log_path = os.path.join(folder, "server.log")
    log = open(log_path, "wb")
    server = subprocess.Popen([binary, "serve", "--demo"], cwd=folder, env=env,
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        client = None
        token = None
        for _ in range(600):
            if server.poll() is not None:
                print(f"the server exited with {server.returncode}", file=sys.stderr)
                return 2
            try:
                client = Client(port)
                status, data = client.call("POST", "/v2/authentication/",
                                           {"email": EMAIL, "password": PASSWORD})
                if status == 200:
                    token = json.loads(data)["accessToken"]
                    break
            except OSError:
                pass
            time.sleep(0.1)
        if token is None or client is None:
            print("the server did not start", file=sys.stderr)
            return 2
        # The demo prints the platform admin's password once; numbers are provisioned by it.
        match = re.search(rb"platform admin: +(\S+) / (\S+)", open(log_path, "rb").read())
        if not match:
            print("no platform admin login in the server log", file=sys.stderr)
            return 2
        platform = client.json("POST", "/v2/authentication/", {
            "email": match.group(1).decode(), "password": match.group(2).decode()}, "")["accessToken"]
        me = client.json("GET", "/v2/admin/tenants/", None, token)["records"][0]["id"]
        started = time.perf_counter()
        seed(client, token, platform, me, args.objects)
        seeded = time.perf_counter() - started
        graph = client.json("GET", "/v2/destinations/graph", None, token)
        target = next(n["id"] for n in graph["nodes"] if n["type"] == "extension")
        rows = []
        for name, path in [
            ("JSON, every number a root", "/v2/destinations/graph"),
            ("?at= Christmas 12:00 UTC (holiday)", "/v2/destinations/graph?at=2026-12-25T12:00:00Z"),
            (f"?target={target} (reverse)", f"/v2/destinations/graph?target={target}"),
            ("format=dot", "/v2/destinations/graph?format=dot"),
        ]:
            latencies = []
            for _ in range(args.requests):
                begun = time.perf_counter()
                status, data = client.call("GET", path, None, token)
                latencies.append(time.perf_counter() - begun)
                if status != 200:
                    print(f"{path}: {status} {data[:300]!r}", file=sys.stderr)
                    return 2
            rows.append((name, f"p50 {percentile(latencies, 50) * 1000:.1f} ms, "
                               f"p95 {percentile(latencies, 95) * 1000:.1f} ms, "
                               f"max {max(latencies) * 1000:.1f} ms", f"{len(latencies)} requests"))
        print(f"{args.objects} routing objects seeded in {seeded:.1f} s; the graph has "
              f"{len(graph['nodes'])} nodes, {len(graph['edges'])} edges, "
              f"{len(graph['issues'])} issues, {len(graph['roots'])} roots")
        print()
        print("| request | latency | sample |")
        print("|---|---|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return 0
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
