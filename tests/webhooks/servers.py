"""Real ``redis-server``, PostgreSQL and MariaDB servers on 127.0.0.1 for the store tests and
benchmarks.

Each server runs on an ephemeral port in a temporary directory and is stopped through the PID
it was started with, never by name. The classes have no pytest dependency so that
``benchmarks/`` can start the same servers; the session-scoped fixtures at the bottom wrap them.

When a server's binaries are missing, the tests that need it are skipped with the one command
that installs them; when the environment variable ``CI`` is set, they fail instead, so that a
CI run never passes by skipping them.
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

__all__ = [
    "INSTALL_COMMAND",
    "MariaDbServer",
    "PostgresServer",
    "RedisServer",
    "ServerUnavailable",
    "find_mariadb",
    "find_pg_bindir",
    "find_redis_server",
    "in_ci",
    "mariadb_server",
    "own_server",
    "postgres_server",
    "redis_server",
    "redis_server_unsafe",
    "require_module",
    "require_server",
]

#: The one command that installs every server these tests need (Debian/Ubuntu).
INSTALL_COMMAND = "sudo bash .ci/install-servers.sh"

#: PostgreSQL refuses to run as root: as root, initdb and pg_ctl run as this user.
PG_SYSTEM_USER = "postgres"

#: MariaDB refuses to run as root (unless told ``--user=root``): as root, it runs as this user.
MARIADB_SYSTEM_USER = "mysql"

_START_TIMEOUT = 30.0


class ServerUnavailable(Exception):
    """A server's binaries (or its Python client) are not installed on this machine."""


def in_ci() -> bool:
    """Return True when the environment variable ``CI`` says this is a CI run."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def find_redis_server() -> str | None:
    """Return the path of ``redis-server`` on PATH, or None."""
    return shutil.which("redis-server")


def find_pg_bindir() -> Path | None:
    """Return the directory holding ``initdb`` and ``pg_ctl`` (PATH first, then Debian's)."""
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0,
    )
    for initdb_path in reversed(candidates):
        bindir = Path(initdb_path).parent
        if (bindir / "pg_ctl").exists():
            return bindir
    return None


def find_mariadb() -> tuple[Path, Path] | None:
    """Return the paths of ``mariadb-install-db`` and ``mariadbd`` (PATH first, then Debian's)."""
    install = shutil.which("mariadb-install-db") or shutil.which(
        "mariadb-install-db", path="/usr/bin:/usr/local/bin"
    )
    server = shutil.which("mariadbd") or shutil.which(
        "mariadbd", path="/usr/sbin:/usr/local/sbin:/usr/libexec"
    )
    if install is None or server is None:
        return None
    return Path(install), Path(server)


def _ensure_system_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home",
             "--shell", "/usr/sbin/nologin", name],
            check=True, capture_output=True,
        )  # fmt: skip
        return pwd.getpwnam(name)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _LocalServer:
    """A server on 127.0.0.1 and an ephemeral port, in a temporary directory of its own.

    ``start()`` finds the binaries (``_find``, else ``ServerUnavailable``), makes the directory
    (owned by ``SYSTEM_USER`` as root), prepares it (``_prepare``: initdb and the like), then
    launches the server (``_launch``) on up to five free ports until it answers. ``stop()``
    stops it through the PID it was started with (``_halt``), never by name, and removes the
    directory. A subclass whose server is a child process (``_spawn``) keeps the default
    ``_halt``: SIGTERM, then SIGKILL after ``TERMINATE_SECONDS``.
    """

    #: The server's name in errors.
    NAME = "server"
    #: The prefix of the temporary directory.
    DIR_PREFIX = "smartpos-server-"
    #: As root, the unprivileged user the server runs as (None: the current user).
    SYSTEM_USER: str | None = None
    #: Seconds a child process gets to exit after SIGTERM before SIGKILL.
    TERMINATE_SECONDS = 10.0

    def __init__(self) -> None:
        self.port = 0
        self.pid = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: str | None = None

    def _find(self) -> None:
        """Find the binaries; raise ``ServerUnavailable`` when they are not installed."""

    def _prepare(self) -> None:
        """Fill the new directory before the first launch (raise ``RuntimeError`` on failure)."""

    def _launch(self) -> str | None:
        """Start the server on ``self.port``: ``None`` once it answers, else why not."""
        raise NotImplementedError

    def _run_as(self) -> dict[str, int]:
        """Popen's ``user``/``group`` as root (the child itself drops to them), else nothing."""
        if os.geteuid() != 0 or self.SYSTEM_USER is None:
            return {}
        user = _ensure_system_user(self.SYSTEM_USER)
        return {"user": user.pw_uid, "group": user.pw_gid}

    def start(self) -> None:
        """Start the server and wait until it answers.

        Raises:
            ServerUnavailable: the server's binaries are not installed.
            RuntimeError: the server did not start.
        """
        self._find()
        # Not under pytest's tmp_path: its parent is private to root, and as root the server
        # runs as another user that must reach its own directory.
        self._dir = tempfile.mkdtemp(prefix=self.DIR_PREFIX)
        if user := self._run_as():
            os.chown(self._dir, user["user"], user["group"])
        try:
            self._prepare()
        except BaseException:
            self._cleanup_dir()
            raise
        last = ""
        for _ in range(5):
            self.port = _free_port()
            failure = self._launch()
            if failure is None:
                return
            last = failure
            self._halt()
        self._cleanup_dir()
        raise RuntimeError(f"{self.NAME} did not start:\n{last}")

    def _spawn(
        self, args: list[str], *, log: Path | None = None, answers: Callable[[], bool]
    ) -> bool:
        """Start ``args`` as the server's child process; ``True`` once ``answers()`` is."""
        assert self._dir is not None
        with open(log if log is not None else os.devnull, "wb") as out:
            self._proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                cwd=self._dir, **self._run_as(),
            )  # fmt: skip
        self.pid = self._proc.pid
        deadline = time.monotonic() + _START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            try:
                if answers():
                    return True
            except Exception:  # not answering yet
                pass
            time.sleep(0.02)
        return False

    def _halt(self) -> None:
        """Stop the child process: SIGTERM (a clean shutdown), SIGKILL if it lingers."""
        proc, self._proc = self._proc, None
        self.pid = 0
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=self.TERMINATE_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)

    def _log_tail(self, path: Path) -> str:
        with contextlib.suppress(OSError):
            return path.read_text(errors="replace")[-2000:]
        return ""

    def _cleanup_dir(self) -> None:
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def stop(self) -> None:
        """Stop the server by the PID it was started with and remove its directory."""
        self._halt()
        self._cleanup_dir()


class RedisServer(_LocalServer):
    """A ``redis-server`` child process on 127.0.0.1 and an ephemeral port.

    Args:
        appendonly: start with ``--appendonly yes`` (the setting the store's durability needs).
        extra_args: more ``--name value`` arguments for redis-server.
    """

    NAME = "redis-server"
    DIR_PREFIX = "smartpos-redis-"

    def __init__(self, *, appendonly: bool = True, extra_args: Sequence[str] = ()) -> None:
        super().__init__()
        self.appendonly = appendonly
        self.extra_args = list(extra_args)
        self._binary = ""

    @property
    def url(self) -> str:
        """The ``redis://`` URL of the running server."""
        return f"redis://127.0.0.1:{self.port}/0"

    def _find(self) -> None:
        binary = find_redis_server()
        if binary is None:
            raise ServerUnavailable("redis-server is not installed")
        self._binary = binary

    def _launch(self) -> str | None:
        assert self._dir is not None
        log = Path(self._dir) / f"redis-{self.port}.log"
        args = [
            self._binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", self._dir,
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--daemonize", "no",
            "--loglevel", "warning",
            *self.extra_args,
        ]  # fmt: skip
        return None if self._spawn(args, log=log, answers=self._pong) else self._log_tail(log)

    def _pong(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")


class PostgresServer(_LocalServer):
    """A PostgreSQL cluster made by ``initdb`` in a temporary directory, run by ``pg_ctl``.

    The server listens on 127.0.0.1 and an ephemeral port, and on a Unix socket in its own
    directory; authentication is ``trust`` for the ``postgres`` role. As root, every command
    runs as the unprivileged system user ``postgres`` (PostgreSQL refuses to run as root).

    Args:
        settings: more ``-c name=value`` server settings.
    """

    NAME = "PostgreSQL"
    DIR_PREFIX = "smartpos-pg-"
    SYSTEM_USER = PG_SYSTEM_USER

    def __init__(self, *, settings: Sequence[str] = ()) -> None:
        super().__init__()
        self.settings = list(settings)
        self._bindir: Path | None = None

    @property
    def dsn(self) -> str:
        """A libpq connection string for the ``postgres`` database as the ``postgres`` role."""
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def _as_user(self, args: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return args
        runuser = shutil.which("runuser")
        if runuser is None:
            raise RuntimeError("running as root needs runuser (util-linux) to start PostgreSQL")
        return [runuser, "-u", PG_SYSTEM_USER, "--", *args]

    def _run(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self._as_user(args), capture_output=True, text=True, timeout=120, check=False
        )

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert self._dir is not None
        assert self._bindir is not None
        return self._run([str(self._bindir / "pg_ctl"), "-D", f"{self._dir}/data", *args])

    def _find(self) -> None:
        self._bindir = find_pg_bindir()
        if self._bindir is None:
            raise ServerUnavailable("PostgreSQL (initdb, pg_ctl) is not installed")

    def _prepare(self) -> None:
        assert self._bindir is not None
        init = self._run([
            str(self._bindir / "initdb"), "-D", f"{self._dir}/data", "-U", "postgres",
            "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
        ])  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{init.stdout}\n{init.stderr}")

    def _launch(self) -> str | None:
        options = " ".join([
            f"-k {self._dir}", "-h 127.0.0.1", f"-p {self.port}",
            "-c max_connections=200", *(f"-c {s}" for s in self.settings),
        ])  # fmt: skip
        started = self._pg_ctl(
            "-l", f"{self._dir}/server.log", "-o", options, "-w", "-t", str(int(_START_TIMEOUT)),
            "start",
        )  # fmt: skip
        if started.returncode == 0:
            self._read_pid()
            return None
        return started.stdout + started.stderr + self._log_tail(Path(f"{self._dir}/server.log"))

    def _read_pid(self) -> None:
        self.pid = int(Path(f"{self._dir}/data/postmaster.pid").read_text().split()[0])

    def restart(self) -> None:
        """Restart the server on the same port and data directory (``pg_ctl restart -m fast``).

        Every open connection is terminated, as in a real server restart.
        """
        if self._dir is None or self._bindir is None:
            raise RuntimeError("the server is not running")
        done = self._pg_ctl(
            "-l", f"{self._dir}/server.log", "-m", "fast", "-w", "-t", str(int(_START_TIMEOUT)),
            "restart",
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not restart:\n{done.stdout}\n{done.stderr}")
        self._read_pid()

    def _halt(self) -> None:
        """``pg_ctl stop -m fast``, then SIGKILL to the postmaster's PID if it lingers."""
        if self.pid and self._dir is not None and self._bindir is not None:
            self._pg_ctl("-m", "fast", "-w", "stop")
            deadline = time.monotonic() + 10
            while _pid_alive(self.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if _pid_alive(self.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
        self.pid = 0


class MariaDbServer(_LocalServer):
    """A MariaDB server made by ``mariadb-install-db`` in a temporary directory.

    ``mariadbd`` listens on 127.0.0.1 and an ephemeral port, and on a Unix socket in its own
    directory; ``root`` logs in without a password over TCP from 127.0.0.1. Its settings are
    those of Debian's package (``utf8mb4``, durable InnoDB), no option file is read. As root,
    both commands run as the unprivileged system user ``mysql`` (MariaDB refuses to run as
    root). ``new_database()`` makes a database per test module.

    Args:
        settings: more ``--name=value`` options for mariadbd.
    """

    NAME = "MariaDB"
    DIR_PREFIX = "smartpos-mariadb-"
    SYSTEM_USER = MARIADB_SYSTEM_USER
    TERMINATE_SECONDS = 30.0  # InnoDB's clean shutdown

    def __init__(self, *, settings: Sequence[str] = ()) -> None:
        super().__init__()
        self.settings = list(settings)
        self._install = Path()
        self._server = Path()

    @property
    def socket(self) -> str:
        """The path of the server's Unix socket."""
        if self._dir is None:
            raise RuntimeError("the server is not running")
        return f"{self._dir}/mariadb.sock"

    def connect(self, database: str | None = None) -> object:
        """A MySQLdb connection as ``root`` over TCP (autocommit on)."""
        import MySQLdb

        conn = MySQLdb.connect(
            host="127.0.0.1", port=self.port, user="root", charset="utf8mb4",
            **({"database": database} if database else {}),
        )  # fmt: skip
        conn.autocommit(True)
        return conn

    def _find(self) -> None:
        found = find_mariadb()
        if found is None:
            raise ServerUnavailable("MariaDB (mariadb-install-db, mariadbd) is not installed")
        self._install, self._server = found

    def _prepare(self) -> None:
        init = subprocess.run(
            [str(self._install), "--no-defaults", f"--datadir={self._dir}/data",
             "--auth-root-authentication-method=normal", "--skip-test-db",
             "--skip-name-resolve"],
            capture_output=True, text=True, timeout=120, check=False, cwd=self._dir,
            **self._run_as(),
        )  # fmt: skip
        if init.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed:\n{init.stdout}\n{init.stderr}")

    def _launch(self) -> str | None:
        log = Path(f"{self._dir}/server.log")
        args = [
            str(self._server), "--no-defaults", f"--datadir={self._dir}/data",
            f"--socket={self.socket}", f"--pid-file={self._dir}/mariadb.pid",
            f"--log-error={log}", "--bind-address=127.0.0.1", f"--port={self.port}",
            "--skip-name-resolve", "--max-connections=200",
            # Debian's /etc/mysql/mariadb.conf.d/50-server.cnf.
            "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
            *self.settings,
        ]  # fmt: skip
        return None if self._spawn(args, answers=self._answers) else self._log_tail(log)

    def _answers(self) -> bool:
        self.connect().close()  # type: ignore[attr-defined]
        return True

    def new_database(self, name: str) -> None:
        """Create database ``name`` (``utf8mb4``)."""
        conn = self.connect()
        try:
            conn.cursor().execute(  # type: ignore[attr-defined]
                f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            )
        finally:
            conn.close()  # type: ignore[attr-defined]

    def drop_database(self, name: str) -> None:
        """Drop database ``name`` if it exists."""
        conn = self.connect()
        try:
            conn.cursor().execute(f"DROP DATABASE IF EXISTS `{name}`")  # type: ignore[attr-defined]
        finally:
            conn.close()  # type: ignore[attr-defined]


def require_server(name: str, error: BaseException) -> NoReturn:
    """Skip the test (developer machine) or fail it (``CI`` set) because ``name`` is missing."""
    message = f"{name} is not available ({error}); install it with: {INSTALL_COMMAND}"
    if in_ci():
        pytest.fail(f"CI must run the {name} tests: {message}", pytrace=False)
    pytest.skip(message)


def require_module(module: str, name: str) -> ModuleType:
    """Import a server's Python client, or skip (developer machine) / fail (``CI`` set)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        require_server(name, exc)


def _import_client(module: str, name: str) -> None:
    require_module(module, name)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A real redis-server with ``appendonly yes`` for the whole session."""
    _import_client("redis", "the redis client (pip install 'smartpos[redis]')")
    server = RedisServer(appendonly=True, extra_args=["--appendfsync", "everysec"])
    try:
        server.start()
    except ServerUnavailable as exc:
        require_server("redis-server", exc)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_server_unsafe() -> Iterator[RedisServer]:
    """A real redis-server whose settings break the store's guarantees (no AOF, evicting)."""
    _import_client("redis", "the redis client (pip install 'smartpos[redis]')")
    server = RedisServer(
        appendonly=False,
        extra_args=["--appendfsync", "no", "--maxmemory-policy", "allkeys-lru"],
    )
    try:
        server.start()
    except ServerUnavailable as exc:
        require_server("redis-server", exc)
    yield server
    server.stop()


@contextlib.contextmanager
def own_server(server: RedisServer | PostgresServer | MariaDbServer) -> Iterator[None]:
    """Run ``server`` for the block (a test's own: one it may pause, restart or stop).

    Missing binaries skip the test with the install command (fail it in CI), as the session
    fixtures do; the server is stopped by its PID afterwards.
    """
    try:
        server.start()
    except ServerUnavailable as exc:
        require_server(server.NAME, exc)
    try:
        yield
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server (durable defaults) for the whole session."""
    _import_client("psycopg_pool", "psycopg and psycopg-pool (pip install 'smartpos[postgres]')")
    server = PostgresServer()
    try:
        server.start()
    except ServerUnavailable as exc:
        require_server("PostgreSQL", exc)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[MariaDbServer]:
    """A real MariaDB server (durable defaults) for the whole session."""
    _import_client("MySQLdb", "mysqlclient (pip install mysqlclient)")
    server = MariaDbServer()
    try:
        server.start()
    except ServerUnavailable as exc:
        require_server("MariaDB", exc)
    yield server
    server.stop()
