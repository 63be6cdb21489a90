"""Triton kernels run on CPU in Triton's interpreter; it must be chosen before the kernels are defined."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")
