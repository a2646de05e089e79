"""CLEAN masks from boxes."""

import numpy as np
import pytest

from uvlab.gpu.backend import to_numpy
from uvlab.gpu.deconvolution import box_mask


def test_boxes_inclusive_clipped_and_in_either_order(xp):
    mask = to_numpy(box_mask(10, [(2, 3, 4, 5), (9, 9, 8, 12)], xp=xp))
    expect = np.zeros((10, 10), bool)
    expect[2:5, 3:6] = True
    expect[8:10, 9:10] = True
    np.testing.assert_array_equal(mask, expect)


def test_box_outside_the_image():
    with pytest.raises(ValueError, match="outside"):
        box_mask(10, [(20, 20, 30, 30)])
