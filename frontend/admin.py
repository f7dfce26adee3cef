"""Django admin for staff: which installed rulesets the site offers, and in what order."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from variants import default_registry

from .models import RulesetChoice


class RulesetChoiceForm(forms.ModelForm):
    key = forms.ChoiceField(choices=())

    class Meta:
        model = RulesetChoice
        fields = ("key", "enabled", "position")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["key"].choices = [(v.key, f"{v.name} ({v.key})")
                                      for v in default_registry()]


@admin.register(RulesetChoice)
class RulesetChoiceAdmin(admin.ModelAdmin):
    form = RulesetChoiceForm
    list_display = ("key", "enabled", "position")
    list_editable = ("enabled", "position")
    ordering = ("position", "key")
