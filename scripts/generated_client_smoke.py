#!/usr/bin/env python3
"""An integrator's first session, written with the Python client that openapi-python-client
generated from docs/openapi.json (scripts/generated-clients.sh generates it and puts it on
PYTHONPATH), against `switchboard serve --demo` on SQLite and on a fresh PostgreSQL
database: log in, create an extension, list with a sort, page through, update from a
fetched record (the record read, changed in one field and sent back whole), delete.

Each step checks the typed answer, so a document the service does not keep to fails here.
"""

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid

from switchboard_client import AuthenticatedClient, Client
from switchboard_client.api.authentication import log_in
from switchboard_client.api.extensions import (
    create_extension,
    delete_extension,
    get_extension,
    list_extensions,
    update_extension,
)
from switchboard_client.models import (
    CreateExtension,
    ErrorBody,
    Extension,
    ExtensionSortBy,
    LoginRequest,
    LoginResult,
    PageExtension,
    SortDirection,
    UpdateExtension,
)

EMAIL = "admin@demo.switchboard.test"
PASSWORD = "switchboard-demo-2026"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`serve --demo` in a throw-away folder, on a free loopback port."""

    def __init__(self, binary: str, folder: str, database_url: str | None):
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("SWITCHBOARD_")}
        env["SWITCHBOARD_LISTEN"] = f"127.0.0.1:{self.port}"
        if database_url:
            env["SWITCHBOARD_DATABASE_URL"] = database_url
        self.log_path = os.path.join(folder, "server.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [binary, "serve", "--demo"], cwd=folder, env=env, stdout=self.log, stderr=self.log
        )
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {open(self.log_path).read()[-2000:]}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not answer /healthz within 120 s")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def expect(answer, kind, step: str):
    """The typed answer of `step`, which must be a `kind` (an ErrorBody is a failure)."""
    if not isinstance(answer, kind):
        detail = answer.to_dict() if isinstance(answer, ErrorBody) else answer
        raise AssertionError(f"{step}: expected {kind.__name__}, got {detail!r}")
    return answer


def session(base: str) -> list[str]:
    """The integrator's session; answers what it did, one line a step."""
    done = []
    anonymous = Client(base_url=base, raise_on_unexpected_status=True)
    login = expect(
        log_in.sync(client=anonymous, body=LoginRequest(email=EMAIL, password=PASSWORD)),
        LoginResult,
        "log in",
    )
    client = AuthenticatedClient(
        base_url=base, token=login.access_token, raise_on_unexpected_status=True
    )
    done.append(f"logged in as {login.user.email}")

    suffix = uuid.uuid4().int % 9000 + 1000
    created = [
        expect(
            create_extension.sync(
                client=client,
                body=CreateExtension(number=f"{suffix}{i}", name=f"Generated client {i}"),
            ),
            Extension,
            "create",
        )
        for i in range(3)
    ]
    done.append(f"created extensions {[e.number for e in created]}")

    by_number = expect(
        list_extensions.sync(
            client=client,
            sort_by=ExtensionSortBy.NUMBER,
            sort_direction=SortDirection.DESC,
            records_per_page=1000,
        ),
        PageExtension,
        "list sorted by number",
    )
    numbers = [e.number for e in by_number.records]
    assert numbers == sorted(numbers, reverse=True), numbers
    assert {e.number for e in created} <= set(numbers), numbers
    done.append(f"listed {by_number.total_records} extensions, number descending")

    pages = []
    page = 1
    while True:
        answer = expect(
            list_extensions.sync(
                client=client, sort_by=ExtensionSortBy.ID, records_per_page=2, page=page
            ),
            PageExtension,
            f"page {page}",
        )
        pages.append([e.id for e in answer.records])
        if page >= answer.max_page:
            break
        page += 1
    ids = [i for p in pages for i in p]
    assert ids == sorted(ids) and len(ids) == by_number.total_records, pages
    done.append(f"paged through {len(pages)} pages of 2")

    fetched = expect(
        get_extension.sync(str(created[0].id), client=client), Extension, "get"
    )
    changed = fetched.to_dict()
    changed["name"] = "Renamed from a fetched record"
    updated = expect(
        update_extension.sync(
            str(fetched.id), client=client, body=UpdateExtension.from_dict(changed)
        ),
        Extension,
        "update from the fetched record",
    )
    assert updated.name == "Renamed from a fetched record", updated
    assert updated.number == fetched.number, updated
    done.append("updated a fetched record sent back whole, one field changed")

    for extension in created:
        deleted = expect(
            delete_extension.sync(str(extension.id), client=client), Extension, "delete"
        )
        assert deleted.id == extension.id
    gone = get_extension.sync(str(created[0].id), client=client)
    assert isinstance(gone, ErrorBody) and gone.code == 404, gone
    done.append("deleted them; the first now answers 404")
    return done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    for backend in ("sqlite", "postgres"):
        with tempfile.TemporaryDirectory(prefix="switchboard-client-") as folder:
            database = None
            url = None
            if backend == "postgres":
                database = f"switchboard_client_{uuid.uuid4().hex[:12]}"
                subprocess.run(["psql", args.postgres, "-qc", f"CREATE DATABASE {database}"], check=True)
                url = f"{args.postgres.rsplit('/', 1)[0]}/{database}"
            server = Server(args.binary, folder, url)
            try:
                for line in session(server.base):
                    print(f"generated client on {backend}: {line}")
            except Exception:
                print(open(server.log_path).read()[-3000:], file=sys.stderr)
                raise
            finally:
                server.stop()
                if database:
                    subprocess.run(
                        ["psql", args.postgres, "-qc", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"],
                        check=False,
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
