#!/usr/bin/env python3
"""Login-burst benchmark for Switchboard.

Requirement: a burst of concurrent logins (argon2id, 19 MiB, t=2, hashed on a capped
blocking pool) must not raise the latency of other requests by more than 2x.

Per round:
  1. baseline: a few client threads (--clients) call GET /v2/admin/extensions/ on
     keep-alive connections for --duration seconds, each paced to one request every
     --interval-ms (or in a closed loop with --interval-ms 0); latencies are recorded;
  2. burst: the same client threads run while --logins threads, each on its own
     connection and all released at once by a barrier, log in with the right password —
     each as another user of the demo tenant (created before the measurement) and from
     another client address (`X-Forwarded-For`, the server trusting the script as its
     proxy): the lockout counts concurrent sign-ins to one account, or from one address,
     as guesses, as it must.
     Only the probe requests started between the release and the last login's answer
     count as "burst" samples.

Prints a Markdown table (p50/p95/p99/max, login p50/max, burst wall time, ratios) and
exits 1 when burst-p50 / baseline-p50 exceeds --max-ratio (default 2.0), 2 when the
benchmark itself could not run properly (server did not start, requests failed).

The server it starts has its rate limits lifted (the probes alone send 200 requests a
second on one token); one given with --url must be started with them lifted too
(SWITCHBOARD_RATE_LIMIT_PER_MINUTE and …_PER_ADDRESS) and SWITCHBOARD_TRUSTED_PROXIES
naming the script's address, or the run stops with an error.
--short (5 logins, 2 clients, 1 s) checks that the benchmark runs, as CI does; its
figures mean nothing and no verdict is applied.

Python 3.11 standard library only. Targets loopback addresses only.

    cargo build --release && python3 bench/login_burst.py
    python3 bench/login_burst.py --url http://127.0.0.1:8080 --rounds 3
    python3 bench/login_burst.py --short --binary target/debug/switchboard
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
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
import urllib.parse
from dataclasses import dataclass, field

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
LOGIN_PATH = "/v2/authentication/"
PROBE_PATH = "/v2/admin/extensions/"
HEALTH_PATH = "/healthz"

# Hard bounds so that no loop can run away, whatever the options say.
MAX_PROBE_REQUESTS_PER_THREAD = 1_000_000
HTTP_TIMEOUT_S = 60.0
STARTUP_TIMEOUT_S = 60.0
BURST_TIMEOUT_S = 600.0
BURST_WARMUP_S = 0.5


class BenchError(Exception):
    """The benchmark could not run (as opposed to: it ran and the figures are bad)."""


# --------------------------------------------------------------------------- helpers


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an already sorted list (NaN when empty)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def fmt_ms(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def fmt_ratio(r: float) -> str:
    return "n/a" if math.isnan(r) or math.isinf(r) else f"{r:.2f}x"


def ratio(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or b <= 0:
        return math.nan
    return a / b


def require_loopback(host: str) -> None:
    """Refuses any target that does not resolve only to loopback addresses."""
    try:
        infos = socket.getaddrinfo(host, None)
    except socket.gaierror as e:
        raise BenchError(f"cannot resolve {host!r}: {e}") from e
    addresses = {info[4][0] for info in infos}
    for address in addresses:
        if not ipaddress.ip_address(address.split("%")[0]).is_loopback:
            raise BenchError(
                f"{host!r} resolves to {address}, not a loopback address; "
                "this benchmark only targets the local machine"
            )


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One keep-alive HTTP/1.1 connection; reconnects after a failure."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.conn: http.client.HTTPConnection | None = None

    def connect(self) -> None:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=HTTP_TIMEOUT_S)
            self.conn.connect()
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        try:
            self.connect()
            assert self.conn is not None
            self.conn.request(method, path, body=body, headers=headers or {})
            response = self.conn.getresponse()
            data = response.read()
            if response.will_close:
                self.close()
            return response.status, data
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            finally:
                self.conn = None


def login(client: Client, email: str = EMAIL,
          forwarded_for: str | None = None) -> tuple[int, bytes]:
    body = json.dumps({"email": email, "password": PASSWORD}).encode()
    headers = {"Content-Type": "application/json"}
    if forwarded_for:
        headers["X-Forwarded-For"] = forwarded_for
    return client.request("POST", LOGIN_PATH, body=body, headers=headers)


def burst_user(i: int) -> str:
    """The account the burst's login `i` signs in to."""
    return f"burst-{i}@demo.switchboard.test"


def burst_address(i: int) -> str:
    """The client address the burst's login `i` comes from (through the trusted proxy)."""
    return f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256 + 1}"


def create_burst_users(host: str, port: int, token: str, count: int) -> None:
    """One user of the demo tenant per login of the burst (created before measuring)."""
    client = Client(host, port)
    try:
        for i in range(count):
            body = json.dumps({"email": burst_user(i), "password": PASSWORD,
                               "userRole": 5}).encode()
            status, data = client.request(
                "POST", "/v2/admin/users/", body=body,
                headers={"Content-Type": "application/json",
                         "Authorization": f"Bearer {token}"})
            if status not in (200, 201, 409):
                raise BenchError(f"creating {burst_user(i)} answered {status}: {data[:300]!r}")
    finally:
        client.close()


# --------------------------------------------------------------------------- server


# The environment that lifts the rate limits (per token and per address).
RATE_LIMITS_LIFTED = {
    "SWITCHBOARD_RATE_LIMIT_PER_MINUTE": "100000000",
    "SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS": "100000000",
    # The script is the burst's proxy: each login names its own client address.
    "SWITCHBOARD_TRUSTED_PROXIES": "127.0.0.1/32",
}


class Server:
    """Starts `switchboard serve --demo` in a fresh temp folder on a free loopback port."""

    def __init__(self, binary: str, keep_dir: bool):
        self.binary = binary
        self.keep_dir = keep_dir
        self.dir = tempfile.mkdtemp(prefix="switchboard-bench-")
        self.port = free_loopback_port()
        self.log_path = os.path.join(self.dir, "server.log")
        self.proc: subprocess.Popen | None = None
        self.log_file = None

    def start(self) -> None:
        env = dict(os.environ)
        env["SWITCHBOARD_LISTEN"] = f"127.0.0.1:{self.port}"
        # The probes send 200 requests a second on one token, far past the per-token rate
        # limit (1,200 a minute): lifted, as the benchmark measures the hashing, not the
        # limiter (a 429 would end the run with verdict ERROR).
        env.update(RATE_LIMITS_LIFTED)
        self.log_file = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [self.binary, "serve", "--demo"], cwd=self.dir, env=env,
            stdin=subprocess.DEVNULL, stdout=self.log_file, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"server exited with {self.proc.returncode}:\n{self.tail()}")
            client = Client("127.0.0.1", self.port)
            try:
                status, _ = client.request("GET", HEALTH_PATH)
                if status == 200:
                    return
            except OSError:
                pass
            finally:
                client.close()
            time.sleep(0.1)
        raise BenchError(f"server not healthy after {STARTUP_TIMEOUT_S:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode(errors="replace")
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.log_file is not None:
            self.log_file.close()
        if self.keep_dir:
            print(f"(server folder kept: {self.dir})", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------- measurement


@dataclass
class Sample:
    start: float
    end: float
    ok: bool

    @property
    def latency(self) -> float:
        return self.end - self.start


@dataclass
class Stats:
    count: int = 0
    errors: int = 0
    p50: float = math.nan
    p95: float = math.nan
    p99: float = math.nan
    max: float = math.nan
    rate: float = math.nan  # requests per second

    @staticmethod
    def of(samples: list[Sample], window: float) -> "Stats":
        ok = sorted(s.latency for s in samples if s.ok)
        return Stats(
            count=len(samples),
            errors=sum(1 for s in samples if not s.ok),
            p50=percentile(ok, 50), p95=percentile(ok, 95), p99=percentile(ok, 99),
            max=ok[-1] if ok else math.nan,
            rate=len(samples) / window if window > 0 else math.nan,
        )


class Probes:
    """`threads` closed-loop clients calling the probe endpoint until stopped."""

    def __init__(self, host: str, port: int, token: str, threads: int, max_requests: int,
                 interval: float):
        self.host, self.port, self.token = host, port, token
        self.interval = interval  # seconds between request starts per thread; 0 = closed loop
        self.n = threads
        self.stop_event = threading.Event()
        self.max_requests = min(max_requests, MAX_PROBE_REQUESTS_PER_THREAD)
        self.samples: list[list[Sample]] = [[] for _ in range(threads)]
        self.threads = [threading.Thread(target=self._run, args=(i,), daemon=True)
                        for i in range(threads)]

    def _run(self, index: int) -> None:
        client = Client(self.host, self.port)
        headers = {"Authorization": f"Bearer {self.token}"}
        out = self.samples[index]
        # Stagger the paced threads so that their requests do not all start together.
        next_start = time.perf_counter() + self.interval * index / self.n
        try:
            for _ in range(self.max_requests):
                if self.stop_event.is_set():
                    break
                if self.interval > 0:
                    delay = next_start - time.perf_counter()
                    if delay > 0 and self.stop_event.wait(delay):
                        break
                    # Behind schedule (a slow answer): go on from now, no catch-up volley.
                    next_start = max(next_start, time.perf_counter()) + self.interval
                start = time.perf_counter()
                try:
                    status, _ = client.request("GET", PROBE_PATH, headers=headers)
                    ok = status == 200
                except (OSError, http.client.HTTPException):
                    ok = False
                out.append(Sample(start, time.perf_counter(), ok))
        finally:
            client.close()

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def stop(self) -> list[Sample]:
        self.stop_event.set()
        for t in self.threads:
            t.join(timeout=HTTP_TIMEOUT_S + 5)
        return [s for per_thread in self.samples for s in per_thread]


def run_baseline(host: str, port: int, token: str, args) -> tuple[Stats, list[Sample]]:
    probes = Probes(host, port, token, args.clients, args.max_requests,
                    args.interval_ms / 1000.0)
    probes.start()
    time.sleep(min(BURST_WARMUP_S, args.duration))
    t0 = time.perf_counter()
    time.sleep(args.duration)
    t1 = time.perf_counter()
    samples = [s for s in probes.stop() if t0 <= s.start < t1]
    return Stats.of(samples, t1 - t0), samples


@dataclass
class BurstResult:
    probe: Stats
    probe_samples: list[Sample]
    login: Stats
    login_samples: list[Sample]
    wall: float
    login_failures: list[str] = field(default_factory=list)


def run_burst(host: str, port: int, token: str, args) -> BurstResult:
    barrier = threading.Barrier(args.logins + 1)
    login_samples: list[Sample | None] = [None] * args.logins
    failures: list[str] = []
    failures_lock = threading.Lock()

    def one_login(i: int) -> None:
        client = Client(host, port)
        try:
            try:
                client.connect()  # connect before the release: the burst is the logins only
            except OSError as e:
                with failures_lock:
                    failures.append(f"login {i}: connect: {e}")
            try:
                barrier.wait(timeout=BURST_TIMEOUT_S)
            except threading.BrokenBarrierError:
                return
            start = time.perf_counter()
            try:
                # Each login is another user from another address, as in a real burst
                # (the start of a working day): one account, or one address, signing in
                # 50 times at once is what the lockout counts as guessing.
                status, data = login(client, burst_user(i), burst_address(i))
                ok = status == 200 and "accessToken" in json.loads(data or b"{}")
                if not ok:
                    with failures_lock:
                        failures.append(f"login {i}: HTTP {status}: {data[:200]!r}")
            except (OSError, http.client.HTTPException, ValueError) as e:
                ok = False
                with failures_lock:
                    failures.append(f"login {i}: {type(e).__name__}: {e}")
            login_samples[i] = Sample(start, time.perf_counter(), ok)
        finally:
            client.close()

    login_threads = [threading.Thread(target=one_login, args=(i,), daemon=True)
                     for i in range(args.logins)]
    for t in login_threads:
        t.start()

    probes = Probes(host, port, token, args.clients, args.max_requests,
                    args.interval_ms / 1000.0)
    probes.start()
    time.sleep(BURST_WARMUP_S)  # probes running steadily before the release
    try:
        barrier.wait(timeout=BURST_TIMEOUT_S)
    except threading.BrokenBarrierError as e:
        probes.stop()
        raise BenchError("login threads never reached the barrier") from e
    t0 = time.perf_counter()
    deadline = time.monotonic() + BURST_TIMEOUT_S
    for t in login_threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()))
    t_joined = time.perf_counter()
    all_probes = probes.stop()

    done = [s for s in login_samples if s is not None]
    if len(done) < args.logins:
        failures.append(f"{args.logins - len(done)} logins did not finish")
    t1 = max((s.end for s in done), default=t_joined)
    window = [s for s in all_probes if t0 <= s.start < t1]
    return BurstResult(
        probe=Stats.of(window, t1 - t0), probe_samples=window,
        login=Stats.of(done, t1 - t0), login_samples=done,
        wall=t1 - t0, login_failures=failures,
    )


# --------------------------------------------------------------------------- report


def table(base: Stats, burst: BurstResult, max_ratio: float, logins: int) -> str:
    r50, r95, r99 = (ratio(burst.probe.p50, base.p50), ratio(burst.probe.p95, base.p95),
                     ratio(burst.probe.p99, base.p99))
    rows = [
        ("probe requests (errors)", f"{base.count} ({base.errors})",
         f"{burst.probe.count} ({burst.probe.errors})", ""),
        ("probe throughput (req/s)", f"{base.rate:.0f}", f"{burst.probe.rate:.0f}",
         fmt_ratio(ratio(burst.probe.rate, base.rate))),
        ("probe p50 (ms)", fmt_ms(base.p50), fmt_ms(burst.probe.p50), fmt_ratio(r50)),
        ("probe p95 (ms)", fmt_ms(base.p95), fmt_ms(burst.probe.p95), fmt_ratio(r95)),
        ("probe p99 (ms)", fmt_ms(base.p99), fmt_ms(burst.probe.p99), fmt_ratio(r99)),
        ("probe max (ms)", fmt_ms(base.max), fmt_ms(burst.probe.max),
         fmt_ratio(ratio(burst.probe.max, base.max))),
        (f"login p50 (ms), {logins} concurrent", "", fmt_ms(burst.login.p50), ""),
        (f"login max (ms), {logins} concurrent", "", fmt_ms(burst.login.max), ""),
        ("burst wall time (s)", "", f"{burst.wall:.2f}", ""),
    ]
    lines = ["| metric | baseline | burst | burst/baseline |", "|---|---:|---:|---:|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def merge_burst(results: list[BurstResult]) -> BurstResult:
    probe = [s for r in results for s in r.probe_samples]
    logins = [s for r in results for s in r.login_samples]
    wall = sum(r.wall for r in results)
    return BurstResult(
        probe=Stats.of(probe, wall), probe_samples=probe,
        login=Stats.of(logins, wall), login_samples=logins,
        wall=max(r.wall for r in results),
        login_failures=[f for r in results for f in r.login_failures],
    )


# --------------------------------------------------------------------------- main


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="target/release/switchboard",
                   help="switchboard binary to start (default: %(default)s)")
    p.add_argument("--url", help="target an already running server (loopback only) "
                   "seeded with the demo data, instead of starting one")
    p.add_argument("--logins", type=int, default=50,
                   help="concurrent logins in the burst (default: %(default)s)")
    p.add_argument("--clients", type=int, default=4,
                   help="concurrent probe client threads (default: %(default)s)")
    p.add_argument("--interval-ms", type=float, default=20.0,
                   help="each probe client starts a request every this many ms (paced, "
                   "default: %(default)s, i.e. 4 clients = 200 req/s); 0 = closed loop, "
                   "as fast as answers come (saturates a small machine)")
    p.add_argument("--duration", type=float, default=5.0,
                   help="baseline measurement seconds per round (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=1,
                   help="baseline+burst rounds; the verdict uses all rounds' samples "
                   "pooled (default: %(default)s)")
    p.add_argument("--max-requests", type=int, default=200_000,
                   help="cap on probe requests per client thread per phase "
                   "(default: %(default)s)")
    p.add_argument("--max-ratio", type=float, default=2.0,
                   help="fail when burst-p50 / baseline-p50 exceeds this (default: %(default)s)")
    p.add_argument("--short", action="store_true",
                   help="5 logins, 2 clients, 1 s: does the benchmark run (CI); no verdict applied")
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    p.add_argument("--keep-server-dir", action="store_true",
                   help="keep the temp folder of the started server (its log is server.log)")
    args = p.parse_args(argv)
    if args.short:
        args.logins, args.clients, args.duration, args.rounds = 5, 2, 1.0, 1
    if not 1 <= args.logins <= 1000:
        p.error("--logins must be between 1 and 1000")
    if not 1 <= args.clients <= 64:
        p.error("--clients must be between 1 and 64")
    if not 0.5 <= args.duration <= 600:
        p.error("--duration must be between 0.5 and 600 seconds")
    if not 1 <= args.rounds <= 100:
        p.error("--rounds must be between 1 and 100")
    if not 0 <= args.interval_ms <= 10_000:
        p.error("--interval-ms must be between 0 and 10000")
    if args.max_requests < 1:
        p.error("--max-requests must be positive")
    return args


def stats_dict(s: Stats) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in s.__dict__.items()}


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    # Shorter GIL switch interval: keeps the Python client's own scheduling from
    # dominating sub-millisecond latencies.
    sys.setswitchinterval(0.0005)

    server: Server | None = None
    try:
        if args.url:
            parsed = urllib.parse.urlsplit(args.url)
            if parsed.scheme != "http" or not parsed.hostname:
                raise BenchError("--url must look like http://127.0.0.1:PORT")
            host, port = parsed.hostname, parsed.port or 80
            require_loopback(host)
        else:
            binary = os.path.abspath(args.binary)
            if not os.path.isfile(binary):
                script_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
                alt = os.path.join(script_root, args.binary)
                binary = alt if os.path.isfile(alt) else binary
            if not os.access(binary, os.X_OK):
                raise BenchError(f"no executable at {binary}; run `cargo build --release` "
                                 "or pass --binary / --url")
            server = Server(binary, args.keep_server_dir)
            print(f"starting {binary} serve --demo on 127.0.0.1:{server.port} "
                  f"in {server.dir}", file=sys.stderr)
            server.start()
            host, port = "127.0.0.1", server.port

        client = Client(host, port)
        status, data = login(client)
        client.close()
        if status != 200:
            raise BenchError(f"initial login answered {status}: {data[:300]!r}")
        token = json.loads(data)["accessToken"]
        create_burst_users(host, port, token, args.logins)

        # Warm up the probe path (connections, database pool, caches).
        warm = Client(host, port)
        for _ in range(50):
            status, data = warm.request("GET", PROBE_PATH,
                                        headers={"Authorization": f"Bearer {token}"})
            if status == 429:
                limits = " ".join(f"{k}={v}" for k, v in RATE_LIMITS_LIFTED.items())
                raise BenchError(f"{PROBE_PATH} answered 429: start the server with {limits}")
            if status != 200:
                raise BenchError(f"{PROBE_PATH} answered {status}: {data[:300]!r}")
        warm.close()

        print(f"cpus: {os.cpu_count()}, probe clients: {args.clients}, logins: {args.logins}, "
              f"interval: {args.interval_ms:g} ms, baseline: {args.duration:g} s, "
              f"rounds: {args.rounds}", file=sys.stderr)
        bases: list[list[Sample]] = []
        bursts: list[BurstResult] = []
        base_windows = 0.0
        for r in range(1, args.rounds + 1):
            base, base_samples = run_baseline(host, port, token, args)
            burst = run_burst(host, port, token, args)
            bases.append(base_samples)
            base_windows += args.duration
            bursts.append(burst)
            if args.rounds > 1:
                print(f"\n### round {r}\n\n{table(base, burst, args.max_ratio, args.logins)}")

        base_all = Stats.of([s for b in bases for s in b], base_windows)
        burst_all = merge_burst(bursts)
        title = "all rounds pooled" if args.rounds > 1 else "login burst"
        pacing = (f"one request per {args.interval_ms:g} ms each" if args.interval_ms > 0
                  else "closed loop")
        print(f"\n### {title}: GET {PROBE_PATH} latency, {args.clients} clients "
              f"({pacing}), {args.logins} concurrent logins\n")
        print(table(base_all, burst_all, args.max_ratio, args.logins))

        r50 = ratio(burst_all.probe.p50, base_all.p50)
        r95 = ratio(burst_all.probe.p95, base_all.p95)
        problems = []
        if burst_all.login_failures:
            problems.append(f"{len(burst_all.login_failures)} login failures, first: "
                            f"{burst_all.login_failures[0]}")
        if base_all.errors or burst_all.probe.errors:
            problems.append(f"{base_all.errors + burst_all.probe.errors} probe requests failed")
        if burst_all.probe.count == 0:
            problems.append("no probe request fell inside the burst window")

        if args.json:
            with open(args.json, "w") as f:
                json.dump({
                    "baseline": stats_dict(base_all),
                    "burst": stats_dict(burst_all.probe),
                    "login": stats_dict(burst_all.login),
                    "burst_wall_s": burst_all.wall,
                    "ratio_p50": r50, "ratio_p95": r95,
                    "args": vars(args), "problems": problems,
                }, f, indent=2)

        print(f"\nratio p50: {fmt_ratio(r50)}, ratio p95: {fmt_ratio(r95)} "
              f"(limit for p50: {args.max_ratio:g}x)")
        if problems:
            print("verdict: ERROR - " + "; ".join(problems))
            return 2
        if args.short:
            print("short mode: the figures above only show that the benchmark runs; no verdict applied")
            return 0
        if math.isnan(r50) or r50 > args.max_ratio:
            print(f"verdict: FAIL - the login burst raised p50 latency by {fmt_ratio(r50)}")
            return 1
        print(f"verdict: PASS - p50 within {args.max_ratio:g}x during the login burst")
        return 0
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
