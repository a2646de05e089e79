"""The cases and records the CUDA gridder tests share (their NumPy references and the kernels).

- :data:`CASES` / :data:`IDS`: (algorithm, params) pairs covering every tap rule and
  kernel path, with their test ids;
- :data:`SMALL`: small tiles and few threads, for many tiles, wraps and groups in a small grid;
- :func:`edge_records`: random records plus the edge cases of the grid;
- :func:`duplicated`: edge records plus duplicates, Hermitian twins and near neighbours
  (full compression);
- :func:`chain_of`: the GPU chain of a catalogue algorithm;
- :func:`amplification`: how much a chain's corrector amplifies float32 rounding at the edge.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.cuda_grid import KernelConfig
from uvlab.gpu.gridders.cuda_rules import gpu_chain
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import axis_plans
from uvlab.gpu.image_spec import ImageSpec

SPEC = ImageSpec(32, 1e-3)

#: (algorithm, params) pairs covering every tap rule and kernel path (tables read by
#: nearest and by linear lookup, S·β even and odd).
CASES = [
    ("conv", GridParams.from_eps(1e-6)),
    ("conv", GridParams(support=5, oversample=8)),
    ("conv", GridParams(kernel="kb", support=6, sigma=1.5)),
    ("conv", GridParams(support=5, oversample=8, lookup="linear")),
    ("conv", GridParams(kernel="kb", support=5, oversample=7, sigma=1.5, lookup="linear")),
    ("nn", GridParams()),
    ("nn-oversampled", GridParams(oversample=4)),
    ("hybrid", GridParams.from_eps(1e-5, oversample=8)),
    ("hybrid", GridParams.muscat(oversample=8)),
    ("hybrid", GridParams(support=6, oversample=8, lookup="linear")),
    ("pruned-nn", GridParams(oversample=4)),
]
IDS = [
    f"{n}-{p.kernel}{p.support}{'x' if p.exact else 't'}{'-linear' if p.lookup == 'linear' else ''}"
    for n, p in CASES
]

#: Small tiles and few threads: many tiles, wraps and groups in a small grid.
SMALL = KernelConfig(tile_2d=(8, 4), maxsub_2d=7, tile_row=(4, 8), maxsub_row=3, threads_row=32)


def edge_records(rng, n=2000, spec=SPEC):
    """Random records plus u = 0, v = 0, negative v, the grid edge and its wrap."""
    half = 0.5 / spec.cell_rad  # u of the grid's Nyquist column at σ = 1
    u = rng.uniform(-0.9, 0.9, n) * half
    v = rng.uniform(-0.9, 0.9, n) * half
    u[:20], v[20:40], v[40:60] = 0.0, 0.0, -np.abs(v[40:60])
    u[60:80] = half * 2.0 * rng.choice([-1, 1], 20)  # σ·N/2 on a σ = 2 grid
    u[80:100] = half * rng.uniform(1.98, 2.02, 20)  # straddling the wrap
    v[100:120] = -half * 2.0
    u[120:140], v[120:140] = 0.0, 0.0
    vis = rng.normal(size=n) + 1j * rng.normal(size=n)
    vis[140:150] = 0.0  # zero records are dropped by the bin
    return u, v, vis


def duplicated(rng):
    """Edge records plus exact duplicates, Hermitian mirrors and near neighbours."""
    u, v, vis = edge_records(rng)
    k = 600
    u2 = np.concatenate([u, u[:k], -u[k : 2 * k], u[:k] * (1 + 1e-9)])
    v2 = np.concatenate([v, v[:k], -v[k : 2 * k], v[:k]])
    vis2 = np.concatenate([vis, 0.5 * vis[:k], np.conj(vis[k : 2 * k]), vis[:k]])
    return u2, v2, vis2


def chain_of(name, params, spec=SPEC):
    """The GPU chain of a catalogue algorithm: its NumPy plans through gpu_chain."""
    return gpu_chain(axis_plans(name, spec, params), spec, params)


def amplification(name, params, spec=SPEC) -> float:
    """How much the corrector amplifies rounding at the image edge over the centre.

    Muscat's σ = 1 setting divides the edge pixels by a small kernel response,
    so float32 grid rounding grows there by this factor.
    """
    chain = chain_of(name, params)
    c = spec.npix // 2
    return float(chain.corr_u.max() * chain.corr_v.max() / (chain.corr_u[c] * chain.corr_v[c]))
