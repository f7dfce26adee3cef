"""Sign up, log in, log out, change password. Django's auth views; the only extra step is
that a guest who signs up keeps their games (``player_claim_guest``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import User
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from kondavo.games.errors import GameError
from kondavo.limits import client_ip
from kondavo.ratelimits import rate_limit

from .forms import SignUpForm
from .middleware import player_required
from .models import Player
from .services import player_claim_guest, player_for_user


def _profile_url(player: Player) -> str:
    return reverse("rating:profile", args=[player.name])


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def _sign_up(*, form: SignUpForm, guest: Player | None) -> tuple[User, Player]:
    """Create the user and give them the guest's Player (and so its games), atomically.

    The password is hashed first, outside the transaction: hashing takes a good part of a
    second of CPU on purpose, and on SQLite (IMMEDIATE transactions) a transaction holds
    the database's write lock from its start, so every game's moves would wait for it."""
    user = form.save(commit=False)  # sets the hashed password; writes nothing
    with transaction.atomic():
        user.save()
        form.save_m2m()
        if guest is not None and guest.kind == Player.Kind.GUEST:
            player = player_claim_guest(guest=guest, user=user)
        else:
            player = player_for_user(user=user)
    return user, player


@sensitive_post_parameters("password1", "password2")
@csrf_protect
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return HttpResponseRedirect(_profile_url(player_for_user(user=request.user)))
    guest = getattr(request, "player", None)
    form = SignUpForm(request.POST or None)
    form.guest = guest
    if request.method == "POST":
        try:  # every attempt counts, so guessing free names is throttled too
            rate_limit(action="signup", keys=[f"ip:{client_ip(request)}"],
                       setting="KONDAVO_SIGNUP_RATE")
        except GameError as exc:
            form.add_error(None, exc.message)
            return render(request, "accounts/signup.html",
                          {"form": form, "next": _safe_next(request)}, status=429)
    if request.method == "POST" and form.is_valid():
        user, player = _sign_up(form=form, guest=guest)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome to Kondavo, %(name)s!") % {"name": player.name})
        return HttpResponseRedirect(_safe_next(request) or _profile_url(player))
    return render(request, "accounts/signup.html", {"form": form, "next": _safe_next(request)})


class LoginView(auth_views.LoginView):
    """A guest who logs in to an existing account leaves the guest's games with the guest."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def get_default_redirect_url(self) -> str:
        user = self.request.user
        if user.is_authenticated:
            return _profile_url(player_for_user(user=user))
        return "/"


class LogoutView(auth_views.LogoutView):
    """POST only (Django's LogoutView refuses GET)."""

    next_page = "/"


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")  # the session stays logged in


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


@require_POST
def guest(request: HttpRequest) -> HttpResponse:
    """``POST /accounts/guest/``: the visitor's identity, made now if they have none (the
    lobby page asks for it before its first seek: a websocket cannot set a cookie)."""
    try:
        player = player_required(request)
    except GameError as exc:
        return JsonResponse({"error": exc.as_dict()}, status=429)
    return JsonResponse({"name": player.name, "guest": player.is_guest})
