#!/usr/bin/env python3
"""The outage drill: Switchboard operated from outside as a site-reliability engineer
would, with what it counted printed at the end (issue 30).

  1. creates a fresh PostgreSQL database (dropped at the end) and a platform admin in it
     (`switchboard user create`); starts a TCP relay between the service and PostgreSQL
     that the drill can cut and restore;
  2. starts three `serve` processes on that database through the relay, sharing one
     signing key and one object folder, each with its own metrics listener;
  3. load: --writers threads create tenants round-robin over the live processes; every
     write answered 200 is an acknowledged write, recorded with its id and time;
  4. kill -9 of the third process under load (its requests in flight have an unknown
     outcome: not counted as acknowledged), and its restart (time to ready);
  5. the database cut: the relay drops every connection and refuses new ones for
     --cut-seconds; the drill counts the answers during the cut (503s, others), the time
     from the cut to the first 503, whether each process's metrics showed the circuit
     open, and — once the relay lets connections through again — the time to the first
     acknowledged write and to every process's /readyz answering 200;
  6. a backup under load (`switchboard backup`, straight to PostgreSQL: the backup host's
     own route), then the load stops;
  7. every acknowledged write is looked for in the live database (through the API: lost
     writes are acknowledged ids it does not list), and the ERROR lines of the three
     processes' logs are counted (repeats are summarised: not one per 503);
  8. the backup is restored into a new database and a new data folder
     (`switchboard restore`), a `serve` is started on it, and the acknowledged writes are
     looked for there: every write acknowledged before the backup began must be found;
     those acknowledged while it ran may or may not be.

Prints a Markdown table of the figures; exits 1 when an acknowledged write was lost or
a write acknowledged before the backup is missing from the restored service, 2 when the
drill could not run.

--short (two writers, phases of a second or two) checks that the drill runs, as CI does;
its figures mean little.

Python 3.11 standard library only; needs `psql`, `pg_dump` and `pg_restore` on the PATH
and a PostgreSQL that `--postgres` (default postgres://postgres@127.0.0.1:5432/postgres,
trust auth) may create databases on.

    cargo build --release && python3 scripts/drill.py
    python3 scripts/drill.py --short --binary target/debug/switchboard
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PLATFORM_EMAIL = "drill-platform@drill.switchboard.test"
PASSWORD = "drill-password-2026-long-enough"
STARTUP_TIMEOUT_S = 90.0
REQUEST_TIMEOUT_S = 30.0


class DrillError(Exception):
    """The drill could not run."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port: int, method: str, path: str, body: dict | None = None,
         token: str | None = None, timeout: float = REQUEST_TIMEOUT_S) -> tuple[int, dict | str]:
    """One request on a connection of its own: (status, JSON body or text)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        try:
            return response.status, json.loads(text)
        except ValueError:
            return response.status, text
    finally:
        conn.close()


# --- PostgreSQL -------------------------------------------------------------------------


def with_database(admin: str, name: str) -> str:
    parts = urllib.parse.urlsplit(admin)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def with_port(url: str, port: int) -> str:
    parts = urllib.parse.urlsplit(url)
    userinfo = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{userinfo}127.0.0.1:{port}"))


def psql(admin: str, sql: str) -> None:
    done = subprocess.run(["psql", admin, "-v", "ON_ERROR_STOP=1", "-qAtc", sql],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise DrillError(f"psql {sql!r}: {done.stderr.strip()}")


class Relay:
    """A TCP relay to PostgreSQL that can be cut (every connection dropped, new ones
    closed at once) and restored."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cut_now = False
        self.lock = threading.Lock()
        self.open: set[socket.socket] = set()
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_now:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
                with self.lock:
                    self.open.discard(s)

    def cut(self) -> None:
        self.cut_now = True
        with self.lock:
            sockets = list(self.open)
        for s in sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def restore(self) -> None:
        self.cut_now = False

    def close(self) -> None:
        self.cut()
        self.listener.close()


# --- the service ------------------------------------------------------------------------


def base_env(database_url: str, data_dir: str, storage: str, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SWITCHBOARD_") and k != "RUST_LOG"}
    env.update(
        SWITCHBOARD_DATABASE_URL=database_url,
        SWITCHBOARD_DATA_DIR=data_dir,
        SWITCHBOARD_STORAGE_URL=f"file://{storage}",
        SWITCHBOARD_JWT_SECRET=key,
    )
    return env


class Served:
    """A `serve` process with its metrics listener; its log in the drill's folder."""

    def __init__(self, binary: str, name: str, env: dict[str, str], folder: str) -> None:
        self.name = name
        self.binary = binary
        self.env = dict(env)
        self.folder = folder
        self.port = free_port()
        self.metrics_port = free_port()
        self.env.update(
            SWITCHBOARD_LISTEN=f"127.0.0.1:{self.port}",
            SWITCHBOARD_PUBLIC_URL=f"http://127.0.0.1:{self.port}",
            SWITCHBOARD_METRICS_LISTEN=f"127.0.0.1:{self.metrics_port}",
            SWITCHBOARD_RATE_LIMIT_PER_MINUTE="100000000",
            SWITCHBOARD_RATE_LIMIT_PER_MINUTE_PER_ADDRESS="100000000",
            SWITCHBOARD_DRAIN_SECONDS="0",
        )
        self.process: subprocess.Popen | None = None
        self.alive = False
        self.start()

    def start(self) -> None:
        log = open(os.path.join(self.folder, f"{self.name}.log"), "ab")
        self.process = subprocess.Popen([self.binary, "serve"], env=self.env,
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    def wait_ready(self) -> float:
        """Seconds until /readyz answers 200."""
        started = time.monotonic()
        while time.monotonic() - started < STARTUP_TIMEOUT_S:
            if self.process.poll() is not None:
                raise DrillError(f"{self.name} ended ({self.process.returncode}); "
                                 f"see {self.folder}/{self.name}.log")
            if self.ready():
                self.alive = True
                return time.monotonic() - started
            time.sleep(0.05)
        raise DrillError(f"{self.name} did not become ready")

    def ready(self) -> bool:
        try:
            return call(self.port, "GET", "/readyz", timeout=2)[0] == 200
        except OSError:
            return False

    def circuit_open(self) -> bool | None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.metrics_port, timeout=2)
            conn.request("GET", "/metrics")
            page = conn.getresponse().read().decode()
            conn.close()
        except OSError:
            return None
        for line in page.splitlines():
            if line.startswith("switchboard_db_circuit_open "):
                return float(line.split()[1]) == 1.0
        return None

    def kill(self) -> None:
        self.alive = False
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        self.alive = False
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run(binary: str, env: dict[str, str], *args: str, stdin: str = "") -> str:
    done = subprocess.run([binary, *args], env=env, input=stdin, capture_output=True, text=True)
    if done.returncode != 0:
        raise DrillError(f"switchboard {' '.join(args)}: {done.stderr.strip()[-2000:]}")
    return done.stdout


def login(port: int) -> str:
    status, body = call(port, "POST", "/v2/authentication/",
                        {"email": PLATFORM_EMAIL, "password": PASSWORD})
    if status != 200:
        raise DrillError(f"login answered {status}: {body}")
    return body["accessToken"]


def tenant_ids(port: int, token: str) -> set[int]:
    status, body = call(port, "GET", "/v2/admin/tenants/?paginated=0", token=token, timeout=120)
    if status != 200:
        raise DrillError(f"listing tenants answered {status}: {body}")
    return {record["id"] for record in body["records"]}


# --- the load ---------------------------------------------------------------------------


class Load:
    """Writers creating tenants round-robin over the live processes."""

    def __init__(self, processes: list[Served], token: str, partner: int, writers: int) -> None:
        self.processes = processes
        self.token = token
        self.partner = partner
        self.lock = threading.Lock()
        self.acknowledged: dict[int, float] = {}  # tenant id -> when its 200 arrived
        self.answers: list[tuple[float, float, int]] = []  # (sent, answered, status; 0 = no answer)
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.write, args=(n,), daemon=True)
                        for n in range(writers)]
        for thread in self.threads:
            thread.start()

    def write(self, writer: int) -> None:
        n = 0
        while not self.stopping.is_set():
            live = [p for p in self.processes if p.alive]
            if not live:
                time.sleep(0.05)
                continue
            process = live[(writer + n) % len(live)]
            n += 1
            sent = time.monotonic()
            try:
                status, body = call(process.port, "POST", "/v2/admin/tenants/",
                                    {"name": f"drill {writer}-{n}", "partnerId": self.partner},
                                    token=self.token)
            except OSError:
                status, body = 0, None
            answered = time.monotonic()
            with self.lock:
                self.answers.append((sent, answered, status))
                if status == 200:
                    self.acknowledged[body["id"]] = answered
            if status != 200:
                time.sleep(0.02)

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=REQUEST_TIMEOUT_S + 5)

    def between(self, start: float, end: float) -> list[tuple[float, float, int]]:
        with self.lock:
            return [a for a in self.answers if start <= a[1] < end]

    def first_after(self, since: float, status: int) -> float | None:
        with self.lock:
            times = [a[1] for a in self.answers if a[1] >= since and a[2] == status]
        return min(times) - since if times else None


# --- the drill --------------------------------------------------------------------------


def drill(args: argparse.Namespace, folder: str) -> dict[str, object]:
    short = args.short
    admin = args.postgres
    target = urllib.parse.urlsplit(admin)
    stamp = secrets.token_hex(4)
    live_db, restored_db = f"switchboard_drill_{stamp}", f"switchboard_drill_{stamp}_restored"
    key = "hex:" + secrets.token_hex(32)
    storage = os.path.join(folder, "objects")
    relay = Relay((target.hostname or "127.0.0.1", target.port or 5432))
    processes: list[Served] = []
    figures: dict[str, object] = {}
    psql(admin, f"CREATE DATABASE {live_db}")
    try:
        direct = with_database(admin, live_db)
        through_relay = with_port(direct, relay.port)
        setup_env = base_env(direct, os.path.join(folder, "setup"), storage, key)
        run(args.binary, setup_env, "migrate")
        run(args.binary, setup_env, "user", "create", "--email", PLATFORM_EMAIL,
            "--password-stdin", "--role", "platform-admin", stdin=PASSWORD)
        partner = json.loads(run(args.binary, setup_env, "tenant", "create", "--name", "drill"))

        for n in range(3):
            env = base_env(through_relay, os.path.join(folder, f"data-{n + 1}"), storage, key)
            processes.append(Served(args.binary, f"serve-{n + 1}", env, folder))
        for process in processes:
            process.wait_ready()
        token = login(processes[0].port)
        partner_status, partner_body = call(processes[0].port, "GET",
                                            f"/v2/admin/tenants/{partner['id']}", token=token)
        if partner_status != 200:
            raise DrillError(f"reading the drill's tenant answered {partner_status}")
        partner_id = partner_body["partnerId"]

        phase = 1.0 if short else 10.0
        load = Load(processes, token, partner_id, 2 if short else args.writers)
        time.sleep(phase)

        # kill -9 of one process under load, then its restart.
        victim = processes[2]
        killed = time.monotonic()
        victim.kill()
        time.sleep(phase / 2)
        victim.start()
        figures["restart to ready after kill -9 (s)"] = round(victim.wait_ready(), 2)
        kill_answers = load.between(killed - 1.0, killed + 1.0)
        figures["requests without an answer around the kill"] = sum(
            1 for a in kill_answers if a[2] == 0)
        time.sleep(phase / 2)

        # The database cut.
        cut_seconds = 3.0 if short else args.cut_seconds
        cut = time.monotonic()
        relay.cut()
        circuit_seen: set[str] = set()
        while time.monotonic() - cut < cut_seconds:
            for process in processes:
                if process.circuit_open():
                    circuit_seen.add(process.name)
            time.sleep(0.2)
        restored = time.monotonic()
        relay.restore()
        during = load.between(cut, restored)
        first_503 = load.first_after(cut, 503)
        figures["database cut (s)"] = cut_seconds
        figures["answers during the cut"] = len(during)
        figures["503 during the cut"] = sum(1 for a in during if a[2] == 503)
        figures["other answers during the cut"] = ", ".join(
            f"{status}: {count}" for status, count in sorted(
                {s: sum(1 for a in during if a[2] == s) for _, _, s in during
                 if s != 503}.items())) or "none"
        figures["time from the cut to the first 503 (ms)"] = (
            round(first_503 * 1000) if first_503 is not None else "none")
        slowest = max((a[1] - a[0] for a in during if a[2] == 503), default=0.0)
        figures["slowest 503 during the cut (ms)"] = round(slowest * 1000)
        figures["processes showing the circuit open"] = f"{len(circuit_seen)} of 3"
        while load.first_after(restored, 200) is None:
            if time.monotonic() - restored > 60:
                raise DrillError("no write succeeded within 60 s of the database's return")
            time.sleep(0.05)
        figures["recovery: first acknowledged write after reconnect (ms)"] = round(
            load.first_after(restored, 200) * 1000)
        while not all(p.ready() for p in processes):
            if time.monotonic() - restored > 60:
                raise DrillError("a process did not become ready within 60 s")
            time.sleep(0.05)
        figures["recovery: every /readyz 200 after reconnect (ms)"] = round(
            (time.monotonic() - restored) * 1000)
        time.sleep(phase / 2)

        # A backup under load.
        backup = os.path.join(folder, "backup")
        backup_started = time.monotonic()
        run(args.binary, base_env(direct, os.path.join(folder, "backup-host"), storage, key),
            "backup", backup)
        backup_ended = time.monotonic()
        figures["backup under load (s)"] = round(backup_ended - backup_started, 2)
        time.sleep(phase / 2)
        load.stop()

        acknowledged = dict(load.acknowledged)
        before_backup = {i for i, t in acknowledged.items() if t < backup_started}
        during_backup = {i for i, t in acknowledged.items()
                         if backup_started <= t < backup_ended}
        figures["acknowledged writes"] = len(acknowledged)
        figures["requests without an answer (outcome unknown)"] = sum(
            1 for a in load.answers if a[2] == 0)
        live = tenant_ids(processes[0].port, token)
        lost = set(acknowledged) - live
        figures["acknowledged writes lost (not in the live database)"] = len(lost)

        # Restore into a new place and serve from it.
        for process in processes:
            process.stop()
        # An outage is summarised in the log, not written one ERROR line per 5xx.
        error_lines = 0
        for process in processes:
            with open(os.path.join(folder, f"{process.name}.log"), errors="replace") as log:
                error_lines += sum(1 for line in log if " ERROR " in line or '"ERROR"' in line)
        figures["ERROR lines in the three processes' logs"] = error_lines
        psql(admin, f"CREATE DATABASE {restored_db}")
        restored_url = with_database(admin, restored_db)
        restore_env = base_env(restored_url, os.path.join(folder, "restored"),
                               os.path.join(folder, "restored", "objects"), key)
        restore_started = time.monotonic()
        run(args.binary, restore_env, "restore", backup)
        figures["restore (s)"] = round(time.monotonic() - restore_started, 2)
        restored_serve = Served(args.binary, "serve-restored", restore_env, folder)
        processes.append(restored_serve)
        restored_serve.wait_ready()
        found = tenant_ids(restored_serve.port, login(restored_serve.port))
        figures["acknowledged before the backup began"] = len(before_backup)
        figures["of those, found after restore"] = len(before_backup & found)
        figures["acknowledged while the backup ran, found after restore"] = (
            f"{len(during_backup & found)} of {len(during_backup)}")
        figures["_lost"] = len(lost)
        figures["_missing"] = len(before_backup - found)
        return figures
    finally:
        for process in processes:
            process.kill()
        relay.close()
        for name in (live_db, restored_db):
            try:
                psql(admin, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except DrillError as error:
                print(f"drill: {error}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/switchboard")
    parser.add_argument("--postgres", default=os.environ.get(
        "SWITCHBOARD_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--cut-seconds", type=float, default=10.0)
    parser.add_argument("--short", action="store_true",
                        help="a run of seconds that checks the drill works (CI)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the drill's folder (logs, backup) and print it")
    args = parser.parse_args()
    if not os.path.exists(args.binary):
        print(f"drill: no binary at {args.binary} (cargo build --release)", file=sys.stderr)
        return 2
    args.binary = os.path.abspath(args.binary)
    for program in ("psql", "pg_dump", "pg_restore"):
        if shutil.which(program) is None:
            print(f"drill: {program} is not on the PATH (postgresql-client)", file=sys.stderr)
            return 2
    folder = tempfile.mkdtemp(prefix="switchboard-drill-")
    started = time.monotonic()
    try:
        figures = drill(args, folder)
    except DrillError as error:
        print(f"drill: {error} (logs in {folder})", file=sys.stderr)
        return 2
    finally:
        if args.keep:
            print(f"drill folder: {folder}", file=sys.stderr)
    lost, missing = figures.pop("_lost"), figures.pop("_missing")
    print(f"## Outage drill ({'short' if args.short else 'full'}; "
          f"{round(time.monotonic() - started)} s)\n")
    print("| figure | value |\n|---|---|")
    for name, value in figures.items():
        print(f"| {name} | {value} |")
    if not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    if lost or missing:
        print(f"\nFAIL: {lost} acknowledged writes lost, {missing} acknowledged before the "
              "backup missing after restore", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
