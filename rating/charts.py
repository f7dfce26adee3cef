"""Server-side SVG charts of rating histories. Every text is escaped; numbers are formatted
by us, so the markup needs no JavaScript and cannot carry markup from user data."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from .selectors import HistoryPoint

WIDTH = 480
HEIGHT = 160
PAD_LEFT = 44
PAD_RIGHT = 10
PAD_TOP = 12
PAD_BOTTOM = 20


def _scale(values: Sequence[int]) -> tuple[int, int]:
    lo, hi = min(values), max(values)
    if hi - lo < 40:  # keep a flat history readable
        mid = (hi + lo) // 2
        lo, hi = mid - 20, mid + 20
    return lo, hi


def rating_history_svg(points: Sequence[HistoryPoint], *, title: str) -> SafeString:
    """An inline ``<svg>`` line chart: the rating before the first game, then after each
    game. Returns an empty string when there is no history."""
    if not points:
        return mark_safe("")
    ratings = [points[0].rating - points[0].delta] + [p.rating for p in points]
    lo, hi = _scale(ratings)
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM
    step = inner_w / max(len(ratings) - 1, 1)

    def xy(i: int, r: int) -> tuple[float, float]:
        return PAD_LEFT + i * step, PAD_TOP + (hi - r) / (hi - lo) * inner_h

    coords = [xy(i, r) for i, r in enumerate(ratings)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    parts: list[str] = [
        format_html(
            '<svg class="rating-chart" xmlns="http://www.w3.org/2000/svg" role="img" '
            'viewBox="0 0 {} {}" width="{}" height="{}" aria-label="{}">'
            "<title>{}</title>",
            WIDTH, HEIGHT, WIDTH, HEIGHT, title, title,
        ),
        format_html(
            '<line class="axis" x1="{}" y1="{}" x2="{}" y2="{}" stroke="currentColor" '
            'stroke-opacity="0.3"/>',
            PAD_LEFT, PAD_TOP + inner_h, WIDTH - PAD_RIGHT, PAD_TOP + inner_h,
        ),
        format_html(
            '<text x="{}" y="{}" font-size="11" text-anchor="end" fill="currentColor">{}</text>',
            PAD_LEFT - 6, PAD_TOP + 4, hi,
        ),
        format_html(
            '<text x="{}" y="{}" font-size="11" text-anchor="end" fill="currentColor">{}</text>',
            PAD_LEFT - 6, PAD_TOP + inner_h, lo,
        ),
        format_html(
            '<polyline fill="none" stroke="currentColor" stroke-width="2" points="{}"/>', line
        ),
    ]
    for i, ((x, y), point) in enumerate(zip(coords[1:], points, strict=True), start=1):
        # Translators: the tooltip of one point of the rating chart, e.g. "game 3: 1516 (+16)".
        tip = _("game %(n)s: %(rating)s (%(delta)s)") % {
            "n": i, "rating": point.rating, "delta": f"{point.delta:+d}"}
        parts.append(
            format_html(
                '<circle cx="{}" cy="{}" r="2.5" fill="currentColor"><title>{}</title></circle>',
                f"{x:.1f}", f"{y:.1f}", tip,
            )
        )
    parts.append(
        format_html(
            '<text x="{}" y="{}" font-size="11" fill="currentColor">{}</text>',
            PAD_LEFT, HEIGHT - 4, escape(
                ngettext("%(n)s rated game", "%(n)s rated games", len(points))
                % {"n": len(points)}
            ),
        )
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every part above went through format_html
