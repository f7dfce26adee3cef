"""Kondavo's edge without Docker: this directory's nginx configuration run by a local nginx.

Renders the configuration as the nginx image does (envsubst of templates/, the real-ip
script) into a directory of its own, changing only what a local run must: the listening
ports and address, the pid, log and temporary paths (inside that directory), no ``user``
switch (workers run as the user who starts it). Everything else (limits, headers, timeouts,
locations) is the deployed configuration. Used by the tests (tests/hardening/test_edge.py)
and the labs, and handy to put the edge in front of Daphnes started by hand:

    python deploy/nginx/edge_local.py --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 \\
        --http-port 8080 --static-root staticfiles   # STATIC_ROOT, after collectstatic

Several ``--upstream`` make an upstream group (``kondavo_web``), as docs/deploying.md
describes for Daphnes on several machines. Needs ``nginx`` (``apt-get install nginx``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
NGINX = Path(shutil.which("nginx") or "/usr/sbin/nginx")
UPSTREAM_GROUP = "kondavo_web"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def envsubst(text: str, variables: dict[str, str]) -> str:
    """``${NAME}`` replaced for the given names only (as the nginx image's envsubst does with
    the variables it is given); nginx's own ``$variables`` stay."""
    def replace(match: re.Match[str]) -> str:
        return variables.get(match.group(1), match.group(0))

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", replace, text)


def system_resolver() -> str:
    """The first name server of /etc/resolv.conf (nginx resolves upstream names itself)."""
    try:
        text = Path("/etc/resolv.conf").read_text()
    except OSError:
        return "127.0.0.1"
    match = re.search(r"^nameserver\s+([0-9.]+)\s*$", text, re.M)
    return match.group(1) if match else "127.0.0.1"


def upstream_group(addresses: list[str]) -> str:
    servers = "".join(f"    server {a} max_fails=3 fail_timeout=10s;\n" for a in addresses)
    return f"upstream {UPSTREAM_GROUP} {{\n{servers}}}\n"


def render(conf_dir: Path, *, upstreams: list[str], static_root: Path, http_port: int,
           https_port: int, mode: str = "plain", trusted_proxies: str = "",
           certs_dir: Path | None = None, host: str = "127.0.0.1") -> Path:
    """Writes the edge's configuration into ``conf_dir`` (created); returns its nginx.conf.
    One upstream is used as is (``host:port``); several become an upstream group."""
    if mode not in ("plain", "tls"):
        raise ValueError(f"mode must be plain or tls, not {mode!r}")
    if not upstreams:
        raise ValueError("at least one upstream (host:port of a Daphne) is needed")
    for sub in ("conf.d", "kondavo", "temp"):
        (conf_dir / sub).mkdir(parents=True, exist_ok=True)
    upstream = upstreams[0]
    if len(upstreams) > 1:
        (conf_dir / "conf.d" / "kondavo-upstreams.conf").write_text(upstream_group(upstreams))
        upstream = UPSTREAM_GROUP
    for path in (HERE / "kondavo").iterdir():
        text = path.read_text()
        if path.name.startswith("servers-"):
            text = re.sub(r"^\s*listen \[::\].*\n", "", text, flags=re.M)
            text = text.replace("listen 80 ", f"listen {host}:{http_port} ")
            text = text.replace("listen 443 ", f"listen {host}:{https_port} ")
            text = text.replace("return 301 https://$host$request_uri;",
                                f"return 301 https://$host:{https_port}$request_uri;")
        (conf_dir / "kondavo" / path.name).write_text(text)
    template = (HERE / "templates" / "kondavo.conf.template").read_text()
    (conf_dir / "conf.d" / "kondavo.conf").write_text(envsubst(template, {
        "KONDAVO_UPSTREAM": upstream, "KONDAVO_RESOLVER": system_resolver(),
        "KONDAVO_STATIC_ROOT": str(static_root.resolve()), "KONDAVO_EDGE_MODE": mode}))
    subprocess.run(
        ["sh", str(HERE / "docker-entrypoint.d" / "40-kondavo-real-ip.sh")], check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
             "KONDAVO_EDGE_TRUSTED_PROXIES": trusted_proxies,
             "KONDAVO_REAL_IP_CONF": str(conf_dir / "conf.d" / "kondavo-real-ip.conf")})
    if mode == "tls":
        if certs_dir is None:
            raise ValueError("tls mode needs a directory with fullchain.pem and privkey.pem")
        shutil.copytree(certs_dir, conf_dir / "certs", dirs_exist_ok=True)
    mime = Path("/etc/nginx/mime.types")
    if mime.is_file():
        shutil.copy(mime, conf_dir / "mime.types")
    else:
        (conf_dir / "mime.types").write_text(
            "types { text/html html; text/css css; application/javascript js; }\n")
    main = (HERE / "nginx.conf").read_text()
    # Workers run as whoever starts nginx (as root: root, so that they read a private
    # temporary directory; this is a local tool, the image runs them as `nginx`).
    main = re.sub(r"^user \w+;$", "user root;" if os.geteuid() == 0 else "", main, flags=re.M)
    main = re.sub(r"^pid .*;$", f"pid {conf_dir}/nginx.pid;", main, flags=re.M)
    main = re.sub(r"^worker_processes .*;$", "worker_processes 1;", main, flags=re.M)
    temp = conf_dir / "temp"
    main = main.replace("http {\n", "http {\n" + "".join(
        f"    {name}_temp_path {temp}/{name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")), 1)
    (conf_dir / "nginx.conf").write_text(main)
    return conf_dir / "nginx.conf"


@dataclass
class Edge:
    http_port: int
    https_port: int
    conf_dir: Path
    log_path: Path
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.http_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log_path: Path,
                   timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"nginx exited with {proc.returncode}:\n"
                               f"{log_path.read_text(errors='replace')[-3000:]}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nginx did not listen on {port} within {timeout}s")


@contextmanager
def running_edge(conf_dir: Path, *, http_port: int | None = None,
                 https_port: int | None = None, **render_args: object) -> Iterator[Edge]:
    """nginx in the foreground with the edge's configuration (``render``; free loopback
    ports unless given); stopped on exit (TERM, killed after 10 s)."""
    http_port = http_port or free_port()
    https_port = https_port or free_port()
    conf = render(conf_dir, http_port=http_port, https_port=https_port,
                  **render_args)  # type: ignore[arg-type]
    check = subprocess.run([str(NGINX), "-t", "-q", "-p", str(conf_dir), "-c", str(conf)],
                           capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"nginx -t refused the configuration:\n{check.stderr}")
    log_path = conf_dir / "nginx.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([str(NGINX), "-p", str(conf_dir), "-c", str(conf),
                                 "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(http_port, proc, log_path)
        yield Edge(http_port, https_port, conf_dir, log_path, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--upstream", action="append", required=True,
                    help="host:port of a Daphne (repeat for several)")
    ap.add_argument("--http-port", type=int, default=8080)
    ap.add_argument("--https-port", type=int, default=8443)
    ap.add_argument("--host", default="127.0.0.1", help="address to listen on")
    ap.add_argument("--mode", choices=("plain", "tls"), default="plain")
    ap.add_argument("--certs", type=Path, help="tls: directory with fullchain.pem, privkey.pem")
    ap.add_argument("--trusted-proxies", default="",
                    help="load balancers in front (KONDAVO_EDGE_TRUSTED_PROXIES)")
    ap.add_argument("--static-root", type=Path, default=Path("staticfiles"),
                    help="the collected static files (STATIC_ROOT)")
    ap.add_argument("--dir", type=Path, help="where to write the configuration (default: temp)")
    args = ap.parse_args(argv)
    if not NGINX.is_file():
        print(f"{NGINX} not found: install nginx", file=sys.stderr)
        return 1
    conf_dir = args.dir or Path(tempfile.mkdtemp(prefix="kondavo-edge-"))
    with running_edge(conf_dir, http_port=args.http_port, https_port=args.https_port,
                      upstreams=args.upstream, static_root=args.static_root,
                      mode=args.mode, trusted_proxies=args.trusted_proxies,
                      certs_dir=args.certs, host=args.host) as edge:
        print(f"Kondavo's edge on http://{args.host}:{edge.http_port}/ -> "
              f"{', '.join(args.upstream)} (configuration and log in {conf_dir}); Ctrl-C stops",
              flush=True)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        try:
            edge.process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
