"""Serve the app with k Streamlit processes behind nginx (``make serve WORKERS=k``).

* k ``streamlit run app.py`` workers with the production settings of ``.streamlit/config.toml`` on
  127.0.0.1, ports ``port+1 … port+k``;
* nginx (Debian's package, installed by ``make serve`` the way ``make test`` installs chromium) on
  ``port``, proxying HTTP and the ``/_stcore/stream`` websocket, with **sticky sessions**: the first
  request of a browser gets a route cookie (``hetdp_route``, from nginx's ``$request_id``) and every
  later request of that browser — the websocket, uploads, media — is hashed on it to the same
  worker (a Streamlit session lives in one process). Clients without the cookie (e.g. the load
  tool's virtual users) are spread over the workers by their request id;
* a result cache shared by the workers on disk (``HETDP_CACHE_DIR``, python-diskcache, entries
  signed with a secret made for this launch): a sweep computed in one worker is read, not
  recomputed, by the others;
* **supervision**: a small supervising loop in this process (:meth:`Stack.supervise`) restarts a
  worker that dies within about a second (and nginx, should it die), at most ``MAX_RESTARTS`` times a
  minute per process; a request that a dead worker refuses is retried on the next worker
  (``proxy_next_upstream``), so a crash costs only the sessions that lived in that process. nginx
  does not mark a refusing worker down (``max_fails=0``): a restarted worker gets its share of new
  users the moment its port opens (see :meth:`Stack.nginx_conf`). A
  loop in the process that already owns the children was chosen over an external supervisor
  (supervisord, systemd): nothing more to install or configure, and it is tested by killing workers.
* **logs**: each worker's and nginx's output goes to files in ``--log-dir`` (default ``logs/serve``
  in the checkout, git-ignored): ``worker-<port>.log``, ``nginx-error.log``, ``supervisor.log``;
* **workers elsewhere** (``--upstream HOST:PORT``, repeated; ``make serve UPSTREAMS="…"``): workers that
  another machine runs (its own ``make serve``, its workers listening on ``--worker-host``) join this
  nginx's upstreams by address, hashed on the same route cookie, so each browser stays on one worker
  of one machine. Every machine must use one PostgreSQL (``HETDP_DATABASE_URL``; refused with SQLite,
  which would split a class into one file per machine). A remote worker that refuses is skipped for
  ``REMOTE_FAIL_SECONDS`` (a dead machine is not asked again by every reconnecting browser); its
  students reconnect to the others and go on from their links. The result cache is per machine: a sweep
  computed on one machine is computed again, once, on the other (python-diskcache over a network file
  system is not safe). Set the same ``STREAMLIT_SERVER_COOKIE_SECRET`` on every machine (a login made on
  one is then valid on the others).

    python -m hetdp_ui.serve --workers 2 --port 8501 [--log-dir DIR] [--upstream HOST:PORT …] [--worker-host H]

Ctrl-C (or SIGTERM) stops nginx and every worker.
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

CONF = """\
worker_processes 1;
pid {run}/nginx.pid;
error_log {log}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {run}/body;
    proxy_temp_path {run}/proxy;
    fastcgi_temp_path {run}/fastcgi;
    uwsgi_temp_path {run}/uwsgi;
    scgi_temp_path {run}/scgi;
    client_max_body_size 25m;
    map $cookie_hetdp_route $hetdp_route {{
        ""      $request_id;
        default $cookie_hetdp_route;
    }}
    map $http_upgrade $connection_upgrade {{
        default upgrade;
        ""      close;
    }}
    upstream hetdp {{
        hash $hetdp_route consistent;
{servers}
    }}
    server {{
        listen {host}:{port};
        location / {{
            add_header Set-Cookie "hetdp_route=$hetdp_route; Path=/; HttpOnly; SameSite=Lax" always;
            add_header X-Hetdp-Worker $upstream_addr always;
            proxy_pass http://hetdp;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_connect_timeout 2s;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_set_header X-Hetdp-Proxy "{host}:{port}";
            proxy_read_timeout 86400s;
            proxy_buffering off;
        }}
    }}
}}
"""


#: seconds a remote worker that refused a connection is left out before it is tried again
REMOTE_FAIL_SECONDS = 5


def _reach(worker_host: str) -> str:
    """The address this machine reaches its own workers at (they listen on ``worker_host``)."""
    return "127.0.0.1" if worker_host in ("", "0.0.0.0", "::") else worker_host


def upstream_address(text: str) -> str:
    """``HOST:PORT`` of a worker elsewhere, checked (nginx would refuse the whole configuration)."""
    host, sep, port = str(text).strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or any(c in host for c in " ;{}#"):
        raise SystemExit(f"serve: --upstream must be HOST:PORT (a worker on another machine); got {text!r}")
    return f"{host}:{int(port)}"


def shared_database() -> str:
    """The class database every machine shares; refused (one line) unless it is a server's (PostgreSQL)."""
    url = os.environ.get("HETDP_DATABASE_URL", "").strip()
    if not url or url.startswith("sqlite"):
        raise SystemExit(
            "serve: workers on other machines need one class database for all of them: set HETDP_DATABASE_URL "
            "to the same PostgreSQL URL on every machine (an SQLite file would split the class by machine)."
        )
    return url


#: restarts allowed per process and minute before the supervisor gives up on it (a crash loop)
MAX_RESTARTS = 10


def _healthy(url: str) -> bool:
    """Whether ``url``'s Streamlit answers its health check with 200. No server there, or anything that is
    not an HTTP answer (a connection that reached itself: :func:`benchmarks.load.free_port`), is not
    healthy."""
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except (OSError, http.client.HTTPException):
        return False


def streamlit_command(port: int, *extra: str, address: str = "127.0.0.1") -> list[str]:
    """``streamlit run app.py`` on ``address``:``port`` with the production settings of
    ``.streamlit/config.toml`` (``extra``: more ``--option value`` pairs), through
    :mod:`hetdp_ui.launch` (the pages' imports done before the port opens)."""
    app = str(ROOT / "app.py")
    return [
        sys.executable,
        "-m",
        "hetdp_ui.launch",
        "run",
        app,
        "--server.port",
        str(port),
        "--server.address",
        address,
        *extra,
    ]


def start_streamlit(
    port: int, *extra: str, log=subprocess.DEVNULL, env=None, timeout: float = 60.0
) -> subprocess.Popen:
    """Start :func:`streamlit_command` and return once it answers its health check; raise
    RuntimeError (with the process killed) if it exits or stays silent for ``timeout`` seconds."""
    proc = subprocess.Popen(streamlit_command(port, *extra), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + timeout
    while time.time() < deadline:
        if _healthy(f"http://127.0.0.1:{port}"):
            return proc
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"streamlit did not become healthy within {timeout:g} s")


class Stack:
    """k workers + nginx; ``start()`` returns when all answer, ``stop()`` ends them."""

    def __init__(
        self,
        *,
        workers: int,
        port: int,
        host: str = "127.0.0.1",
        cache_dir: str | None = None,
        log_dir: str | Path | None = None,
        upstreams: tuple[str, ...] | list[str] = (),
        worker_host: str = "127.0.0.1",
    ):
        self.upstreams = tuple(upstream_address(u) for u in upstreams)
        if workers < (0 if self.upstreams else 1):
            raise SystemExit("serve: --workers must be at least 1 (or 0 with --upstream)")
        if self.upstreams:
            shared_database()
        if not Path(NGINX).exists():
            raise SystemExit("serve: nginx not found. `make serve` installs Debian's nginx-light (apt-get).")
        self.workers, self.port, self.host, self.worker_host = workers, port, host, worker_host
        self.run_dir = Path(tempfile.mkdtemp(prefix="hetdp-serve-"))
        self.cache_dir = cache_dir or str(self.run_dir / "cache")
        self.procs: list[subprocess.Popen] = []
        self.worker_ports = [port + 1 + i for i in range(workers)]
        self.log_dir = Path(log_dir) if log_dir else self.run_dir / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.restarts: dict[str, list[float]] = {}
        # one cookie secret for all workers, so XSRF tokens are valid on every worker (the one set for every
        # machine, when one is set); the shared result cache signs its entries with a secret made for this
        # launch (see runcache)
        self.env = {
            **os.environ,
            "HETDP_CACHE_DIR": self.cache_dir,
            "HETDP_CACHE_SECRET": secrets.token_hex(32),
            "STREAMLIT_SERVER_COOKIE_SECRET": os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET") or secrets.token_hex(32),
        }

    def _log(self, msg: str) -> None:
        with open(self.log_dir / "supervisor.log", "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}\n")

    def _worker(self, port: int) -> subprocess.Popen:
        log = open(self.log_dir / f"worker-{port}.log", "ab")
        # where a failed-over student's own worker is asked for, and who this worker is (hetdp_ui.handback)
        env = {
            **self.env,
            "HETDP_PROXY_URL": f"http://{_reach(self.host)}:{self.port}",
            "HETDP_PROXY_ID": f"{self.host}:{self.port}",
            "HETDP_WORKER_ADDR": f"{_reach(self.worker_host)}:{port}",
        }
        try:
            return subprocess.Popen(
                streamlit_command(port, address=self.worker_host),
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()

    def _nginx(self) -> subprocess.Popen:
        conf = self.run_dir / "nginx.conf"
        return subprocess.Popen(
            [NGINX, "-c", str(conf), "-p", str(self.run_dir), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def nginx_conf(self) -> str:
        """nginx's configuration: this machine's workers and those elsewhere as one upstream, hashed on the
        route cookie."""
        # a request that a worker refuses (dead, or restarting) is retried on the next one; the refusal costs
        # a local connect() of well under a millisecond, so nginx does not mark the worker down: with
        # max_fails=1 a recovering worker got one probe connection per fail_timeout until a websocket to it
        # had *closed* (nginx counts a proxied request a success only at its end), and a fault run saw 28
        # of 30 new users sent to the one other worker seconds after the restarted one was serving again.
        # A worker on another machine is different: a dead machine may cost a connect timeout per try, and
        # its own supervisor, not ours, restarts it; it is left out for a few seconds after a refusal.
        local = [f"        server {_reach(self.worker_host)}:{p} max_fails=0;" for p in self.worker_ports]
        remote = [f"        server {u} max_fails=1 fail_timeout={REMOTE_FAIL_SECONDS}s;" for u in self.upstreams]
        servers = "\n".join(local + remote)
        return CONF.format(run=self.run_dir, log=self.log_dir, host=self.host, port=self.port, servers=servers)

    def start(self, timeout: float = 90.0) -> Stack:
        for p in self.worker_ports:
            self.procs.append(self._worker(p))
        (self.run_dir / "nginx.conf").write_text(self.nginx_conf())
        self.nginx = self._nginx()
        deadline = time.time() + timeout
        urls = [f"http://{_reach(self.worker_host)}:{p}" for p in self.worker_ports] + [self.url]
        while time.time() < deadline:
            if self.nginx.poll() is not None:
                err = self.nginx.stderr.read().decode(errors="replace").strip()
                self.stop()
                raise SystemExit(f"serve: nginx exited: {err}")
            if all(_healthy(u) for u in urls):
                return self
            time.sleep(0.3)
        self.stop()
        raise SystemExit(f"serve: the workers did not become healthy within {timeout:g} s")

    def supervise_once(self) -> list[str]:
        """Restart every dead worker (and nginx); return what was restarted. A process that needed more
        than ``MAX_RESTARTS`` restarts in the last minute is left down (logged)."""
        done = []
        now = time.time()

        def may_restart(name: str, proc) -> bool:
            """Log and count a restart of ``name``, unless it already used its restarts of the last minute."""
            recent = [t for t in self.restarts.get(name, []) if now - t < 60]
            if len(recent) >= MAX_RESTARTS:
                return False
            self._log(f"{name} exited with code {proc.returncode}; restarting")
            self.restarts[name] = recent + [now]
            done.append(name)
            return True

        for i, (port, p) in enumerate(zip(self.worker_ports, self.procs)):
            if p.poll() is not None and may_restart(f"worker-{port}", p):
                self.procs[i] = self._worker(port)
        if (
            getattr(self, "nginx", None) is not None
            and self.nginx.poll() is not None
            and may_restart("nginx", self.nginx)
        ):
            self.nginx = self._nginx()
        return done

    def supervise(self, stop, interval: float = 0.5) -> None:
        """Run :meth:`supervise_once` every ``interval`` seconds until ``stop`` (an Event) is set."""
        while not stop.is_set():
            self.supervise_once()
            stop.wait(interval)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def stop(self) -> None:
        for p in [getattr(self, "nginx", None), *self.procs]:
            if p is not None and p.poll() is None:
                p.terminate()
        for p in [getattr(self, "nginx", None), *self.procs]:
            if p is not None:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(self.run_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m hetdp_ui.serve", description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--port", type=int, default=8501)
    ap.add_argument("--host", default="0.0.0.0", help="address nginx listens on")
    ap.add_argument(
        "--worker-host",
        default="127.0.0.1",
        help="address the workers listen on (another machine's nginx reaches them there; default 127.0.0.1)",
    )
    ap.add_argument(
        "--upstream",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="a worker on another machine, joined to this nginx's upstreams (repeat for each; needs PostgreSQL)",
    )
    ap.add_argument(
        "--log-dir",
        default=str(ROOT / "logs" / "serve"),
        help="where worker, nginx and supervisor logs go (default: logs/serve in the checkout)",
    )
    a = ap.parse_args(argv)
    import threading

    stack = Stack(
        workers=a.workers, port=a.port, host=a.host, log_dir=a.log_dir, upstreams=a.upstream, worker_host=a.worker_host
    ).start()
    elsewhere = f" and {len(stack.upstreams)} elsewhere ({', '.join(stack.upstreams)})" if stack.upstreams else ""
    print(
        f"hetdp: {a.workers} workers{elsewhere} behind nginx on http://{a.host}:{a.port} (sticky sessions, "
        f"result cache in {stack.cache_dir} shared by this machine's workers, supervised; logs in "
        f"{stack.log_dir}); Ctrl-C stops",
        flush=True,
    )
    stop = threading.Event()

    def handler(*_):
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    try:
        stack.supervise(stop)
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
