"""Several ``--pol`` products from one read of each row chunk (WSClean's ``-pol IQUV``).

An :class:`~uvlab.app.scale.ms_image.MSRead` with ``products`` reads each chunk once and
forms every product from its correlations (:func:`~uvlab.app.ms.reader.read_products`).
The tasks of :mod:`uvlab.app.scale.ms_image` then run their one-product function on each
product's data in turn (:func:`each_map`, :func:`each_fold`): a worker grids each product
into a grid of its own (or its own ducc0 NUFFT, or its own image part), and what a task
returns is a :class:`Products`, the products' parts in order, which the reductions add,
band and finish product by product. Each product keeps its own weights, so uniform and
Briggs weighting count a density for each (``totals``, one per product), as the
one-process run, which images each product on its own, does.
"""

from __future__ import annotations


class Products(tuple):
    """Each product's part of a chunk, a chain or a sum, in the products' order.

    ``+`` and ``+=`` add product by product (the map–reduce sums of
    :func:`~uvlab.app.scale.chains.fold_sum`); :meth:`band` and :meth:`add` are a
    :class:`~uvlab.gpu.imaging.grid_parts.PartGrid`'s, product by product (the chains'
    reduction, :func:`~uvlab.app.scale.chains.reduce_on_workers`).
    """

    __slots__ = ()

    def __add__(self, other):
        return Products(a + b for a, b in zip(self, other, strict=True))

    def __iadd__(self, other):
        """Product by product in place where the parts allow (arrays, image parts): a
        worker's chain adding its chunks (:func:`~uvlab.app.scale.chains.fold_sum`)."""
        out = []
        for mine, theirs in zip(self, other, strict=True):
            mine += theirs
            out.append(mine)
        return Products(out)

    def band(self, band: int, nbands: int) -> Products:
        return Products(g.band(band, nbands) for g in self)

    def add(self, piece: Products, band: int = 0, nbands: int = 1) -> Products:
        return Products(g.add(p, band, nbands) for g, p in zip(self, piece, strict=True))

    def on_host(self) -> Products:
        """Each product's part in host memory (:func:`~uvlab.app.scale.chains.on_host`)."""
        from uvlab.app.scale.chains import on_host

        return Products(on_host(p) for p in self)

    def __reduce__(self):
        return (Products, (tuple(self),))


def per_product(value, k: int):
    """Product ``k``'s value of a keyword argument given for each product (a tuple or a
    Products), or ``value`` itself where it is one for all (None, a spec)."""
    return value[k] if isinstance(value, tuple) else value


def each_map(fn, chunk, *, varying=(), **kwargs) -> Products:
    """``fn(data, **kwargs)`` of each product's data of ``chunk``, a :class:`Products`.

    ``varying``: the names of keyword arguments given one per product (a tuple: each
    product's density totals, each product's model).
    """
    from uvlab.app.scale.ms_read import chunk_data

    data = chunk_data(chunk)
    return Products(fn(vd, **_kw(kwargs, varying, k)) for k, vd in enumerate(data))


def each_fold(fn, chunk, acc, *, varying=(), **kwargs) -> Products:
    """``fn(data, acc, **kwargs)`` of each product's data of ``chunk`` into that product's
    accumulator of ``acc`` (None for a chain's first chunk), a :class:`Products`."""
    from uvlab.app.scale.ms_read import chunk_data

    data = chunk_data(chunk)
    return Products(
        fn(vd, None if acc is None else acc[k], **_kw(kwargs, varying, k))
        for k, vd in enumerate(data)
    )


def each_of(fn, parts, *after, **kwargs):
    """``fn(part, **kwargs)`` of each product's part (a :class:`Products`), or of ``parts``
    itself where it is one product's (a chain's finish)."""
    if isinstance(parts, Products):
        return Products(fn(p, **kwargs) for p in parts)
    return fn(parts, **kwargs)


def _kw(kwargs: dict, varying, k: int) -> dict:
    return {n: per_product(v, k) if n in varying else v for n, v in kwargs.items()}
