"""Exceptions raised by kexplain."""


class UnsupportedModelError(TypeError, ValueError):
    """The model (or its kernel or preprocessing) has no exact product-kernel form.

    The message says what is supported and, where one exists, which other explainer applies.
    """
