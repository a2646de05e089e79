"""Chunk sizes from a memory budget, and out-of-memory fallback by halving.

On the GPU the budget is a fraction of the free device memory
(:func:`uvlab.gpu.backend.free_device_bytes`); on the CPU it is a fixed cap on
temporaries (:data:`CPU_BUDGET_BYTES`). :func:`iter_chunked` runs a function
over consecutive slices and, when an allocation fails
(``cupy.cuda.memory.OutOfMemoryError``, cuBLAS ``ALLOC_FAILED`` or NumPy's
``MemoryError``), frees cached blocks, halves the chunk and retries; below a
minimum chunk it raises :class:`PredictMemoryError` naming the sizes.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

#: Cap on the temporaries of one CPU chunk, bytes.
CPU_BUDGET_BYTES = 256 * 2**20

#: Fraction of the free GPU memory one chunk may use.
GPU_FRACTION = 0.5


class PredictMemoryError(MemoryError):
    """Even the smallest chunk of a predict does not fit in memory."""


def chunk_from_budget(bytes_per_unit: float, total: int, budget_bytes: float, minimum: int = 1):
    """Largest chunk (in units) whose temporaries fit ``budget_bytes``, within [minimum, total]."""
    if total <= 0:
        return max(int(minimum), 1)
    n = int(budget_bytes // max(float(bytes_per_unit), 1.0))
    return int(max(min(n, total), min(minimum, total), 1))


def device_budget(device: str) -> float:
    """Bytes one chunk may use on ``device`` ("cpu" or "gpu")."""
    if device == "gpu":
        from uvlab.gpu.backend import free_device_bytes

        return GPU_FRACTION * free_device_bytes()
    return float(CPU_BUDGET_BYTES)


def is_out_of_memory(exc: BaseException) -> bool:
    """True for allocation failures worth retrying with a smaller chunk."""
    if isinstance(exc, PredictMemoryError):
        return False
    if isinstance(exc, MemoryError):  # NumPy, and cupy's OutOfMemoryError subclasses it
        return True
    text = f"{type(exc).__name__}: {exc}"
    return "ALLOC_FAILED" in text or "out of memory" in text.lower()


def release_cached_memory() -> None:
    """Give cached device blocks back (no-op without CuPy) and collect garbage."""
    gc.collect()
    try:
        import cupy
    except Exception:
        return
    try:
        cupy.get_default_memory_pool().free_all_blocks()
    except Exception:
        pass


def iter_chunked(
    fn: Callable[[slice], object],
    total: int,
    chunk: int,
    *,
    min_chunk: int = 1,
    what: str = "rows",
    bytes_per_unit: float = 0.0,
) -> Iterator[tuple[slice, object]]:
    """Yield ``(slice, fn(slice))`` over ``range(total)`` in chunks of ``chunk``.

    On an out-of-memory error the chunk is halved (and kept halved for the
    rest of the run) and the same slice retried.

    Raises
    ------
    PredictMemoryError
        When a chunk of ``min_chunk`` units still fails.
    """
    chunk = max(int(chunk), 1)
    start = 0
    while start < total:
        stop = min(start + chunk, total)
        try:
            result = fn(slice(start, stop))
        except Exception as exc:
            if not is_out_of_memory(exc):
                raise
            release_cached_memory()
            if stop - start <= min_chunk:
                need = (
                    f" (about {bytes_per_unit * (stop - start) / 2**20:.1f} MiB)"
                    if bytes_per_unit
                    else ""
                )
                raise PredictMemoryError(
                    f"predict ran out of memory on a chunk of {stop - start} {what} of {total}"
                    f"{need}; reduce the sizes or free memory: {exc}"
                ) from exc
            chunk = max((stop - start) // 2, min_chunk)
            continue
        yield slice(start, stop), result
        start = stop
