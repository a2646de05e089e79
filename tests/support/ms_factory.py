"""Build small synthetic MeasurementSets with python-casacore, contents known exactly.

Correlations are written from DESIGN §1's brightness matrices
(:func:`tests.support.oracles.brightness`), so a test knows the Stokes
visibilities the reader must recover:

- linear ``[[XX, XY], [YX, YY]] = [[I+Q, U+iV], [U−iV, I−Q]]``;
- circular ``[[RR, RL], [LR, LL]] = [[I+V, Q+iU], [Q−iU, I−V]]``.

Row ``r``, channel ``c`` holds ``B(IQUV of its field) · gain[r, c]`` with a
known random complex ``gain``. Rows run time-major: for each time, the time's
field (fields alternate), then each spectral window, then each baseline
(autocorrelations included when asked).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.support.oracles import brightness

NAMES = {5: "RR", 6: "RL", 7: "LR", 8: "LL", 9: "XX", 10: "XY", 11: "YX", 12: "YY"}
T0 = 5.0e9  # MJD seconds


@dataclass
class SyntheticMS:
    """What was written: per-row arrays in main-table order, per-spw arrays in lists."""

    path: Path
    corr_names: tuple[str, ...]
    field_iquv: list
    field_dirs: list
    freqs: list
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    field_id: np.ndarray
    dd_id: np.ndarray
    uvw: np.ndarray
    gain: list  # per row: (nchan,) complex
    weight: np.ndarray  # (row, ncorr)
    sigma: np.ndarray  # (row, ncorr)
    weight_spectrum: list  # per row: (nchan, ncorr) or None
    flag: list  # per row: (nchan, ncorr) bool
    flag_row: np.ndarray

    def rows(self, field: int, spw: int) -> np.ndarray:
        """Main-table row numbers of cross-correlations of ``field`` in ``spw``."""
        ok = (self.field_id == field) & (self.dd_id == spw) & (self.ant1 != self.ant2)
        return np.flatnonzero(ok)


def _put_subtables(ms, tables, *, corr_types, fields, freqs, nant, telescope, rng, t_end):
    sub = {k: tables.table(str(ms.getkeyword(k)), readonly=False, ack=False)
           for k in ("ANTENNA", "SPECTRAL_WINDOW", "POLARIZATION", "FIELD",
                     "DATA_DESCRIPTION", "OBSERVATION")}  # fmt: skip
    try:
        a = sub["ANTENNA"]
        a.addrows(nant)
        a.putcol("NAME", [f"ANT{k:02d}" for k in range(nant)])
        a.putcol("STATION", [f"PAD{k:02d}" for k in range(nant)])
        a.putcol("POSITION", np.array([5109e3, 2006e3, -3239e3]) + rng.normal(0, 100, (nant, 3)))
        a.putcol("DISH_DIAMETER", np.full(nant, 13.5))
        s = sub["SPECTRAL_WINDOW"]
        s.addrows(len(freqs))
        for k, f in enumerate(freqs):
            width = np.full(f.size, f[1] - f[0] if f.size > 1 else 1e6)
            for col in ("CHAN_WIDTH", "EFFECTIVE_BW", "RESOLUTION"):
                s.putcell(col, k, width)
            s.putcell("CHAN_FREQ", k, f)
            s.putcell("NUM_CHAN", k, f.size)
            s.putcell("REF_FREQUENCY", k, f[0])
            s.putcell("TOTAL_BANDWIDTH", k, float(np.abs(width).sum()))
        p = sub["POLARIZATION"]
        p.addrows(1)
        p.putcell("CORR_TYPE", 0, np.asarray(corr_types, dtype=np.int32))
        p.putcell("CORR_PRODUCT", 0, np.zeros((len(corr_types), 2), dtype=np.int32))
        p.putcell("NUM_CORR", 0, len(corr_types))
        fl = sub["FIELD"]
        fl.addrows(len(fields))
        for k, (name, ra, dec) in enumerate(fields):
            fl.putcell("NAME", k, name)
            for col in ("PHASE_DIR", "DELAY_DIR", "REFERENCE_DIR"):
                fl.putcell(col, k, np.array([[ra, dec]]))
        d = sub["DATA_DESCRIPTION"]
        d.addrows(len(freqs))
        d.putcol("SPECTRAL_WINDOW_ID", np.arange(len(freqs), dtype=np.int32))
        d.putcol("POLARIZATION_ID", np.zeros(len(freqs), dtype=np.int32))
        o = sub["OBSERVATION"]
        o.addrows(1)
        o.putcell("TELESCOPE_NAME", 0, telescope)
        o.putcell("TIME_RANGE", 0, np.array([T0, t_end]))
    finally:
        for t in sub.values():
            t.close()


def make_ms(
    path: Path,
    rng: np.random.Generator,
    *,
    corr_types=(9, 10, 11, 12),
    fields=(("F0", 1.0, -0.5),),
    field_iquv=((1.0, 0.2, -0.3, 0.1),),
    spw_nchan=(4,),
    ntime: int = 3,
    nant: int = 4,
    autocorr: bool = True,
    weight_spectrum: bool = False,
    flag_fraction: float = 0.1,
    flag_rows=(),
    weight_zero: bool = False,
    telescope: str = "SYNTH",
) -> SyntheticMS:
    """Write a MeasurementSet at ``path`` and return what it holds.

    ``spw_nchan`` gives one spectral window per entry (spw k starts at
    (1 + 0.1k) GHz, 1 MHz channels). ``flag_rows`` lists main-table rows with
    FLAG_ROW set. ``weight_zero`` writes WEIGHT = 0 (SIGMA stays valid).
    """
    from casacore import tables

    names = tuple(NAMES[c] for c in corr_types)
    freqs = [(1.0e9 + 1.0e8 * k) + 1.0e6 * np.arange(n) for k, n in enumerate(spw_nchan)]
    pairs = [(p, q) for p in range(nant) for q in range(p if autocorr else p + 1, nant)]
    a1, a2, tt, fid, dd = [], [], [], [], []
    for it in range(ntime):
        for k in range(len(freqs)):
            for p, q in pairs:
                a1.append(p), a2.append(q), tt.append(T0 + 10.0 * it)
                fid.append(it % len(fields)), dd.append(k)
    n, ncorr = len(a1), len(names)
    out = SyntheticMS(
        path=Path(path), corr_names=names, field_iquv=[tuple(s) for s in field_iquv],
        field_dirs=[(ra, dec) for _, ra, dec in fields], freqs=freqs,
        time=np.array(tt), ant1=np.array(a1, dtype=np.int32), ant2=np.array(a2, dtype=np.int32),
        field_id=np.array(fid, dtype=np.int32), dd_id=np.array(dd, dtype=np.int32),
        uvw=rng.normal(0, 300, (n, 3)),
        gain=[], weight=rng.uniform(0.5, 2.0, (n, ncorr)).astype(np.float32),
        sigma=rng.uniform(0.5, 2.0, (n, ncorr)).astype(np.float32),
        weight_spectrum=[], flag=[], flag_row=np.isin(np.arange(n), flag_rows),
    )  # fmt: skip
    if weight_zero:
        out.weight[:] = 0
    desc = tables.maketabdesc([
        tables.makearrcoldesc("DATA", 0j, ndim=2, valuetype="complex"),
        tables.makearrcoldesc("WEIGHT_SPECTRUM", 0.0, ndim=2, valuetype="float"),
    ]) if weight_spectrum else tables.maketabdesc(
        [tables.makearrcoldesc("DATA", 0j, ndim=2, valuetype="complex")]
    )  # fmt: skip
    ms = tables.default_ms(str(path), desc)
    try:
        ms.addrows(n)
        for col, val in (("TIME", out.time), ("TIME_CENTROID", out.time), ("ANTENNA1", out.ant1),
                         ("ANTENNA2", out.ant2), ("FIELD_ID", out.field_id),
                         ("DATA_DESC_ID", out.dd_id), ("UVW", out.uvw),
                         ("INTERVAL", np.full(n, 10.0)), ("EXPOSURE", np.full(n, 10.0)),
                         ("FLAG_ROW", out.flag_row)):  # fmt: skip
            ms.putcol(col, val)
        for r in range(n):
            nchan = freqs[out.dd_id[r]].size
            g = rng.normal(size=nchan) + 1j * rng.normal(size=nchan)
            corr = np.array([brightness(c, out.field_iquv[out.field_id[r]]) for c in names])
            f = rng.random((nchan, ncorr)) < flag_fraction
            out.gain.append(g), out.flag.append(f)
            ms.putcell("DATA", r, (g[:, None] * corr[None, :]).astype(np.complex64))
            ms.putcell("FLAG", r, f)
            ms.putcell("WEIGHT", r, out.weight[r])
            ms.putcell("SIGMA", r, out.sigma[r])
            if weight_spectrum:
                ws = rng.uniform(0.5, 2.0, (nchan, ncorr)).astype(np.float32)
                out.weight_spectrum.append(ws)
                ms.putcell("WEIGHT_SPECTRUM", r, ws)
        _put_subtables(
            ms,
            tables,
            corr_types=corr_types,
            fields=fields,
            freqs=freqs,
            nant=nant,
            telescope=telescope,
            rng=rng,
            t_end=out.time.max(),
        )
    finally:
        ms.close()
    return out


def tree_digest(path: Path) -> dict[str, str]:
    """SHA-256 of every file under ``path``, keyed by relative path."""
    root = Path(path)
    return {
        str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(root.rglob("*"))
        if f.is_file()
    }


def data_digest(path: Path) -> dict[str, str]:
    """:func:`tree_digest` without ``UVLAB_LOCK``: the MeasurementSet's own files.

    ``UVLAB_LOCK`` is the empty write-lock file a uvlab write creates in the MS folder and
    never deletes (docs/data-safety.md); a refused or rolled-back write may leave it.
    """
    digest = tree_digest(path)
    lock = digest.pop("UVLAB_LOCK", None)
    assert lock in (None, hashlib.sha256(b"").hexdigest()), "UVLAB_LOCK is not empty"
    return digest


def polarised_ms(path, seed: int):
    """A small MS (4 channels, 6 times, 6 antennas) of one polarised source at the phase
    centre, Stokes (I, Q, U, V) = (1, 0.3, −0.2, 0.1) Jy: the ``--pol`` tests' data."""
    make_ms(path, np.random.default_rng(seed), spw_nchan=(4,), ntime=6, nant=6,
            field_iquv=((1.0, 0.3, -0.2, 0.1),))  # fmt: skip
    return path
