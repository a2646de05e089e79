"""A scene: everything needed to simulate and image one observation.

The embedded default scene is what ``uvlab demo`` and the GUI start from:
MeerKAT observing the "teaching" sky at 1.4 GHz for six hours around transit.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from uvlab.app.observation import ObservationSpec


@dataclass(frozen=True)
class ImagingSettings:
    """Imaging choices: image size, weighting and algorithm."""

    npix: int = 512
    cell_arcsec: float | None = None  # None: 1/(3·u_max), rounded
    weighting: str = "natural"
    robust: float = 0.0
    taper_arcsec: float = 0.0
    algorithm: str = "conv"
    kernel: str = "es"
    eps: float = 1e-5
    precision: str = "double"


@dataclass(frozen=True)
class Scene:
    """A frozen, JSON-serialisable description of one simulate-and-image run."""

    observation: ObservationSpec
    sky: str = "teaching"
    fov_fraction: float = 0.6  # demo skies spread over this fraction of the image
    smearing: bool = True
    imaging: ImagingSettings = field(default_factory=ImagingSettings)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_dict(cls, d: dict) -> Scene:
        return cls(
            observation=ObservationSpec(**d["observation"]),
            sky=d.get("sky", "teaching"),
            fov_fraction=d.get("fov_fraction", 0.6),
            smearing=d.get("smearing", True),
            imaging=ImagingSettings(**d.get("imaging", {})),
        )

    @classmethod
    def load(cls, path) -> Scene:
        return cls.from_dict(json.loads(Path(path).read_text()))

    def with_imaging(self, **changes) -> Scene:
        return replace(self, imaging=replace(self.imaging, **changes))


DEFAULT_SCENE = Scene(
    observation=ObservationSpec(
        layout="meerkat",
        ra_deg=201.365,
        dec_deg=-43.019,
        ha_start_h=-3.0,
        ha_stop_h=3.0,
        int_s=120.0,
        freq_hz=1.4e9,
        chan_width_hz=2.0e6,
        nchan=4,
    ),
)
