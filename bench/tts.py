#!/usr/bin/env python3
"""Text-to-speech benchmark for Switchboard.

Starts `switchboard serve --demo` in a fresh temp folder on a free loopback port, logs in
as the demo tenant admin, and measures `POST /v2/text-to-speech/voices/en-us/tts`:

  1. throughput: --workers clients each render --throughput-requests prompts of about
     1,000 characters back to back; characters per second = characters rendered / wall
     time (and the same with one client);
  2. latency: 4 clients each send --latency-requests prompts of 200 characters back to
     back; p50/p95/max of the answers.

Prints a Markdown table. Python 3 standard library only; targets loopback only; every
loop is bounded by its count.

    cargo build --release && python3 bench/tts.py
    python3 bench/tts.py --binary target/debug/switchboard --latency-requests 10
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

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
TTS_PATH = "/v2/text-to-speech/voices/en-us/tts"
SENTENCE = (
    "Thank you for calling Riverside Pharmacy. Our opening hours are nine to six on "
    "weekdays. Please stay on the line and a member of our team will be with you shortly. "
)


def prompt(chars: int) -> str:
    text = (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]
    return text[:-1] + "."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port: int, method: str, path: str, body: dict, token: str | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    connection.request(method, path, json.dumps(body), headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def run_clients(port: int, token: str, clients: int, count: int, text: str):
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(clients)

    def client() -> None:
        barrier.wait()
        for _ in range(count):
            started = time.perf_counter()
            status, data = request(port, "POST", TTS_PATH, {"text": text}, token)
            elapsed = time.perf_counter() - started
            with lock:
                if status == 200 and data[:4] == b"RIFF":
                    latencies.append(elapsed)
                else:
                    failures.append(f"{status}: {data[:200]!r}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started, latencies, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--throughput-requests", type=int, default=5)
    parser.add_argument("--latency-requests", type=int, default=25)
    parser.add_argument("--short", action="store_true",
                        help="a few prompts only: shows the benchmark runs (CI); no figure")
    args = parser.parse_args()
    if args.short:
        args.throughput_requests, args.latency_requests = 1, 4
    binary = os.path.abspath(args.binary)
    folder = tempfile.mkdtemp(prefix="switchboard-tts-bench-")
    port = free_port()
    env = dict(os.environ, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}",
               SWITCHBOARD_TTS_QUEUE="64")
    log = open(os.path.join(folder, "server.log"), "wb")
    server = subprocess.Popen([binary, "serve", "--demo"], cwd=folder, env=env,
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        token = None
        for _ in range(600):
            if server.poll() is not None:
                print(f"the server exited with {server.returncode}", file=sys.stderr)
                return 2
            try:
                status, data = request(port, "POST", "/v2/authentication/",
                                       {"email": EMAIL, "password": PASSWORD})
                if status == 200:
                    token = json.loads(data)["accessToken"]
                    break
            except OSError:
                pass
            time.sleep(0.1)
        if token is None:
            print("the server did not start", file=sys.stderr)
            return 2
        # Warm up (the engine's first start reads its data files).
        run_clients(port, token, 1, 2, prompt(200))
        rows = []
        long_text = prompt(1000)
        for clients in (1, args.workers):
            wall, latencies, failures = run_clients(
                port, token, clients, args.throughput_requests, long_text)
            if failures:
                print("failures:", failures[:3], file=sys.stderr)
                return 2
            rows.append((f"throughput, {clients} client(s), 1,000-character prompts",
                         f"{len(latencies) * len(long_text) / wall:,.0f} characters/s",
                         f"{len(latencies)} prompts in {wall:.1f} s"))
        wall, latencies, failures = run_clients(port, token, 4, args.latency_requests, prompt(200))
        if failures:
            print("failures:", failures[:3], file=sys.stderr)
            return 2
        rows.append(("200-character prompt, 4 concurrent clients",
                     f"p50 {percentile(latencies, 50) * 1000:.0f} ms, "
                     f"p95 {percentile(latencies, 95) * 1000:.0f} ms, "
                     f"max {max(latencies) * 1000:.0f} ms",
                     f"{len(latencies)} prompts in {wall:.1f} s"))
        print("| measure | result | sample |")
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
