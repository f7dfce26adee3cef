"""Issue 9 item 7: production refuses weak or default secret keys and DEBUG; every page
carries a Content-Security-Policy without inline scripts; HSTS is on behind TLS."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hardening_helpers import http

from kondavo.settings.base import KNOWN_PLACEHOLDER_KEYS, secret_key_problem

REPO_DIR = Path(__file__).resolve().parents[2]
STRONG_KEY = "kq3-Vt9sLw0_Zr7xYb2NcPd5Hm8Jf1Ge4Ua6Ts0Qo3Wi9Ek2Rn7Dl5Xc1Bv8Mz4Py6"
TEMPLATE_DIRS = [REPO_DIR / "frontend" / "templates", REPO_DIR / "rating" / "templates",
                 REPO_DIR / "kondavo" / "accounts" / "templates"]


def production(**env: str) -> subprocess.CompletedProcess[str]:
    """Load kondavo.settings.production in a fresh interpreter; print a few settings."""
    clean = {k: v for k, v in os.environ.items()
             if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "SECURE_HSTS_SECONDS"}}
    clean.update({"ALLOWED_HOSTS": "kondavo.example"}, **env,
                 DJANGO_SETTINGS_MODULE="kondavo.settings.production")
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "print(s.DEBUG, s.SECURE_HSTS_SECONDS, s.SECURE_PROXY_SSL_HEADER[0], "
            "'csp.middleware.CSPMiddleware' in s.MIDDLEWARE)")
    return subprocess.run([sys.executable, "-c", code], cwd=REPO_DIR, env=clean,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("key", [
    "x", "", "change-me-to-a-long-random-string", "django-insecure-" + "a1b2c3d4e5" * 6,
    "django-insecure-kondavo-local-development-only", "x" * 80, "ab" * 40,
    "0123456789" * 4,  # 40 characters: too short
])
def test_production_refuses_a_weak_or_default_secret_key(key: str) -> None:
    result = production(SECRET_KEY=key)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "SECRET_KEY" in result.stderr


def test_production_refuses_debug() -> None:
    result = production(SECRET_KEY=STRONG_KEY, DEBUG="true")
    assert result.returncode != 0 and "DEBUG" in result.stderr


def test_production_loads_with_a_strong_key_and_hsts_on_by_default() -> None:
    result = production(SECRET_KEY=STRONG_KEY)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", str(365 * 24 * 3600), "HTTP_X_FORWARDED_PROTO",
                                     "True"]
    off = production(SECRET_KEY=STRONG_KEY, SECURE_HSTS_SECONDS="0")
    assert off.returncode == 0 and off.stdout.split()[1] == "0"


def test_secret_key_problem() -> None:
    assert secret_key_problem(STRONG_KEY) is None
    for placeholder in KNOWN_PLACEHOLDER_KEYS:
        assert secret_key_problem(placeholder) is not None
    # .env.example's value is refused, so a copied example never runs in production
    example = (REPO_DIR / ".env.example").read_text()
    value = re.search(r"^SECRET_KEY=(.*)$", example, re.M).group(1)  # type: ignore[union-attr]
    assert secret_key_problem(value) is not None


@pytest.mark.django_db
def test_hsts_is_sent_on_https_behind_the_proxy(client: Any, settings: Any) -> None:
    """As production has it: the proxy's X-Forwarded-Proto makes the request secure, and
    only then is HSTS sent."""
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 31536000
    secure = client.get("/rules/", HTTP_X_FORWARDED_PROTO="https")
    assert secure["Strict-Transport-Security"] == "max-age=31536000"
    assert "Strict-Transport-Security" not in client.get("/rules/")


def test_templates_have_no_inline_scripts_styles_or_handlers() -> None:
    """The CSP allows scripts and styles from the site's files only; a template that inlines
    one would be broken by it. (``json_script`` data blocks are not scripts.)"""
    offenders = []
    for folder in TEMPLATE_DIRS:
        for path in folder.rglob("*.html"):
            text = path.read_text()
            for match in re.finditer(r"<script\b([^>]*)>(.*?)</script>", text, re.S | re.I):
                attrs, body = match.groups()
                if "src=" not in attrs and body.strip():
                    offenders.append(f"{path}: inline <script>")
            if re.search(r"\son[a-z]+\s*=", text, re.I):
                offenders.append(f"{path}: inline event handler")
            if re.search(r"<style\b|\sstyle\s*=", text, re.I):
                offenders.append(f"{path}: inline style")
            if "javascript:" in text.lower():
                offenders.append(f"{path}: javascript: URL")
    assert offenders == []


@pytest.mark.django_db(transaction=True)
def test_pages_carry_the_content_security_policy(hardened_daphne: Any) -> None:
    import urllib.request

    for path in ("/", "/lobby/", "/rules/", "/leaderboards/", "/accounts/login/",
                 "/no/such/page/"):
        req = urllib.request.Request(hardened_daphne.base_url + path)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                headers = resp.headers
        except urllib.error.HTTPError as exc:
            headers = exc.headers
        csp = headers["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if d.strip())
        assert directives["script-src"] == "'self'", csp
        assert directives["style-src"] == "'self'", csp
        assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["X-Content-Type-Options"] == "nosniff"
    status, _ = http("GET", hardened_daphne.base_url + "/static/frontend/site.js")
    assert status == 200
