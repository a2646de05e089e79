"""The conv setting that matches an entry's measured error (compare mode; issue 14).

A speed-up means something only at equal accuracy: hybrid at β = 16 grids
faster than conv at ε = 1e-5, but it is three orders of magnitude less
accurate. Given a comparison already made, :func:`iter_conv_match` images
the same samples with ``conv`` and the exact ES kernel at supports
S = 2, 3, … (ε = 10^(1−S) at σ = 2, the settings ``uvlab bench pareto``
sweeps; :meth:`~uvlab.gpu.gridders.params.GridParams.from_eps` gives back S),
measures each against the comparison's own DFT reference, and stops at the
first whose error is at most the entry's: the smallest such support among
the candidates. The error compared is :data:`MATCH_METRIC`, the RMS of
``|I − I_DFT| / peak(I_DFT)`` over the full image that the compare table shows.

S is the support :meth:`~uvlab.gpu.gridders.params.GridParams.from_eps` gives for
ε, and ``conv`` is that exact ES kernel of S cells on every device (the NumPy
chain on the CPU, CUDA on the GPU; ducc0, which picks its own kernel from ε,
is the catalogue's ``ducc`` entry), so the match reported is the S that ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Progress
from uvlab.app.lab.samples import check
from uvlab.gpu.gridders.registry import EXACT_GCF

#: Exact-ES supports tried, smallest first.
MATCH_SUPPORTS = tuple(range(2, 11))
#: The metric matched (a key of :func:`uvlab.gpu.aliasing.error_map`'s metrics).
MATCH_METRIC = "rms_full"


def conv_candidate(support: int, base: ImagingOptions) -> ImagingOptions:
    """``base`` as conv with the exact ES kernel of ``support`` cells (ε = 10^(1−S), σ = 2)."""
    return replace(
        base,
        algorithm=EXACT_GCF,
        kernel="es",
        kernel_size="eps",
        eps=10.0 ** (1 - int(support)),
        sigma=2.0,
        lookup="nearest",
    )


def same_conv(a: ImagingOptions, b: ImagingOptions) -> bool:
    """Whether two entries are the same exact-ES conv setting."""
    keys = ("algorithm", "kernel", "kernel_size", "eps", "sigma")
    return a.kernel_size == "eps" and all(getattr(a, k) == getattr(b, k) for k in keys)


@dataclass(frozen=True)
class ConvMatch:
    """What :func:`iter_conv_match` found.

    Attributes
    ----------
    target : str
        The matched entry's label.
    target_error : float
        Its :data:`MATCH_METRIC`.
    supports, errors, times_s : tuple
        The candidates tried, smallest support first, with their measured
        error and total time (the sum of their stage times), seconds.
    options : ImagingOptions or None
        The matching conv entry: the last candidate tried when it reaches the
        target's error; None when no candidate does.
    added : bool
        Whether the comparison gained it as a new entry (False when it was
        already an entry, or when there is none).
    """

    target: str
    target_error: float
    supports: tuple[int, ...]
    errors: tuple[float, ...]
    times_s: tuple[float, ...]
    options: ImagingOptions | None
    added: bool = False

    @property
    def support(self) -> int | None:
        return self.supports[-1] if self.options is not None else None

    def describe(self) -> str:
        """One line for the status bar and the compare view."""
        if self.options is None:
            return (
                f"no exact-ES conv up to S = {self.supports[-1]} reaches {self.target}'s "
                f"RMS error {self.target_error:.2e} (S = {self.supports[-1]}: "
                f"{self.errors[-1]:.2e})"
            )
        where = "added as an entry" if self.added else "already an entry"
        return (
            f"conv ES S = {self.support} (ε = {self.options.eps:.0e}) matches "
            f"{self.target}: RMS error {self.errors[-1]:.2e} ≤ {self.target_error:.2e} "
            f"({where})"
        )


def iter_conv_match(
    request, samples, comparison, target: str, base: ImagingOptions, cancelled=None
) -> Iterator[Progress]:
    """Image conv candidates until one reaches ``target``'s error; returns (ConvMatch, result).

    Parameters
    ----------
    request : JobRequest
        Its weighting, device and threads, as the comparison used.
    samples : Samples
        The imaging-ready samples the comparison was made on.
    comparison : Comparison
        Its reference (on every ``step``-th pixel) and ``target``'s result.
    target : str
        The label of the entry to match.
    base : ImagingOptions
        The entry to match (the candidates keep its image size, cell and weighting).
    cancelled : callable() -> bool, optional
        Polled between candidates.

    Returns
    -------
    (ConvMatch, AlgorithmResult or None)
        The match and the matching candidate's result (None when none matches).
    """
    from uvlab.app.lab.compare import Entry, measure_entry

    s, cmp = samples, comparison
    goal = float(cmp.results[target].metrics[MATCH_METRIC])
    supports, errors, times = [], [], []
    found = None
    for k, support in enumerate(MATCH_SUPPORTS):
        check(cancelled)
        yield Progress(k / len(MATCH_SUPPORTS), f"conv S={support} against {target}")
        options = conv_candidate(support, base)
        entry = Entry(f"conv S={support}", "conv", request.grid_params(options))
        result = measure_entry(
            s.uvw, s.freq_hz, s.vis, s.weight, s.spec, entry, cmp.reference, cmp.step,
            flag=s.flag, weighting=request.imaging.weighting_spec(), device=request.device,
            cancelled=cancelled,
        )  # fmt: skip
        supports.append(support)
        errors.append(float(result.metrics[MATCH_METRIC]))
        times.append(result.total_s)
        if errors[-1] <= goal:
            found = (options, result)
            break
    check(cancelled)
    yield Progress(1.0, "matched")
    match = ConvMatch(
        target,
        goal,
        tuple(supports),
        tuple(errors),
        tuple(times),
        None if found is None else found[0],
    )
    return match, None if found is None else found[1]
