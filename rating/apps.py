from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rating"
    verbose_name = _("Ratings")
