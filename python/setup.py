"""setup.py - puts libcgp.so into the cgp package being built (pyproject.toml has the rest): the
file CGP_LIBRARY names, else the repository's build/libcgp.so (`make` first). The wheel is then
platform-specific, as its contents are.
"""
import os

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        source = os.environ.get("CGP_LIBRARY") or os.path.join(os.path.dirname(HERE), "build", "libcgp.so")
        if not os.path.isfile(source):
            raise SystemExit("cgp: %s does not exist: run `make build/libcgp.so` in the repository first, or set "
                             "CGP_LIBRARY to a libcgp.so" % source)
        target = os.path.join(self.build_lib, "cgp", "libcgp.so")
        self.copy_file(source, target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
