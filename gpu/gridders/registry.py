"""The algorithm catalogue: one frozen record per imaging algorithm (DESIGN §2).

Every place that offers or dispatches an algorithm reads :data:`CATALOGUE`:
the window's Imaging panel and compare entries (names, tooltips, which
parameter widgets are enabled), the command line's choices (``uvlab image``,
``demo``, ``compare``, ``gui --compare``), the imager and the benchmarks.
Adding an algorithm is one :class:`Algorithm` entry here plus its own module.

Every algorithm's CPU function has the signature
``dirty(u, v, wvis, spec, params, *, w=None, timer=None) -> (N, N) float64``
(unnormalised ``Re Σ wvis·exp(−2πi(u·l + v·m))``); every gridder's plan
function ``plans(spec, params) -> (AxisPlan u, AxisPlan v)`` describes the
NumPy chain that the analytic aliasing maps and the CUDA chains are built
from.

Each record also names its degridder (image → visibilities, the gridder's
adjoint; :mod:`uvlab.gpu.degridding`) by ``"module:function"`` — for the
host and, where there is one, for CUDA — imported only when asked for
(:meth:`Algorithm.degridder`); every algorithm has one, so Cotton–Schwab
runs with each. Every gridder corrects the w-term with ``params.wstack``:
the separable ones by w-stacking their own plans
(:mod:`~uvlab.gpu.gridders.wstack`), ``ducc`` by ducc0's w-gridder. Those with
``w_projection`` (``conv``) also offer w-projection with ``params.wprojplanes``
(:mod:`~uvlab.gpu.gridders.wproject`); :meth:`Algorithm.check` refuses it elsewhere.

What differs between algorithms beyond their functions is a field of the
record (``host_only``, ``w_correction``, ``analytic_bound``, ``co_grids_psf``
…): no module outside this one compares an algorithm's name with a literal
(``tests/test_catalogue_owns_behaviour.py`` checks). :data:`REFERENCE` names
the DFT, the reference the others are measured against; :func:`default_algorithm`
is the lab's default on each device.

``get_gridder(name, xp=cupy)`` returns the CUDA function of the same
algorithm, imported only then (by the record's ``"module:function"``
name), so this module stays NumPy-only. The CUDA function receives the
record first (:func:`uvlab.gpu.gridders.cuda_gridders.dirty_gpu`), which
carries the plans and the host fallback it needs: nothing imports this
module back.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from uvlab.gpu.gridders import conv, dft, ducc, hybrid, nn, pruned_nn

#: The CUDA path shared by the separable gridders.
SEPARABLE_CUDA = "uvlab.gpu.gridders.cuda_gridders:dirty_gpu"
#: The CUDA degridder of the separable gridders (pruned chains and w-stacking on the host).
DEGRID_CUDA = "uvlab.gpu.gridders.cuda_degrid:predict_gpu"
_DEGRID = "uvlab.gpu.gridders.degrid"

#: The GCF and its size, read by the gridders that convolve with a kernel:
#: the kernel, its support S (or the accuracy ε that chooses S, evaluated
#: exactly), its shape, its table's oversampling β and lookup, and the padding σ.
_GCF = frozenset({"kernel", "support", "eps", "exact", "shape", "oversample", "lookup", "sigma"})
#: Muscat's pruner: the uv oversampling β (decimated by α = β/2) and the kernel Z.
_PRUNER = frozenset({"oversample", "prune_kernel", "prune_support"})
#: Full compression (Muscat §3.2.4): the algorithms with a nearest-cell axis.
_COMPRESS = frozenset({"compress"})
#: W-stacking of the algorithm's own plans (:mod:`~uvlab.gpu.gridders.wstack`).
_WSTACK = frozenset({"wstack"})
#: W-projection (:mod:`~uvlab.gpu.gridders.wproject`): its plane count.
_WPROJECT = frozenset({"wprojplanes"})


@dataclass(frozen=True)
class Algorithm:
    """One imaging algorithm of the catalogue.

    Attributes
    ----------
    name : str
        What the user types and picks (``"conv"``, ``"pruned-nn"`` …).
    summary : str
        One line: what it does (the window's tooltip).
    cpu : callable
        ``dirty(u, v, wvis, spec, params, *, w=None, timer=None)``, NumPy
        arrays in, ``(N, N) float64`` out.
    plans : callable or None
        ``plans(spec, params) -> (AxisPlan u, AxisPlan v)``; None for an
        algorithm that does not grid (the DFT).
    cuda : str or None
        ``"module:function"`` of the CUDA path, imported only when asked
        for. The function is called as
        ``function(record, u, v, wvis, spec, params, *, w=None, timer=None,
        **options)`` with cupy arrays. None: ``cpu`` runs on cupy arrays
        as well (array-generic).
    uses : frozenset of str
        The :class:`~uvlab.gpu.gridders.params.GridParams` fields it reads
        (besides ``chunk`` and ``precision``, read by every gridder).
    fine_grid : bool
        β also sets the oversampling of a grid (the NN variants, the
        pruners), not only that of a kernel table: β counts even when the
        kernel is evaluated exactly.
    even_oversample : bool
        Constraint: β must be even (the pruners decimate by α = β/2).
    compared : bool
        In the default comparison against the DFT (``uvlab compare``, the
        window's Compare panel).
    degrid : str or None
        ``"module:function"`` of the host degridder,
        ``predict(img, u, v, spec, params, *, w=None, timer=None) -> (nvis,)
        complex``; None: no degridder.
    degrid_cuda : str or None
        ``"module:function"`` of the CUDA degridder, called as
        ``function(record, img, u, v, spec, params, *, w=None, timer=None)``
        with cupy arrays; None: ``degrid`` runs on cupy arrays as well.
    host_only : bool
        No CUDA chain: on cupy inputs the host function runs and its result
        is copied to the device (``ducc``).
    w_correction : {"wstack", "ducc"} or None
        How ``params.wstack`` corrects the w-term: uvlab's w-stacking of its
        plans (host only: on cupy inputs the host function runs, see
        :mod:`~uvlab.gpu.gridders.cuda_gridders`), ducc0's w-gridder, or not at
        all (None: the sky is flat; the DFT, which takes no ``params``).
    w_projection : bool
        It offers w-projection with ``params.wprojplanes``
        (:mod:`~uvlab.gpu.gridders.wproject`: ``conv``, on the host).
    analytic_bound : bool
        The analytic aliasing map of ``plans`` bounds this algorithm's image
        (False: a guide only, as for ducc0's own kernel).
    co_grids_psf : bool
        ``cpu`` accepts ``(ntrans, nvis)`` rows and a kept ``plan``
        (``cpu(..., plan=nufft_plan(u, v, spec, params))``): the imager grids
        the dirty image and the PSF in one pass (``ducc``'s NUFFT).
    nufft_plan : callable or None
        ``nufft_plan(u, v, spec, params, *, timer=None)``, the plan that
        ``co_grids_psf`` reuses; None otherwise.
    """

    name: str
    summary: str
    cpu: Callable
    plans: Callable | None = None
    cuda: str | None = SEPARABLE_CUDA
    uses: frozenset[str] = frozenset()
    fine_grid: bool = False
    even_oversample: bool = False
    compared: bool = False
    degrid: str | None = None
    degrid_cuda: str | None = None
    host_only: bool = False
    w_correction: str | None = None
    w_projection: bool = False
    analytic_bound: bool = True
    co_grids_psf: bool = False
    nufft_plan: Callable | None = None

    def backend(self, device: str) -> str:
        """What computes its image on ``device`` ("cpu" or "gpu"), in a word for a table.

        ``"ducc0"``: ducc0, which chooses its own kernel and support from ε, on the
        host cores on either device; else uvlab's own chain of the stated kernel: on
        the CPU ``"numba"`` where a separable chain (``plans``) runs on the numba rung
        (:func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`), else ``"NumPy"``; on the GPU
        ``"CUDA"`` (CuPy with uvlab's CUDA kernels) or ``"CuPy"`` (array-generic code).
        """
        if self.host_only:
            return "ducc0"
        if device != "gpu":
            from uvlab.gpu.gridders.jit_grid import cpu_rung

            try:
                numba = self.plans is not None and cpu_rung() == "numba"
            except (ValueError, ImportError):  # a bad UVLAB_CPU_RUNG: what runs fails there
                numba = False
            return "numba" if numba else "NumPy"
        return "CUDA" if self.cuda is not None else "CuPy"

    def corrects_w(self, params) -> bool:
        """Whether its image carries the w-term with ``params``.

        ``wstack`` and a ``w_correction``, or ``wprojplanes`` and ``w_projection``.
        """
        wproj = bool(getattr(params, "wprojplanes", 0)) and self.w_projection
        return (bool(params.wstack) and self.w_correction is not None) or wproj

    def check(self, params) -> None:
        """ValueError, in one line, where ``params`` asks for what it cannot do."""
        if getattr(params, "wprojplanes", 0) and not self.w_projection:
            offer = ", ".join(n for n, a in CATALOGUE.items() if a.w_projection)
            raise ValueError(
                f"w-projection (wprojplanes) is offered by {offer} only, not {self.name}; "
                "the others correct the w-term by w-stacking (wstack)"
            )

    @property
    def is_gridder(self) -> bool:
        """Whether it grids (has axis plans): every algorithm but the DFT."""
        return self.plans is not None

    def gridder(self, xp=None) -> Callable:
        """The ``dirty`` function for inputs of array module ``xp``.

        ``cupy`` selects the CUDA function (imported now, bound to this
        record); anything else the NumPy one.
        """
        if getattr(xp, "__name__", "") != "cupy" or self.cuda is None:
            return self.cpu
        module, _, attribute = self.cuda.partition(":")
        return partial(getattr(importlib.import_module(module), attribute), self)

    def degridder(self, xp=None) -> Callable:
        """The ``predict`` function (image → visibilities) for inputs of module ``xp``.

        ``cupy`` selects the CUDA degridder (bound to this record) where there
        is one. ValueError for an algorithm without a degridder.
        """
        if self.degrid is None:
            raise ValueError(f"{self.name} has no degridder; choose one of {DEGRIDDERS}")
        cuda = getattr(xp, "__name__", "") == "cupy" and self.degrid_cuda is not None
        module, _, attribute = (self.degrid_cuda if cuda else self.degrid).partition(":")
        fn = getattr(importlib.import_module(module), attribute)
        return partial(fn, self) if cuda else fn


#: Every algorithm, the exact DFT first, then the gridders in DESIGN §2 order.
CATALOGUE: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Algorithm(
            "dft",
            "exact direct Fourier transform (slow; the reference)",
            dft.dirty,
            cuda=None,
            degrid="uvlab.gpu.gridders.dft_predict:predict",
        ),
        Algorithm(
            "conv",
            "convolutional gridding with the stated GCF, support, β and σ on every device",
            conv.dirty,
            conv.conv_plans,
            uses=_GCF | _WSTACK | _WPROJECT,
            compared=True,
            degrid=f"{_DEGRID}:predict_conv",
            degrid_cuda=DEGRID_CUDA,
            w_correction="wstack",
            w_projection=True,
        ),
        Algorithm(
            "ducc",
            "ducc0's NUFFT / w-gridder: kernel and support chosen by ducc0 from ε",
            ducc.dirty,
            ducc.ducc_plans,
            uses=frozenset({"eps", "support", "sigma", "threads", "wstack"}),
            degrid="uvlab.gpu.gridders.ducc:predict",
            host_only=True,
            w_correction="ducc",
            analytic_bound=False,
            co_grids_psf=True,
            nufft_plan=ducc.nufft_plan,
        ),
        Algorithm(
            "nn",
            "nearest cell of an N×N grid, no correction (raw aliasing)",
            nn.dirty_nn,
            nn.nn_plans,
            uses=_COMPRESS | _WSTACK,
            degrid=f"{_DEGRID}:predict_nn",
            degrid_cuda=DEGRID_CUDA,
            w_correction="wstack",
        ),
        Algorithm(
            "nn-oversampled",
            "nearest cell of a β-times finer grid (Muscat alg. 2.2)",
            nn.dirty_nn_oversampled,
            nn.nn_oversampled_plans,
            uses=frozenset({"oversample"}) | _COMPRESS | _WSTACK,
            fine_grid=True,
            degrid=f"{_DEGRID}:predict_nn_oversampled",
            degrid_cuda=DEGRID_CUDA,
            w_correction="wstack",
        ),
        Algorithm(
            "hybrid",
            "GCF along u, nearest cell + pruner along v (Muscat alg. 2.5)",
            hybrid.dirty,
            hybrid.hybrid_plans,
            uses=_GCF | _PRUNER | _COMPRESS | _WSTACK,
            fine_grid=True,
            even_oversample=True,
            compared=True,
            degrid=f"{_DEGRID}:predict_hybrid",
            degrid_cuda=DEGRID_CUDA,
            w_correction="wstack",
        ),
        Algorithm(
            "pruned-nn",
            "nearest cell on Nβ cells, then least-misfit pruning (Muscat alg. 2.6)",
            pruned_nn.dirty,
            pruned_nn.pruned_nn_plans,
            uses=_PRUNER | _COMPRESS | _WSTACK,
            fine_grid=True,
            even_oversample=True,
            compared=True,
            degrid=f"{_DEGRID}:predict_pruned_nn",
            degrid_cuda=DEGRID_CUDA,
            w_correction="wstack",
        ),
    )
}

#: The exact reference every algorithm is compared with.
REFERENCE = "dft"
#: The entry that is exactly the stated ES kernel and support: the candidate
#: of Compare's "Match conv" (:mod:`uvlab.app.lab.conv_match`).
EXACT_GCF = "conv"
#: The lab's default algorithm on the GPU: the stated kernel on the CUDA chain.
GPU_DEFAULT = "conv"
#: The lab's default on a CPU-only machine: ducc0 keeps the lab's CPU latency
#: targets (``uvlab bench worker --device cpu``); NumPy ``conv`` is ~6× slower.
CPU_DEFAULT = "ducc"

#: Every algorithm name, the DFT first.
NAMES = tuple(CATALOGUE)
#: The gridders' names (every algorithm but the DFT), in DESIGN §2 order.
ALGORITHMS = tuple(name for name, a in CATALOGUE.items() if a.is_gridder)
#: The algorithms with a degridder (the DFT first).
DEGRIDDERS = tuple(name for name, a in CATALOGUE.items() if a.degrid is not None)
#: The gridders compared by default.
COMPARED = tuple(name for name, a in CATALOGUE.items() if a.compared)


def algorithm(name: str) -> Algorithm:
    """The catalogue record of an algorithm (ValueError naming the choices if unknown)."""
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {NAMES}") from None


def grids(name: str) -> bool:
    """Whether algorithm ``name`` grids (every one but the :data:`REFERENCE` DFT)."""
    return algorithm(name).is_gridder


def default_algorithm(device: str) -> str:
    """The lab's default algorithm on ``device`` ("gpu" or "cpu")."""
    return GPU_DEFAULT if device == "gpu" else CPU_DEFAULT


def _gridder(name: str) -> Algorithm:
    a = CATALOGUE.get(name)
    if a is None or not a.is_gridder:
        raise ValueError(f"unknown gridding algorithm {name!r}; choose one of {ALGORITHMS}")
    return a


def get_gridder(name: str, xp=None) -> Callable:
    """The ``dirty`` function of a gridding algorithm.

    Parameters
    ----------
    name : str
        One of :data:`ALGORITHMS`.
    xp : module, optional
        The array module of the inputs: ``cupy`` selects the CUDA gridder,
        anything else (default) the NumPy one.
    """
    return _gridder(name).gridder(xp)


def axis_plans(name: str, spec, params):
    """(u, v) AxisPlans of a gridding algorithm's NumPy chain."""
    return _gridder(name).plans(spec, params)
