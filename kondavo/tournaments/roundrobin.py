"""Round-robin schedules from the Berger tables (as published by FIDE, Handbook C.05,
Annex 1): every player meets every other once.

Players are numbered 1..n by seed (an odd field gets a phantom n+1: meeting it is a
bye). Round r (1-based) seats the numbers 1..n-1 in the order rotated by
(r-1)*n/2 places; the first of them meets n (with white in odd rounds, black in even
ones) and the k-th from the start meets the k-th from the end, the first of the two with
white. For 6 players that gives 1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 /
3-6 4-2 5-1, the published table.
"""

from __future__ import annotations


def berger_rounds(n: int) -> list[list[tuple[int, int | None]]]:
    """The rounds of an ``n``-player round-robin: per round, (white, black) pairs of seed
    numbers (1-based); ``(k, None)``: seed k has a bye that round."""
    if n < 2:
        return []
    size = n + (n % 2)
    half = size // 2
    rounds: list[list[tuple[int, int | None]]] = []
    for r in range(1, size):
        shift = ((r - 1) * half) % (size - 1)
        seats = [((k + shift) % (size - 1)) + 1 for k in range(size - 1)]
        boards: list[tuple[int, int]] = [(seats[0], size) if r % 2 else (size, seats[0])]
        boards += [(seats[k], seats[size - 1 - k]) for k in range(1, half)]
        out: list[tuple[int, int | None]] = []
        for white, black in boards:
            if size != n and size in (white, black):  # the phantom: a bye
                out.append((black if white == size else white, None))
            else:
                out.append((white, black))
        rounds.append(out)
    return rounds
