"""Builds the compiled draughts core (bots/native) as the extension bots.native._kdcore.

Everything else about the package is in pyproject.toml. Portable flags only (no
-march=native): the wheel runs on any x86-64 or arm64 machine of its platform. The extension
is optional: without a C compiler the install goes on and the bots use the pure-Python
engine (bots/engine/native.py falls back when the module cannot be imported); the test
suite fails in that case unless KONDAVO_ENGINE=python says the fallback is intended.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "bots.native._kdcore",
            sources=["bots/native/module.c", "bots/native/movegen.c", "bots/native/eval.c",
                     "bots/native/search.c"],
            depends=["bots/native/kd_core.h", "bots/native/eval.h", "bots/native/search.h"],
            extra_compile_args=["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                                "-fno-strict-aliasing"],
            optional=True,
        )
    ],
)
