"""``uvlab demo``: simulate and image the embedded default scene, headless."""

from __future__ import annotations

import json
from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="simulate and image the default scene; write FITS, PNG and timing",
        description="Simulate the embedded default scene (MeerKAT, 'teaching' sky), "
        "predict its visibilities, image them, and write dirty/PSF FITS files, a PNG "
        "overview and a timing table into an output folder.",
    )
    p.add_argument("--out", default="uvlab-demo", help="output folder (default: uvlab-demo)")
    p.add_argument("--scene", help="a scene JSON file instead of the default scene")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--npix", type=even_npix, help="image size in pixels (default 512)")
    p.add_argument(
        "--algorithm",
        choices=("dft", "conv", "nn", "nn-oversampled", "hybrid", "pruned-nn"),
        help="imaging algorithm (default conv)",
    )
    p.set_defaults(func=run)


def even_npix(text: str) -> int:
    """``--npix`` type: an even integer ≥ 2 (else a usage error, exit 2)."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 2 or n % 2:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an even number of pixels ≥ 2")
    return n


def run(args) -> int:
    from uvlab.app.atomic import write_text
    from uvlab.app.fits_io import write_image_fits
    from uvlab.app.pipeline import run_scene
    from uvlab.app.plots import format_timing, scene_figure
    from uvlab.app.scene import DEFAULT_SCENE, Scene
    from uvlab.gpu.backend import device_info

    scene = Scene.load(args.scene) if args.scene else DEFAULT_SCENE
    changes = {k: v for k, v in (("npix", args.npix), ("algorithm", args.algorithm)) if v}
    if changes:
        scene = scene.with_imaging(**changes)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"uvlab demo: {scene.observation.layout}, sky '{scene.sky}', "
        f"{scene.imaging.npix}² {scene.imaging.algorithm}; {device_info().describe()}"
    )
    res = run_scene(scene, device=args.device)
    obs, spec = res.observation, res.spec
    hist = {"scene": scene.to_json().replace("\n", " ")}
    common = dict(
        freq_hz=float(obs.freq_hz.mean()),
        bandwidth_hz=float(obs.chan_width_hz * obs.freq_hz.size),
        history=hist,
    )
    ra, dec = scene.observation.ra_deg, scene.observation.dec_deg
    files = [
        write_image_fits(out / "dirty.fits", res.image.dirty, spec, ra, dec, **common),
        write_image_fits(out / "psf.fits", res.image.psf, spec, ra, dec, **common),
        scene_figure(res, out / "overview.png"),
    ]
    timing_path = write_text(
        out / "timing.json",
        json.dumps({"device": res.device, "nvis": res.nvis, "timing_s": res.timing}, indent=2),
    )
    files.append(timing_path)
    write_text(out / "scene.json", scene.to_json())
    print(format_timing(res.timing, res.nvis))
    print(f'peak {res.image.dirty.max():.4f} Jy/beam; cell {spec.cell_arcsec:.2f}"')
    for f in files:
        print(f"wrote {f}")
    return 0
