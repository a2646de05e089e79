"""A scene: everything needed to simulate and image one observation.

The embedded default scene is what ``uvlab demo`` and the GUI start from:
MeerKAT observing the "teaching" sky at 1.4 GHz for six hours around transit.
"""

from __future__ import annotations

import json
import math
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path

from uvlab.app.observation import ObservationSpec


class SceneError(ValueError):
    """A scene file that cannot be read; the message names the file and the problem."""


def build(cls, d, what: str):
    """``cls(**d)`` for a dataclass, with one-line ValueErrors naming ``what``.

    Refuses a ``d`` that is not a dict, unknown or missing keys, and bad values;
    ``what`` names the part of the file (``observation``, ``imaging``).
    """
    if not isinstance(d, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(d).__name__}")
    known = [f.name for f in fields(cls)]
    if unknown := [k for k in d if k not in known]:
        raise ValueError(
            f"{what}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(str, unknown))}"
            f" (known: {', '.join(known)})"
        )
    required = [
        f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING
    ]
    if missing := [k for k in required if k not in d]:
        raise ValueError(f"{what}: missing {', '.join(missing)}")
    try:
        return cls(**d)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}: {exc}") from None


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

    def __post_init__(self):
        from uvlab.gpu.gridders.registry import ALGORITHMS
        from uvlab.gpu.imaging.weighting import SCHEMES

        npix = self.npix
        if isinstance(npix, bool) or not isinstance(npix, int) or npix < 2 or npix % 2:
            raise ValueError(f"npix must be an even integer ≥ 2, got {npix!r}")
        choices = {
            "algorithm": ("dft", *ALGORITHMS),
            "weighting": SCHEMES,
            "precision": ("single", "double"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name} {getattr(self, name)!r} is not one of {', '.join(allowed)}"
                )
        for name in ("robust", "taper_arcsec", "eps", "cell_arcsec"):
            value = getattr(self, name)
            if value is None and name == "cell_arcsec":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value) or (name != "robust" and value < 0):
                raise ValueError(f"{name} must be a finite number ≥ 0, got {value!r}")
        if not self.eps > 0:
            raise ValueError(f"eps must be > 0, got {self.eps!r}")


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
        """A scene from its JSON object (ValueError, one line, for anything wrong)."""
        if not isinstance(d, dict):
            raise ValueError(f"a scene is a JSON object, got {type(d).__name__}")
        if "observation" not in d:
            raise ValueError("missing 'observation'")
        return cls(
            observation=build(ObservationSpec, d["observation"], "observation"),
            sky=d.get("sky", "teaching"),
            fov_fraction=d.get("fov_fraction", 0.6),
            smearing=d.get("smearing", True),
            imaging=build(ImagingSettings, d.get("imaging", {}), "imaging"),
        )

    @classmethod
    def load(cls, path) -> Scene:
        """Read a scene JSON file; :class:`SceneError` names the file and the problem."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SceneError(f"{path}: cannot read the scene file: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise SceneError(f"{path}: not a scene file (not UTF-8 text)") from None
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SceneError(f"{path}: not valid JSON: {exc}") from None
        try:
            return cls.from_dict(d)
        except (KeyError, TypeError, ValueError) as exc:
            raise SceneError(f"{path}: {exc}") from None

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
