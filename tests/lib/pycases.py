"""pycases.py - the case protocol of the Python tests (tests/python/*.py), as tests/lib/testlib.h is the C tests':
each case prints one line, "PASS name", "FAIL name: why" or "SKIP name: why" (tests/run_tests.sh counts them).

    from pycases import Skip, Fail, expect, run_case, failed
    run_case("name", lambda: expect(1 + 1 == 2, "arithmetic"))
    sys.exit(1 if failed() else 0)
"""
import importlib.util
import sys

_failures = 0


class Skip(Exception):
    pass


class Fail(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise Fail(why)


def run_case(name, fn):
    """Runs fn() as one case: PASS (with fn's return value as detail, if any), SKIP on Skip, FAIL on Fail or any
    other exception (an unexpected exception is a failure of its case, not of the program)."""
    global _failures
    try:
        detail = fn()
        print("PASS %s%s" % (name, " (%s)" % detail if detail else ""))
    except Skip as e:
        print("SKIP %s: %s" % (name, e))
    except Fail as e:
        _failures += 1
        print("FAIL %s: %s" % (name, e))
    except Exception as e:
        _failures += 1
        print("FAIL %s: unexpected %s: %s" % (name, type(e).__name__, " ".join(str(e).split())[:500]))
    sys.stdout.flush()


def failed():
    """How many cases failed so far."""
    return _failures


def gpu_absent():
    """None when PyTorch sees a CUDA device, else why not (the GPU cases use PyTorch)."""
    if importlib.util.find_spec("torch") is None:
        return "no GPU (PyTorch, which these cases use, is not installed)"
    import torch
    if not torch.cuda.is_available():
        return "no GPU (torch.cuda.is_available() is False)"
    return None
