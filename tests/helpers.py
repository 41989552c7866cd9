"""Assertions the tests of several modules share."""

from __future__ import annotations

import re

import numpy as np


def close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=rtol, atol=atol)


def live_op_count(text: str, name: str, func: str = "main") -> int:
    """How many `name` ops of a printed module feed func's results (dead ops are not counted),
    including those of the functions it calls."""
    bodies: dict[str, list[str]] = {}
    for line in text.splitlines():
        header = re.match(r"\s*func\.func (?:private |public )?@(\w+)", line)
        if header:
            current = bodies.setdefault(header.group(1), [])
        elif bodies:
            current.append(line.strip())
    defs = {}
    for line in bodies[func]:
        m = re.match(r"(%\w+)(?::\d+)? = \"?([\w.]+)", line)
        if m:
            defs[m.group(1)] = (line, m.group(2))
    work = [
        v for line in bodies[func] if line.startswith("return") for v in re.findall(r"%\w+", line)
    ]
    live: set[str] = set()
    while work:
        v = work.pop()
        if v in defs and v not in live:
            live.add(v)
            work.extend(re.findall(r"%\w+", defs[v][0].split("=", 1)[1]))
    total = 0
    for v in live:
        line, op = defs[v]
        total += op == name
        if op in ("call", "func.call"):
            total += live_op_count(text, name, re.search(r"@(\w+)", line).group(1))
    return total
