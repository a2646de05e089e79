"""Stokes formation from correlations (uvlab.app.ms.stokes), pure NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.oracles import brightness
from uvlab.app.ms.errors import MSError
from uvlab.app.ms.stokes import combine, corr_names, formable, recipe

LINEAR, CIRCULAR = ("XX", "XY", "YX", "YY"), ("RR", "RL", "LR", "LL")


def _corr(names, iquv):
    """(..., ncorr) correlations from DESIGN §1's B for complex Stokes arrays."""
    return np.stack([brightness(n, iquv) for n in names], axis=-1)


@pytest.mark.parametrize("basis", [LINEAR, CIRCULAR])
def test_inverts_design_brightness_matrix_in_any_order(basis, rng):
    iquv = [rng.normal(size=5) + 1j * rng.normal(size=5) for _ in range(4)]
    for perm in (rng.permutation(4) for _ in range(4)):
        names = tuple(basis[k] for k in perm)
        data = _corr(names, iquv)
        flag = np.zeros(data.shape, dtype=bool)
        weight = np.ones(data.shape)
        for k, s in enumerate("IQUV"):
            vis, _, _ = combine(recipe(names, s), data, flag, weight)
            np.testing.assert_allclose(vis, iquv[k], atol=1e-12, err_msg=f"{s} from {names}")


def test_real_stokes_parameters_of_a_polarised_point_source():
    # A real source, linear feeds: XX = I+Q, XY = U+iV, YX = U−iV, YY = I−Q.
    names = ("XX", "YY", "XY", "YX")
    data = np.array([[1.2 + 0j, 0.8 + 0j, 0.3 + 0.1j, 0.3 - 0.1j]])
    ones, no = np.ones(data.shape), np.zeros(data.shape, dtype=bool)
    got = [combine(recipe(names, s), data, no, ones)[0][0] for s in "IQUV"]
    np.testing.assert_allclose(got, [1.0, 0.2, 0.3, 0.1], atol=1e-15)


def test_weight_is_inverse_variance_of_the_combination(rng):
    # Monte Carlo: noise of variance 1/w_k per correlation, then the variance
    # of the formed Stokes sample must be 1/w from the stated formula.
    names = ("XX", "XY", "YX", "YY")
    w = np.array([2.0, 0.5, 4.0, 1.0])
    n = 200_000
    noise = (rng.normal(size=(n, 4)) + 1j * rng.normal(size=(n, 4))) / np.sqrt(2 * w)
    flag = np.zeros((n, 4), dtype=bool)
    for s in "IQUV":
        vis, weight, _ = combine(recipe(names, s), noise, flag, np.broadcast_to(w, (n, 4)))
        assert np.var(vis) == pytest.approx(1.0 / weight[0], rel=0.02)
    _, wi, _ = combine(recipe(names, "I"), noise[:1], flag[:1], w[None])
    assert wi[0] == pytest.approx(4.0 / (1 / 2.0 + 1 / 1.0))


def test_flags_and_zero_weights_propagate_only_from_contributors():
    names = ("XX", "XY", "YX", "YY")
    data = np.ones((3, 4), dtype=np.complex64)
    flag = np.zeros((3, 4), dtype=bool)
    flag[0, 1] = True  # XY: does not touch I
    flag[1, 3] = True  # YY: flags I
    weight = np.ones((3, 4), dtype=np.float32)
    weight[2, 0] = 0.0  # XX weight 0 → I weight 0
    vis, w, f = combine(recipe(names, "I"), data, flag, weight)
    np.testing.assert_array_equal(f, [False, True, False])
    np.testing.assert_allclose(w, [2.0, 2.0, 0.0])
    assert vis.dtype == np.complex64 and w.dtype == np.float32
    _, _, fu = combine(recipe(names, "U"), data, flag, weight)
    np.testing.assert_array_equal(fu, [True, False, False])


def test_raw_correlations_and_stored_stokes_are_selected_directly(rng):
    data = rng.normal(size=(5, 4)) + 1j * rng.normal(size=(5, 4))
    none = np.zeros(data.shape, dtype=bool)
    r = recipe(LINEAR, "yx")
    assert r.name == "YX" and r.indices == (2,)
    vis, _, _ = combine(r, data, none, np.ones(data.shape))
    np.testing.assert_array_equal(vis, data[:, 2])
    stored = corr_names([1, 4])
    assert stored == ("I", "V")
    vis, _, _ = combine(recipe(stored, "V"), data[:, :2], none[:, :2], np.ones((5, 2)))
    np.testing.assert_array_equal(vis, data[:, 1])


def test_cannot_form_says_what_is_there():
    with pytest.raises(MSError) as e:
        recipe(("XY",), "I")
    assert str(e.value) == "cannot form Stokes I: this MS holds XY only; choose Stokes XY"
    with pytest.raises(MSError, match=r"holds XX YY only; choose Stokes one of I, Q, XX, YY"):
        recipe(("XX", "YY"), "U")
    with pytest.raises(MSError, match=r"unknown Stokes parameter or correlation 'W'"):
        recipe(LINEAR, "W")
    with pytest.raises(MSError, match="holds RR RL LR LL"):
        recipe(CIRCULAR, "XX")


def test_corr_type_codes_and_formable():
    assert corr_names([9, 10, 11, 12]) == LINEAR
    assert corr_names([5, 6, 7, 8]) == CIRCULAR
    assert corr_names([99]) == ("type99",)
    assert formable(("RR", "LL")) == ("I", "V", "RR", "LL")
    assert formable(LINEAR) == ("I", "Q", "U", "V", *LINEAR)
