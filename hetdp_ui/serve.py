"""Serve the app with k Streamlit processes behind nginx (``make serve WORKERS=k``).

* k ``streamlit run app.py`` workers with the production settings of ``.streamlit/config.toml`` on
  127.0.0.1, ports ``port+1 … port+k``;
* nginx (Debian's package, installed by ``make serve`` the way ``make test`` installs chromium) on
  ``port``, proxying HTTP and the ``/_stcore/stream`` websocket, with **sticky sessions**: the first
  request of a browser gets a route cookie (``hetdp_route``, from nginx's ``$request_id``) and every
  later request of that browser — the websocket, uploads, media — is hashed on it to the same
  worker (a Streamlit session lives in one process). Clients without the cookie (e.g. the load
  tool's virtual users) are spread over the workers by their request id;
* a result cache shared by the workers on disk (``HETDP_CACHE_DIR``, a private directory): a
  sweep computed in one worker is read, not recomputed, by the others.

    python -m hetdp_ui.serve --workers 2 --port 8501

Ctrl-C (or SIGTERM) stops nginx and every worker.
"""

from __future__ import annotations

import argparse
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
error_log {run}/error.log warn;
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
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $host;
            proxy_read_timeout 86400s;
            proxy_buffering off;
        }}
    }}
}}
"""


def nginx_conf(*, run_dir: Path, host: str, port: int, worker_ports: list[int]) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in worker_ports)
    return CONF.format(run=run_dir, host=host, port=port, servers=servers)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


class Stack:
    """k workers + nginx; ``start()`` returns when all answer, ``stop()`` ends them."""

    def __init__(self, *, workers: int, port: int, host: str = "127.0.0.1", cache_dir: str | None = None):
        if workers < 1:
            raise SystemExit("serve: --workers must be at least 1")
        if not Path(NGINX).exists():
            raise SystemExit("serve: nginx not found. `make serve` installs Debian's nginx-light (apt-get).")
        self.workers, self.port, self.host = workers, port, host
        self.run_dir = Path(tempfile.mkdtemp(prefix="hetdp-serve-"))
        self.cache_dir = cache_dir or str(self.run_dir / "cache")
        self.procs: list[subprocess.Popen] = []
        self.worker_ports = [port + 1 + i for i in range(workers)]

    def start(self, timeout: float = 90.0) -> Stack:
        # one cookie secret for all workers, so XSRF tokens are valid on every worker
        env = {**os.environ, "HETDP_CACHE_DIR": self.cache_dir, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
        for p in self.worker_ports:
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(p),
                 "--server.address", "127.0.0.1"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        conf = self.run_dir / "nginx.conf"
        conf.write_text(nginx_conf(run_dir=self.run_dir, host=self.host, port=self.port,
                                   worker_ports=self.worker_ports))
        self.nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(self.run_dir), "-g", "daemon off;"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + timeout
        urls = [f"http://127.0.0.1:{p}" for p in self.worker_ports] + [self.url]
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
    ap.add_argument("--host", default="0.0.0.0", help="address nginx listens on (workers stay on 127.0.0.1)")
    a = ap.parse_args(argv)
    stack = Stack(workers=a.workers, port=a.port, host=a.host).start()
    print(f"hetdp: {a.workers} workers behind nginx on http://{a.host}:{a.port} (sticky sessions, shared "
          f"result cache in {stack.cache_dir}); Ctrl-C stops", flush=True)
    stop = {"now": False}

    def handler(*_):
        stop["now"] = True

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    try:
        while not stop["now"]:
            if any(p.poll() is not None for p in [stack.nginx, *stack.procs]):
                print("hetdp: a worker or nginx exited; stopping", file=sys.stderr)
                return 1
            time.sleep(0.5)
    finally:
        stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
