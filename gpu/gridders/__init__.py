"""Gridding algorithms (DESIGN §2): each grids, inverts, corrects and crops."""
