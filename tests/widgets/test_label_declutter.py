"""kept: labels placed in order of preference, none over another, an obstacle or an edge."""

from __future__ import annotations

from PyQt6 import QtCore

from uvlab.widgets.label_declutter import kept


def R(x, y, w=10.0, h=5.0):
    return QtCore.QRectF(x, y, w, h)


def test_the_first_of_two_overlapping_labels_is_kept():
    assert kept([R(0, 0), R(5, 2), R(20, 0)]) == [0, -1, 0]
    assert kept([R(5, 2), R(0, 0), R(20, 0)]) == [0, -1, 0]


def test_a_label_takes_its_next_place_when_the_first_is_taken():
    places = [[R(0, 0)], [R(5, 0), R(-20, 0), R(0, 20)]]
    assert kept(places) == [0, 1]


def test_bounds_and_obstacles_but_its_own():
    bounds = QtCore.QRectF(0, 0, 100, 100)
    assert kept([R(95, 0), R(50, 50)], bounds=bounds) == [-1, 0]
    dots = [R(3, 1, 2, 2), R(60, 60, 2, 2)]
    # label 0 lies over dot 0, its own point: kept; label 1 over dot 1, another's: hidden
    assert kept([R(0, 0), R(55, 58)], obstacles=dots, own=[0, 0]) == [0, -1]


def test_a_margin_keeps_touching_labels_apart():
    assert kept([R(0, 0), R(10.5, 0)]) == [0, -1]  # within the 1 px margin
    assert kept([R(0, 0), R(10.5, 0)], margin=0.0) == [0, 0]


def test_a_search_moves_an_earlier_label_to_show_a_later_one():
    places = [[R(0, 0), R(0, 20)], [R(5, 0)]]
    assert kept(places) == [0, -1]  # greedy: the first label's first place hides the second
    assert kept(places, search=100) == [1, 0]
    assert kept(places, search=1) == [0, -1]  # out of steps: greedy
    assert kept([[R(0, 0)], [R(5, 0)]], search=100) == [0, -1]  # none shows both
