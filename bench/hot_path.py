#!/usr/bin/env python3
"""The authenticated hot path against two references (issues 17 and 32).

For each backend (SQLite, PostgreSQL) the script starts `switchboard serve --demo` on a
fresh database and, on the same database with the same pool size, two references:

- `bench/hot_path_bare.rs`, the **bare** reference: axum, sqlx and jsonwebtoken only, no
  `switchboard_*` crate — the HS256 check and the SQL a careful person would write by
  hand for the same JSON answer. It shares no code with the service, so the service/bare
  ratio measures every layer of the service. The verdict uses it.
- `bench/hot_path_reference.rs`, the **data-layer** reference: the service's own token
  check and data layer (`switchboard_db::…::get`) with no middleware. The service/data-layer
  ratio is what the HTTP layer costs; data-layer/bare is what the data layer costs.

It logs in as the demo tenant admin, finds the demo paging group (3 members), an extension
and the business hours (destinations and a holiday), checks that the three servers answer
each GET with the same JSON, then loads each GET on each server with `wrk` (-t2 -c32 by
default), the servers alternated round by round, and prints a Markdown table: requests/s
and p99 of each, the ratios (goal: service/bare throughput >= 0.8, p99 <= 1.5x) and the
CPU time each server spent per request (from /proc, over the same runs).

    cargo build --release --bin switchboard --example hot_path_reference --example hot_path_bare
    python3 bench/hot_path.py                        # 3 rounds of 5 s per GET and server
    python3 bench/hot_path.py --profile 10           # and perf profiles of service and bare
    python3 bench/hot_path.py --short --binary target/debug/switchboard \
        --reference target/debug/examples/hot_path_reference \
        --bare target/debug/examples/hot_path_bare     # CI: does it run

`--short` runs 1 round of 1 s with 4 connections: its figures mean nothing and no verdict
is applied. Needs `wrk` (installed with apt-get when missing and allowed) and, for
PostgreSQL, `psql` and a server at `--postgres` (an admin URL; a fresh database is created
and dropped). Rate limits are lifted on the service: the load is far past the per-token
limit, and the limiter's own cost is measured by the service's figures anyway.

Exit status: 0 pass (or --short), 1 a ratio misses its goal, 2 the benchmark could not run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"
JWT_SECRET = "hot-path-benchmark-signing-key-of-at-least-32-bytes"
LIFTED = {
    "SWITCHBOARD_RATE_LIMIT_PER_MINUTE": "1000000000",
    "SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS": "1000000000",
}
THROUGHPUT_GOAL = 0.8
P99_GOAL = 1.5


class BenchError(Exception):
    pass


def repo_path(path: str) -> str:
    if os.path.exists(path):
        return os.path.abspath(path)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", path)
    return os.path.abspath(here)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        # A fresh machine's package lists may be empty or stale: update them first.
        for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "wrk"]):
            subprocess.run(command, check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = shutil.which("wrk")
        if found:
            return found
    raise BenchError("wrk is needed (apt-get install wrk)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port: int, method: str, path: str, token: str | None = None,
            body: dict | None = None) -> tuple[int, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        response = conn.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data) if data else None
        except ValueError:
            return response.status, None
    finally:
        conn.close()


class Process:
    """A server process on a free loopback port, stopped with SIGTERM."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], folder: str):
        self.name = name
        self.port = free_port()
        env = dict(env, SWITCHBOARD_LISTEN=f"127.0.0.1:{self.port}")
        self.log_path = os.path.join(folder, f"{name}.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(argv, env=env, cwd=folder, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BenchError(f"{name} exited with {self.process.returncode}:\n{self.tail()}")
            try:
                if request(self.port, "GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise BenchError(f"{name} not healthy after 90 s:\n{self.tail()}")

    def tail(self) -> str:
        with open(self.log_path, "rb") as f:
            return b"\n".join(f.read().splitlines()[-20:]).decode(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def first_id(port: int, token: str, path: str) -> int:
    status, body = request(port, "GET", path, token)
    if status != 200 or not isinstance(body, dict) or not body.get("records"):
        raise BenchError(f"GET {path} answered {status}: {body}")
    return int(body["records"][0]["id"])


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process `pid` has used so far, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        # The fields after the command's name (which may hold spaces) in parentheses.
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(binary: str, server: "Process", path: str, token: str, threads: int, connections: int,
        seconds: float) -> tuple[float, float, float]:
    """Requests per second, p99 in milliseconds and the server's CPU microseconds per
    request of one wrk run; every answer must be 200."""
    # wrk counts only non-2xx/3xx answers as errors: a 401 or 429 must end the run.
    script = os.path.join(tempfile.gettempdir(), f"hot-path-{os.getpid()}.lua")
    with open(script, "w") as f:
        f.write('wrk.headers["Authorization"] = "Bearer %s"\n' % token)
    cpu_before = cpu_seconds(server.process.pid)
    out = subprocess.run(
        [binary, f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", "-s", script,
         f"http://127.0.0.1:{server.port}{path}"],
        capture_output=True, text=True, check=False).stdout
    cpu = cpu_seconds(server.process.pid) - cpu_before
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    count = re.search(r"^\s*(\d+) requests in", out, re.M)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    if not rate or not p99 or not count or int(count.group(1)) == 0:
        raise BenchError(f"wrk gave no figures for {path}:\n{out}")
    if "Non-2xx" in out:
        raise BenchError(f"non-2xx answers for {path}:\n{out}")
    return (float(rate.group(1)), float(p99.group(1)) * UNITS[p99.group(2)],
            cpu * 1e6 / int(count.group(1)))


def profile(server: Process, path: str, token: str, args: argparse.Namespace,
            wrk_binary: str, folder: str) -> str:
    """A server's hottest functions (self time, `perf record -g` at 999 Hz) while wrk
    loads `path` for `--profile` seconds: the top of `perf report`'s flat profile."""
    if not shutil.which("perf"):
        raise BenchError("--profile needs perf (apt-get install linux-perf)")
    data = os.path.join(folder, f"{server.name}.perf.data")
    recorder = subprocess.Popen(
        ["perf", "record", "-F", "999", "-g", "-o", data, "-p", str(server.process.pid),
         "--", "sleep", str(max(1, round(args.profile)))],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wrk(wrk_binary, server, path, token, args.threads, args.connections, args.profile)
    recorder.wait()
    report = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "symbol",
         "--percent-limit", "1", "-g", "none"],
        capture_output=True, text=True, check=False).stdout
    lines = [re.sub(r"(\s+-)*\s*$", "", line) for line in report.splitlines()
             if line.strip() and not line.startswith("#")]
    return "\n".join(lines[:args.profile_top])


profiles: list[tuple[str, str, str]] = []

# The GETs `--profile-get` names, in the order of `run_backend`'s paths.
PROFILED = ("paging-group", "extension", "business-hours")


def run_backend(backend: str, args: argparse.Namespace, wrk_binary: str) -> list[dict]:
    folder = tempfile.mkdtemp(prefix="switchboard-hot-path-")
    pg_name = None
    processes: list[Process] = []
    try:
        if backend == "postgres":
            pg_name = f"switchboard_hot_path_{uuid.uuid4().hex[:12]}"
            subprocess.run(["psql", args.postgres, "-qc", f"CREATE DATABASE {pg_name}"],
                           check=True, stdout=subprocess.DEVNULL)
            url = f"{args.postgres.rsplit('/', 1)[0]}/{pg_name}"
        else:
            url = f"sqlite://{folder}/bench.db"
        env = dict(os.environ, SWITCHBOARD_DATABASE_URL=url, SWITCHBOARD_JWT_SECRET=JWT_SECRET,
                   SWITCHBOARD_DATA_DIR=os.path.join(folder, "data"),
                   SWITCHBOARD_DB_MAX_CONNECTIONS=str(args.pool), **LIFTED)
        service = Process("service", [repo_path(args.binary), "serve", "--demo"], env, folder)
        processes.append(service)
        reference = Process("reference", [repo_path(args.reference)], env, folder)
        processes.append(reference)
        bare = Process("bare", [repo_path(args.bare)], env, folder)
        processes.append(bare)
        servers = (service, bare, reference)
        status, login = request(service.port, "POST", "/v2/authentication/",
                                body={"email": EMAIL, "password": PASSWORD})
        if status != 200 or not isinstance(login, dict):
            raise BenchError(f"login answered {status}: {login}")
        token = login["accessToken"]
        paths = [
            ("paging group (3 members)",
             f"/v2/admin/paging-groups/{first_id(service.port, token, '/v2/admin/paging-groups/')}"),
            ("extension",
             f"/v2/admin/extensions/{first_id(service.port, token, '/v2/admin/extensions/')}"),
            ("business hours (lists, holiday)",
             f"/v2/admin/business-hours/{first_id(service.port, token, '/v2/admin/business-hours/')}"),
        ]
        if backend == "postgres":
            subprocess.run(["psql", url, "-qc", "VACUUM ANALYZE"], check=True)
        rows = []
        for label, path in paths:
            answers = {}
            for server in servers:
                status, body = request(server.port, "GET", path, token)
                if status != 200:
                    raise BenchError(f"{server.name} GET {path} answered {status}: {body}")
                answers[server.name] = body
            for name, body in answers.items():
                if body != answers["service"]:
                    raise BenchError(f"{name} answers GET {path} differently from the service:\n"
                                     f"{body}\n{answers['service']}")
            figures: dict[str, list[tuple[float, float, float]]] = {s.name: [] for s in servers}
            for round_ in range(args.rounds):
                # Rotate which goes first, so a drift of the machine's load evens out.
                order = servers[round_ % 3:] + servers[:round_ % 3]
                for server in order:
                    figures[server.name].append(
                        wrk(wrk_binary, server, path, token, args.threads,
                            args.connections, args.duration))
            best = {name: tuple(sorted(run[i] for run in runs)[len(runs) // 2] for i in range(3))
                    for name, runs in figures.items()}
            rows.append({"backend": backend, "get": label, **{
                f"{name}_{figure}": best[name][i]
                for name in best for i, figure in enumerate(("rps", "p99", "cpu"))}})
        if args.profile:
            label, path = paths[PROFILED.index(args.profile_get)]
            for server in (service, bare):
                profiles.append((backend, f"{server.name}, {label}",
                                 profile(server, path, token, args, wrk_binary, folder)))
        return rows
    finally:
        for process in processes:
            process.stop()
        if pg_name:
            subprocess.run(["psql", args.postgres, "-qc",
                            f"DROP DATABASE IF EXISTS {pg_name} WITH (FORCE)"],
                           check=False, stdout=subprocess.DEVNULL)
        if args.keep:
            print(f"(folder kept: {folder})", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--reference", default="target/release/examples/hot_path_reference",
                        help="the data-layer reference")
    parser.add_argument("--bare", default="target/release/examples/hot_path_bare",
                        help="the bare (shared-nothing) reference the verdict uses")
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--rounds", type=int, default=3, help="wrk runs per GET and server (median kept)")
    parser.add_argument("--duration", type=float, default=5, help="seconds per wrk run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pool", type=int, default=10, help="database pool size of both servers")
    parser.add_argument("--short", action="store_true", help="1 round of 1 s, 4 connections: does it run (CI)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (logs)")
    parser.add_argument("--profile", type=float, default=0,
                        help="then profile the service and bare with perf for this many seconds "
                             "each under wrk on --profile-get, and print their hottest functions")
    parser.add_argument("--profile-get", choices=PROFILED, default="paging-group",
                        help="the GET --profile loads (the service, then bare)")
    parser.add_argument("--profile-top", type=int, default=30, help="functions printed by --profile")
    args = parser.parse_args()
    if args.short:
        args.rounds, args.duration, args.connections = 1, 1, 4
    try:
        wrk_binary = ensure_wrk()
        rows = []
        for backend in args.backends.split(","):
            rows += run_backend(backend.strip(), args, wrk_binary)
    except (BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"verdict: ERROR — {error}", file=sys.stderr)
        return 2
    load = os.getloadavg()
    print(f"wrk -t{args.threads} -c{args.connections}, {args.rounds} x {args.duration:g} s "
          f"per GET and server (median), load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n")
    print("| backend | GET | service req/s | bare req/s | service/bare | data-layer req/s | "
          "service/data layer | service p99 ms | bare p99 ms | p99 service/bare | "
          "CPU µs/req service / bare / data layer |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    failed = False
    for row in rows:
        ratio = row["service_rps"] / row["bare_rps"]
        layer_ratio = row["service_rps"] / row["reference_rps"]
        p99_ratio = row["service_p99"] / row["bare_p99"]
        failed |= ratio < THROUGHPUT_GOAL or p99_ratio > P99_GOAL
        print(f"| {row['backend']} | {row['get']} | {row['service_rps']:,.0f} | "
              f"{row['bare_rps']:,.0f} | {ratio:.2f} | {row['reference_rps']:,.0f} | "
              f"{layer_ratio:.2f} | {row['service_p99']:.2f} | {row['bare_p99']:.2f} | "
              f"{p99_ratio:.2f} | {row['service_cpu']:.0f} / {row['bare_cpu']:.0f} / "
              f"{row['reference_cpu']:.0f} |")
    for backend, label, top in profiles:
        print(f"\nperf profile, {backend}, {label}, {args.profile:g} s under wrk "
              f"(self time, functions above 1%):\n\n```\n{top}\n```")
    if args.short:
        print("\nshort mode: the figures above only show that the benchmark runs; no verdict applied")
        return 0
    print(f"\nverdict: {'FAIL' if failed else 'PASS'} (goals against the bare reference: "
          f"throughput ratio >= {THROUGHPUT_GOAL}, p99 ratio <= {P99_GOAL})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
