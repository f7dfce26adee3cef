"""The edge's real nginx configuration (deploy/nginx/) run by /usr/sbin/nginx for tests:
``deploy/nginx/edge_local.py`` renders and runs it; this adds a throwaway certificate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parents[2]
DEPLOY = REPO_DIR / "deploy" / "nginx"
sys.path.insert(0, str(DEPLOY))

from edge_local import NGINX, Edge, running_edge  # noqa: E402

__all__ = ["DEPLOY", "NGINX", "Edge", "running_edge", "self_signed_certificate"]


def self_signed_certificate(directory: Path) -> Path:
    """``directory`` with a fresh fullchain.pem and privkey.pem for CN=localhost."""
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-keyout", str(directory / "privkey.pem"),
                    "-out", str(directory / "fullchain.pem")], check=True, capture_output=True)
    return directory
