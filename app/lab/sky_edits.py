"""Sky edits: which components a new sky adds to and removes from the one predicted.

The visibilities are linear in the sky, so when the held prediction is of the
same observation, smearing, precision and device, and its sky differs from the
request's by a few added and removed components (:func:`sky_edit`; a changed
one is one removed and one added), the held visibilities are updated in place
(:func:`uvlab.app.lab.synthetic_source.iter_synthetic`): ``V += V(added) − V(removed)``,
one prediction of :func:`edit_sources`, the added components and the removed
ones with negated flux. More than :data:`MAX_EDIT_FRACTION` of the sky
changed, or :data:`MAX_EDITS` updates in a row, predict everything again
(:func:`held_edit`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from uvlab.app.lab.samples import WorkCache
from uvlab.app.skymodel import SkyModel

#: A sky edit changing more than this fraction of the request's components is predicted in full.
MAX_EDIT_FRACTION = 0.5
#: After this many incremental updates in a row the next edit is predicted in full (rounding).
MAX_EDITS = 64


def sky_edit(old: SkyModel, new: SkyModel) -> tuple[tuple, tuple] | None:
    """(added, removed) components that make ``old`` into ``new``; None if not an edit.

    Counted with multiplicity, whatever their order (a changed component is
    one removed and one added). Not an edit (None): the two skies are laid out
    differently (``centre_deg`` differs), so equal components sit at other
    (l, m). Components are compared by identity first (an edit keeps the
    others' objects), so a large sky costs little.
    """
    if old.centre_deg != new.centre_deg:
        return None
    a, b = old.components, new.components
    n = min(len(a), len(b))
    i = 0
    while i < n and (a[i] is b[i] or a[i] == b[i]):
        i += 1
    j = 0
    while j < n - i and (a[-1 - j] is b[-1 - j] or a[-1 - j] == b[-1 - j]):
        j += 1
    was, now = Counter(a[i : len(a) - j]), Counter(b[i : len(b) - j])
    return tuple((now - was).elements()), tuple((was - now).elements())


def held_edit(cache: WorkCache, key: tuple) -> tuple[tuple, tuple] | None:
    """The sky edit from the held prediction to ``key``, when updating it is worth it.

    Only the sky may differ, by at most :data:`MAX_EDIT_FRACTION` of the
    request's components, and fewer than :data:`MAX_EDITS` updates in a row.
    """
    held = cache.prediction_key
    if held is None or held[0] != key[0] or held[2:] != key[2:]:
        return None
    if cache.prediction_edits >= MAX_EDITS:
        return None
    edit = sky_edit(held[1], key[1])
    if edit is None or len(edit[0]) + len(edit[1]) > MAX_EDIT_FRACTION * len(key[1]):
        return None
    return edit


def edit_sources(edit: tuple[tuple, tuple], centre_deg, ra0_rad: float, dec0_rad: float):
    """The engine's arrays whose prediction turns the held visibilities into the new ones.

    The added components, and the removed ones with negated Stokes, laid out
    as the request's sky is (``centre_deg``: relative or absolute), about the
    data's phase centre (α0, δ0).
    """
    added, removed = edit
    negated = (replace(c, stokes=tuple(-x for x in c.stokes)) for c in removed)
    return SkyModel((*added, *negated), centre_deg=centre_deg).sources_for(ra0_rad, dec0_rad)
