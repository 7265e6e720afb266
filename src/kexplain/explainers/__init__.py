"""User-facing explainers: they build games from models and call the solvers."""

from .product_kernel import ProductKernelExplainer

__all__ = ["ProductKernelExplainer"]
