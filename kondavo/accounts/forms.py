"""Account forms: Django's auth forms, with an optional e-mail on sign-up."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from .models import Player
from .names import validate_public_name


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail (optional)"),
        required=False,
        help_text=_("Only used to help you recover your account."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        username: str = super().clean_username()
        if username:
            validate_public_name(username)
        # The username becomes the public Player name; refuse one that a bot or another
        # player already shows, unless it is this browser's own guest name.
        guest = getattr(self, "guest", None)
        taken = Player.objects.filter(name__iexact=username)
        if guest is not None:
            taken = taken.exclude(pk=guest.pk)
        if taken.exists():
            raise forms.ValidationError(_("This name is already taken."))
        return username
