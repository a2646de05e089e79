"""The cancel check between blocks of long engine work: ``on_block`` callbacks.

Long NumPy functions of the engine (the separable gridders, the pruners, the
aliasing bound map) take ``on_block=None``: a callable they call between two
blocks of their work. The caller (the window's worker, through the lab's jobs)
passes a check that raises to stop the work, so a cancel takes effect within one
block. The callback never changes the result: the blocks are the same with and
without it. The engine knows nothing of what the callback does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator


def block_done(on_block: Callable[[], object] | None) -> None:
    """Call ``on_block()`` when given (it may raise: the caller's way to stop)."""
    if on_block is not None:
        on_block()


#: Cells of a grid-sized array handled per block by the separable gridders'
#: grid-wide steps (binning bands, fold, FFT and pruner columns): 2²⁰ complex
#: cells, 16 MiB, some tens of milliseconds of NumPy work on a laptop core.
BLOCK_CELLS = 1 << 20


def spans(n: int, per_block: int) -> Iterator[slice]:
    """Slices ``[a, b)`` covering ``0 … n`` in pieces of ``per_block`` (at least 1)."""
    per_block = max(1, int(per_block))
    for a in range(0, n, per_block):
        yield slice(a, min(n, a + per_block))
