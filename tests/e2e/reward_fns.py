"""The user's reward functions of the end-to-end run: one synchronous (verl-ext runs it in its process pool),
one asynchronous (on its event loop). Both vary across a random model's samples, so GRPO's advantages, and
the gradient, are not zero."""

import asyncio


def length_score(data_source, solution_str, ground_truth, extra_info=None):
    return min(len(solution_str), 64) / 64.0


async def digit_share(data_source, solution_str, ground_truth, extra_info=None):
    await asyncio.sleep(0.001)
    return sum(c.isdigit() for c in solution_str) / max(len(solution_str), 1)
