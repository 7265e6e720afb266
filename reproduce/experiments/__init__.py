"""One module per paper (or per group of experiments); each defines ``EXPERIMENTS``."""
