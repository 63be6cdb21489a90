"""Exceptions raised by verl-ext. Every error of the Rust core maps to one of these classes."""

__all__ = [
    "ConfigError",
    "InputTypeError",
    "InternalError",
    "InvalidInputError",
    "RewardFunctionError",
    "SandboxCancelledError",
    "SandboxError",
    "SandboxUnavailableError",
    "UnknownDataSourceError",
    "VerlExtError",
    "describe",
]


class VerlExtError(Exception):
    """Base class of all verl-ext errors."""


class InvalidInputError(VerlExtError, ValueError):
    """An argument has the right type but an unusable value."""


class ConfigError(InvalidInputError):
    """A configuration key is unknown or has an unusable value; the message names the key and what it accepts."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class InputTypeError(VerlExtError, TypeError):
    """An argument has a type verl-ext (and verl) cannot score, e.g. a non-string ground truth for math_dapo."""


class UnknownDataSourceError(VerlExtError, NotImplementedError):
    """No scorer is known for a data source; the message is the one verl raises."""

    def __init__(self, data_source: object) -> None:
        super().__init__(f"Reward function is not implemented for {data_source=}")
        self.data_source = data_source


class InternalError(VerlExtError, RuntimeError):
    """A bug in verl-ext (a Rust panic caught at the boundary). Please report it."""


class SandboxError(VerlExtError, RuntimeError):
    """Setting up a sandbox failed for one execution (not the program's fault)."""


class SandboxCancelledError(SandboxError):
    """A sandbox batch was stopped (Ctrl-C, or :func:`verl_ext.sandbox.cancel_running`): its executions were not
    run or were killed, so it has no verdicts to give."""


class SandboxUnavailableError(SandboxError):
    """This host cannot provide the isolation verl-ext requires (the message says what is missing)."""


class RewardFunctionError(VerlExtError, RuntimeError):
    """A user's reward function raised (with ``on_error: raise``); the message has its exception and traceback."""


def describe(e: BaseException, limit: int = 2000) -> str:
    """``"TypeName: message"`` of any exception, at most ``limit`` characters of message, never raising: a
    user's exception may have a ``__str__`` that raises, or a metaclass whose ``__name__`` does."""
    try:
        name = type.__dict__["__name__"].__get__(type(e), type)
    except Exception:  # noqa: BLE001 - no name to be had
        name = "exception"
    try:
        message = str(e)
        if type(message) is not str:
            raise TypeError("__str__ returned a non-string")
        message = message[:limit]
    except Exception:  # noqa: BLE001 - an exception that cannot be printed still gets described
        message = "<its message cannot be printed>"
    return f"{name}: {message}"
