"""docker-compose.yml is valid against the compose spec (offline) and scalable; only the edge
(nginx, deploy/nginx/) publishes ports, and nothing runs Daphne with --proxy-headers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

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
        if name != "edge":
            assert "ports" not in service, f"{name} must not publish host ports"
    assert "daphne" in str(services["web"]["command"])
    assert "-Q" in str(services["worker"]["command"])
    assert (REPO_DIR / "Dockerfile").is_file()


def test_postgres_max_connections_fits_the_pools() -> None:
    """max_connections is set (default 200) and fits the documented formula for the
    default deployment: one web, one bot worker of concurrency 2, worker-fast,
    worker-default, worker-analysis and beat."""
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
    needed = (1 + 1 * worker_concurrency + 4) * pool + 10
    assert int(match.group(1)) >= needed


def load_services() -> dict[str, Any]:
    from ruamel.yaml import YAML

    services: dict[str, Any] = YAML(typ="safe").load(COMPOSE.read_text())["services"]
    return services


def test_the_edge_fronts_the_daphnes() -> None:
    """nginx publishes 80 and 443 and mounts the deploy/nginx configuration read-only; the
    Daphnes publish nothing and trust exactly the compose network the edge is on."""
    import re

    from ruamel.yaml import YAML

    compose = YAML(typ="safe").load(COMPOSE.read_text())
    services = compose["services"]
    edge = services["edge"]
    assert edge["image"].startswith("nginx:")
    assert {str(p).rsplit(":", 1)[1] for p in edge["ports"]} == {"80", "443"}
    for volume in edge["volumes"]:
        source, target, mode = volume.rsplit(":", 2)
        assert mode == "ro", volume
        if source.startswith("./deploy/"):
            assert (REPO_DIR / source).exists(), volume
    assert "static:/srv/kondavo/static:ro" in edge["volumes"]
    assert edge["environment"]["KONDAVO_UPSTREAM"] == "web:8000"
    assert edge["environment"]["KONDAVO_RESOLVER"] == "127.0.0.11"
    web = services["web"]
    assert "ports" not in web
    assert "static:/app/staticfiles" in web["volumes"]
    assert "collectstatic" in str(web["command"])
    trusted = web["environment"]["KONDAVO_TRUSTED_PROXIES"]
    subnet = compose["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert trusted == subnet and re.fullmatch(r"\$\{KONDAVO_NETWORK_SUBNET:-[\d./]+\}", subnet)
    entrypoint = REPO_DIR / "deploy/nginx/docker-entrypoint.d/40-kondavo-real-ip.sh"
    assert entrypoint.stat().st_mode & 0o111, "the nginx image runs only executable scripts"


def test_no_daphne_trusts_proxy_headers_by_itself() -> None:
    """--proxy-headers would believe any client's X-Forwarded-For (kondavo/proxy.py decides)."""
    paths = [COMPOSE, REPO_DIR / "Dockerfile", REPO_DIR / "README.md", REPO_DIR / "Makefile",
             *(REPO_DIR / "docs").glob("*.md"), *(REPO_DIR / "deploy").rglob("*")]
    import re

    runs_daphne_with_it = re.compile(r"\bdaphne\b[^\n#]*--proxy-headers")
    for path in paths:
        if path.is_file():
            assert not runs_daphne_with_it.search(path.read_text()), path
    for name, service in load_services().items():
        assert "--proxy-headers" not in str(service.get("command", "")), name
    dockerfile = (REPO_DIR / "Dockerfile").read_text()
    assert not [line for line in dockerfile.splitlines()
                if "--proxy-headers" in line and not line.lstrip().startswith("#")]


def test_the_analysis_worker_runs_its_own_queue() -> None:
    command = load_services()["worker-analysis"]["command"]
    assert command == ["celery", "-A", "kondavo", "worker", "-Q", "analysis",
                       "--prefetch-multiplier=1", "--concurrency=1", "--loglevel=INFO"]


def test_the_image_tables_are_a_build_argument_with_the_strongest_default() -> None:
    """The compose file passes KONDAVO_IMAGE_TABLES_MB to the build with the Dockerfile's own
    default (400: five pieces on 8x8), and the Dockerfile's tables step reads it."""
    import re

    from ruamel.yaml import YAML

    compose = YAML(typ="safe").load(COMPOSE.read_text())
    args = compose["x-app"]["build"]["args"]
    assert args == {"KONDAVO_IMAGE_TABLES_MB": "${KONDAVO_IMAGE_TABLES_MB:-400}"}
    dockerfile = (REPO_DIR / "Dockerfile").read_text()
    assert re.search(r"^ARG KONDAVO_IMAGE_TABLES_MB=400$", dockerfile, re.M)
    assert ('KONDAVO_ENGINE_TABLES_MB="$KONDAVO_IMAGE_TABLES_MB" python -m bots.engine.tables'
            in dockerfile)
    assert "KONDAVO_IMAGE_TABLES_MB" in (REPO_DIR / "docs" / "deploying.md").read_text()
