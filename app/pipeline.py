"""Simulate and image a scene: the engine behind ``uvlab demo`` and the GUI worker.

``run_scene`` is pure Python on top of :mod:`uvlab.gpu`: it simulates the
observation, predicts visibilities for the sky model, and images them. It
reports progress through an optional callback and stops early when
``cancelled()`` returns True (raising :class:`Cancelled`). A scene the
available memory cannot hold (its observation, visibilities and image) is
refused before anything is simulated
(:class:`~uvlab.app.memory.InsufficientMemoryError`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from uvlab.app.errors import Cancelled
from uvlab.app.scene import Scene
from uvlab.gpu.imaging.imager import ImageResult, make_image
from uvlab.gpu.imaging.spec import ImageSpec, cell_for_uvw
from uvlab.gpu.imaging.weighting import Weighting


@dataclass(frozen=True)
class SceneResult:
    """Everything a view needs from one run."""

    scene: Scene
    observation: object
    sky: object
    spec: ImageSpec
    image: ImageResult
    vis: np.ndarray
    timing: dict = field(default_factory=dict)
    device: str = "cpu"

    @property
    def nvis(self) -> int:
        return int(self.image.nvis)


def image_spec_for(scene: Scene, obs) -> ImageSpec:
    """The scene's image geometry, deriving the cell from the data when unset."""
    im = scene.imaging
    cell = cell_for_uvw(obs.uvw, obs.freq_hz, im.cell_arcsec)
    return ImageSpec(im.npix, cell)


def check_scene_memory(scene: Scene) -> None:
    """Refuse a scene whose observation, visibilities and image the memory cannot hold.

    Sized from the scene alone (:func:`uvlab.app.ms.simulate.stokes_i_estimate`):
    the visibilities (complex128 or complex64) and flags per sample, then
    the larger of the prediction's temporaries and the imaging.
    """
    from uvlab.app.memory import check_memory, imaging_estimate
    from uvlab.app.ms.simulate import observation_size, stokes_i_estimate

    im = scene.imaging
    size = observation_size(scene.observation)
    imaging = imaging_estimate(im.npix, im.algorithm, nvis=size.nsamples)
    est = stokes_i_estimate(size, itemsize=8 if im.precision == "single" else 16, imaging=imaging)
    check_memory(
        est,
        f"the scene's observation ({size.describe()}) and its {im.npix}² image",
        hint="use fewer channels or integrations, a smaller array or a smaller image",
    )


def run_scene(
    scene: Scene,
    *,
    device: str = "auto",
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SceneResult:
    """Simulate, predict and image ``scene``.

    Parameters
    ----------
    scene : Scene
    device : {"auto", "cpu", "gpu"}
    progress : callable(fraction, stage), optional
    cancelled : callable() -> bool, optional
    """
    from uvlab.app.observation import simulate_observation
    from uvlab.app.skymodel import load_sky
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.predict import Smearing, predict_antennas

    dev = resolve_device(device)
    report = progress or (lambda f, s: None)
    stop = cancelled or (lambda: False)
    check_scene_memory(scene)

    def check():
        if stop():
            raise Cancelled("run cancelled")

    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    report(0.0, "uvw")
    obs = simulate_observation(scene.observation)
    timing["uvw"] = time.perf_counter() - t0
    check()
    spec = image_spec_for(scene, obs)
    fov_deg = np.degrees(spec.npix * spec.cell_rad) * scene.fov_fraction
    sky = load_sky(
        scene.sky,
        ra0_deg=scene.observation.ra_deg,
        dec0_deg=scene.observation.dec_deg,
        freq_hz=float(obs.freq_hz[0]),
        fov_deg=fov_deg,
    )
    sources = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    report(0.1, "predict")
    t0 = time.perf_counter()
    smearing = (
        Smearing(chan_width_hz=obs.chan_width_hz, int_s=obs.int_s, dec0_rad=obs.dec0_rad)
        if scene.smearing
        else None
    )
    dtype = np.float32 if scene.imaging.precision == "single" else np.float64
    vis = predict_antennas(
        obs.ant_uvw,
        obs.ant1,
        obs.ant2,
        obs.freq_hz,
        sources,
        mode="scalar",
        smearing=smearing,
        dtype=dtype,
        device=dev,
    )
    timing["predict"] = time.perf_counter() - t0
    check()
    report(0.6, "imaging")
    nchan = obs.freq_hz.size
    im = scene.imaging
    params = None
    if im.algorithm != "dft":
        from uvlab.gpu.gridders.params import GridParams

        params = GridParams.from_eps(im.eps, kernel=im.kernel)
    result = make_image(
        obs.uvw.reshape(-1, 3),
        obs.freq_hz,
        vis.reshape(-1, nchan),
        1.0,
        spec,
        flag=np.repeat(obs.flag.reshape(-1, 1), nchan, axis=1),
        weighting=Weighting(im.weighting, im.robust, im.taper_arcsec),
        algorithm=im.algorithm,
        params=params,
        device=dev,
    )
    timing.update(result.timing)
    report(1.0, "done")
    return SceneResult(scene, obs, sky, spec, result, vis, timing, dev)
