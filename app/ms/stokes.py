"""Stokes parameters from correlation products (pure NumPy).

Correlations follow DESIGN §1, where the brightness matrix holds full Stokes
sums (no factor ½):

- linear feeds ``B = [[XX, XY], [YX, YY]] = [[I+Q, U+iV], [U−iV, I−Q]]``, so
  ``I = (XX+YY)/2``, ``Q = (XX−YY)/2``, ``U = (XY+YX)/2``, ``V = −i(XY−YX)/2``;
- circular feeds ``B = [[RR, RL], [LR, LL]] = [[I+V, Q+iU], [Q−iU, I−V]]``, so
  ``I = (RR+LL)/2``, ``V = (RR−LL)/2``, ``Q = (RL+LR)/2``, ``U = −i(RL−LR)/2``.

Each Stokes parameter is a linear combination ``S = Σ_k c_k·C_k`` of the
correlations ``C_k``. Its weight (inverse variance, independent noise per
correlation) is ``w = 1 / Σ_k |c_k|²/w_k``; for ``I = (a+b)/2`` that is
``w = 4/(1/w_a + 1/w_b)``. A zero weight on any contributor gives zero weight,
and a flag on any contributor flags the sample. A raw correlation (``XX``,
``RL``, ...) or a Stokes product stored as such (corr types 1–4) is selected
directly with ``c = 1``.

The default product, ``"auto"`` (:data:`AUTO`), is what the MS holds:
Stokes I where it can be formed (XX and YY, RR and LL, or I itself), else the
first correlation held (an XY-only MS images XY) — :func:`default_stokes`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.errors import MSError

#: casacore ``Stokes::StokesTypes`` codes (POLARIZATION::CORR_TYPE) → names.
CORR_TYPE_NAMES = {
    1: "I",
    2: "Q",
    3: "U",
    4: "V",
    5: "RR",
    6: "RL",
    7: "LR",
    8: "LL",
    9: "XX",
    10: "XY",
    11: "YX",
    12: "YY",
}

STOKES = ("I", "Q", "U", "V")
#: The product chosen from what the MS holds (:func:`default_stokes`).
AUTO = "auto"

#: Coefficients c_k per correlation name, for each basis (see module docstring).
RECIPES = {
    "linear": {
        "I": {"XX": 0.5, "YY": 0.5},
        "Q": {"XX": 0.5, "YY": -0.5},
        "U": {"XY": 0.5, "YX": 0.5},
        "V": {"XY": -0.5j, "YX": 0.5j},
    },
    "circular": {
        "I": {"RR": 0.5, "LL": 0.5},
        "Q": {"RL": 0.5, "LR": 0.5},
        "U": {"RL": -0.5j, "LR": 0.5j},
        "V": {"RR": 0.5, "LL": -0.5},
    },
}


@dataclass(frozen=True)
class StokesRecipe:
    """How to form one product: ``S = Σ coeffs[k] · corr[..., indices[k]]``."""

    name: str
    indices: tuple[int, ...]
    coeffs: tuple[complex, ...]

    @property
    def is_real(self) -> bool:
        """Whether every coefficient is real (no factor of i)."""
        return all(complex(c).imag == 0 for c in self.coeffs)


def corr_names(corr_types) -> tuple[str, ...]:
    """Names for casacore CORR_TYPE codes; unknown codes read ``type<N>``."""
    return tuple(CORR_TYPE_NAMES.get(int(t), f"type{int(t)}") for t in corr_types)


def formable(names: tuple[str, ...]) -> tuple[str, ...]:
    """Every product :func:`recipe` can give from ``names``: Stokes first, then raw."""
    out = [s for s in STOKES if s in names or _basis_recipe(names, s) is not None]
    return tuple(out + [n for n in names if n not in out])


def default_stokes(names_or_info, spw: int = 0) -> str:
    """The product to image when none is chosen: Stokes I if it can be formed, else a correlation.

    Parameters
    ----------
    names_or_info : tuple of str, or MSInfo
        The correlations held, in the MS's order (``("XX", "XY", "YX", "YY")``),
        or an :class:`~uvlab.app.ms.MSInfo` (``open_ms``), whose spectral window
        ``spw`` says which polarisation setup applies.
    spw : int
        With an MSInfo: the spectral window read.

    Returns
    -------
    str
        ``"I"`` when the MS holds I, or XX and YY, or RR and LL; else the first
        correlation held (``"XY"`` for an XY-only MS).

    Raises
    ------
    MSError
        When no correlation is held (or the window has no polarisation setup).
    """
    names = names_or_info
    if hasattr(names_or_info, "correlations"):
        info = names_or_info
        pols = [d.pol_id for d in info.data_descs if d.spw_id == int(spw)]
        names = next((info.correlations[p] for p in pols if p in info.correlations), ())
    names = tuple(str(n).upper() for n in names)
    if not names:
        raise MSError("this MS holds no correlations to image")
    if "I" in names or _basis_recipe(names, "I") is not None:
        return "I"
    return names[0]


def _basis_recipe(names: tuple[str, ...], stokes: str) -> dict | None:
    for basis in RECIPES.values():
        parts = basis.get(stokes)
        if parts and all(n in names for n in parts):
            return parts
    return None


def recipe(names: tuple[str, ...], stokes: str) -> StokesRecipe:
    """How to form ``stokes`` (a Stokes parameter or a correlation name) from ``names``.

    Parameters
    ----------
    names : tuple of str
        Correlation names in the MS's order, e.g. ``("XX", "YY", "XY", "YX")``.
    stokes : str
        ``I``, ``Q``, ``U``, ``V``, a correlation present (case-insensitive), or
        ``"auto"``: :func:`default_stokes` of ``names``.

    Raises
    ------
    MSError
        If it cannot be formed; the message lists what the MS holds and what
        can be chosen instead, in words that suit the window and the command
        line alike (``uvlab image`` adds its ``--stokes`` hint itself).
    """
    want = str(stokes).strip().upper()
    if want == AUTO.upper():
        want = default_stokes(names)
    if want in names:
        return StokesRecipe(want, (names.index(want),), (1.0,))
    parts = _basis_recipe(names, want) if want in STOKES else None
    if parts is not None:
        return StokesRecipe(want, tuple(names.index(n) for n in parts), tuple(parts.values()))
    held = " ".join(names)
    only = " only" if len(names) < 4 else ""
    options = formable(names)
    choose = options[0] if len(options) == 1 else "one of " + ", ".join(options)
    if want in STOKES:
        raise MSError(
            f"cannot form Stokes {want}: this MS holds {held}{only}; choose Stokes {choose}"
        )
    raise MSError(
        f"unknown Stokes parameter or correlation {stokes!r}: this MS holds {held}{only}; "
        f"choose Stokes {choose}"
    )


def combine(
    recipe: StokesRecipe,
    data: np.ndarray,
    flag: np.ndarray,
    weight: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Form one Stokes product from correlation arrays.

    Parameters
    ----------
    recipe : StokesRecipe
    data : (..., corr) complex
        Visibilities, correlation axis last.
    flag : (..., corr) bool
    weight : (..., corr) float
        Inverse-variance weights per correlation; ≤ 0 or non-finite counts as zero.

    Returns
    -------
    vis : (...) complex, same precision as ``data``
    weight : (...) float, same precision as ``weight``; ``1/Σ |c_k|²/w_k``
    flag : (...) bool, True where any contributing correlation is flagged
    """
    idx = list(recipe.indices)
    coeffs = np.asarray(recipe.coeffs, dtype=np.complex128)
    c = coeffs.real.astype(data.real.dtype) if recipe.is_real else coeffs.astype(data.dtype)
    # term by term, in the order a sum over the last axis adds them (the same bits): a
    # NumPy reduction over a strided axis of 2–4 is ~10× slower than these passes
    vis = data[..., idx[0]] * c[0]
    flag = np.asarray(flag)
    out_flag = flag[..., idx[0]].copy()
    for k, ck in zip(idx[1:], c[1:]):
        vis += data[..., k] * ck
        out_flag |= flag[..., k]
    w = np.asarray(weight)[..., idx].astype(np.float64)
    good = np.isfinite(w) & (w > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(good, (np.abs(coeffs) ** 2) / np.where(good, w, 1.0), np.inf).sum(axis=-1)
        out_w = np.where(np.isfinite(var) & (var > 0), 1.0 / var, 0.0)
    wdtype = weight.dtype if np.issubdtype(weight.dtype, np.floating) else np.float64
    return vis.astype(data.dtype, copy=False), out_w.astype(wdtype), out_flag
