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
