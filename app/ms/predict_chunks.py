"""The predict of one row chunk of a MeasurementSet (``uvlab predict``'s unit of work).

:class:`ChunkPredict` holds what every chunk of a predict shares (the sky per field,
the image sky's grids, the Jones terms, the options); :meth:`ChunkPredict.plan` lists
the chunks (runs of one FIELD_ID and DATA_DESC_ID, cut into pieces of bounded
temporaries) and :meth:`ChunkPredict.compute` predicts one of them from its rows'
UVW, INTERVAL (and TIME and antennas for Jones terms) into its correlations,
checked finite. :meth:`ChunkPredict.fill` runs them one after the other and writes
each in the same process; :mod:`uvlab.app.scale.ms_predict` computes them on a Dask
cluster and writes them here, in the same order, with the same chunks: the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uvlab.app.ms.column_writer import put_rows
from uvlab.app.ms.columns import brightness_to_correlations
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.finite import check_chunk, likely_cause
from uvlab.app.ms.tables import row_chunks, translated
from uvlab.app.runtime.errors import Cancelled

#: Temporary bytes per predicted chunk.
CHUNK_BYTES = 64 * 2**20
#: Rows whose FIELD_ID and DATA_DESC_ID are read at once (bounds memory on large MSs).
BLOCK_ROWS = 1 << 20


def chunk_step(nchan: int, chunk_bytes: int | None = None) -> int:
    """Rows per chunk by default: ``chunk_bytes`` (default :data:`CHUNK_BYTES`) of
    temporaries at ``nchan`` channels."""
    return max(1, int(chunk_bytes or CHUNK_BYTES) // (max(nchan, 1) * 4 * 16 * 4))


def _runs(keys: np.ndarray):
    """(start, stop) of runs of equal rows in (nrow, k) ``keys``."""
    if keys.shape[0] == 0:
        return []
    change = np.flatnonzero(np.any(keys[1:] != keys[:-1], axis=1)) + 1
    edges = np.concatenate([[0], change, [keys.shape[0]]])
    return list(zip(edges[:-1].tolist(), edges[1:].tolist()))


@dataclass(frozen=True)
class Chunk:
    """A row chunk: rows ``start`` … ``start + nrow − 1``, all of one field and DATA_DESC_ID."""

    start: int
    nrow: int
    field_id: int
    dd_id: int


@dataclass
class ChunkResult:
    """What :meth:`ChunkPredict.compute` made of a chunk: its (nrow, nchan, ncorr) complex
    correlations, its rows with a non-finite UVW (written as 0) and its median thermal σ
    (None without noise)."""

    chunk: Chunk
    corr: np.ndarray
    nonfinite: int
    sigma: float | None


@dataclass
class ChunkPredict:
    """What every chunk of a predict into an MS shares, and the predict of one chunk.

    ``nrows``, ``nonfinite`` (rows with a non-finite UVW, written as 0) and
    ``sigma`` (each chunk's median thermal σ) are counted as the chunks are written
    (:meth:`record`).
    """

    path: str
    col: str
    setup: object  # uvlab.app.ms.predict_ms._Setup
    sources: dict
    names: list
    images: dict
    image_sky: object
    jones: object
    rows_jones: object
    smearing: bool
    dtype: object
    device: str
    sefd_jy: float | None
    seed: int
    chunk_rows: int | None
    #: Bytes of temporaries per chunk when ``chunk_rows`` is not given (default CHUNK_BYTES).
    chunk_bytes: int | None = None
    nrows: int = 0
    nonfinite: int = 0
    sigma: list = field(default_factory=list)

    def plan(self, tab):
        """The chunks of every row of ``tab``, in row order (FIELD_ID and DATA_DESC_ID read
        :data:`BLOCK_ROWS` at a time); sets :attr:`nrows`."""
        with translated(self.path):
            n = tab.nrows()
        self.nrows = n
        for block, nblock in row_chunks(n, BLOCK_ROWS):
            with translated(self.path):
                keys = np.stack(
                    [
                        tab.getcol("FIELD_ID", block, nblock),
                        tab.getcol("DATA_DESC_ID", block, nblock),
                    ],
                    axis=1,
                )
            for start, stop in _runs(keys):
                fid, dd = (int(k) for k in keys[start])
                for r0, nrow in self._chunks(block + start, stop - start, fid, dd):
                    yield Chunk(r0, nrow, fid, dd)

    def on_host(self) -> ChunkPredict:
        """A copy whose image-sky grids are NumPy arrays (to send to other processes)."""
        from dataclasses import replace

        from uvlab.gpu.backend import to_numpy

        images = {k: (to_numpy(model), spec) for k, (model, spec) in self.images.items()}
        return replace(self, images=images, sigma=[])

    def record(self, res: ChunkResult) -> None:
        """Count a computed chunk's non-finite rows and noise σ."""
        self.nonfinite += res.nonfinite
        if res.sigma is not None:
            self.sigma.append(res.sigma)

    def fill(self, tab, name: str, progress, cancelled) -> None:
        """Predict and write every row of ``tab``'s column ``name``, chunk by chunk."""
        done = 0
        for chunk in self.plan(tab):
            if cancelled is not None and cancelled():
                raise Cancelled(f"predict into {self.path} cancelled")
            res = self.compute(tab, chunk)
            self.record(res)
            with translated(self.path):
                put_rows(tab, name, chunk.start, res.corr)
            done += chunk.nrow
            if progress is not None:
                progress(done / max(self.nrows, 1))

    def _chunks(self, first: int, count: int, fid: int, dd: int):
        setup = self.setup
        if fid not in self.sources or dd not in setup.dd_spw:
            raise MSError(
                f"{self.path}: row {first} refers to field {fid} / data description {dd}, "
                "which the subtables do not hold"
            )
        nchan = setup.spws[setup.dd_spw[dd]].nchan
        step = self.chunk_rows or chunk_step(nchan, self.chunk_bytes)
        for s, nrow in row_chunks(count, step):
            yield first + s, nrow

    def _jones_terms(self, tab, r0: int, nrow: int, fid: int, spw, int_s: float, feeds: str):
        """(row beam, row gains) of these rows, or (None, None) without Jones options."""
        if self.rows_jones is None:
            return None, None
        with translated(self.path):
            t, a1, a2 = (tab.getcol(c, r0, nrow) for c in ("TIME", "ANTENNA1", "ANTENNA2"))
        field = self.setup.fields[fid]
        rotation = (field.ra_rad, field.dec_rad, feeds, spw.id)
        row_beam = self.rows_jones.row_beam(
            self.sources[fid], spw.freq_hz, t, a1, a2, field.ra_rad, field.dec_rad, rotation
        )
        gains = self.rows_jones.row_gains(spw.freq_hz, t, a1, a2, int_s, rotation=rotation)
        return row_beam, gains

    def compute(self, tab, chunk: Chunk) -> ChunkResult:
        """The correlations of ``chunk``, its rows read from ``tab`` (the MS's main table,
        opened by whoever calls), checked finite (:func:`~uvlab.app.ms.finite.check_chunk`:
        MSError naming the rows and the likely cause)."""
        from uvlab.gpu.predict import Smearing, predict_rows

        r0, nrow, fid, dd = chunk.start, chunk.nrow, chunk.field_id, chunk.dd_id
        setup = self.setup
        spw = setup.spws[setup.dd_spw[dd]]
        types, basis = setup.pol_types[setup.dd_pol[dd]], setup.pol_feeds[setup.dd_pol[dd]]
        with translated(self.path):
            uvw = tab.getcol("UVW", r0, nrow)
            interval = tab.getcol("INTERVAL", r0, nrow) if "INTERVAL" in tab.colnames() else None
        bad = ~np.all(np.isfinite(uvw), axis=1)
        if bad.any():  # no model exists for such a row: predict it at the origin, write 0
            uvw = np.where(bad[:, None], 0.0, uvw)
        int_s = float(np.median(interval)) if interval is not None else 0.0
        smear = None
        if self.smearing:
            dec0 = setup.fields[fid].dec_rad
            smear = Smearing(np.abs(spw.chan_width_hz), int_s, dec0, time=int_s > 0)
        row_beam, gains = self._jones_terms(tab, r0, nrow, fid, spw, int_s, basis)
        with np.errstate(over="ignore", invalid="ignore"):  # check_chunk reports them
            b = predict_rows(
                uvw, spw.freq_hz, self.sources[fid], mode=basis, smearing=smear,
                dtype=self.dtype, device=self.device, row_beam=row_beam,
            )  # fmt: skip
            if self.images:
                b = b + _image_rows(
                    self.images[fid], uvw, spw.freq_hz, self.image_sky, basis, self.device
                )
            if gains is not None:
                from uvlab.gpu.predict.gains import apply_row_gains

                b = apply_row_gains(b, *gains)
            corr = brightness_to_correlations(b, types, basis)
            if self.sefd_jy is not None:
                sigma = _row_sigma(self.sefd_jy, spw, interval, self.path)
                corr = corr + _thermal_noise(corr.shape, sigma, self.seed, r0)
        if bad.any():
            corr[bad] = 0
        jones = self.jones
        check_chunk(  # before put_rows: a refusal rolls the whole column back
            corr,
            f"{self.path}: {self.col} of rows {r0}–{r0 + nrow - 1}",
            lambda: likely_cause(
                uvw, spw.freq_hz, self.sources[fid], mode=basis, names=self.names,
                image=bool(self.images),
                options={"--gain-amp-rms": getattr(jones, "gain_amp_rms", 0.0),
                         "--gains": getattr(jones, "gains_file", None),
                         "--sefd-jy": self.sefd_jy},
            ),
        )  # fmt: skip
        noise = float(np.median(sigma)) if self.sefd_jy is not None else None
        return ChunkResult(chunk, corr, int(bad.sum()), noise)


def _image_rows(grid, uvw, freq_hz, image_sky, basis: str, device):
    """(row, chan) or (row, chan, 2, 2) visibilities of the image sky (I on the diagonal)."""
    from uvlab.app.observing.predict_obs import degrid_image_rows, unpolarised

    model, spec = grid
    vis = degrid_image_rows(
        uvw[:, 0], uvw[:, 1], freq_hz, model, spec, ref_freq_hz=image_sky.ref_freq_hz,
        spectral_index=image_sky.spectral_index, device=device,
    )  # fmt: skip
    return unpolarised(vis, basis)


def _row_sigma(sefd_jy, spw, interval, path):
    """(row, chan) radiometer σ of these rows: their INTERVAL and the window's widths."""
    from uvlab.gpu.predict.noise import radiometer_sigma

    if interval is None or not np.all(np.asarray(interval) > 0):
        raise MSError(f"{path}: --sefd-jy needs an INTERVAL > 0 on every row")
    width = np.abs(np.asarray(spw.chan_width_hz, dtype=np.float64))
    return radiometer_sigma(sefd_jy, width[None, :], np.asarray(interval, float)[:, None])


def _thermal_noise(shape, sigma, seed, first_row):
    """(row, chan, corr) complex noise of σ (row, chan) for the rows from ``first_row``."""
    from uvlab.gpu.predict.noise import complex_noise

    rng = np.random.default_rng([int(seed), int(first_row)])
    return complex_noise(shape, sigma[:, :, None], rng)
