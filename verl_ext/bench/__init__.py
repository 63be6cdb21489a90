"""Benchmarks behind ``verl-ext bench ...``: baseline and verl-ext in the same run, ratios printed."""
