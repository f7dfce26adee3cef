"""docker-compose.yml is valid against the compose spec (offline) and scalable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_DIR = Path(__file__).resolve().parent.parent
COMPOSE = REPO_DIR / "docker-compose.yml"


def test_compose_file_matches_compose_spec() -> None:
    result = subprocess.run(
        [
            sys.executable, "-m", "check_jsonschema",
            "--builtin-schema", "vendor.compose-spec", str(COMPOSE),
        ],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_services_are_scalable() -> None:
    from ruamel.yaml import YAML  # a dependency of check-jsonschema

    services = YAML(typ="safe").load(COMPOSE.read_text())["services"]
    assert {"postgres", "redis", "web", "worker"} <= set(services)
    for name, service in services.items():
        assert "container_name" not in service, name
        if name != "web":
            assert "ports" not in service, f"{name} must not publish host ports"
    assert "daphne" in str(services["web"]["command"])
    assert "-Q" in str(services["worker"]["command"])
    assert (REPO_DIR / "Dockerfile").is_file()


def test_postgres_max_connections_fits_the_pools() -> None:
    """max_connections is set (default 200) and fits the documented formula for the
    default deployment: one web, one bot worker of concurrency 2, worker-fast,
    worker-default and beat."""
    import re

    from ruamel.yaml import YAML

    services = YAML(typ="safe").load(COMPOSE.read_text())["services"]
    command = " ".join(services["postgres"]["command"])
    match = re.search(r"max_connections=\$\{POSTGRES_MAX_CONNECTIONS:-(\d+)\}", command)
    assert match, command
    env = (REPO_DIR / ".env.example").read_text()
    pool = int(re.search(r"^DB_POOL_MAX_SIZE=(\d+)$", env, re.M).group(1))  # type: ignore[union-attr]
    worker_concurrency = int(re.search(r"--concurrency=(\d+)",
                                       str(services["worker"]["command"])).group(1))  # type: ignore[union-attr]
    needed = (1 + 1 * worker_concurrency + 3) * pool + 10
    assert int(match.group(1)) >= needed
