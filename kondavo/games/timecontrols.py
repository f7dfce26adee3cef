"""The time controls offered by Kondavo: ``"<minutes>+<increment seconds>"`` or ``"untimed"``."""

from __future__ import annotations

from dataclasses import dataclass

UNTIMED = "untimed"


@dataclass(frozen=True, slots=True)
class TimeControl:
    key: str
    initial_ms: int | None  # None: untimed
    increment_ms: int

    @property
    def timed(self) -> bool:
        return self.initial_ms is not None

    @property
    def label(self) -> str:
        return "Untimed" if not self.timed else self.key


TIME_CONTROLS: tuple[TimeControl, ...] = (
    TimeControl("1+0", 60_000, 0),
    TimeControl("3+2", 180_000, 2_000),
    TimeControl("5+3", 300_000, 3_000),
    TimeControl("10+5", 600_000, 5_000),
    TimeControl("15+10", 900_000, 10_000),
    TimeControl(UNTIMED, None, 0),
)
DEFAULT_TIME_CONTROL = "5+3"
_BY_KEY = {tc.key: tc for tc in TIME_CONTROLS}


def time_control_keys() -> list[str]:
    return [tc.key for tc in TIME_CONTROLS]


def get_time_control(key: str) -> TimeControl:
    """The offered time control ``key`` (raises ValueError for anything else)."""
    try:
        return _BY_KEY[str(key).strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown time control {key!r}; choose one of {', '.join(_BY_KEY)}"
        ) from None
