"""``{% notify_config %}``: what the notification bell (notify.js) needs on every page."""

from __future__ import annotations

from typing import Any

from django import template

from frontend.jsi18n import notify_strings

register = template.Library()


@register.simple_tag
def notify_config() -> dict[str, Any]:
    return {"ws": "/ws/notify/", "i18n": notify_strings()}
