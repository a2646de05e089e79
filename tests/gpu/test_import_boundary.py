"""uvlab.gpu imports with NumPy alone: no Qt, astropy, casacore, app or widgets."""

import subprocess
import sys
import textwrap


def test_gpu_package_imports_without_forbidden_modules():
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        class Block:
            banned = ("PyQt6", "pyqtgraph", "astropy", "casacore", "uvlab.app", "uvlab.widgets")
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in self.banned or name.startswith(self.banned):
                    raise ImportError(f"forbidden import of {name} from uvlab.gpu")
        sys.meta_path.insert(0, Block())
        import uvlab.gpu
        for m in pkgutil.walk_packages(uvlab.gpu.__path__, "uvlab.gpu."):
            importlib.import_module(m.name)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
