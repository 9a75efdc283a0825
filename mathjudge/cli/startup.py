"""Start-up cost the commands can avoid.

pyarrow imports pandas (about a third of a second, more than DuckDB) the first time it builds
an array, only to ask whether the input is a pandas object. A command that is handed no pandas
object lets pyarrow find pandas absent at that first probe; pyarrow still imports pandas later
wherever a conversion needs it (it retries then), and so does any module that imports it.
"""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec


class _PandasAbsent:
    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name == "pandas":
            raise ImportError("pandas is not needed by this command")
        return None


def skip_pandas_probe() -> None:
    """Make pyarrow's first array probe find no pandas (a no-op once pandas is loaded)."""
    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    absent = _PandasAbsent()
    sys.meta_path.insert(0, absent)
    try:
        pa.array([])
    finally:
        sys.meta_path.remove(absent)
