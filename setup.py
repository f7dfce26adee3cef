"""Builds the compiled draughts core (bots/native) as the extensions bots.native._kdcore and
bots.native._kdcore64.

Everything else about the package is in pyproject.toml. Portable flags only (no
-march=native; on x86-64 only -mpopcnt, which every x86-64 processor since 2008 has): the
wheel runs on any x86-64 or arm64 machine of its platform. The extension is optional:
without a C compiler the install goes on and the bots use the pure-Python engine
(bots/engine/native.py falls back when the module cannot be imported); the test suite fails
in that case unless KONDAVO_ENGINE=python says the fallback is intended.
"""

import os
import platform

from setuptools import Extension, setup

# Without -mpopcnt each bit count is a library call (about 5% of a search);
# KONDAVO_PORTABLE_BUILD=1 leaves the flag out for a pre-2008 x86-64 processor.
EXTRA = (["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64")
         and os.environ.get("KONDAVO_PORTABLE_BUILD") != "1" else [])

# What kdcore.c includes: a change to any of them rebuilds both modules.
DEPENDS = [f"bots/native/{name}" for name in (
    "kdcore.c", "module.c", "movegen.c", "eval.c", "search.c", "tables.c",
    "kd_core.h", "eval.h", "search.h", "tables.h")]
FLAGS = ["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter",
         "-fno-strict-aliasing", *EXTRA]

# Two modules from the same sources, each one translation unit (kdcore.c includes the
# others): _kdcore with 128-bit boards (any board up to 128 squares) and _kdcore64 with
# 64-bit boards (up to 64 squares: every built-in ruleset), which bots/engine/native.py
# prefers where the board fits.
setup(
    ext_modules=[
        Extension(name, sources=[source], depends=DEPENDS,
                  extra_compile_args=FLAGS, optional=True)
        for name, source in (("bots.native._kdcore", "bots/native/kdcore.c"),
                             ("bots.native._kdcore64", "bots/native/kdcore64.c"))
    ],
)
