#!/usr/bin/env python3
"""Instructions per authenticated GET, the service against the bare reference (issue 17).

Wall-clock ratios on a shared virtual machine vary by ±10% from one run to the next;
instruction counts do not. This script runs `switchboard serve --demo` (SQLite) and then
`bench/hot_path_reference.rs` on the same database, each under valgrind's callgrind,
sends each `--warmup` GETs of one record (an extension, or `--get` a paging group or
business hours), zeroes the counters, sends `--requests` more on one
keep-alive connection, and prints the user-space instructions per request of each, their
ratio, and the functions whose inclusive cost per request differs most between the two
(what the service does that the reference does not). Kernel time (sockets, wake-ups) is
not counted: `bench/hot_path.py` measures the whole.

    cargo build --release --bin switchboard --example hot_path_reference
    python3 bench/hot_path_instructions.py                 # 2,000 requests, top 25
    python3 bench/hot_path_instructions.py --get paging-group   # or business-hours
    python3 bench/hot_path_instructions.py --short         # CI: does it run (debug build)
    python3 bench/hot_path_instructions.py --backend postgres   # on a fresh database

With `--backend postgres` the demo is seeded into a fresh database of the server at
`--postgres` (an admin URL, as `hot_path.py` takes it; needs `psql`), dropped at the end.

Needs valgrind (apt-get install valgrind). Exit status: 0, or 2 when it could not run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

# The demo's credentials, the signing key both servers share and the lifted rate limits
# are hot_path.py's: this script is its companion, measuring the same GET.
from hot_path import EMAIL, JWT_SECRET, LIFTED, PASSWORD, BenchError, free_port  # noqa: E402


# The GETs hot_path.py loads, by the list whose first record is read.
GETS = {
    "extension": "/v2/admin/extensions/",
    "paging-group": "/v2/admin/paging-groups/",
    "business-hours": "/v2/admin/business-hours/",
}


def call(conn: http.client.HTTPConnection, method: str, path: str, token: str | None = None,
         body: dict | None = None) -> tuple[int, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers=headers)
    response = conn.getresponse()
    data = response.read()
    try:
        return response.status, json.loads(data) if data else None
    except ValueError:
        return response.status, None


def wait_healthy(port: int, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BenchError(f"the server exited with {process.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            if call(conn, "GET", "/healthz")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise BenchError(f"not healthy after {seconds:.0f} s")


def measure(name: str, argv: list[str], env: dict[str, str], folder: str, path: str,
            token: str, warmup: int, requests: int) -> str:
    """Runs `argv` under callgrind and answers the file of counts for `requests` GETs."""
    port = free_port()
    out = os.path.join(folder, f"callgrind.{name}")
    process = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--dump-instr=no",
         *argv],
        env=dict(env, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}"), cwd=folder,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(port, process, 300)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(warmup):
            status, body = call(conn, "GET", path, token)
            if status != 200:
                raise BenchError(f"{name} GET {path} answered {status}: {body}")
        subprocess.run(["callgrind_control", "-z", str(process.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        for _ in range(requests):
            if call(conn, "GET", path, token)[0] != 200:
                raise BenchError(f"{name} stopped answering 200")
        subprocess.run(["callgrind_control", "-d", str(process.pid)], check=True,
                       stdout=subprocess.DEVNULL)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
    dumps = sorted(f for f in os.listdir(folder) if f.startswith(f"callgrind.{name}.")
                   and f.endswith(".1"))
    if not dumps:
        raise BenchError(f"no callgrind dump for {name}")
    return os.path.join(folder, dumps[-1])


def totals(dump: str) -> int:
    with open(dump) as f:
        for line in f:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise BenchError(f"no totals in {dump}")


def inclusive(dump: str) -> dict[str, int]:
    """Inclusive instructions by function (file paths and recursion marks dropped)."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump],
                          capture_output=True, text=True, check=True).stdout
    costs: dict[str, int] = {}
    for line in text.splitlines():
        found = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)", line)
        if not found:
            continue
        name = re.sub(r" \[[^\]]*\]$", "", found.group(2))
        # callgrind_annotate's own summary lines are no function.
        if name.strip() in ("events annotated", "PROGRAM TOTALS"):
            continue
        # Newer callgrind_annotate appends the call count, "(5,590x)": dropped, or the
        # same function in the two servers would not meet.
        name = re.sub(r" \([\d,]+x\)$", "", name)
        name = re.sub(r"'\d+", "", name.split(":", 1)[1] if ":" in name else name)
        costs[name] = max(costs.get(name, 0), int(found.group(1).replace(",", "")))
    return costs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--reference", default="target/release/examples/hot_path_reference")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--get", choices=sorted(GETS), default="extension",
                        help="which record's GET to count (the demo's first of its list)")
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres",
                        help="admin URL of the PostgreSQL server (--backend postgres)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the folder with the callgrind dumps (its path is printed)")
    parser.add_argument("--short", action="store_true", help="20 requests: does it run (CI)")
    args = parser.parse_args()
    if args.short:
        args.warmup, args.requests, args.top = 5, 20, 5
    for tool in ("valgrind", "callgrind_control", "callgrind_annotate"):
        if not shutil.which(tool):
            print(f"verdict: ERROR — {tool} is needed (apt-get install valgrind)",
                  file=sys.stderr)
            return 2
    folder = tempfile.mkdtemp(prefix="switchboard-instructions-")
    pg_name = None
    url = f"sqlite://{folder}/bench.db"
    try:
        if args.backend == "postgres":
            pg_name = f"switchboard_instructions_{uuid.uuid4().hex[:12]}"
            subprocess.run(["psql", args.postgres, "-qc", f"CREATE DATABASE {pg_name}"],
                           check=True, stdout=subprocess.DEVNULL)
            url = f"{args.postgres.rsplit('/', 1)[0]}/{pg_name}"
        env = dict(os.environ, SWITCHBOARD_DATABASE_URL=url, SWITCHBOARD_JWT_SECRET=JWT_SECRET,
                   SWITCHBOARD_DATA_DIR=os.path.join(folder, "data"), **LIFTED)
        # Seed the demo and log in once, without valgrind.
        port = free_port()
        seeder = subprocess.Popen([os.path.abspath(args.binary), "serve", "--demo"],
                                  env=dict(env, SWITCHBOARD_LISTEN=f"127.0.0.1:{port}"),
                                  cwd=folder, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_healthy(port, seeder, 90)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status, login = call(conn, "POST", "/v2/authentication/",
                                 body={"email": EMAIL, "password": PASSWORD})
            if status != 200 or not isinstance(login, dict):
                raise BenchError(f"login answered {status}: {login}")
            token = login["accessToken"]
            listed = GETS[args.get]
            status, page = call(conn, "GET", listed, token)
            if status != 200 or not isinstance(page, dict) or not page.get("records"):
                raise BenchError(f"no record at {listed}: {status}")
            path = f"{listed}{page['records'][0]['id']}"
        finally:
            seeder.send_signal(signal.SIGTERM)
            seeder.wait(timeout=30)
        service = measure("service", [os.path.abspath(args.binary), "serve"], env, folder,
                          path, token, args.warmup, args.requests)
        reference = measure("reference", [os.path.abspath(args.reference)], env, folder,
                            path, token, args.warmup, args.requests)
        per = lambda dump: totals(dump) / args.requests  # noqa: E731
        s, r = per(service), per(reference)
        print(f"GET {path}, {args.requests} requests on one connection after {args.warmup} "
              f"to warm up ({'PostgreSQL' if pg_name else 'SQLite'}, user-space instructions "
              f"counted by callgrind)\n")
        print("| server | instructions per request |")
        print("|---|---:|")
        print(f"| service | {s:,.0f} |")
        print(f"| reference | {r:,.0f} |")
        print(f"| reference / service | {r / s:.2f} |")
        sc, rc = inclusive(service), inclusive(reference)
        rows = sorted(((sc.get(k, 0) - rc.get(k, 0), k) for k in set(sc) | set(rc)),
                      reverse=True)
        print(f"\nWhere the service spends more (inclusive instructions per request, the "
              f"{args.top} largest differences; nested entries repeat their callees):\n")
        print("| service | reference | function |")
        print("|---:|---:|---|")
        for _, name in rows[:args.top]:
            print(f"| {sc.get(name, 0) / args.requests:,.0f} | "
                  f"{rc.get(name, 0) / args.requests:,.0f} | `{name[:140]}` |")
        if args.short:
            print("\nshort mode: the figures above only show that the benchmark runs")
        return 0
    except (BenchError, subprocess.CalledProcessError, OSError) as error:
        print(f"verdict: ERROR — {error}", file=sys.stderr)
        return 2
    finally:
        if pg_name:
            subprocess.run(["psql", args.postgres, "-qc",
                            f"DROP DATABASE IF EXISTS {pg_name} WITH (FORCE)"],
                           check=False, stdout=subprocess.DEVNULL)
        if args.keep:
            print(f"(folder kept: {folder})", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
