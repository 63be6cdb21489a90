# verl-ext-sandbox-harness: runs inside the sandbox as `python -I -S -B -c <this file>`.
# Reads the program from fd 4, runs it as __main__ with the sandbox's stdin/stdout/stderr.
# Exit codes: the program's own; 1 for an uncaught exception; 102 for MemoryError.
import os
import sys

MEMORY_EXIT_CODE = 102


def _read_payload(fd: int = 4) -> str:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "surrogateescape")


def _main() -> None:
    source = _read_payload()
    sys.argv = ["solution.py"]
    scope = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(compile(source, "solution.py", "exec"), scope)  # noqa: S102 - this is the sandbox
    except MemoryError:
        try:
            sys.stdout.flush()
        finally:
            os._exit(MEMORY_EXIT_CODE)
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - report any failure of the program
        import traceback

        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)


_main()
