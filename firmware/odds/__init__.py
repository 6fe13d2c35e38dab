"""Exact equity and the seven-card check: an optional extra built on numpy.

The table's runtime never imports this package.
"""
