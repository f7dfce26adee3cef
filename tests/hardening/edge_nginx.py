"""The edge's real nginx configuration (deploy/nginx/) run as a subprocess for tests.

Rendered as the nginx image renders it (envsubst of the template, the real-ip script run
with the given trusted proxies), with only what a test must change: the listening ports
(free loopback ports), the pid, log and temporary file paths (a temporary directory), and no
``user`` switch when not root. Everything else (limits, headers, timeouts, locations) is
the deployed file.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[2]
DEPLOY = REPO_DIR / "deploy" / "nginx"
NGINX = Path("/usr/sbin/nginx")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def envsubst(text: str, variables: dict[str, str]) -> str:
    """``${NAME}`` replaced for the given names only (as the nginx image's envsubst does
    with its defined variables); nginx's own ``$variables`` stay."""
    def replace(match: re.Match[str]) -> str:
        return variables.get(match.group(1), match.group(0))

    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", replace, text)


@dataclass
class Edge:
    http_port: int
    https_port: int
    conf_dir: Path
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.http_port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def render(conf_dir: Path, *, upstream: str, static_parent: Path, mode: str = "plain",
           trusted_proxies: str = "", upstreams_conf: str = "", http_port: int,
           https_port: int) -> Path:
    """Writes the edge's configuration for a test into ``conf_dir``; returns nginx.conf.
    ``upstreams_conf``: the operator's conf.d/kondavo-upstreams.conf (docs/deploying.md)."""
    (conf_dir / "conf.d").mkdir(parents=True)
    if upstreams_conf:
        (conf_dir / "conf.d" / "kondavo-upstreams.conf").write_text(upstreams_conf)
    (conf_dir / "kondavo").mkdir()
    (conf_dir / "temp").mkdir()
    for path in (DEPLOY / "kondavo").iterdir():
        text = path.read_text()
        if path.name.startswith("servers-"):
            text = re.sub(r"^\s*listen \[::\].*\n", "", text, flags=re.M)
            text = re.sub(r"listen 80 ", f"listen 127.0.0.1:{http_port} ", text)
            text = re.sub(r"listen 443 ", f"listen 127.0.0.1:{https_port} ", text)
            text = text.replace("return 301 https://$host$request_uri;",
                                f"return 301 https://$host:{https_port}$request_uri;")
        (conf_dir / "kondavo" / path.name).write_text(text)
    template = (DEPLOY / "templates" / "kondavo.conf.template").read_text()
    (conf_dir / "conf.d" / "kondavo.conf").write_text(envsubst(template, {
        "KONDAVO_UPSTREAM": upstream, "KONDAVO_RESOLVER": "127.0.0.11",
        "KONDAVO_STATIC_PARENT": str(static_parent), "KONDAVO_EDGE_MODE": mode}))
    subprocess.run(
        ["sh", str(DEPLOY / "docker-entrypoint.d" / "40-kondavo-real-ip.sh")], check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
             "KONDAVO_EDGE_TRUSTED_PROXIES": trusted_proxies,
             "KONDAVO_REAL_IP_CONF": str(conf_dir / "conf.d" / "kondavo-real-ip.conf")})
    if mode == "tls":  # a throwaway self-signed certificate where the image mounts one
        (conf_dir / "certs").mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                        "-days", "1", "-subj", "/CN=localhost",
                        "-keyout", str(conf_dir / "certs" / "privkey.pem"),
                        "-out", str(conf_dir / "certs" / "fullchain.pem")],
                       check=True, capture_output=True)
    mime = Path("/etc/nginx/mime.types")
    if mime.is_file():
        shutil.copy(mime, conf_dir / "mime.types")
    else:
        (conf_dir / "mime.types").write_text(
            "types { text/html html; text/css css; application/javascript js; }\n")
    main = (DEPLOY / "nginx.conf").read_text()
    user = "user root;" if os.geteuid() == 0 else ""  # workers must read the temp dir
    main = re.sub(r"^user \w+;$", user, main, flags=re.M)
    main = re.sub(r"^pid .*;$", f"pid {conf_dir}/nginx.pid;", main, flags=re.M)
    main = re.sub(r"^worker_processes .*;$", "worker_processes 1;", main, flags=re.M)
    temp = conf_dir / "temp"
    main = main.replace("http {\n", "http {\n" + "".join(
        f"    {name}_temp_path {temp}/{name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")), 1)
    (conf_dir / "nginx.conf").write_text(main)
    return conf_dir / "nginx.conf"


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log_path: Path,
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
def running_edge(conf_dir: Path, **render_args: object) -> Iterator[Edge]:
    """nginx with the edge's configuration (see ``render``) in the foreground; stopped on
    exit (QUIT, then killed after 10 s)."""
    http_port, https_port = free_port(), free_port()
    conf = render(conf_dir, http_port=http_port, https_port=https_port,
                  **render_args)  # type: ignore[arg-type]
    log_path = conf_dir / "nginx.log"
    test = subprocess.run([str(NGINX), "-t", "-p", str(conf_dir), "-c", str(conf)],
                          capture_output=True, text=True)
    if test.returncode != 0:
        raise RuntimeError(f"nginx -t refused the configuration:\n{test.stderr}")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([str(NGINX), "-p", str(conf_dir), "-c", str(conf),
                                 "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(http_port, proc, log_path)
        yield Edge(http_port, https_port, conf_dir, log_path)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
