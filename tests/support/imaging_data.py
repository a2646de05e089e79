"""(row, chan) MeerKAT-track data as make_image takes them, for the imaging-cache tests."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tests.support.oracles import C_LIGHT, sky_vis
from tests.support.scenes import PIXEL_SKY, layout_uv, meerkat_spec
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.imager import make_image
from uvlab.gpu.imaging.weighting import Weighting

FREQ = np.array([1.3e9, 1.4e9, 1.5e9])
NATURAL = Weighting()
PARAMS = GridParams.from_eps(1e-6, threads=1)


@dataclass(frozen=True, eq=False)
class Data:
    """(row, chan) data as make_image takes them, and its image choices."""

    uvw: np.ndarray  # (row, 3) m
    freq: np.ndarray
    vis: np.ndarray  # (row, chan)
    weight: object
    flag: np.ndarray | None
    spec: ImageSpec
    weighting: Weighting = NATURAL
    algorithm: str = "ducc"
    params: GridParams = PARAMS

    def image(self, cache=None):
        return make_image(
            self.uvw,
            self.freq,
            self.vis,
            self.weight,
            self.spec,
            flag=self.flag,
            weighting=self.weighting,
            algorithm=self.algorithm,
            params=self.params,
            device="cpu",
            cache=cache,
        )


def channel_uv(uvw, freq):
    """(row, chan) u, v in wavelengths, written out here."""
    return uvw[:, 0, None] * freq / C_LIGHT, uvw[:, 1, None] * freq / C_LIGHT


def make_data() -> Data:
    u, v, w = layout_uv(n_times=8)  # wavelengths at 1.4 GHz
    uvw = np.stack([u, v, w], axis=1) * (C_LIGHT / 1.4e9)
    cu, cv = channel_uv(uvw, FREQ)
    spec = meerkat_spec(cu, cv, 64)
    return Data(uvw, FREQ, sky_vis(cu, cv, spec, PIXEL_SKY), 1.0, np.zeros((len(u), 1), bool), spec)
