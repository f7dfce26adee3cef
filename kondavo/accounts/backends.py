"""Authentication backends."""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' check (refuse while the client is locked out) for every login made
    through a request: the login form, and any view that authenticates. A call without a
    request (a management command, the test client's ``login``) is not a client's attempt
    and has no address to throttle: it is passed on to the next backend instead of being
    refused as axes' own backend does."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None,
                     password: str | None = None, **kwargs: Any) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
