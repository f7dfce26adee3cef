"""Types of the compiled core's extension module (sources: module.c)."""

from collections.abc import Sequence

MATE: int
MAX_SQUARES: int
EVAL_HEADER: int

_Key = tuple[int, int, int]

class Core:
    def __init__(self, spec: dict[str, object], eval_params: Sequence[int],
                 tt_mb: int = ...) -> None: ...
    def legal_moves(self, wm: int, wk: int, bm: int, bk: int, turn: int, /
                    ) -> list[tuple[tuple[int, ...], tuple[int, ...], bool, int]]: ...
    def perft(self, wm: int, wk: int, bm: int, bk: int, turn: int, depth: int, /) -> int: ...
    def evaluate(self, wm: int, wk: int, bm: int, bk: int, turn: int, /) -> int: ...
    def hash(self, wm: int, wk: int, bm: int, bk: int, turn: int, /) -> int: ...
    def clear(self) -> None: ...
    def search(self, white_men: int, white_kings: int, black_men: int, black_kings: int,
               turn: int, max_depth: int = ..., time_limit: float = ...,
               node_limit: int = ..., noise: int = ..., seed: int = ...,
               quiet_plies: int = ..., history: Sequence[int] | None = ...,
               fresh: bool = ...) -> tuple[_Key | None, int, int, int, int, list[_Key]]: ...
