"""Correlation layouts and main-table column descriptions for writing MeasurementSets.

Correlations come from DESIGN §1's brightness matrix, which holds full Stokes
sums (no factor ½), exactly as :mod:`uvlab.app.ms.stokes` reads them back:

- linear feeds ``[[XX, XY], [YX, YY]] = [[I+Q, U+iV], [U−iV, I−Q]]``;
- circular feeds ``[[RR, RL], [LR, LL]] = [[I+V, Q+iU], [Q−iU, I−V]]``.

A correlation code (casacore ``Stokes::StokesTypes``, POLARIZATION::CORR_TYPE)
names one element of that matrix: XX = 9 … YY = 12, RR = 5 … LL = 8. Codes
1–4 (Stokes I, Q, U, V stored as such) are formed from the matrix with the
reader's recipes, so a round trip through :func:`uvlab.app.ms.read_visibilities`
returns the sky's Stokes parameters.
"""

from __future__ import annotations

import numpy as np

from uvlab.app.ms.stokes import CORR_TYPE_NAMES, RECIPES

#: Full correlation sets, in the order the writer stores them.
FULL_CORR_TYPES = {"linear": (9, 10, 11, 12), "circular": (5, 6, 7, 8)}
#: Parallel hands only.
PARALLEL_CORR_TYPES = {"linear": (9, 12), "circular": (5, 8)}
#: Receptor names (FEED::POLARIZATION_TYPE) per basis.
RECEPTORS = {"linear": ("X", "Y"), "circular": ("R", "L")}
#: Receptor angles (FEED::RECEPTOR_ANGLE), radians.
RECEPTOR_ANGLES = {"linear": (0.0, np.pi / 2), "circular": (0.0, 0.0)}

#: Matrix element (receptor of antenna 1, receptor of antenna 2) of each code.
_ELEMENT = {
    9: (0, 0),
    10: (0, 1),
    11: (1, 0),
    12: (1, 1),
    5: (0, 0),
    6: (0, 1),
    7: (1, 0),
    8: (1, 1),
}
_BASIS = {**dict.fromkeys((9, 10, 11, 12), "linear"), **dict.fromkeys((5, 6, 7, 8), "circular")}
_STOKES = {1: "I", 2: "Q", 3: "U", 4: "V"}


def default_corr_types(feeds: str, ncorr: int = 4) -> tuple[int, ...]:
    """The usual CORR_TYPE codes for ``ncorr`` correlations of ``feeds``.

    4: all four products; 2: the parallel hands; 1: Stokes I (code 1).
    """
    check_feeds(feeds)
    if ncorr == 4:
        return FULL_CORR_TYPES[feeds]
    if ncorr == 2:
        return PARALLEL_CORR_TYPES[feeds]
    if ncorr == 1:
        return (1,)
    raise ValueError(f"cannot choose correlation types for {ncorr} correlations; give corr_types")


def check_feeds(feeds: str) -> str:
    """``feeds`` if it is ``"linear"`` or ``"circular"``, else ValueError."""
    if feeds not in FULL_CORR_TYPES:
        raise ValueError(f"feeds must be 'linear' or 'circular', got {feeds!r}")
    return feeds


def feeds_of(corr_types) -> str | None:
    """The basis of a correlation set: ``"linear"``, ``"circular"`` or None (Stokes only).

    Raises
    ------
    ValueError
        For unknown codes or a mix of linear and circular products.
    """
    bases = set()
    for code in corr_types:
        code = int(code)
        if code in _BASIS:
            bases.add(_BASIS[code])
        elif code not in _STOKES:
            raise ValueError(f"correlation type {code} is not one uvlab can write (1–12)")
    if len(bases) > 1:
        raise ValueError("correlation types mix linear (XX…) and circular (RR…) products")
    return bases.pop() if bases else None


def corr_products(corr_types) -> np.ndarray:
    """POLARIZATION::CORR_PRODUCT, (ncorr, 2) int32 receptor indices per correlation."""
    return np.array([_ELEMENT.get(int(c), (0, 0)) for c in corr_types], dtype=np.int32)


def corr_labels(corr_types) -> str:
    """``"XX XY YX YY"`` for a correlation set."""
    return " ".join(CORR_TYPE_NAMES.get(int(c), f"type{int(c)}") for c in corr_types)


def brightness_to_correlations(b: np.ndarray, corr_types, feeds: str) -> np.ndarray:
    """Correlations from B-form products.

    Parameters
    ----------
    b : (..., 2, 2) complex
        DESIGN §1 brightness-form visibilities in the ``feeds`` basis (what
        :func:`uvlab.gpu.predict.predict_rows` returns for ``mode=feeds``).
    corr_types : sequence of int
        CORR_TYPE codes wanted, in the basis of ``feeds`` or Stokes 1–4.
    feeds : {"linear", "circular"}

    Returns
    -------
    (..., ncorr) complex, same precision as ``b``.
    """
    basis = feeds_of(corr_types)
    if basis is not None and basis != feeds:
        raise ValueError(
            f"correlations {corr_labels(corr_types)} are {basis}, but the products are {feeds}"
        )
    names = {(0, 0): 0, (0, 1): 1, (1, 0): 2, (1, 1): 3}
    flat = b.reshape(*b.shape[:-2], 4)
    receptors = RECEPTORS[feeds]
    out = np.empty((*b.shape[:-2], len(corr_types)), dtype=b.dtype)
    for k, code in enumerate(corr_types):
        code = int(code)
        if code in _ELEMENT:
            out[..., k] = flat[..., names[_ELEMENT[code]]]
            continue
        recipe = RECIPES[feeds][_STOKES[code]]
        acc = np.zeros(b.shape[:-2], dtype=b.dtype)
        for name, coeff in recipe.items():
            p, q = receptors.index(name[0]), receptors.index(name[1])
            acc = acc + coeff * flat[..., names[(p, q)]]
        out[..., k] = acc
    return out


def tile_rows(nchan: int, ncorr: int, itemsize: int, target_bytes: int = 1 << 20) -> int:
    """Rows per tile so that one tile of ``(ncorr, nchan, rows)`` holds ~``target_bytes``."""
    return int(max(1, target_bytes // max(1, nchan * ncorr * itemsize)))


def main_table_desc(nchan: int, ncorr: int, *, dcomplex: bool = False):
    """(tabdesc, dminfo) for the fixed-shape columns of a new MS main table.

    DATA (complex) and FLAG are tiled (TiledColumnStMan, one tile holding all
    channels and correlations of a block of rows); WEIGHT and SIGMA are
    fixed-shape (ncorr,) float vectors. The rest comes from
    ``casacore.tables.default_ms``.
    """
    from casacore import tables

    shape = [int(nchan), int(ncorr)]
    cols = [
        tables.makearrcoldesc(
            "DATA",
            0j,
            shape=shape,
            valuetype="dcomplex" if dcomplex else "complex",
            datamanagertype="TiledColumnStMan",
            datamanagergroup="TiledDATA",
            comment="The data column",
        ),
        tables.makearrcoldesc(
            "FLAG",
            False,
            shape=shape,
            valuetype="boolean",
            datamanagertype="TiledColumnStMan",
            datamanagergroup="TiledFLAG",
            comment="The data flags, array of bools with same shape as data",
        ),
        tables.makearrcoldesc(
            "WEIGHT",
            0.0,
            shape=[int(ncorr)],
            valuetype="float",
            comment="Weight for each polarization spectrum",
        ),
        tables.makearrcoldesc(
            "SIGMA",
            0.0,
            shape=[int(ncorr)],
            valuetype="float",
            comment="Estimated rms noise for channel with unity bandpass response",
        ),
    ]
    itemsize = 16 if dcomplex else 8
    dminfo = {
        "*1": tiled_dminfo("TiledDATA", "DATA", ncorr, nchan, tile_rows(nchan, ncorr, itemsize)),
        "*2": tiled_dminfo("TiledFLAG", "FLAG", ncorr, nchan, tile_rows(nchan, ncorr, 1) * 8),
    }
    return tables.maketabdesc(cols), dminfo


def tiled_dminfo(name: str, column: str, ncorr: int, nchan: int, rows: int, kind: str = "column"):
    """Data-manager record for a tiled column (``kind`` "column" or "shape")."""
    mtype = "TiledColumnStMan" if kind == "column" else "TiledShapeStMan"
    tile = np.array([int(ncorr), int(nchan), int(rows)], dtype=np.int32)
    return {"TYPE": mtype, "NAME": name, "SPEC": {"DEFAULTTILESHAPE": tile}, "COLUMNS": [column]}
